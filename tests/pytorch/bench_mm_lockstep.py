"""Benchmark (not a test): the PyTorch loop of bench_mm_loop.py (small torch.mm on the CUDA 12
stand-in, with and without the shim in trace mode), timed in lockstep. One process per variant,
all alive at once and pinned to the same CPU, each runs a burst of CALLS torch.mm when told and
reports its time; the driver tells them in turn, round after round, in an order rotated each
round. A round's bursts run within some tens of milliseconds of each other, so the drift of a
shared host's speed, which moves whole-process timings by more than the shim costs, is nearly the
same for all of them. Each burst is compared with the baseline's burst of its round.
Per-process effects (where the loader put things, which pages the allocator got) are not shared
that way: SETS sets of processes are started one after the other. They are what varies most, a
set's median by about 1% either way where its bursts' median is known to 0.1%, so a run is many
sets of a few rounds, and its figure is the mean of the sets' medians with a 95% confidence
interval over the sets.
Usage: bench_mm_lockstep.py <repository root> <build directory> [CALLS] [ROUNDS] [SETS]
                           [--against BUILD]... [--with NAME=VALUE]... [--control] [--disabled] [--floor]
Defaults: 2000 calls a burst, 30 rounds, 30 sets (some 5 minutes with two more variants). The options are bench_mm_loop.py's.
--control (a second process without the shim) is the method's own floor: its ratio should be 1
within the quartiles printed for it.
"""
import os
import statistics
import subprocess
import sys
import tempfile

from bench_mm_loop import quartiles, variants_from

PROGRAM = """
import os, sys, time
os.sched_setaffinity(0, {{{cpu}}})
import torch
a, b = torch.randn(16, 16).cuda(), torch.randn(16, 16).cuda()
out = torch.empty(16, 16).cuda()

def burst():
    t0 = time.perf_counter()
    for _ in range({calls}):
        torch.mm(a, b, out=out)
    torch.cuda.synchronize()
    return time.perf_counter() - t0

# Warm-up: the first calls set up cuBLAS; the trace's ring takes its pages' first writes (a fault
# each, some microseconds) until every slot was used once.
for _ in range({warm_bursts}):
    burst()
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() != "go":
        break
    print("burst_s", burst(), flush=True)
"""


# torch.mm made before the timed bursts: more than the default ring's 8,192 records
# (CUBLASSPY_RING; one record per torch.mm), so that no burst takes a ring page's first write.
WARM_CALLS = 10000


class Worker:
    """One variant's process, started in the root and waiting for "go"."""

    def __init__(self, name, scenario, shim, env, code):
        self.name = name
        cmd, self.trace_dir = scenario.torch_command(code, shim=shim, env=env)
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, bufsize=1)
        self.expect("ready")

    def expect(self, word):
        """The value on the next line that starts with `word` (other output is passed over)."""
        for line in self.proc.stdout:
            if line.startswith(word):
                return line.split()[1] if len(line.split()) > 1 else ""
        self.stderr.seek(0)
        sys.exit(f"{self.name}: the process ended before '{word}' (rc {self.proc.wait()}): "
                 f"{self.stderr.read()[-500:]}")

    def burst(self):
        self.proc.stdin.write("go\n")
        return float(self.expect("burst_s"))

    def stop(self):
        self.proc.stdin.close()
        if self.proc.wait(timeout=60) != 0:
            self.stderr.seek(0)
            sys.exit(f"{self.name}: exit status {self.proc.returncode}: {self.stderr.read()[-500:]}")


# Student's t at 97.5% for n - 1 degrees of freedom (n sets): a 95% confidence interval of the
# sets' mean median. Past 30 sets, 2.0.
T_975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
         11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09,
         20: 2.09, 25: 2.06, 30: 2.04}


def mean_interval(values):
    """The mean of `values` and the half-width of its 95% confidence interval (0 for one value).
    The sets' medians are what varies most (each set's processes have their own layout), so the
    interval is taken over them, not over the bursts."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, 0.0
    dof = len(values) - 1
    t = T_975.get(dof) or (T_975[max(k for k in T_975 if k < dof)] if dof < 30 else 2.0)
    return mean, t * statistics.stdev(values) / len(values) ** 0.5


def main():
    s, variants, args = variants_from(sys.argv[1:])
    calls = int(args[2]) if len(args) > 2 else 2000
    rounds = int(args[3]) if len(args) > 3 else 30
    sets = int(args[4]) if len(args) > 4 else 30
    cpus = sorted(os.sched_getaffinity(0))
    # The workers share the last CPU; the driver, which mostly waits, keeps the others.
    if len(cpus) > 1:
        os.sched_setaffinity(0, set(cpus[:-1]))
    code = PROGRAM.format(cpu=cpus[-1], calls=calls, warm_bursts=max(2, -(-WARM_CALLS // calls)))
    names = [name for name, *_ in variants]
    pairs = {name: [] for name in names[1:]}      # every burst over its round's baseline burst
    set_medians = {name: [] for name in names[1:]}
    totals = {name: 0.0 for name in names}
    for k in range(sets):
        # Started in a rotated order too: the first one up has the page cache to itself.
        order = variants[k % len(variants):] + variants[:k % len(variants)]
        workers = {name: Worker(name, sc, shim, env, code) for name, sc, shim, env in order}
        ratios = {name: [] for name in names[1:]}
        for r in range(rounds):
            turn = names[r % len(names):] + names[:r % len(names)]
            t = {name: workers[name].burst() for name in turn}
            for name in names:
                totals[name] += t[name]
            for name in names[1:]:
                ratios[name].append(t[name] / t["baseline"])
        for w in workers.values():
            w.stop()
        for name in names[1:]:
            pairs[name] += ratios[name]
            set_medians[name].append(statistics.median(ratios[name]))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{calls} torch.mm (16x16 fp32, cublasSgemm_v2) per burst, {rounds} rounds in each of {sets} "
          f"sets of processes, all on CPU {cpus[-1]}, load {load}")
    base_per_call = totals["baseline"] / (rounds * sets * calls)
    print(f"baseline: {base_per_call * 1e6:.2f} us per call")
    for name in names[1:]:
        q = quartiles(pairs[name])
        print(f"{name}: paired {statistics.median(pairs[name]):.4f} (quartiles {q[0]:.4f}-{q[2]:.4f}), "
              f"ratio of totals {totals[name] / totals['baseline']:.4f}, sets' medians "
              + " ".join(f"{m:.4f}" for m in set_medians[name])
              + f" ({(totals[name] - totals['baseline']) / (rounds * sets * calls) * 1e9:+.0f} ns per call)")
        mean, half = mean_interval(set_medians[name])
        print(f"{name}: sets' mean {mean:.4f} +- {half:.4f} (95% confidence, {sets} sets)")


if __name__ == "__main__":
    main()
