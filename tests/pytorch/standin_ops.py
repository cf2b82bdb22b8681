"""Real PyTorch on the CUDA 12 stand-in: what must work without one of PyTorch's own kernels.

Run inside the PyTorch root (scripts/in-pytorch-root.sh) with LD_LIBRARY_PATH at
<build>/standin-cuda12. Every GPU result is compared with the same operation on the CPU (in
float64 on the same, already rounded, inputs). Each check prints one line; the exit status is the
number of failed checks, so a crash or a wrong answer fails the ctest that runs this.
"""
import os
import subprocess
import sys

import torch

failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (": " + detail if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def close(name, got, want, rtol, atol):
    got64, want64 = got.cpu().double(), want.double()
    err = (got64 - want64).abs().max().item() if got64.numel() else 0.0
    ok = got.shape == want.shape and torch.allclose(got64, want64, rtol=rtol, atol=atol)
    check(name, ok, f"shape {tuple(got.shape)}, max abs error {err:.3g}")


def main():
    torch.manual_seed(0)
    check("torch.cuda.is_available()", torch.cuda.is_available())
    check("device_count() == 1", torch.cuda.device_count() == 1, str(torch.cuda.device_count()))
    # Fields at their CUDA 12 offsets in struct cudaDeviceProp (cudaGetDeviceProperties_v2).
    p = torch.cuda.get_device_properties(0)
    check("device properties", (p.name, p.major, p.minor, p.multi_processor_count, p.total_memory)
          == ("Standin CPU Device", 9, 0, 132, 80 << 30), str(p))
    check("device properties, later fields",
          (p.L2_cache_size, p.max_threads_per_multi_processor, p.warp_size, p.regs_per_multiprocessor)
          == (50331648, 2048, 32, 65536),
          f"L2 {p.L2_cache_size}, threads/SM {p.max_threads_per_multi_processor}, "
          f"warp {p.warp_size}, regs/SM {p.regs_per_multiprocessor}")
    check("capability", torch.cuda.get_device_capability(0) == (9, 0))

    # Copies: host -> device -> host, device -> device, empty tensors (0-byte copies).
    x = torch.randn(33, 17)
    g = x.cuda()
    check("copy to device and back", torch.equal(g.cpu(), x))
    check("device to device copy", torch.equal(g.clone().cpu(), x))
    check("empty tensor round trip", torch.empty(0, 5).cuda().cpu().shape == (0, 5))
    check("pinned memory round trip", torch.equal(x.pin_memory().cuda(non_blocking=True).cpu(), x))
    free, total = torch.cuda.mem_get_info()
    check("mem_get_info", total == 80 << 30 and 0 < free <= total, f"{free} of {total}")

    a, b = torch.randn(64, 48), torch.randn(48, 80)
    close("mm fp32 (cublasSgemm)", torch.mm(a.cuda(), b.cuda()), a.double() @ b.double(), 1e-5, 1e-4)
    close("mm fp32, transposed operand", torch.mm(a.cuda(), b.t().contiguous().cuda().t()),
          a.double() @ b.double(), 1e-5, 1e-4)
    bias = torch.randn(80)
    close("addmm with bias (cuBLASLt, epilogue BIAS)", torch.addmm(bias.cuda(), a.cuda(), b.cuda()),
          bias.double() + a.double() @ b.double(), 1e-5, 1e-4)
    c = torch.randn(64, 80)
    close("addmm, beta and alpha", torch.addmm(c.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2.0),
          0.5 * c.double() + 2.0 * (a.double() @ b.double()), 1e-5, 1e-4)
    lin = torch.nn.Linear(48, 80)
    with torch.no_grad():
        want = lin(a).double()
        close("nn.Linear with bias", lin.cuda()(a.cuda()), want, 1e-5, 1e-4)
    ba, bb = torch.randn(5, 16, 24), torch.randn(5, 24, 8)
    close("bmm fp32 (strided batched)", torch.bmm(ba.cuda(), bb.cuda()), ba.double() @ bb.double(), 1e-5, 1e-4)
    bc = torch.randn(5, 16, 8)
    close("baddbmm", torch.baddbmm(bc.cuda(), ba.cuda(), bb.cuda(), beta=0.25, alpha=1.5),
          0.25 * bc.double() + 1.5 * (ba.double() @ bb.double()), 1e-5, 1e-4)
    for dtype, rtol in ((torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)):
        ha, hb = a.to(dtype), b.to(dtype)
        name = str(dtype).replace("torch.", "")
        close(f"mm {name} (cublasGemmEx)", torch.mm(ha.cuda(), hb.cuda()), ha.double() @ hb.double(), rtol, 1e-2)
        hba, hbb = ba.to(dtype), bb.to(dtype)
        close(f"bmm {name} (cublasGemmStridedBatchedEx)", torch.bmm(hba.cuda(), hbb.cuda()),
              hba.double() @ hbb.double(), rtol, 1e-2)
        hl = torch.nn.Linear(48, 80).to(dtype)
        with torch.no_grad():
            want = ha.double() @ hl.weight.double().t() + hl.bias.double()
            close(f"nn.Linear {name}", hl.cuda()(ha.cuda()), want, rtol, 2e-2)
    close("fp64 mm (cublasDgemm)", torch.mm(a.double().cuda(), b.double().cuda()), a.double() @ b.double(), 1e-12, 1e-12)
    close("mv (cublasSgemv)", torch.mv(a.cuda(), b[:, 0].contiguous().cuda()), a.double() @ b[:, 0].double(), 1e-5, 1e-4)
    close("dot (cublasSdot)", torch.dot(a[0].cuda(), a[1].cuda()), (a[0].double() * a[1].double()).sum(), 1e-5, 1e-4)

    # Events and streams (timing a copy), and a side stream.
    s = torch.cuda.Stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(s):
        start.record()
        y = x.cuda()
        end.record()
    end.synchronize()
    check("events on a side stream", start.elapsed_time(end) >= 0 and torch.equal(y.cpu(), x))
    torch.cuda.synchronize()

    # PyTorch's own kernels cannot run: the launch fails as on a GPU the fatbin has no code for.
    try:
        torch.ones(3, device="cuda")  # a fill kernel
        check("kernel launch fails (no kernel image)", False, "it succeeded")
    except RuntimeError as e:
        check("kernel launch fails (no kernel image)", "no kernel image" in str(e), str(e).splitlines()[0])

    # The GEMM paths are the ones named above: in a fresh process, the stand-in's fault plan
    # damages the first call of each function (adds 1 to element 0), and only that result is off.
    calls = (("cublasLtMatmul", "torch.addmm(z.cuda(), a.cuda(), b.cuda())"),
             ("cublasSgemm_v2", "torch.mm(a.cuda(), b.cuda())"),
             ("cublasGemmEx", "torch.mm(a.half().cuda(), b.half().cuda())"))
    prog = ("import torch; a = torch.ones(4, 4); b = torch.ones(4, 4); z = torch.zeros(4); "
            "print(' '.join(str(r.cpu()[0, 0].item()) for r in [" + ", ".join(c for _, c in calls) + "]))")
    plan = ";".join(f"{fn}:1" for fn, _ in calls)
    out = subprocess.run([sys.executable, "-c", prog], env=dict(os.environ, STANDIN_WRONG_RESULT=plan),
                         capture_output=True, text=True, timeout=120)
    got = out.stdout.split() if out.returncode == 0 else []
    for i, (fn, code) in enumerate(calls):
        value = got[i] if i < len(got) else out.stderr.strip()[-200:]
        check(f"{code} calls {fn}", value == "5.0", f"element 0 with {fn}:1 damaged: {value}")

    # Kernel launches scripted by the fault plan: the first succeeds doing nothing (the fresh
    # memory stays zero), the second "runs" and faults. The stand-in has finished the kernel by
    # the time PyTorch checks the launch (cudaGetLastError), so the error shows there already.
    prog = ("import torch\n"
            "print(torch.ones(3, device='cuda').cpu().tolist())\n"
            "try:\n    torch.ones(3, device='cuda')\n    torch.cuda.synchronize()\n    print('no error')\n"
            "except RuntimeError as e:\n    print(str(e).splitlines()[0])\n"
            "try:\n    torch.zeros(2).cuda()\n    print('later copy ok')\n"
            "except RuntimeError as e:\n    print('later copy: ' + str(e).splitlines()[0])\n")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, STANDIN_FAIL="cudaLaunchKernel:1:0",
                                  STANDIN_ASYNC_ERROR="cudaLaunchKernel:2:700"))
    lines = out.stdout.splitlines()
    check("STANDIN_FAIL=cudaLaunchKernel:1:0: the launch succeeds, does nothing",
          lines[:1] == ["[0.0, 0.0, 0.0]"], (lines or [out.stderr[-200:]])[0])
    check("STANDIN_ASYNC_ERROR=cudaLaunchKernel:2:700: an illegal address, sticky",
          len(lines) > 2 and "illegal memory access" in lines[1] and "illegal memory access" in lines[2],
          " | ".join(lines[1:]) or out.stderr[-200:])

    print(f"{len(failures)} failed: {failures}" if failures else "all checks passed")
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
