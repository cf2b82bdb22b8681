"""The .deb (cmake/Packaging.cmake, `cmake --build build --target package`) in a clean root: its
one dependency is glibc at the floor, it puts the shim and the CLI under /usr, and installed
with dpkg into a throwaway overlay of the Debian trixie PyTorch root, `cublasspy --version`,
`cublasspy doctor` and a `cublasspy run` that needs the installed shim work there.
Usage: test_deb.py <repository root> <build directory> <glibc floor>
"""
import glob
import json
import os
import subprocess
import sys

from package_test import Checks, output_directory, run_in_root_overlay


def main():
    repo, build, floor = sys.argv[1:4]
    check = Checks(detail_chars=600)

    debs = glob.glob(os.path.join(build, "packages", "cublasspy_*_amd64.deb"))
    if len(debs) != 1:
        sys.exit(f"FAIL: want one cublasspy_*_amd64.deb in {build}/packages (cpack makes it), found {debs}")
    deb = debs[0]
    host_version = subprocess.run([os.path.join(build, "bin", "cublasspy"), "--version"],
                                  capture_output=True, text=True).stdout
    version = host_version.split()[-1]
    check("the file is named for the project version", os.path.basename(deb) == f"cublasspy_{version}_amd64.deb", deb)
    field = lambda name: subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True, text=True).stdout.strip()
    check("the package version is the project version", field("Version") == version, field("Version"))
    check("glibc at the floor is the only dependency", field("Depends") == f"libc6 (>= {floor})", field("Depends"))
    listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
    files = {line.split()[-1] for line in listing.splitlines() if not line.startswith("d")}
    want = {"./usr/bin/cublasspy", "./usr/bin/cublasspy-replay-runner", "./usr/lib/libcublasspy.so"}
    check("the shim, the CLI and the runner under /usr, and nothing else", files == want, sorted(files))

    with output_directory() as out:
        read = run_in_root_overlay(repo, deb, "deb_inside.sh", out, timeout=240)
        check("dpkg -i installs it", read("dpkg.rc").strip() == "0", read("dpkg.log")[-600:])
        check("cublasspy is on PATH at /usr/bin", read("which").strip() == "/usr/bin/cublasspy", read("which"))
        check("cublasspy --version there is the host build's", read("version") == host_version and
              read("version.rc").strip() == "0", read("version") + read("version.err"))
        # The root has the driver library (libcuda1) but this machine no NVIDIA kernel module and
        # no GPU: doctor says so with an error finding and exits 1 (docs/CONTRACT.md).
        doctor = json.loads(read("doctor.json") or "{}")
        ids = [d["id"] for d in doctor.get("diagnoses", [])]
        check("cublasspy doctor runs and finds no usable GPU", read("doctor.rc").strip() == "1" and
              bool(set(ids) & {"no-driver", "no-device"}) and bool(doctor.get("checks")),
              f"rc {read('doctor.rc').strip()}, {ids}, {read('doctor.err')[-300:]}")
        check("cublasspy run finds the installed shim", read("run.rc").strip() == "0", read("run.err")[-600:])
        report = json.loads(read("report.json") or "{}")
        traces = report.get("traces", [])
        names = [c.get("function") for t in traces for c in t.get("calls", [])]
        check("the installed shim wrote the trace, with its version", len(traces) == 1 and
              traces[0]["writer_version"] == version, read("report.err")[-300:])
        check("the trace holds the program's cudaGetDeviceCount", "cudaGetDeviceCount" in names, names)
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
