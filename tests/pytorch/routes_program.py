"""Runs in the PyTorch root (started by test_routes.py): one GEMM route after the other.

For each operation it prints one JSON line describing the operands as PyTorch holds them
(shape, strides, dtype, data pointer) and one "result" line (a digest of the output, read back
with a copy), so the test can compute the expected cuBLAS arguments and compare the output with
and without the shim. Only copies and cuBLAS run: the stand-in has no kernels of PyTorch's own.
ROUTES (environment) picks the set: "default", "no_lt" (DISABLE_ADDMM_CUDA_LT=1), "prefer_lt".
"""
import json
import os

import torch

torch.manual_seed(0)


def describe(t):
    return {"shape": list(t.shape), "stride": list(t.stride()), "dtype": str(t.dtype).replace("torch.", ""),
            "ptr": t.data_ptr()}


def op(name, fn, alpha=1.0, beta=0.0, **operands):
    out = fn()
    print(json.dumps({"op": name, "alpha": alpha, "beta": beta, "out": describe(out),
                      **{k: describe(v) for k, v in operands.items()}}), flush=True)
    host = out.cpu().double()
    print(f"result {name}: shape {tuple(out.shape)} sum {host.sum().item():.9g} "
          f"first {host.flatten()[0].item():.9g} last {host.flatten()[-1].item():.9g}", flush=True)


def dev(*shape):
    return torch.randn(*shape).cuda()


def to(t, dtype):  # a conversion on the device would be a kernel: convert on the CPU
    return t.cpu().to(dtype).cuda()


routes = os.environ.get("ROUTES", "default")
a, b = dev(64, 48), dev(48, 80)
if routes == "default":
    op("mm", lambda: torch.mm(a, b), a=a, b=b)
    at = dev(48, 64).t()  # column-major: cuBLAS sees it transposed
    op("mm transposed mat1", lambda: torch.mm(at, b), a=at, b=b)
    bt = dev(80, 48).t()
    op("mm transposed mat2", lambda: torch.mm(a, bt), a=a, b=bt)
    sa, sb = dev(64, 100)[:, 10:58], dev(48, 120)[:, 5:85]  # slices: ld from the parent's stride
    op("mm sliced", lambda: torch.mm(sa, sb), a=sa, b=sb)
    lin = torch.nn.Linear(48, 80).cuda()
    with torch.no_grad():
        op("Linear with bias", lambda: lin(a), beta=1.0, a=a, b=lin.weight.t(), bias=lin.bias)
        nob = torch.nn.Linear(48, 80, bias=False).cuda()
        op("Linear without bias", lambda: nob(a), a=a, b=nob.weight.t())
    ba, bb = dev(5, 16, 24), dev(5, 24, 8)
    op("bmm", lambda: torch.bmm(ba, bb), a=ba, b=bb)
    for dtype in (torch.float16, torch.bfloat16):
        ha, hb = to(a, dtype), to(b, dtype)
        op(f"mm {dtype}", lambda: torch.mm(ha, hb), a=ha, b=hb)
        hba, hbb = to(ba, dtype), to(bb, dtype)
        op(f"bmm {dtype}", lambda: torch.bmm(hba, hbb), a=hba, b=hbb)
    torch.backends.cuda.matmul.allow_tf32 = True
    op("mm allow_tf32", lambda: torch.mm(a, b), a=a, b=b)
    torch.backends.cuda.matmul.allow_tf32 = False
    op("mm after allow_tf32 off", lambda: torch.mm(a, b), a=a, b=b)
elif routes == "no_lt":
    lin = torch.nn.Linear(48, 80).cuda()
    with torch.no_grad():
        op("Linear with bias", lambda: lin(a), beta=1.0, a=a, b=lin.weight.t(), bias=lin.bias)
elif routes == "prefer_lt":
    op("mm", lambda: torch.mm(a, b), a=a, b=b)
    ba, bb = dev(5, 16, 24), dev(5, 24, 8)
    op("bmm", lambda: torch.bmm(ba, bb), a=ba, b=bb)
