"""torch.cuda.graph on the CUDA 12 stand-in: capture, replay, the same result as eager.

Run inside the PyTorch root with LD_LIBRARY_PATH at <build>/standin-cuda12, e.g.
    tests/pytorch/run_in_root.sh <repo> <build>/standin-cuda12 graph_capture.py
The stand-in runs no kernel of PyTorch's own, so the captured work is what it does compute:
copies and cuBLAS GEMMs. The graph multiplies a static input by a weight (F.linear without bias:
cublasSgemm) and copies the product into a static output; nothing may run at the capture, and
each replay after a new input is copied into the static input must give the eager result for
that input. Last, a synchronization inside a capture must fail as on a GPU. Prints one line per
check; the exit status is the number of failed checks.

torch.cuda.graph's capture_begin and replay fill the CUDA generator's seed and offset tensors
(fill_ kernels, outside the graph); those kernels cannot run on the stand-in, so this script scripts
every kernel launch to succeed doing nothing (STANDIN_FAIL=cudaLaunchKernel:*:0, set before the
first CUDA call unless the environment sets a plan). Nothing checked here depends on them.
"""
import os
import sys
import tempfile
import warnings

os.environ.setdefault("STANDIN_FAIL", "cudaLaunchKernel:*:0")

import torch  # noqa: E402  (after the fault plan)
import torch.nn.functional as F  # noqa: E402

failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (": " + detail if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def main():
    warnings.filterwarnings("ignore", message="DEBUG")  # debug_dump's own chatter
    torch.manual_seed(0)
    weight = torch.randn(4, 8).cuda()           # torch.nn.Linear(8, 4).weight, without the bias
    static_in = torch.randn(16, 8).cuda()
    static_out = torch.empty(16, 4, device="cuda")

    # Warm-up on a side stream, as PyTorch's documentation of torch.cuda.graph shows: the first
    # calls create the cuBLAS handle and workspace outside the capture.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            static_out.copy_(F.linear(static_in, weight))
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    # Capture: nothing runs (the static output keeps what was copied in before), and the graph
    # holds the GEMM and the copy (PyTorch keeps it for debug_dump in debug mode).
    static_out.copy_(torch.zeros(16, 4).cuda())
    graph = torch.cuda.CUDAGraph()
    graph.enable_debug_mode()
    with torch.cuda.graph(graph):
        static_out.copy_(F.linear(static_in, weight))
    check("capture ran nothing", torch.equal(static_out.cpu(), torch.zeros(16, 4)))
    with tempfile.TemporaryDirectory() as tmp:
        dot = os.path.join(tmp, "graph.dot")
        graph.debug_dump(dot)
        with open(dot) as f:
            nodes = [line for line in f if "label=" in line]
    check("the graph holds the GEMM and the copy (cudaGraphDebugDotPrint)",
          any("gemm" in n for n in nodes) and any("memcpy" in n for n in nodes), " | ".join(n.strip() for n in nodes))

    for replay in range(3):
        x = torch.randn(16, 8)
        static_in.copy_(x.cuda())
        graph.replay()
        torch.cuda.synchronize()
        want = x.double() @ weight.cpu().double().t()
        got = static_out.cpu().double()
        err = (got - want).abs().max().item()
        check(f"replay {replay + 1} equals eager F.linear", torch.allclose(got, want, rtol=1e-5, atol=1e-5),
              f"max abs error {err:.3g}")
        eager = F.linear(static_in, weight).cpu().double()
        check(f"replay {replay + 1} equals the eager result on the stand-in", torch.equal(got, eager))

    # Strict capture: synchronizing inside a (global-mode) capture fails as on a GPU, and the
    # capture is invalidated, which ending it reports.
    broken = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(broken):
            static_out.copy_(F.linear(static_in, weight))
            torch.cuda.synchronize()
        check("torch.cuda.synchronize() inside a capture fails", False, "it succeeded")
    except RuntimeError as e:  # the synchronize's error, then capture_end's (901) in __exit__
        first = e.__context__ if isinstance(e.__context__, RuntimeError) else e
        check("torch.cuda.synchronize() inside a capture fails",
              "operation not permitted when stream is capturing" in str(first),
              " / ".join(str(x).splitlines()[0] for x in (first, e) if x is not None))

    print(f"{len(failures)} failed: {failures}" if failures else "all checks passed")
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
