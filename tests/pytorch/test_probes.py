"""A failed load of an optional library is no failure of the run (docs/CONTRACT.md, "Failures
the program shrugged off"): PyTorch probes for libnvidia-ml.so.1 at every start and goes on
without NVML.

- A correct PyTorch run under `cublasspy run` prints no failure summary; the report's
  first_failure is null and the probe is listed in shrugged_off.
- A real failure (cublasSgemm_v2 scripted to return EXECUTION_FAILED) is still the headline:
  `run` prints its summary with the GEMM as the first failure.
Usage: test_probes.py <repository root> <build directory>
"""
import os
import sys

from scenario import Scenario

MM = """
import sys
import torch
try:
    c = torch.mm(torch.ones(4, 4).cuda(), torch.ones(4, 4).cuda())
    print("result", c.cpu()[0, 0].item(), flush=True)
except RuntimeError as e:
    print("error:", str(e).splitlines()[0], flush=True)
    sys.exit(1)
"""


def run_under_cli(s, name, env):
    trace_dir = os.path.join(s.work, name)
    os.makedirs(trace_dir)
    script = os.path.join(trace_dir, "program.py")
    with open(script, "w") as f:
        f.write(MM)
    command = s.root_command(["python3", script], env=env)
    return s.cli_run(["run", "-o", os.path.join(trace_dir, "t-%p.cbt"), "--", *command]), trace_dir


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    (clean, clean_dir), (failing, failing_dir) = s.parallel(
        lambda: run_under_cli(s, "clean", {}),
        lambda: run_under_cli(s, "failing", {"STANDIN_FAIL": "cublasSgemm_v2:1:13"}))

    s.check("clean: the product is computed", clean.returncode == 0 and "result 4.0" in clean.stdout,
            clean.stdout + clean.stderr)
    report = s.report(clean_dir)
    probes = [p for t in report["traces"] for p in t.get("shrugged_off", [])]
    s.check("clean: the libnvidia-ml probe is recorded, as shrugged off",
            any("libnvidia-ml" in p["call"]["args"].get("filename", "") for p in probes), probes)
    s.check("clean: no first failure", all(t["first_failure"] is None for t in report["traces"]),
            [t["first_failure"] for t in report["traces"]])
    s.check("clean: cublasspy run prints no failure summary",
            "first failure" not in clean.stderr and "full report" not in clean.stderr, clean.stderr[-1500:])

    s.check("failing: PyTorch reports EXECUTION_FAILED and exits 1",
            failing.returncode == 1 and "CUBLAS_STATUS_EXECUTION_FAILED" in failing.stdout,
            failing.stdout + failing.stderr)
    s.check("failing: cublasspy run's summary has the GEMM as the first failure",
            "first failure" in failing.stderr and "cublasSgemm_v2" in failing.stderr.split("first failure", 1)[-1][:400],
            failing.stderr[-2000:])
    report = s.report(failing_dir)
    firsts = [t["first_failure"]["function"] for t in report["traces"] if t["first_failure"]]
    s.check("failing: the report's first failure is the GEMM", firsts == ["cublasSgemm_v2"], firsts)
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
