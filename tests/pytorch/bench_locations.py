"""Benchmark (not a test): what taking a call's location costs (CUBLASSPY_STACKS), in real
PyTorch on the CUDA 12 stand-in. A loop of torch.mm that all fail (the stand-in's fault script)
runs three ways, interleaved: CUBLASSPY_STACKS=none, failing (each failing Sgemm takes its
Python and native location) and all (also one before each). Prints the median loop time (measured
inside the program) and the cost per location against `none` of the same run.
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
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    modes = ("none", "failing", "all")
    times = {m: [] for m in modes}
    for _ in range(reps):
        for m in modes:
            run = s.torch(PROGRAM.format(calls=calls),
                          env={"STANDIN_FAIL": "cublasSgemm_v2:*:13", "CUBLASSPY_STACKS": m, "CUBLASSPY_SIDE_MB": "64"})
            got = [float(line.split()[1]) for line in run.lines() if line.startswith("loop_s")]
            if not got:
                sys.exit(f"FAIL: no loop time ({m}): {(run.stdout + run.stderr)[-400:]}")
            times[m].append(got[0])
    base = statistics.median(times["none"])
    print(f"{calls} failing torch.mm per process, median of {reps}")
    for m in modes:
        t = statistics.median(times[m])
        print(f"  {m:8s} {t:.3f} s  ratio {t / base:.3f}  +{(t - base) / calls * 1e6:.1f} us per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
