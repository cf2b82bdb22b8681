"""Asynchronous faults and bad data in real PyTorch GEMMs, and a replay of one.

- An illegal address inside a cublasSgemm (the stand-in's STANDIN_ASYNC_ERROR: the call
  succeeds, its "kernel" faults): PyTorch reports it at the next copy. Without --sync the report
  says it surfaced at that cudaMemcpyAsync (the launch ring records it); with CUBLASSPY_SYNC=1 it
  pins the GEMM.
- A fill kernel (torch.full on the device): the launch ring records it by name.
- A NaN in an nn.Linear input: CUBLASSPY_SCAN=inputs finds it in that call, at the right element.
- An fp16 matmul that overflows: CUBLASSPY_SCAN=all reports half-overflow.
- A GEMM that fails for its shape (STANDIN_FAIL_SHAPE): `cublasspy replay --emit-python` writes a
  script that, run with the root's torch on the stand-in, fails the same way.
Usage: test_async_and_data.py <repository root> <build directory>
"""
import os
import sys

from scenario import Scenario, calls, diagnosis

ASYNC = """
import torch
a, b = torch.ones(64, 48).cuda(), torch.ones(48, 80).cuda()
c = torch.mm(a, b)          # faults on the device; the call itself succeeds
print("mm returned", flush=True)
try:
    print("result", c.cpu()[0, 0].item())
except RuntimeError as e:
    print("ERROR at the copy:", str(e).splitlines()[0])
"""

NAN = """
import torch
torch.manual_seed(0)
lin = torch.nn.Linear(48, 80).cuda()
x = torch.randn(64, 48)
x[3, 5] = float("nan")
with torch.no_grad():
    y = lin(x.cuda())
print("nan in output:", y.cpu().isnan().any().item())
"""

OVERFLOW = """
import torch
a = torch.full((64, 48), 300.0, dtype=torch.float16).cuda()
b = torch.full((48, 80), 300.0, dtype=torch.float16).cuda()
print("inf in output:", torch.mm(a, b).cpu().isinf().all().item())
"""

# The stand-in runs none of PyTorch's own kernels: it refuses the launch (no kernel image, 209),
# which PyTorch raises. The launch is recorded, by name, all the same.
FILL = """
import torch
try:
    x = torch.full((1000,), 2.0, device="cuda")
    torch.cuda.synchronize()
    print("filled", flush=True)
except RuntimeError as e:
    print("launch refused:", str(e).splitlines()[0], flush=True)
"""

SHAPE_FAULT = {"STANDIN_FAIL_SHAPE": "80,64,48:13"}


