"""The one place for "run this PyTorch code in the root, under the shim, and give me the report".

Host side: the scenario tests (tests/pytorch/test_*.py) run on the host with the host's python3,
start PyTorch inside the root (scripts/in-pytorch-root.sh) on the CUDA 12 stand-in, and read the
traces with the host's CLI (it needs the host's libfmt, which the root lacks). The repository and
the build directory are bound into the root at their own paths, so the shim, the stand-in and the
trace paths are the same inside and out.

Usage from a test: ``s = Scenario(sys.argv[1], sys.argv[2])`` (repository root, build directory),
then ``s.torch(code, shim=True, env={...})`` and ``s.report(run.traces)``. ``s.check(...)`` counts
failures; ``sys.exit(s.finish())`` ends the test.
"""
import concurrent.futures
import glob
import json
import os
import subprocess
import sys
import tempfile


class Run:
    """One process tree started in the root: its exit status, output and trace files."""

    def __init__(self, proc, trace_dir):
        self.rc, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.trace_dir = trace_dir
        self.traces = sorted(glob.glob(os.path.join(trace_dir, "*.cbt")))

    def lines(self):
        return self.stdout.splitlines()

    def json_lines(self):
        """The lines the program printed as JSON (one object per line, starting with '{')."""
        return [json.loads(line) for line in self.lines() if line.startswith("{")]


class Scenario:
    def __init__(self, repo, build):
        self.repo, self.build = os.path.realpath(repo), os.path.realpath(build)
        root = os.environ.get("CUBLASSPY_PYTORCH_ROOT", "/var/cache/cublasspy/pytorch-root")
        if not os.path.isfile(os.path.join(root, ".cublasspy-root-complete")):
            sys.exit(f"FAIL: no complete PyTorch root at {root}: build it with scripts/pytorch-root.sh (as root)")
        self.shim = os.path.join(self.build, "lib", "libcublasspy.so")
        self.standin = os.path.join(self.build, "standin-cuda12")
        self.cli = os.path.join(self.build, "bin", "cublasspy")
        for path in (self.shim, os.path.join(self.standin, "libcublas.so.12"), self.cli):
            if not os.path.exists(path):
                sys.exit(f"FAIL: {path} is missing: build the targets cublasspy, standin12, cublasspy_cli")
        work = os.path.join(self.build, "pytorch-work")
        os.makedirs(work, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix=os.path.basename(sys.argv[0]).replace(".py", "") + ".", dir=work)
        self.failures = []
        # The scenarios read the traces of clean runs too: every process they start keeps its
        # trace (the environment passes into the root), unless a scenario sets its own.
        os.environ.setdefault("CUBLASSPY_KEEP", "always")

    def binds(self):
        paths = [self.repo] + ([] if self.build.startswith(self.repo + os.sep) else [self.build])
        return [arg for p in paths for arg in ("--bind", p)]

    def root_command(self, argv, env=None, standin=True, shim=False, options=()):
        """The command line that runs argv in the root (with the stand-in, optionally the shim);
        options: more in-pytorch-root.sh options (--bind ...)."""
        cmd = [os.path.join(self.repo, "scripts", "in-pytorch-root.sh")] + self.binds() + list(options)
        if standin:
            cmd += ["--env", "LD_LIBRARY_PATH=" + self.standin]
        if shim:
            cmd += ["--env", "LD_PRELOAD=" + self.shim]
            # The stand-in plays a working driver: the machine evidence the shim records is that
            # of a healthy GPU machine (standin/healthy-machine), not
            # this one's, which has no nvidia module.
            if standin and "CUBLASSPY_MACHINE_ROOT" not in (env or {}):
                cmd += ["--env", "CUBLASSPY_MACHINE_ROOT=" + self.healthy_machine()]
        for name, value in (env or {}).items():
            cmd += ["--env", f"{name}={value}"]
        return cmd + ["--cwd", self.work, "--"] + list(argv)

    def harness_env(self, env=None):
        """`env` with what the harness gives a run with the shim on the stand-in
        (CUBLASSPY_MACHINE_ROOT), for a run without it that a benchmark compares with one: the
        variable does nothing without the shim, and PyTorch walks the environment in each
        torch.mm (getenv), so the two are compared with the same environment but the shim's own
        variables."""
        return {"CUBLASSPY_MACHINE_ROOT": self.healthy_machine(), **(env or {})}

    def healthy_machine(self):
        """The stand-in's healthy GPU machine, as the shim reads it through CUBLASSPY_MACHINE_ROOT
        (standin/healthy-machine, the repository being bound into the root)."""
        return os.path.join(self.repo, "standin", "healthy-machine")

    def torch(self, code, shim=True, env=None, standin=True, trace="t-%p.cbt", argv=None, timeout=240, options=()):
        """Runs `code` (Python source) with python3 in the root. With shim, CUBLASSPY_TRACE puts
        the traces in a fresh directory of their own (Run.traces)."""
        cmd, trace_dir = self.torch_command(code, shim, env, standin, trace, argv, options)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return Run(proc, trace_dir)

    def torch_command(self, code, shim=True, env=None, standin=True, trace="t-%p.cbt", argv=None, options=()):
        """What torch() runs, for a caller that starts it itself: the command line and the fresh
        directory that holds the script and the traces."""
        trace_dir = tempfile.mkdtemp(prefix="traces.", dir=self.work)
        script = os.path.join(trace_dir, "program.py")
        with open(script, "w") as f:
            f.write(code)
        env = dict(env or {})
        if shim:
            env.setdefault("CUBLASSPY_TRACE", os.path.join(trace_dir, trace))
        return self.root_command(argv or ["python3", script], env, standin, shim, options), trace_dir

    @staticmethod
    def parallel(*jobs):
        """Runs the callables at once (each starts its own processes) and returns their results."""
        with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
            return [f.result() for f in [pool.submit(job) for job in jobs]]

    def report(self, *paths, extra=("--all",)):
        """`cublasspy report --json` of the given traces or directories, as a dict."""
        out = subprocess.run([self.cli, "report", "--json", *extra, *paths], capture_output=True,
                             text=True, timeout=120)
        if not out.stdout.strip():
            raise RuntimeError(f"cublasspy report printed nothing (rc {out.returncode}): {out.stderr}")
        return json.loads(out.stdout)

    def cli_run(self, args, timeout=240):
        return subprocess.run([self.cli, *args], capture_output=True, text=True, timeout=timeout)

    def check(self, name, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + name + (": " + str(detail) if detail != "" else ""), flush=True)
        if not ok:
            self.failures.append(name)
        return ok

    def finish(self):
        print(f"{len(self.failures)} failed: {self.failures}" if self.failures else "all checks passed")
        return min(len(self.failures), 100)


def calls(report, function=None, nested=None):
    """Every recorded call of every trace (or those of one function), in trace order."""
    out = []
    for trace in report["traces"]:
        for call in trace["calls"]:
            if function is not None and call["function"] != function:
                continue
            if nested is not None and call["nested"] != nested:
                continue
            out.append(call)
    return out


def diagnosis(report, ident):
    return next((d for d in report["diagnoses"] if d["id"] == ident), None)
