"""What the .deb and the wheel tests share: named checks that are all run and counted, and the
run of a package's inside script in a throwaway overlay of the Debian trixie PyTorch root, whose
results come back as files under /out."""
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class Checks:
    """Every check runs and prints ok/FAIL, so one failure does not hide the next."""

    def __init__(self, detail_chars):
        self.failures = []
        self.detail_chars = detail_chars

    def __call__(self, name, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {str(detail)[-self.detail_chars:]}"))
        if not ok:
            self.failures.append(name)

    def result(self):
        print("PASS" if not self.failures else f"FAILED: {self.failures}")
        return 1 if self.failures else 0


def run_in_root_overlay(repo, package, inside_script, out, timeout, binds=(), args=()):
    """Runs tests/packaging/<inside_script> on /cublasspy-packages/<package's name> in the overlay,
    with out bound at /out. Returns a reader of the files the script left in out."""
    cmd = [os.path.join(HERE, "in_root_overlay.sh"), os.path.join(repo, "scripts", "in-pytorch-root.sh"),
           "--bind", f"{os.path.dirname(package)}:/cublasspy-packages", "--bind", f"{HERE}:/cublasspy-packaging"]
    for bind in binds:
        cmd += ["--bind", bind]
    cmd += ["--bind", f"{out}:/out", "--", "sh", f"/cublasspy-packaging/{inside_script}",
            "/cublasspy-packages/" + os.path.basename(package), *args]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0:
        raise SystemExit(f"FAIL: the overlay run failed ({run.returncode}): {run.stderr[-600:]}")
    return lambda name: open(os.path.join(out, name)).read()


def output_directory():
    """A directory the root's unprivileged steps can write into."""
    out = tempfile.TemporaryDirectory()
    os.chmod(out.name, 0o755)
    return out
