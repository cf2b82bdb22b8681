"""A failing call repeated many times, with real PyTorch: 10,000 `a @ a` in a loop, every
cublasSgemm_v2 failing (the stand-in's fault script), the program catching each error; then
one more failing `a @ a` on another line. At default settings the finding names the loop's line
and counts all 10,001 failures, each line is a failure site of its own, and the side area keeps
room: locations were taken once per site, not once per failure.
Usage: test_failure_storms.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, diagnosis

REPEATS = 10000
PROGRAM = """import torch
a = torch.ones(8, 8).cuda()
failed = 0
for _ in range({repeats}):
    try:
        a @ a
    except RuntimeError:
        failed += 1
try:
    a @ a
except RuntimeError as e:
    print("last:", str(e).splitlines()[0])
print("failed", failed)
"""
LOOP_LINE = 6   # a @ a, in the loop
LAST_LINE = 10  # a @ a, once more


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    run = s.torch(PROGRAM.format(repeats=REPEATS), env={"STANDIN_FAIL": "cublasSgemm_v2:*:13"})
    s.check("every mm failed and was caught", f"failed {REPEATS}" in run.stdout, (run.stdout + run.stderr)[-400:])
    report = s.report(*run.traces, extra=())
    trace = report["traces"][0]
    totals = trace["totals"]
    s.check("the totals count every failure",
            totals["failed_by_function"].get("cublasSgemm_v2") == REPEATS + 1, totals["failed_by_function"])
    s.check("no side entry was dropped", totals["side_dropped"] == 0, totals["side_dropped"])

    sites = [x for x in trace["failure_sites"] if x["function"] == "cublasSgemm_v2"]
    by_line = {x.get("python_line"): x["count"] for x in sites}
    s.check("each line is a site of its own, counted", by_line == {LOOP_LINE: REPEATS, LAST_LINE: 1}, by_line)
    s.check("each site's first failure has its Python line",
            all(f"program.py:{x.get('python_line')}" in x.get("location", "") for x in sites),
            [x.get("location") for x in sites])

    d = diagnosis(report, "execution-failed")
    s.check("one execution-failed finding", d is not None, [x["id"] for x in report["diagnoses"]])
    d = d or {}
    s.check("the finding counts every failure", f"({REPEATS + 1} calls)" in d.get("summary", ""), d.get("summary"))
    s.check("the finding has the first failure's line", f"program.py:{LOOP_LINE}" in d.get("location", ""),
            d.get("location"))
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
