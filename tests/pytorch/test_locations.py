"""Which line of the program made the failing GEMM (CUBLASSPY_STACKS), with real PyTorch.

A torch.mm two functions deep in a script fails (the stand-in's fault script); the report names
both lines, in the JSON (python_stack) and in the text ("made at program.py:L in inner <- ...").
CUBLASSPY_STACKS=none records nothing; under CUBLASSPY_STACKS=all a crash inside the GEMM still
has the location, taken before the call, and the faulting PC. Under --sync all the kernel an
out-of-range embedding index makes fault is pinned, with the lines that launched it. The
bug-report bundle of the failing run gives the Python line and PyTorch in its report.md.
Usage: test_locations.py <repository root> <build directory>
"""
import os
import subprocess
import sys
import tarfile

from scenario import Scenario, calls

PROGRAM = """import torch


def inner(a, b):
    return torch.mm(a, b)


def outer():
    a, b = torch.ones(64, 48).cuda(), torch.ones(48, 80).cuda()
    return inner(a, b)


try:
    print("result", outer().cpu()[0, 0].item())
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""
INNER_LINE = 5   # return torch.mm(a, b)
OUTER_LINE = 10  # return inner(a, b)

# The field's case (scripts/gpu/gpu_check.py's embedding case): an embedding index out
# of range before a Linear layer. On the stand-in the embedding's kernel "faults" with a
# device-side assert (STANDIN_ASYNC_ERROR on the first kernel launch, which is the embedding's
# index_select: the copies before it are no launches); under --sync all the shim pins that
# kernel, and the report names the Python lines that launched it.
EMBEDDING = """import torch


def embed(table, ids):
    return table(ids)


def forward(table, lin, ids):
    h = embed(table, ids)
    return lin(h)


table, lin = torch.nn.Embedding(10, 4).cuda(), torch.nn.Linear(4, 3).cuda()
ids = torch.tensor([1, 12]).cuda()
try:
    print("result", forward(table, lin, ids).cpu().tolist())
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""
EMBED_LINE = 5     # return table(ids)
FORWARD_LINE = 9   # h = embed(table, ids)


def sgemm(report):
    found = calls(report, "cublasSgemm_v2", nested=False)
    return found[0] if found else None


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    failing, none, crash, embedding = s.parallel(
        lambda: s.torch(PROGRAM, env={"STANDIN_FAIL": "cublasSgemm_v2:1:13"}),
        lambda: s.torch(PROGRAM, env={"STANDIN_FAIL": "cublasSgemm_v2:1:13", "CUBLASSPY_STACKS": "none"}),
        lambda: s.torch(PROGRAM, env={"STANDIN_CRASH": "cublasSgemm_v2:1:SIGSEGV", "CUBLASSPY_STACKS": "all"}),
        lambda: s.torch(EMBEDDING, env={"STANDIN_ASYNC_ERROR": "cudaLaunchKernel:1:710", "CUBLASSPY_SYNC": "all"}))

    s.check("the failing mm raised in PyTorch", "CUBLAS_STATUS_EXECUTION_FAILED" in failing.stdout,
            (failing.stdout + failing.stderr)[-300:])
    call = sgemm(s.report(*failing.traces))
    s.check("the failing Sgemm is recorded", call is not None and call["failed"])
    stack = (call or {}).get("python_stack", [])
    top = [(f["file"].rsplit("/", 1)[-1], f["line"], f["function"]) for f in stack[:2]]
    s.check("python_stack names inner's and outer's lines, innermost first",
            top == [("program.py", INNER_LINE, "inner"), ("program.py", OUTER_LINE, "outer")], stack[:3])
    s.check("the module's own frame is below them", len(stack) >= 3 and stack[2]["function"] == "<module>", stack[2:3])
    native = (call or {}).get("native_stack", [])
    symbols = [f["symbol"] or "" for f in native]
    s.check("native_stack holds PyTorch's frames, demangled",
            any(x.startswith("at::native::structured_mm_out_cuda") for x in symbols) and
            any(x.startswith("at::_ops::mm::call") for x in symbols), symbols[:10])
    s.check("native frames have module and offset",
            bool(native) and all(f["module"] and f["offset"].startswith("0x") for f in native[:3]), native[:2])
    text = subprocess.run([s.cli, "report", *failing.traces], capture_output=True, text=True).stdout
    want = f"made at program.py:{INNER_LINE} in inner <- program.py:{OUTER_LINE} in outer"
    s.check("the text report says where the call was made", want in text, text[-800:])
    text_all = subprocess.run([s.cli, "report", "--all", *failing.traces], capture_output=True, text=True).stdout
    s.check("--all adds the native frames", "native: " in text_all and "at::_ops::mm::call <- " in text_all,
            text_all[-600:])

    bundled(s, failing)

    call = sgemm(s.report(*none.traces))
    s.check("CUBLASSPY_STACKS=none records no location",
            call is not None and call["failed"] and "python_stack" not in call and "native_stack" not in call,
            call and sorted(call))

    s.check("the crash killed the program", crash.rc != 0, crash.rc)
    call = sgemm(s.report(*crash.traces))
    s.check("the crashed Sgemm is in flight", call is not None and call["state"] == "in_flight" and call.get("crashed"),
            call and call["state"])
    stack = (call or {}).get("python_stack", [])
    s.check("under all, the crashed call has its Python location",
            [(f["line"], f["function"]) for f in stack[:2]] == [(INNER_LINE, "inner"), (OUTER_LINE, "outer")], stack[:2])
    s.check("and the faulting PC", bool((call or {}).get("fault_pc")), call and call.get("fault_pc"))

    pinned_line(s, embedding)
    return s.finish()


