"""The PyTorch workloads of scripts/gpu-check.sh. Each is run in its own process under
`cublasspy run`: `python3 workloads.py NAME`."""
import ctypes
import os
import sys
import time


def clean_step(steps=200):
    """A small MLP training step: Linear (cuBLASLt addmm), fp16 autocast (GemmEx), bmm."""
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        with torch.autocast("cuda", dtype=torch.float16):
            y = model(x)
            a = torch.bmm(y.view(16, 16, 1024), y.view(16, 1024, 16))
            loss = y.float().pow(2).mean() + a.float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"seconds={time.perf_counter() - t0:.4f}")


# nan_input and fp16_overflow make their tensors on the host and copy them, and test the result
# there: on a GPU that is the same program, and on the CPU stand-in, which runs GEMMs and copies
# but no PyTorch kernels, tests/pytorch/test_gpu_check.py can run it too.
def nan_input():
    """A NaN in a Linear layer's input: the scan must name that GEMM."""
    import torch
    lin = torch.nn.Linear(512, 256, bias=False).cuda()
    x = torch.randn(64, 512)
    x[5, 7] = float("nan")
    y = lin(x.cuda())
    torch.cuda.synchronize()
    print("nan in output:", bool(torch.isnan(y.cpu()).any()))


def fp16_overflow():
    """Finite fp16 inputs whose product exceeds 65504."""
    import torch
    a = torch.full((128, 128), 200.0, dtype=torch.float16).cuda()
    b = torch.full((128, 128), 200.0, dtype=torch.float16).cuda()
    c = a @ b
    torch.cuda.synchronize()
    print("inf in output:", bool(torch.isinf(c.cpu()).any()))


def bad_pointer():
    """A GEMM on an address that is not device memory, through ctypes: an illegal address that
    surfaces asynchronously; --sync must pin it on the cublasSgemm_v2 call."""
    import torch  # makes libcublas/libcudart of the wheel loadable
    torch.cuda.init()
    lib_dir = os.path.join(os.path.dirname(torch.__file__), "lib")
    def load(names):
        for n in names:
            for d in [lib_dir] + [os.path.join(p, "lib") for p in sys.path if "nvidia" in p] + [""]:
                try:
                    return ctypes.CDLL(os.path.join(d, n) if d else n)
                except OSError:
                    pass
        raise OSError(f"cannot load any of {names}")
    cublas = load(["libcublas.so.13", "libcublas.so.12"])
    cudart = load(["libcudart.so.13", "libcudart.so.12"])
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    n = 256
    good = ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(good), ctypes.c_size_t(n * n * 4)) == 0
    bad = ctypes.c_void_p(0x10000)  # not a device allocation
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    st = cublas.cublasSgemm_v2(handle, 0, 0, n, n, n, ctypes.byref(one), bad, n, good, n,
                               ctypes.byref(zero), good, n)
    err = cudart.cudaDeviceSynchronize()
    print(f"sgemm status={st} sync error={err}")


def embedding_out_of_range():
    """The field's case (a device-side assert that cuBLAS reports later): an embedding index out of range, then a Linear layer. The
    embedding's gather kernel trips a device-side assert; cuBLAS only reports it at the Linear's
    GEMM (or PyTorch at the next copy). Under `--sync all` the report must blame the embedding's
    kernel and name the line of this file that launched it: keep the embedding call on the line
    marked EMBEDDING-LINE (gpu_check.py looks for it)."""
    import torch
    emb = torch.nn.Embedding(100, 64).cuda()
    lin = torch.nn.Linear(64, 32).cuda()
    idx = torch.tensor([1, 2, 300], device="cuda")  # 300 >= 100: out of range
    try:
        h = emb(idx)  # EMBEDDING-LINE
        y = lin(h)
        print("result", y.sum().item())
    except RuntimeError as e:
        print("ERROR:", str(e).splitlines()[0])


def out_of_memory():
    """Out of memory at a GEMM: two operands that fit and an output that does not, each about a
    third of the device's free memory. Made with torch.empty, so no kernel runs and the host holds
    nothing: the same program on a GPU and on the stand-in (STANDIN_DEVICE_MEMORY)."""
    import torch
    free, _ = torch.cuda.mem_get_info()
    n = int((free * 0.34 / 4) ** 0.5)
    a = torch.empty(n, n, device="cuda")
    b = torch.empty(n, n, device="cuda")
    try:
        c = torch.mm(a, b)
        torch.cuda.synchronize()
        print("mm returned", c.shape)
    except torch.OutOfMemoryError as e:
        print("OOM:", str(e).splitlines()[0])


def graph_replay():
    """torch.cuda.graph of a linear layer (F.linear without bias: one cuBLAS GEMM), replayed on
    new inputs, as vLLM and torch.compile's reduce-overhead mode do. Under every mode of the shim
    the output must be what it is without the shim: a shim that synchronized, scanned or dumped
    inside the capture would break it. Inputs are made on the host and checked there (as for
    nan_input), so the CPU stand-in runs it too."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    weight = torch.randn(256, 512)
    static_in = torch.randn(64, 512).cuda()
    static_out = torch.zeros(64, 256).cuda()
    w = weight.cuda()
    side = torch.cuda.Stream()  # warm-up off the capture stream, as PyTorch's documentation shows
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            static_out.copy_(F.linear(static_in, w))
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out.copy_(F.linear(static_in, w))
    same = []
    for _ in range(5):
        x = torch.randn(64, 512)
        static_in.copy_(x.cuda())
        graph.replay()
        torch.cuda.synchronize()
        same.append(torch.allclose(static_out.cpu(), x @ weight.t(), rtol=1e-3, atol=1e-3))
    print("replays:", len(same), "equal eager:", all(same))


def missing_device():
    """CUDA_VISIBLE_DEVICES names a device that does not exist (set by the caller)."""
    import torch
    print("available:", torch.cuda.is_available(), "count:", torch.cuda.device_count())
    try:
        torch.zeros(1, device="cuda")
    except Exception as e:  # what users see
        print("error:", e)


def scan_throughput():
    """Large GEMM inputs, so that the per-call cost of CUBLASSPY_SCAN=inputs can be compared
    with copy bandwidth (the figure is computed by gpu_check.py from two runs)."""
    import torch
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
    t = time.perf_counter() - t0
    t1 = time.perf_counter()
    for _ in range(20):
        a.clone()
        b.clone()
    torch.cuda.synchronize()
    copy = time.perf_counter() - t1
    print(f"seconds={t:.4f} copy_seconds={copy:.4f} bytes_per_call={2 * n * n * 2}")


if __name__ == "__main__":
    globals()[sys.argv[1]]()
