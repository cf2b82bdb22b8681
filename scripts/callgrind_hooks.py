#!/usr/bin/env python3
"""Instructions per call of each hook, in the shim alone, from a callgrind output file.

For every function of libcublasspy.so that a program called, callgrind's file holds each call
site's count and inclusive cost. A hook's wrapper calls the real function of the same name (the
stand-in's, or the real library's), so what the shim adds to one call of it is the wrapper's
inclusive cost per call less that real function's. Functions of the shim called fewer than
--min-calls times (set-up, the first call's trace opening) are left out.

With a second file, SHORTER_RUN (the same program making fewer calls), each count is the
difference of the two runs, so the first call's set-up (opening the trace) drops out.

Usage: callgrind_hooks.py CALLGRIND_OUT [SHORTER_RUN] [--min-calls N] [--shim SUBSTRING]
Run the program under `valgrind --tool=callgrind --callgrind-out-file=...` first (see
docs/BENCHMARKS.md): a toggle-collect may limit the counts to one part of the program, as long
as the hooks' calls lie inside it.
"""
import argparse
import collections
import re
import sys

# "(id) name" defines a compressed name, "(id)" refers back to it; files, objects and functions
# each have their own table.
NAME = re.compile(r"^\((\d+)\)(?: (.*))?$")


def parse(path):
    """{(object, function): [calls, inclusive Ir]} over every call site in the file."""
    tables = {"ob": {}, "fn": {}, "fl": {}}
    totals = collections.defaultdict(lambda: [0, 0])
    current_ob = cob = cfn = None
    pending_calls = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if pending_calls is not None:
                # The line after calls= is the call's inclusive cost: position, then Ir.
                parts = line.split()
                entry = totals[(cob, cfn)]
                entry[0] += pending_calls
                entry[1] += int(parts[1]) if len(parts) > 1 else 0
                pending_calls = None
                cob = current_ob  # a call without cob= is into the caller's object
                continue
            key, sep, value = line.partition("=")
            if not sep:
                continue
            if key == "calls":
                pending_calls = int(value.split()[0])
                continue
            kind = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn"}.get(key)
            if kind is None:
                continue
            m = NAME.match(value)
            if m:
                if m.group(2) is not None:
                    tables[kind][m.group(1)] = m.group(2)
                name = tables[kind].get(m.group(1), "?")
            else:
                name = value
            if key == "ob":
                current_ob = cob = name
            elif key == "cob":
                cob = name
            elif key == "cfn":
                cfn = name
            else:  # fn=: a new caller, in the current object
                cob = current_ob
    return totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("callgrind_out")
    ap.add_argument("shorter_run", nargs="?")
    ap.add_argument("--min-calls", type=int, default=100)
    ap.add_argument("--shim", default="libcublasspy.so", help="substring naming the shim's object")
    args = ap.parse_args()
    totals = parse(args.callgrind_out)
    if args.shorter_run:
        for key, (calls, ir) in parse(args.shorter_run).items():
            if key in totals:
                totals[key] = [totals[key][0] - calls, totals[key][1] - ir]
    real = {}
    for (obj, fn), (calls, ir) in totals.items():
        if obj is not None and args.shim not in obj and calls:
            real.setdefault(fn, []).append((calls, ir, obj))
    rows = []
    for (obj, fn), (calls, ir) in totals.items():
        if obj is None or args.shim not in obj or calls < args.min_calls:
            continue
        if fn not in real:
            continue  # the shim's own functions (claim, ...): counted inside the hooks
        r_calls, r_ir, r_obj = max(real[fn])
        rows.append((fn, calls, ir / calls, r_ir / r_calls, ir / calls - r_ir / r_calls, r_obj))
    if not rows:
        sys.exit("callgrind_hooks: no hook of the shim was called often enough in " + args.callgrind_out)
    print(f"{'hook':32} {'calls':>8} {'wrapper':>10} {'real':>10} {'shim adds':>10}")
    for fn, calls, wrapper, realc, added, _ in sorted(rows):
        print(f"{fn:32} {calls:8d} {wrapper:10.1f} {realc:10.1f} {added:10.1f}")


if __name__ == "__main__":
    main()
