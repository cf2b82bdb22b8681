"""Which traces outlive a PyTorch process (docs/CONTRACT.md, "Which traces are kept"), under the
shim's default, CUBLASSPY_KEEP=incident:

- A healthy run of 100 GEMMs (with PyTorch's probe for NVML, a failed load it shrugs off)
  leaves no trace, and at most 1 MiB in its directory; its live trace took a fraction of its
  capacity on disk.
- PyTorch asking for a GPU where CUDA_VISIBLE_DEVICES= hides them all (the device count's "no
  device") and going on on the CPU leaves none either; without CUDA_VISIBLE_DEVICES, a device
  count that finds no device is kept (a driver without its kernel module looks the same).
- A failing GEMM keeps a trace the report reads, with the GEMM as its first failure.
Usage: test_keep_policy.py <repository root> <build directory>
"""
import os
import subprocess
import sys

from scenario import Run, Scenario

HEALTHY = """
import os, sys, torch
a = torch.ones(64, 64).cuda()
for _ in range(100):
    c = torch.mm(a, a)
torch.cuda.synchronize()
trace = sys.argv[1].replace("%p", str(os.getpid()))
st = os.stat(trace)
print("live", st.st_blocks * 512, st.st_size, flush=True)
print("result", c.cpu()[0, 0].item(), flush=True)
"""

NO_GPU = """
import torch
print("available", torch.cuda.is_available(), flush=True)
print("cpu", torch.mm(torch.ones(2, 2), torch.ones(2, 2))[0, 0].item(), flush=True)
"""

FAILING = """
import sys, torch
try:
    torch.mm(torch.ones(4, 4).cuda(), torch.ones(4, 4).cuda()).cpu()
except RuntimeError as e:
    print("error:", str(e).splitlines()[0], flush=True)
    sys.exit(1)
"""


def disk_bytes(directory):
    total = 0
    for name in os.listdir(directory):
        st = os.lstat(os.path.join(directory, name))
        total += st.st_blocks * 512
    return total


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    incident = {"CUBLASSPY_KEEP": "incident"}
    # The healthy script finds its own live trace through the template, its argument.
    cmd, healthy_dir = s.torch_command(HEALTHY, env=incident)
    cmd += [os.path.join(healthy_dir, "t-%p.cbt")]
    clean = Run(subprocess.run(cmd, capture_output=True, text=True, timeout=240), healthy_dir)
    no_gpu, gone, failing = s.parallel(
        lambda: s.torch(NO_GPU, env={**incident, "CUDA_VISIBLE_DEVICES": ""}),
        lambda: s.torch(NO_GPU, env={**incident, "STANDIN_DEVICE_COUNT": "0"}),
        lambda: s.torch(FAILING, env={**incident, "STANDIN_FAIL": "cublasSgemm_v2:1:13"}))

    s.check("healthy: the product is computed", clean.rc == 0 and "result 64.0" in clean.stdout,
            clean.stdout + clean.stderr)
    live = [line.split() for line in clean.lines() if line.startswith("live ")]
    s.check("healthy: the live trace took a fraction of its capacity on disk",
            len(live) == 1 and int(live[0][1]) < 2 << 20 and int(live[0][1]) * 4 < int(live[0][2]), live)
    print("measured: live trace", live, flush=True)
    s.check("healthy: no trace kept", clean.traces == [], clean.traces)
    s.check("healthy: at most 1 MiB left in its directory", disk_bytes(healthy_dir) <= 1 << 20,
            disk_bytes(healthy_dir))

    s.check("no GPU: PyTorch goes on on the CPU", no_gpu.rc == 0 and "available False" in no_gpu.stdout
            and "cpu 2.0" in no_gpu.stdout, no_gpu.stdout + no_gpu.stderr)
    s.check("no GPU: a device count that found no device is a probe: no trace kept", no_gpu.traces == [],
            no_gpu.traces)

    s.check("no device found, none hidden: PyTorch goes on on the CPU",
            gone.rc == 0 and "available False" in gone.stdout, gone.stdout + gone.stderr)
    s.check("no device found, none hidden: the trace is kept", len(gone.traces) == 1, gone.traces)

    s.check("failing: PyTorch reports EXECUTION_FAILED and exits 1",
            failing.rc == 1 and "CUBLAS_STATUS_EXECUTION_FAILED" in failing.stdout, failing.stdout + failing.stderr)
    s.check("failing: its trace is kept", len(failing.traces) == 1, failing.traces)
    if failing.traces:
        report = s.report(*failing.traces)
        firsts = [t["first_failure"]["function"] for t in report["traces"] if t["first_failure"]]
        s.check("failing: the report reads it, the GEMM first", firsts == ["cublasSgemm_v2"], firsts)
        print("measured: kept trace", disk_bytes(failing.trace_dir), "bytes on disk in its directory", flush=True)
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