def gemm(report, function="cublasSgemm_v2"):
    return calls(report, function, nested=False)


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    fault = {"STANDIN_ASYNC_ERROR": "cublasSgemm_v2:1:700"}
    later, pinned, nan, overflow, shape, fill = s.parallel(
        lambda: s.torch(ASYNC, env=fault),
        lambda: s.torch(ASYNC, env=dict(fault, CUBLASSPY_SYNC="1")),
        lambda: s.torch(NAN, env={"CUBLASSPY_SCAN": "inputs"}),
        lambda: s.torch(OVERFLOW, env={"CUBLASSPY_SCAN": "all"}),
        lambda: s.torch(ASYNC, env=SHAPE_FAULT),
        lambda: s.torch(FILL))

    report = s.report(*fill.traces)
    kernels = [k for t in report["traces"] for k in (t.get("launches") or {}).get("kernels", [])]
    s.check("fill kernel: the launch ring names PyTorch's fill kernel (demangled)",
            ("filled" in fill.stdout or "launch refused" in fill.stdout) and
            any("FillFunctor" in k["name"] and k["function"] == "cudaLaunchKernel" and k["launches"] >= 1
                for k in kernels),
            ([k["name"][:120] for k in kernels][:8], (fill.stdout + fill.stderr)[-400:]))

    for name, run in (("without --sync", later), ("with CUBLASSPY_SYNC=1", pinned)):
        s.check(f"illegal address {name}: PyTorch reports it at the copy after the GEMM",
                "mm returned" in run.stdout and "ERROR at the copy: CUDA error: an illegal memory access" in run.stdout,
                (run.stdout + run.stderr).strip()[-300:])
        report = s.report(*run.traces)
        d = diagnosis(report, "async-error")
        sgemm = gemm(report)[0]
        if run is later:
            # PyTorch's next call is cudaMemcpyAsync, and PyTorch raises there without
            # synchronizing: the launch ring records the copy and the error it returned.
            s.check("without --sync: async-error surfaced at the cudaMemcpyAsync, advising --sync all",
                    d is not None and "surfaced at cudaMemcpyAsync" in d["summary"] and "--sync all" in d["advice"],
                    d or [x["id"] for x in report["diagnoses"]])
            continue
        s.check(f"illegal address {name}: diagnosis async-error", d is not None,
                [x["id"] for x in report["diagnoses"]])
        s.check("with CUBLASSPY_SYNC=1: the error is pinned to the GEMM",
                d is not None and d["call"] == sgemm["seq"] and sgemm.get("async_pinned") is True,
                f"diagnosis call {d and d['call']}, GEMM #{sgemm['seq']}")
        s.check("with CUBLASSPY_SYNC=1: the evidence names the GEMM's shape",
                d is not None and "m=80" in d["evidence"].replace(" ", ""), d and d["evidence"])

    s.check("NaN input: PyTorch's output has NaN", "nan in output: True" in nan.stdout, nan.stdout + nan.stderr[-300:])
    report = s.report(*nan.traces)
    d = diagnosis(report, "non-finite-input")
    lt = calls(report, "cublasLtMatmul", nested=False)
    s.check("NaN input: diagnosis non-finite-input at the Linear's cublasLtMatmul",
            d is not None and len(lt) == 1 and d["call"] == lt[0]["seq"], [x["id"] for x in report["diagnoses"]])
    if lt and lt[0]["scan"]:
        # x is cuBLAS's B (k x n column-major = x^T): x[3, 5] is B's row 5, column 3.
        b = lt[0]["scan"].get("b") or {}
        s.check("NaN input: the scan finds 1 NaN in B at row 5, column 3",
                b.get("nan") == 1 and b.get("first") == {"row": 5, "col": 3, "batch": 0}, lt[0]["scan"])

    s.check("fp16 overflow: PyTorch's output is all Inf", "inf in output: True" in overflow.stdout,
            overflow.stdout + overflow.stderr[-300:])
    report = s.report(*overflow.traces)
    d = diagnosis(report, "half-overflow")
    ex = gemm(report, "cublasGemmEx")
    s.check("fp16 overflow: diagnosis half-overflow at the cublasGemmEx",
            d is not None and ex and d["call"] == ex[0]["seq"], [x["id"] for x in report["diagnoses"]])

    # Replay: the shape that fails, as a PyTorch script, run in the root on the stand-in.
    report = s.report(*shape.traces)
    failing = gemm(report)
    s.check("shape fault: PyTorch reports CUBLAS_STATUS_EXECUTION_FAILED",
            "CUBLAS_STATUS_EXECUTION_FAILED" in shape.stdout + shape.stderr, shape.stdout[-300:])
    if failing and shape.traces:
        script = os.path.join(shape.trace_dir, "repro.py")
        out = s.cli_run(["replay", shape.traces[0], "--call", str(failing[0]["seq"]), "--emit-python", script,
                         "--no-run"])
        s.check("replay --emit-python writes a script", out.returncode == 0 and os.path.isfile(script),
                out.stdout[-300:] + out.stderr[-300:])
        if os.path.isfile(script):
            # PyTorch's own kernels (conversions, copy_) cannot run on the stand-in: they are made
            # to succeed doing nothing; the GEMM runs for real.
            no_kernels = {"STANDIN_FAIL": "cudaLaunchKernel:*:0"}
            code = open(script).read()
            again, healthy = s.parallel(lambda: s.torch(code, env=dict(SHAPE_FAULT, **no_kernels)),
                                        lambda: s.torch(code, env=no_kernels))
            s.check("the emitted script fails the same way in the root on the stand-in",
                    again.rc != 0 and "CUBLAS_STATUS_EXECUTION_FAILED" in again.stderr, again.stderr.strip()[-400:])
            replayed = gemm(s.report(*healthy.traces))
            keys = ("transa", "transb", "m", "n", "k", "lda", "ldb", "ldc", "alpha", "beta", "a_type")
            want = {k: failing[0]["args"][k] for k in keys}
            got = {k: replayed[0]["args"].get(k) for k in keys} if replayed else None
            s.check("without the fault the script makes the captured call, argument for argument",
                    healthy.rc in (0, 1) and got == want, f"{got} vs {want}: {healthy.stderr.strip()[-300:]}")
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
