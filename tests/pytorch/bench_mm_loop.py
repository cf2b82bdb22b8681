"""Benchmark (not a test): a real PyTorch loop of small torch.mm on the CUDA 12 stand-in, with
and without the shim (trace mode), runs interleaved in one invocation. Prints the median
whole-process wall time and the median time of the loop alone (measured inside the program),
and their ratios against the baseline of the same run.
Usage: bench_mm_loop.py <repository root> <build directory> [CALLS] [REPETITIONS]
       bench_mm_loop.py <repository root> <build directory> CALLS --traced-once
The second form runs one process in trace mode and nothing else, for a profiler around it
(`perf record -F 8000 -- python3 tests/pytorch/bench_mm_loop.py . build 150000 --traced-once`).
"""
import statistics
import sys
import time

from scenario import Scenario

PROGRAM = """
import time
import torch
a, b = torch.randn(16, 16).cuda(), torch.randn(16, 16).cuda()
out = torch.empty(16, 16).cuda()
torch.mm(a, b, out=out)
t0 = time.perf_counter()
for _ in range({calls}):
    torch.mm(a, b, out=out)
torch.cuda.synchronize()
print("loop_s", time.perf_counter() - t0)
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    code = PROGRAM.format(calls=calls)
    if len(sys.argv) > 4 and sys.argv[4] == "--traced-once":
        run = s.torch(code, shim=True)
        print("\n".join(l for l in run.lines() if l.startswith("loop_s")) or run.stderr[-500:])
        sys.exit(run.rc)
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    times = {False: ([], []), True: ([], [])}
    for _ in range(reps):
        for shim in (False, True):
            t0 = time.perf_counter()
            run = s.torch(code, shim=shim)
            whole = time.perf_counter() - t0
            loop = [float(l.split()[1]) for l in run.lines() if l.startswith("loop_s")]
            if run.rc != 0 or not loop:
                sys.exit(f"run failed: {run.stderr[-500:]}")
            times[shim][0].append(whole)
            times[shim][1].append(loop[0])
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{calls} torch.mm (16x16 fp32, cublasSgemm_v2) per process, median of {reps} runs each, load {load}")
    for i, what in enumerate(("whole process", "mm loop")):
        base, traced = statistics.median(times[False][i]), statistics.median(times[True][i])
        print(f"{what}: baseline {base:.3f} s, trace mode {traced:.3f} s, ratio {traced / base:.3f}"
              f" ({traced / calls * 1e9 - base / calls * 1e9:+.0f} ns per call)" if what == "mm loop" else
              f"{what}: baseline {base:.3f} s, trace mode {traced:.3f} s, ratio {traced / base:.3f}")


if __name__ == "__main__":
    main()
