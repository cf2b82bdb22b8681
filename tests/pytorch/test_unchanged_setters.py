"""A loop of torch.mm with real PyTorch: before each GEMM PyTorch sets the handle's stream, its
workspace and its math mode, almost always to what the handle already holds. The trace holds one
GEMM record per torch.mm, the setters' calls are all counted, and those that changed nothing have
no record: only the few that changed a value do. Every GEMM record carries the handle's stream,
math mode and workspace.
Usage: test_unchanged_setters.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, calls

MMS = 500
PROGRAM = """import torch
a, b = torch.randn(8, 8).cuda(), torch.randn(8, 8).cuda()
out = torch.empty(8, 8).cuda()
for _ in range({mms}):
    torch.mm(a, b, out=out)
torch.cuda.synchronize()
print("done")
"""
SETTERS = ("cublasSetStream_v2", "cublasSetWorkspace_v2", "cublasSetMathMode")


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    run = s.torch(PROGRAM.format(mms=MMS))
    s.check("the loop ran", "done" in run.stdout, (run.stdout + run.stderr)[-400:])
    report = s.report(*run.traces)
    totals = report["traces"][0]["totals"]
    gemms = calls(report, "cublasSgemm_v2", nested=False)
    s.check("one GEMM record per torch.mm", len(gemms) == MMS, len(gemms))
    for name in SETTERS:
        made = totals["by_function"].get(name, 0)
        unchanged = totals["unchanged_by_function"].get(name, 0)
        records = len(calls(report, name))
        s.check(f"{name}: a call per torch.mm, counted", made >= MMS, totals["by_function"])
        s.check(f"{name}: nearly all unchanged, not recorded", unchanged >= made - 3 and unchanged > 0,
                (made, unchanged))
        s.check(f"{name}: a record for each call that was not unchanged", records == made - unchanged,
                (made, unchanged, records))
    s.check("the JSON total is the sum", totals["unchanged"] == sum(totals["unchanged_by_function"].values()),
            totals["unchanged"])
    # The state the setters gave the handle, in every GEMM record: PyTorch sets a workspace.
    s.check("every GEMM carries a workspace", all(g.get("workspace") for g in gemms),
            [g.get("workspace") for g in gemms[:3]])
    text = s.cli_run(["report", *run.traces])
    s.check("the text report says the unchanged calls are not listed", "unchanged, not listed" in text.stdout,
            text.stdout[-800:])
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
