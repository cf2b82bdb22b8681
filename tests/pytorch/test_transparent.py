"""The shim leaves real PyTorch programs as they are, in every mode: CUDA graphs and training.

- torch.cuda.graph (tests/pytorch/graph_capture.py: a Linear captured and replayed on the
  stand-in, which captures and enforces CUDA's capture rules strictly) prints the same with and
  without the shim under the defaults, --sync, --sync all, --scan all and --check: the shim never
  synchronizes, scans or dumps inside the capture. The report has no error finding, shows the
  graph with its captured GEMM and its replays.
- A replay scripted to fault (STANDIN_ASYNC_ERROR=cudaGraphLaunch:2:700) under --sync all: the
  finding names the graph and the GEMM captured into it.
- A correct training step (an MLP, cross-entropy, backward(), SGD.step(); PyTorch's own kernels
  scripted to succeed doing nothing) under --sync all gives no error finding: the autograd
  thread's waits are recorded as what they are.
Usage: test_transparent.py <repository root> <build directory>
"""
import os
import sys

from scenario import Scenario, calls, diagnosis

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "graph_capture.py")) as f:
    GRAPH = f.read()

TRAINING = """
import os
os.environ.setdefault("STANDIN_FAIL", "cudaLaunchKernel:*:0")  # PyTorch's own kernels: done, doing nothing
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 16).cuda()
y = torch.randint(0, 4, (8,)).cuda()
for step in range(2):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("steps done", flush=True)
"""

MODES = [("defaults", {}), ("--sync", {"CUBLASSPY_SYNC": "1"}), ("--sync all", {"CUBLASSPY_SYNC": "all"}),
         ("--scan all", {"CUBLASSPY_SCAN": "all"}), ("--check", {"CUBLASSPY_CHECK": "1"})]


def errors(report):
    return [d["id"] + ": " + d["summary"] for d in report["diagnoses"] if d["severity"] == "error"]


def graphs(report):
    return [g for t in report["traces"] for g in (t.get("launches") or {}).get("graphs", [])]


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    bare_graph, bare_training = s.parallel(lambda: s.torch(GRAPH, shim=False), lambda: s.torch(TRAINING, shim=False))
    s.check("graph: the capture and its replays work without the shim", bare_graph.rc == 0,
            bare_graph.stdout + bare_graph.stderr)
    s.check("training: the steps run without the shim", bare_training.rc == 0 and "steps done" in bare_training.stdout,
            bare_training.stdout + bare_training.stderr)

    runs = s.parallel(*[lambda env=env: s.torch(GRAPH, env=dict(env, CUBLASSPY_LOG="off")) for _, env in MODES])
    for (mode, _), run in zip(MODES, runs):
        s.check(f"graph, {mode}: the same output as without the shim", run.rc == 0 and run.stdout == bare_graph.stdout,
                run.stdout + run.stderr)
        report = s.report(*run.traces)
        s.check(f"graph, {mode}: no error finding", not errors(report), errors(report))
        # Two captures: the Linear's, replayed 3 times, and the one the script invalidates on
        # purpose (a synchronization inside it), which made no graph.
        found = graphs(report)
        gemms = {c["seq"]: c for c in calls(report, "cublasSgemm_v2", nested=False)}
        made = [g for g in found if g["graph"] != 0]
        s.check(f"graph, {mode}: the report shows the graph, its captured GEMM and its 3 replays",
                len(made) == 1 and made[0]["launches"] == 3 and len(made[0]["captured_calls"]) == 1
                and gemms.get(made[0]["captured_calls"][0], {}).get("capture_id") == made[0]["capture_id"], found)
        s.check(f"graph, {mode}: the invalidated capture made no graph and was never launched",
                len(found) == 2 and [g["launches"] for g in found if g["graph"] == 0] == [0], found)

    fault = s.torch(GRAPH, env={"STANDIN_ASYNC_ERROR": "cudaGraphLaunch:2:700", "CUBLASSPY_SYNC": "all"})
    report = s.report(*fault.traces)
    d = diagnosis(report, "async-error")
    s.check("faulting replay: the finding names the graph, its launch and the captured GEMM",
            d is not None and "CUDA graph 0x" in d["summary"] and "(its launch 2)" in d["summary"]
            and "captured into it: #" in d["evidence"] and "cublasSgemm_v2" in d["evidence"], d)

    training = s.torch(TRAINING, env={"CUBLASSPY_SYNC": "all", "CUBLASSPY_LOG": "off"})
    s.check("training, --sync all: the same output as without the shim", training.stdout == bare_training.stdout,
            training.stdout + training.stderr)
    report = s.report(*training.traces)
    s.check("training, --sync all: no error finding", not errors(report), errors(report))
    launches = [t.get("launches") or {} for t in report["traces"]]
    s.check("training, --sync all: PyTorch's kernels were launched and waited for",
            sum(l.get("total", 0) for l in launches) > 10, launches)
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
