"""Benchmark (not a test): the instructions trace mode adds to one torch.mm, counted by callgrind.

Real PyTorch in the root on the CUDA 12 stand-in runs N torch.mm of 8x8 floats (out=), under
callgrind with the counts limited to the C++ side of each torch.mm (`at::_ops::mm_out::call`,
which makes PyTorch's handle setters and the GEMM). Four processes: without the shim and in
trace mode, each with N = CALLS and N = 2 * CALLS. A variant's count per torch.mm is its
difference over CALLS (start-up and the first call's set-up cancel out); what the shim adds is
trace mode's less the baseline's. Instructions are exact, so the machine's load does not matter.
Then, from the two traced runs, each hook's own instructions per call in the shim
(scripts/callgrind_hooks.py: the wrapper's inclusive count less the stand-in function's, the
run of CALLS taken from the run of 2 * CALLS). Each run takes minutes (import torch under
callgrind); two run at a time.

valgrind is the host's: its launcher (/usr/bin/valgrind.bin) and its tools (/usr/libexec/valgrind)
are bound into the root, where no valgrind is installed.
Usage: bench_mm_instructions.py <repository root> <build directory> [CALLS] [--against BUILD]...
--against BUILD also counts trace mode with another build's shim (an earlier commit's), so a
change is counted against its parent.
"""
import concurrent.futures
import os
import subprocess
import sys

from scenario import Scenario

PROGRAM = """
import sys
import torch
a, b = torch.randn(8, 8).cuda(), torch.randn(8, 8).cuda()
out = torch.empty(8, 8).cuda()
for _ in range(int(sys.argv[1])):
    torch.mm(a, b, out=out)
torch.cuda.synchronize()
"""
VALGRIND_BINDS = ["--bind", "/usr/bin/valgrind.bin", "--bind", "/usr/libexec/valgrind"]


def callgrind_total(path):
    """The file's total Ir (its "totals:" or "summary:" line)."""
    with open(path) as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def self_cost_by_object(path):
    """{object's file name: the Ir spent in its own code (not in what it called)} of a callgrind
    file: each cost line outside a call's counts for the object its fn= line is in."""
    names, totals = {}, {}
    current, after_calls = None, False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("ob="):
                value = line[3:].strip()
                key, _, name = value.partition(" ")
                if value.startswith("(") and name:
                    names[key] = name
                current = os.path.basename(names.get(key, value) if value.startswith("(") else value)
            elif line.startswith("cob="):
                value = line[4:].strip()
                key, _, name = value.partition(" ")
                if value.startswith("(") and name:
                    names[key] = name
            elif line.startswith("calls="):
                after_calls = True  # the next cost line is the call's inclusive cost
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False
                    continue
                parts = line.split()
                if len(parts) > 1 and current is not None:
                    totals[current] = totals.get(current, 0) + int(parts[1])
    return totals


def count(s, shim, calls, tag):
    """Runs the program under callgrind; the callgrind file's path and its total."""
    # Another build's shim is bound into the root at its own path, as the repository's is.
    binds = [] if shim is None or shim == s.shim else ["--bind", os.path.dirname(os.path.dirname(shim))]
    cmd, trace_dir = s.torch_command(PROGRAM, shim=shim is not None, env=s.harness_env(),
                                     options=VALGRIND_BINDS + binds)
    out_file = os.path.join(trace_dir, f"callgrind.{tag}.{calls}")
    script = cmd[-1]
    cmd = cmd[:-2] + ["/usr/bin/valgrind.bin", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                      "--collect-atstart=no", "--toggle-collect=at::_ops::mm_out::call*",
                      "python3", script, str(calls)]
    if shim is not None:
        i = cmd.index("LD_PRELOAD=" + s.shim)
        cmd[i] = "LD_PRELOAD=" + shim
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {tag} with {calls} calls exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    # A shim the loader could not find (a build not visible in the root) runs nothing: refused.
    if shim is not None and not any(name.endswith(".cbt") for name in os.listdir(trace_dir)):
        sys.exit(f"FAIL: {tag} with {calls} calls wrote no trace: {shim} was not loaded\n{proc.stderr[-3000:]}")
    return out_file, callgrind_total(out_file)


def main():
    args = list(sys.argv[1:])
    against = []
    while "--against" in args:
        i = args.index("--against")
        against.append(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    s = Scenario(args[0], args[1])
    calls = int(args[2]) if len(args) > 2 else 1000
    variants = [("baseline", None), ("trace mode", s.shim)]
    variants += [(f"trace mode, {b}'s shim", os.path.join(os.path.realpath(b), "lib", "libcublasspy.so"))
                 for b in against]
    jobs = [(name, shim, n) for name, shim in variants for n in (calls, 2 * calls)]
    # Two at a time: each is one process, and callgrind runs it on one core.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = dict(zip(jobs, pool.map(lambda j: count(s, j[1], j[2], f"v{variants.index((j[0], j[1]))}"), jobs)))
    per_mm = {name: (results[(name, shim, 2 * calls)][1] - results[(name, shim, calls)][1]) / calls
              for name, shim in variants}
    base = per_mm["baseline"]
    print(f"instructions in at::_ops::mm_out::call per torch.mm (N = {2 * calls} less N = {calls}):")
    for name, _ in variants:
        extra = "" if name == "baseline" else f"   adds {per_mm[name] - base:9.1f} ({(per_mm[name] - base) / base:.2%})"
        print(f"  {name:40} {per_mm[name]:10.1f}{extra}")
    # Where the added instructions run: the shim's own code, and elsewhere (PyTorch reads its
    # environment on every torch.mm, and the shim's run has more variables in it to walk:
    # LD_PRELOAD and CUBLASSPY_TRACE; the harness's CUBLASSPY_MACHINE_ROOT is in both).
    by_object = {}
    for name, shim in variants:
        longer = self_cost_by_object(results[(name, shim, 2 * calls)][0])
        shorter = self_cost_by_object(results[(name, shim, calls)][0])
        by_object[name] = {o: (longer.get(o, 0) - shorter.get(o, 0)) / calls for o in set(longer) | set(shorter)}
    for name, _ in variants[1:]:
        print(f"\nwhere {name} adds them (each object's own instructions, less the baseline's):")
        rows = [(o, by_object[name].get(o, 0) - by_object["baseline"].get(o, 0))
                for o in set(by_object[name]) | set(by_object["baseline"])]
        for o, added in sorted(rows, key=lambda r: -abs(r[1])):
            if abs(added) >= 0.5:
                print(f"  {o:40} {added:10.1f}")
    for name, shim in variants[1:]:
        print(f"\nper hook, {name} (N = {2 * calls} less N = {calls}; scripts/callgrind_hooks.py):")
        sys.stdout.flush()
        subprocess.run([sys.executable, os.path.join(s.repo, "scripts", "callgrind_hooks.py"),
                        results[(name, shim, 2 * calls)][0], results[(name, shim, calls)][0],
                        "--min-calls", str(calls)], check=True)


if __name__ == "__main__":
    main()
