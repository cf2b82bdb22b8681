"""Real PyTorch ops that fail at calls the shim does not record: PyTorch reports the error (its
CUDA check asks cudaGetErrorString for the text), and the report names the error and where.

- torch.cuda.Event().record() with cudaEventRecord scripted to fail (STANDIN_FAIL, 801): PyTorch
  raises "CUDA error: operation not supported", the script prints it and exits 1. The trace holds
  cudaGetErrorString's record of 801, and the report's `reported-error` finding says "the program
  reported cudaErrorNotSupported (801) at ..." with the script's line in its location.
- torch.cuda.graph with cudaStreamBeginCapture scripted to fail (801): the finding names the
  capture call that returned it (a launch-ring entry) as well.
Usage: test_reported_error.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, diagnosis

EVENT = """
import sys
import torch
x = torch.ones(4, 4).cuda()
event = torch.cuda.Event()
try:
    event.record()
except RuntimeError as e:
    print("error:", str(e).splitlines()[0], flush=True)
    sys.exit(1)
print("no error", flush=True)
"""

CAPTURE = """
import sys
import torch
linear = torch.nn.Linear(4, 4).cuda()
x = torch.ones(2, 4).cuda()
graph = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(graph):
        y = linear(x)
except RuntimeError as e:
    print("error:", str(e).splitlines()[0], flush=True)
    sys.exit(1)
print("captured", flush=True)
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    event, capture = s.parallel(
        lambda: s.torch(EVENT, env={"STANDIN_FAIL": "cudaEventRecord:1:801"}),
        lambda: s.torch(CAPTURE, env={"STANDIN_FAIL": "cudaLaunchKernel:*:0;cudaStreamBeginCapture:1:801"}))

    s.check("event: PyTorch raises the error and the script exits 1",
            event.rc == 1 and "error: CUDA error: operation not supported" in event.stdout, event.stdout + event.stderr)
    report = s.report(*event.traces)
    texts = [c for t in report["traces"] for c in t["calls"] if c["function"] == "cudaGetErrorString"]
    s.check("event: cudaGetErrorString's question is recorded with the code",
            any(c["args"].get("error") == 801 for c in texts), texts)
    d = diagnosis(report, "reported-error")
    s.check("event: reported-error names the error", d is not None and
            d["summary"].startswith("the program reported cudaErrorNotSupported (801) at "), d)
    s.check("event: its location is the script's line", d is not None and "program.py:7" in d.get("location", ""), d)

    s.check("capture: PyTorch raises the error and the script exits 1",
            capture.rc == 1 and "error: CUDA error: operation not supported" in capture.stdout,
            capture.stdout + capture.stderr)
    report = s.report(*capture.traces)
    d = diagnosis(report, "reported-error")
    s.check("capture: reported-error names the error and the capture call that returned it",
            d is not None and "cudaErrorNotSupported (801)" in d["summary"]
            and "cudaStreamBeginCapture" in d["evidence"] and d.get("launch") is not None, d)
    s.check("capture: its location is the script's `with torch.cuda.graph` line",
            d is not None and "program.py:8" in d.get("location", ""), d)
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
