"""The wheel (cmake/Packaging.cmake, `cmake --build build --target wheel`): tagged for the glibc
floor, holding the shim and the CLI (executable, glibc-only); installed with pip from the file
into a venv in a throwaway overlay of the Debian trixie PyTorch root, `cublasspy` is on PATH,
`python -m cublasspy` works, and `cublasspy run -- python3 script.py` with the root's real
PyTorch gives the report the host build gives (pids, times, paths and addresses aside).
Usage: test_wheel.py <repository root> <build directory> <glibc floor>
"""
import difflib
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

from package_test import Checks, output_directory, run_in_root_overlay

# What differs between two runs of the same program: not what the report says.
VOLATILE_KEYS = {"path", "pid", "ppid", "start_time", "exe", "vars", "start_ns", "end_ns", "duration_ns",
                 "tid", "thread", "run_id", "other", "pid_namespace", "torn_records"}


def normalized(value):
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    if isinstance(value, str):
        value = re.sub(r"0x[0-9a-f]{6,}", "<address>", value)
        value = re.sub(r"/out/(wheel|host)-\d+\.cbt", "<trace>", value)
        return re.sub(r"\b(process|pid) \d+", r"\1 <pid>", value)
    return value


def main():
    repo, build, floor = sys.argv[1:4]
    check = Checks(detail_chars=1500)

    host_cli = os.path.join(build, "bin", "cublasspy")
    host_version = subprocess.run([host_cli, "--version"], capture_output=True, text=True).stdout
    version = host_version.split()[-1]
    tag = "manylinux_" + floor.replace(".", "_") + "_x86_64"
    wheels = glob.glob(os.path.join(build, "packages", "cublasspy-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"FAIL: want one cublasspy-*.whl in {build}/packages (target wheel makes it), found {wheels}")
    wheel = wheels[0]
    check("named for the project version and the glibc floor",
          os.path.basename(wheel) == f"cublasspy-{version}-py3-none-{tag}.whl", wheel)
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(f"cublasspy-{version}.dist-info/WHEEL").decode()
        entry_points = z.read(f"cublasspy-{version}.dist-info/entry_points.txt").decode()
        programs = ["cublasspy/bin/cublasspy", "cublasspy/bin/cublasspy-replay-runner", "cublasspy/lib/libcublasspy.so"]
        check("the shim, the CLI and the runner are inside", set(programs) <= names, sorted(names))
        check("the programs are executable",
              all(names >= set(programs) and (z.getinfo(p).external_attr >> 16) & 0o111 for p in programs[:2]))
        check("WHEEL says not pure, tag py3-none-" + tag,
              "Root-Is-Purelib: false" in meta and f"Tag: py3-none-{tag}" in meta, meta)
        check("cublasspy is a console script", re.search(r"^cublasspy\s*=\s*cublasspy\._cli:main$", entry_points, re.M),
              entry_points)
        with tempfile.TemporaryDirectory() as unpacked:
            z.extractall(unpacked, [p for p in programs if p in names])
            contained = subprocess.run(["sh", os.path.join(repo, "tests", "hardening", "self_contained.sh"), floor] +
                                       [os.path.join(unpacked, p) for p in programs if p in names],
                                       capture_output=True, text=True)
            check("the programs need glibc only, at most " + floor, contained.returncode == 0, contained.stdout)

    with output_directory() as out:
        build_path = os.path.realpath(build)
        read = run_in_root_overlay(repo, wheel, "wheel_inside.sh", out, timeout=280, binds=[build_path],
                                   args=[build_path])
        check("a venv in the root", read("venv.rc").strip() == "0", read("venv.log"))
        check("pip installs the wheel from the file, offline", read("pip.rc").strip() == "0", read("pip.log"))
        check("cublasspy is on the venv's PATH", read("which").strip() == "/opt/venv/bin/cublasspy", read("which"))
        check("cublasspy --version is the host build's", read("version") == host_version, read("version"))
        check("python -m cublasspy works", read("module-version") == host_version, read("module-version"))
        check("the shim is inside the installed package",
              re.fullmatch(r"/opt/venv/lib/python3[.0-9]*/site-packages/cublasspy/lib/libcublasspy\.so\n",
                           read("shim-path")), read("shim-path"))
        check("PyTorch runs under the wheel's cublasspy as under the host build's",
              read("wheel-run.rc") == read("host-run.rc") and read("wheel-run.out") == read("host-run.out") and
              "available False count 0" in read("wheel-run.out"),
              read("wheel-run.out") + read("wheel-run.err") + read("host-run.out"))
        wheel_report = json.loads(read("wheel-report.json") or "{}")
        host_report = json.loads(read("host-report.json") or "{}")
        wheel_libs = [l["path"] for t in wheel_report.get("traces", []) for l in t["environment"]["libraries"]]
        check("the wheel's shim recorded PyTorch's CUDA calls",
              wheel_report.get("traces") and wheel_report["traces"][0]["totals"]["calls"] > 0 and
              any("libcudart.so.12" in p for p in wheel_libs), read("wheel-report.err") + str(wheel_libs))
        a, b = normalized(wheel_report), normalized(host_report)
        check("the JSON report is the host build's", a == b and bool(a.get("traces")),
              json.dumps(a)[:400] + " vs " + json.dumps(b)[:400])
        # Times, durations, pids, tids, addresses and trace paths differ from run to run.
        text = lambda name: re.sub(r"\d{8}-\d{6}|\b\d+(\.\d+)? (ms|us|ns|s)\b|\b\d{3,}\b|0x[0-9a-f]+|/out/\S+", "#",
                                   read(name))
        check("the text report is the host build's", text("wheel-report.txt") == text("host-report.txt"),
              "".join(difflib.unified_diff(text("host-report.txt").splitlines(True),
                                           text("wheel-report.txt").splitlines(True), "host", "wheel")))
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
