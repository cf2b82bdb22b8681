"""Benchmark (not a test): a failure storm, and what locations cost (CUBLASSPY_STACKS), in real
PyTorch on the CUDA 12 stand-in. A loop of torch.mm from one line that all fail (the stand-in's
fault script), the program catching each error, runs four ways, interleaved: without the shim
(bare), and under it with CUBLASSPY_STACKS=none, failing (the default: a failure takes its
Python and native location the first time its site fails, and counts after) and all (also a
location before each GEMM). Default settings otherwise (the side area's 4 MiB). Prints the
median loop time (measured inside the program) and each mode's ratio and cost per call against
bare of the same run.
Usage: bench_locations.py <repository root> <build directory> [CALLS] [REPETITIONS]
"""
import statistics
import sys

from scenario import Scenario

PROGRAM = """
import time
import torch
a, b = torch.randn(16, 16).cuda(), torch.randn(16, 16).cuda()


def layer(x, y):
    return torch.mm(x, y)


def model(x, y):
    return layer(x, y)


t0 = time.perf_counter()
for _ in range({calls}):
    try:
        model(a, b)
    except RuntimeError:
        pass
print("loop_s", time.perf_counter() - t0)
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    modes = ("bare", "none", "failing", "all")
    times = {m: [] for m in modes}
    for _ in range(reps):
        for m in modes:
            env = {"STANDIN_FAIL": "cublasSgemm_v2:*:13"}
            if m != "bare":
                env["CUBLASSPY_STACKS"] = m
            run = s.torch(PROGRAM.format(calls=calls), shim=m != "bare", env=env)
            got = [float(line.split()[1]) for line in run.lines() if line.startswith("loop_s")]
            if not got:
                sys.exit(f"FAIL: no loop time ({m}): {(run.stdout + run.stderr)[-400:]}")
            times[m].append(got[0])
    base = statistics.median(times["bare"])
    print(f"{calls} failing torch.mm per process, median of {reps}")
    for m in modes:
        t = statistics.median(times[m])
        print(f"  {m:8s} {t:.3f} s  ratio {t / base:.3f}  +{(t - base) / calls * 1e6:.1f} us per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
