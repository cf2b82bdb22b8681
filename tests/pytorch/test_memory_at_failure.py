"""Out of memory mid-run in real PyTorch: the stand-in's device is scripted to hold 40 MiB
(STANDIN_DEVICE_MEMORY); two 16 MiB operands fit, torch.mm's 16 MiB output does not. PyTorch's
caching allocator gets cudaErrorMemoryAllocation from cudaMalloc and raises OutOfMemoryError.
The report gives device-out-of-memory: the failed cudaMalloc and its size, the device's free and
total memory as the stand-in reported them (the same figures torch.cuda.mem_get_info() reads
after the failure), and what to do about it.
Usage: test_memory_at_failure.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, calls, diagnosis

DEVICE_BYTES = 40 << 20
OUTPUT_BYTES = 2048 * 2048 * 4

MM = """
import json
import torch
a = torch.ones(2048, 2048).cuda()
b = torch.ones(2048, 2048).cuda()
try:
    c = torch.mm(a, b)
    torch.cuda.synchronize()
    print("mm returned", flush=True)
except torch.OutOfMemoryError as e:
    print("OOM:", str(e).splitlines()[0], flush=True)
free, total = torch.cuda.mem_get_info()
print(json.dumps({"free": free, "total": total}), flush=True)
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    run = s.torch(MM, env={"STANDIN_DEVICE_MEMORY": str(DEVICE_BYTES)})
    out = run.stdout + run.stderr[-600:]
    s.check("PyTorch raises OutOfMemoryError at the mm", "OOM: CUDA out of memory" in run.stdout, out)
    memory = run.json_lines()
    s.check("PyTorch reads the device's memory afterwards", len(memory) == 1 and memory[0]["total"] == DEVICE_BYTES,
            out)
    if not run.traces or len(memory) != 1:
        return s.finish()
    report = s.report(*run.traces)
    d = diagnosis(report, "device-out-of-memory")
    s.check("diagnosis device-out-of-memory", d is not None, [x["id"] for x in report["diagnoses"]])
    if d is None:
        return s.finish()
    failed = [c for c in calls(report, "cudaMalloc") if c["status"] != 0]
    s.check("it names the first failed cudaMalloc", failed and d["call"] == failed[0]["seq"],
            (d["call"], [c["seq"] for c in failed]))
    s.check("the failed allocation's size: the mm's output, 16 MiB",
            f"cudaMalloc of {OUTPUT_BYTES} bytes failed" in d["summary"] and
            f"asked for {OUTPUT_BYTES} bytes" in d["evidence"], d["summary"] + " / " + d["evidence"])
    figures = f"({memory[0]['free']} of {DEVICE_BYTES} bytes)"
    s.check("the free and total memory at the failure, as the stand-in reported them",
            figures in d["evidence"], d["evidence"])
    for part in ("smaller batch", "PYTORCH_CUDA_ALLOC_CONF", "CUBLAS_WORKSPACE_CONFIG", "torch.cuda.empty_cache()"):
        s.check(f"the advice names {part}", part in d["advice"], d["advice"])
    s.check("no execution-failed beside it", diagnosis(report, "execution-failed") is None,
            [x["id"] for x in report["diagnoses"]])
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