def bundled(s, run):
    """`cublasspy bundle` of the failing run: report.md says where the call was made and that PyTorch
    made it; the Sgemm's reproducers are in the archive."""
    archive = os.path.join(run.trace_dir, "issue.tar.gz")
    out = s.cli_run(["bundle", "-o", archive, *run.traces])
    s.check("cublasspy bundle writes the archive", out.returncode == 0 and os.path.exists(archive), out.stderr[-500:])
    names, md = [], ""
    if os.path.exists(archive):
        with tarfile.open(archive) as tar:
            names = tar.getnames()
            if "issue/report.md" in names:
                md = tar.extractfile("issue/report.md").read().decode()
    want = f"**Python:** `made at program.py:{INNER_LINE} in inner <- program.py:{OUTER_LINE} in outer"
    s.check("report.md gives the failing call's Python line", want in md, md[:1500])
    s.check("report.md names PyTorch as the framework", "| Framework | PyTorch (`" in md, md[:1500])
    s.check("the failing Sgemm's C++ and PyTorch reproducers are in the bundle",
            any(n.startswith("issue/reproducers/") and n.endswith(".cpp") for n in names) and
            any(n.startswith("issue/reproducers/") and n.endswith(".py") for n in names), names)


def pinned_line(s, run):
    """--sync all pins the embedding's kernel; the report says which lines launched it."""
    s.check("the embedding's fault raised in PyTorch", "ERROR: CUDA error: device-side assert triggered" in run.stdout,
            (run.stdout + run.stderr)[-300:])
    report = s.report(*run.traces)
    d = next((x for x in report["diagnoses"] if x["id"] == "async-error"), None)
    s.check("async-error pins the embedding's kernel (index_select) under --sync all",
            d is not None and "the GPU work launched by" in d["summary"] and "indexSelect" in d["summary"]
            and d.get("launch"), d or [x["id"] for x in report["diagnoses"]])
    # The innermost frames are torch.nn's own (Module.__call__, Embedding.forward, F.embedding);
    # the program's two lines follow them.
    want = f"program.py:{EMBED_LINE} in embed <- program.py:{FORWARD_LINE} in forward"
    where = (d or {}).get("location", "")
    s.check("the diagnosis says which lines launched it", where.startswith("launched at ") and want in where, where)
    launches = next((t.get("launches") for t in report["traces"] if t.get("launches")), {})
    failed = launches.get("first_failed") or {}
    stack = failed.get("python_stack", [])
    s.check("launches.first_failed is the pinned launch, with its python_stack",
            d is not None and failed.get("launch") == d.get("launch") and failed.get("async_status") == 710 and
            [(f["line"], f["function"]) for f in stack if f["file"].endswith("/program.py")][:2] ==
            [(EMBED_LINE, "embed"), (FORWARD_LINE, "forward")], failed)
    symbols = [f["symbol"] or "" for f in failed.get("native_stack", [])]
    s.check("and its native_stack, through PyTorch's index_select",
            any("index_select" in x for x in symbols), symbols[:12])
    text = subprocess.run([s.cli, "report", *run.traces], capture_output=True, text=True).stdout
    s.check("the text report shows the line under the diagnosis", want in text, text[-1200:])


if __name__ == "__main__":
    sys.exit(main())
