"""An embedding index out of range, with the GPU's timing, where users meet it: real PyTorch.

An Embedding(10, 4) looked up with index 12 trips a device-side assert in its lookup kernel
(index_select). On a GPU the launch and PyTorch's check right after it succeed; the fault
surfaces at the next call that checks the device. The stand-in plays that timing with
STANDIN_DELAYED_ERROR=cudaLaunchKernel:1:710 (the lookup is the first kernel launch: the copies
before it are no launches). Each run is a default one (no --sync):
- first GEMM: a Linear is the program's first GEMM, so PyTorch creates the cuBLAS handle there:
  "CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`". cublas-init-failed names
  the lookup kernel instead of memory or the context.
- next GEMM: a GEMM ran before (the handle exists); the Linear after the lookup fails with
  CUBLAS_STATUS_EXECUTION_FAILED; execution-failed names the lookup kernel as the earlier fault.
- host copy: `.cpu()` after the lookup: "device-side assert triggered" at the copy; async-error
  surfaced at cudaMemcpyAsync, with the lookup kernel among the suspects.
Usage: test_delayed_faults.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, diagnosis

FIRST_GEMM = """import torch
table, lin = torch.nn.Embedding(10, 4).cuda(), torch.nn.Linear(4, 3).cuda()
ids = torch.tensor([1, 12]).cuda()
try:
    h = table(ids)
    print("lookup returned", flush=True)
    y = lin(h)
    print("result", y.cpu().tolist())
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""
FIRST_GEMM_LINE = 7  # y = lin(h)

NEXT_GEMM = """import torch
table, lin = torch.nn.Embedding(10, 4).cuda(), torch.nn.Linear(4, 3).cuda()
print("warm-up", lin(torch.ones(2, 4).cuda()).cpu().shape, flush=True)
ids = torch.tensor([1, 12]).cuda()
try:
    h = table(ids)
    print("lookup returned", flush=True)
    y = lin(h)
    print("GEMM returned", flush=True)
    print("result", y.cpu().tolist())
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""
NEXT_GEMM_LINE = 8  # y = lin(h)

HOST_COPY = """import torch
table = torch.nn.Embedding(10, 4).cuda()
ids = torch.tensor([1, 12]).cuda()
try:
    h = table(ids)
    print("lookup returned", flush=True)
    print("result", h.cpu().tolist())
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""
HOST_COPY_LINE = 7  # h.cpu()

DELAYED = {"STANDIN_DELAYED_ERROR": "cudaLaunchKernel:1:710"}
LOOKUP = "indexSelect"  # at::native::(anonymous namespace)::indexSelectSmallIndex<...>


def ids(report):
    return [d["id"] for d in report["diagnoses"]]


def check_common(s, name, run, want_error):
    s.check(f"{name}: the lookup's launch and PyTorch's check after it succeed", "lookup returned" in run.stdout,
            (run.stdout + run.stderr)[-400:])
    s.check(f"{name}: PyTorch reports {want_error!r}", f"ERROR: {want_error}" in run.stdout,
            (run.stdout + run.stderr)[-400:])


def check_earlier_kernel(s, name, report, ident, line):
    """The finding `ident` blames the lookup kernel, names its launch, and sits at `line`."""
    d = diagnosis(report, ident)
    s.check(f"{name}: {ident} says an earlier kernel faulted and names the lookup kernel",
            d is not None and "an earlier kernel most likely faulted (" in d["summary"] and LOOKUP in d["summary"]
            and "1 launch put work on the device before it" in d["evidence"], d or ids(report))
    # The launch the finding names (JSON `launch`) is the lookup's: its evidence lists it so.
    listed = d is not None and d["evidence"].split("before it: ", 1)[-1]
    s.check(f"{name}: the finding's launch is the lookup's",
            bool(listed) and d.get("launch") is not None and LOOKUP in listed
            and f"(cudaLaunchKernel, grid 1x1x1, block 4x1x1, stream 0x0, launch #{d['launch']})" in listed,
            d and (d.get("launch"), listed))
    s.check(f"{name}: the advice pins the kernel, not memory or the context",
            d is not None and "--sync all" in d["advice"] and "set_device" not in d["advice"], d and d["advice"])
    s.check(f"{name}: the advice names the lookup's usual cause (the kernel table's words)",
            d is not None and "num_embeddings" in d["advice"] and "resize_token_embeddings" in d["advice"],
            d and d["advice"])
    s.check(f"{name}: the finding is located at line {line}, where the error surfaced",
            d is not None and f"program.py:{line} in <module>" in d.get("location", ""), d and d.get("location"))


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    first, following, copy = s.parallel(lambda: s.torch(FIRST_GEMM, env=DELAYED),
                                         lambda: s.torch(NEXT_GEMM, env=DELAYED),
                                         lambda: s.torch(HOST_COPY, env=DELAYED))

    # a. The first GEMM creates the handle on the poisoned context.
    check_common(s, "first GEMM", first,
                 "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`")
    report = s.report(*first.traces)
    check_earlier_kernel(s, "first GEMM", report, "cublas-init-failed", FIRST_GEMM_LINE)
    d = diagnosis(report, "cublas-init-failed")
    s.check("first GEMM: not the memory advice either", d is not None and "nvidia-smi" not in d["advice"],
            d and d["advice"])

    # b. The handle exists: the next GEMM fails.
    check_common(s, "next GEMM", following, "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling")
    report = s.report(*following.traces)
    check_earlier_kernel(s, "next GEMM", report, "execution-failed", NEXT_GEMM_LINE)
    s.check("next GEMM: no cublas-init-failed (the handle was created before the fault)",
            "cublas-init-failed" not in ids(report), ids(report))

    # c. The error at the host copy.
    check_common(s, "host copy", copy, "CUDA error: device-side assert triggered")
    report = s.report(*copy.traces)
    d = diagnosis(report, "async-error")
    s.check("host copy: async-error surfaced at the copy, the lookup kernel among the suspects",
            d is not None and "surfaced at cudaMemcpyAsync" in d["summary"] and "cudaErrorAssert (710)" in d["summary"]
            and LOOKUP in d["evidence"], d or ids(report))
    s.check("host copy: the advice names the lookup's usual cause",
            d is not None and "num_embeddings" in d["advice"], d and d["advice"])
    s.check("host copy: the finding is located at the .cpu() line",
            d is not None and f"program.py:{HOST_COPY_LINE} in <module>" in d.get("location", ""),
            d and d.get("location"))
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
