"""Traces of several hosts merge on the wall clock, not on each host's monotonic clock.

Two short runs of the cuBLAS test program (tests/programs/simple_gemm, on the host's CUDA 13
stand-in) under the shim, one after the other, each in its own UTS and time namespace: "host-a"
first, with CLOCK_MONOTONIC 100000 s ahead, then "host-b" with the host's clock. The two start
within the same second, so the start time (one-second resolution) cannot order them; the
monotonic stamps would put host-b first. `cublasspy report` must list host-a first.
Usage: test_hosts_merge.py <repository root> <build directory>
"""
import os
import subprocess
import sys

from scenario import Scenario


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    program = os.path.join(s.build, "test-programs", "simple_gemm")
    standin13 = os.path.join(s.build, "standin")
    traces = []
    for host, offset in (("host-a", 100000), ("host-b", 0)):
        trace = os.path.join(s.work, f"{host}.cbt")
        env = dict(os.environ, CUBLASSPY_TRACE=trace, LD_LIBRARY_PATH=standin13)
        out = subprocess.run(["unshare", "--uts", "--time", f"--monotonic={offset}", "sh", "-c",
                              f'hostname {host} && LD_PRELOAD="$0" exec "$1"', s.shim, program],
                             env=env, capture_output=True, text=True, timeout=60)
        s.check(f"{host}: the program ran", out.returncode == 0 and os.path.exists(trace), out.stderr[-300:])
        traces.append(trace)
    report = s.report(*reversed(traces))  # the order on the command line must not matter
    hosts = [t["process"]["host"] for t in report["traces"]]
    s.check("the traces name their hosts", sorted(hosts) == ["host-a", "host-b"], hosts)
    s.check("merged on the wall clock: host-a (started first) comes first", hosts == ["host-a", "host-b"],
            [(t["process"]["host"], t["process"]["start_time"], t["process"]["pid"]) for t in report["traces"]])
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
