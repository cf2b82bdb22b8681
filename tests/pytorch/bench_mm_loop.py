"""Benchmark (not a test): a real PyTorch loop of small torch.mm on the CUDA 12 stand-in, with
and without the shim (trace mode), runs interleaved in one invocation. Prints the median
whole-process wall time and the median time of the loop alone, their ratios against the
baseline of the same run, and the median ratio of each process to the baseline process of its
round ("paired"), with that ratio's quartiles. The loop is timed inside the program, LOOPS times in each process after
a warm-up loop; a process's figure is the median of its loops. (Not the fastest: that would also
leave out what the shim costs now and then, such as a page of the trace written back.)
Usage: bench_mm_loop.py <repository root> <build directory> [CALLS] [REPETITIONS] [--against BUILD]...
                       [--with NAME=VALUE]... [--control] [--disabled] [--floor]
       bench_mm_loop.py <repository root> <build directory> CALLS --traced-once|--baseline-once
--against BUILD adds a variant, trace mode with another build's shim, to measure a change
against its parent in the same run (repeatable: one variant each). --with NAME=VALUE adds trace
mode with that setting (repeatable), to measure what a setting costs. --control adds a variant
without the shim: what it "costs" is the method's own bias and noise, the floor below which a
ratio means nothing.
--disabled adds the shim preloaded with CUBLASSPY_DISABLE=1 (interposed, nothing recorded).
--floor adds a preloaded library that only forwards the loop's four calls to the real functions
(tests/bench/forwarding_interposer.cpp, built into <build>/test-programs): what interposing them
costs at all, below which no interposer can go.
Each round runs every variant once, in an order rotated from round to round, so that none always
runs right after the baseline. The second form runs one process, in trace mode or without the
shim, and nothing else, for a profiler around it (`perf record -F 8000 -- python3 tests/pytorch/bench_mm_loop.py . build 150000
--traced-once`, then the same with --baseline-once to compare sample counts).
"""
import os
import statistics
import sys
import time

from scenario import Scenario

PROGRAM = """
import time
import torch
a, b = torch.randn(16, 16).cuda(), torch.randn(16, 16).cuda()
out = torch.empty(16, 16).cuda()
for timed in range({loops} + 1):
    t0 = time.perf_counter()
    for _ in range({calls}):
        torch.mm(a, b, out=out)
    torch.cuda.synchronize()
    if timed:
        print("loop_s", time.perf_counter() - t0)
"""
LOOPS = 5


def variants_from(args):
    """The variants that the options in `args` ask for, and the arguments left: (scenario,
    [(name, scenario, shim, env)], positional arguments). The baseline, without the shim, comes
    first; then trace mode with this build's shim; then those of each --against BUILD, each
    --with NAME=VALUE, --control and --disabled."""
    args = list(args)
    against = []
    while "--against" in args:
        i = args.index("--against")
        against.append(args[i + 1])
        del args[i:i + 2]
    settings = []
    while "--with" in args:
        i = args.index("--with")
        settings.append(args[i + 1])
        del args[i:i + 2]
    control = "--control" in args
    disabled = "--disabled" in args
    floor = "--floor" in args
    args = [a for a in args if a not in ("--control", "--disabled", "--floor")]
    s = Scenario(args[0], args[1])
    # Without the shim, with this build's, and with each --against's (an earlier commit's
    # build), so that a change is measured against its parent in one run.
    # The runs without the shim get the harness's variable too (Scenario.harness_env).
    variants = [("baseline", s, False, s.harness_env()), ("trace mode", s, True, None)]
    for build in against:
        variants.append((f"trace mode, {build}'s shim", Scenario(args[0], build), True, None))
    for setting in settings:
        name, _, value = setting.partition("=")
        variants.append((f"trace mode, {setting}", s, True, {name: value}))
    if control:
        variants.append(("control (no shim)", s, False, s.harness_env()))
    if disabled:
        variants.append(("shim disabled", s, True, {"CUBLASSPY_DISABLE": "1"}))
    if floor:
        forwarder = os.path.join(s.build, "test-programs", "libforwarding_interposer.so")
        if not os.path.isfile(forwarder):
            sys.exit(f"FAIL: {forwarder} is missing: build the target forwarding_interposer")
        variants.append(("forwarding interposer", s, False, s.harness_env({"LD_PRELOAD": forwarder})))
    return s, variants, args


def quartiles(values):
    return statistics.quantiles(values, n=4) if len(values) > 1 else values * 3


def main():
    s, variants, args = variants_from(sys.argv[1:])
    calls = int(args[2]) if len(args) > 2 else 20000
    code = PROGRAM.format(calls=calls, loops=LOOPS)
    if len(args) > 3 and args[3] in ("--traced-once", "--baseline-once"):
        run = s.torch(code, shim=args[3] == "--traced-once")
        print("\n".join(l for l in run.lines() if l.startswith("loop_s")) or run.stderr[-500:])
        sys.exit(run.rc)
    reps = int(args[3]) if len(args) > 3 else 5
    times = {name: ([], []) for name, *_ in variants}
    for rep in range(reps):
        for name, scenario, shim, env in variants[rep % len(variants):] + variants[:rep % len(variants)]:
            t0 = time.perf_counter()
            run = scenario.torch(code, shim=shim, env=env)
            whole = time.perf_counter() - t0
            loop = [float(l.split()[1]) for l in run.lines() if l.startswith("loop_s")]
            if run.rc != 0 or not loop:
                sys.exit(f"run failed: {run.stderr[-500:]}")
            times[name][0].append(whole)
            times[name][1].append(statistics.median(loop))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{calls} torch.mm (16x16 fp32, cublasSgemm_v2) per loop, median of {LOOPS} loops per process, "
          f"median of {reps} processes each, load {load}")
    # Each process is compared with the baseline process of the same round, and the median of
    # those ratios is printed beside the ratio of the medians: a shared host's speed drifts by
    # more than the shim costs over a run, and a round sees about the same drift.
    for i, what in enumerate(("whole process", "mm loop")):
        base = statistics.median(times["baseline"][i])
        line = f"{what}: baseline {base:.3f} s"
        for name, *_ in variants[1:]:
            t = statistics.median(times[name][i])
            pairs = [x / y for x, y in zip(times[name][i], times["baseline"][i])]
            q = quartiles(pairs)
            line += (f"; {name} {t:.3f} s, ratio {t / base:.3f}, paired {statistics.median(pairs):.3f}"
                     f" (quartiles {q[0]:.3f}-{q[2]:.3f})")
            if what == "mm loop":
                line += f" ({(t - base) / calls * 1e9:+.0f} ns per call)"
        print(line)

if __name__ == "__main__":
    main()
