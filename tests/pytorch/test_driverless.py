"""Driverless, real libraries: PyTorch in the root with Debian's real CUDA 12.4 libraries and
libcuda (550), no stand-in, on a machine without the NVIDIA kernel module.

PyTorch's output and exit status must be the same with and without the shim, and the report
must not claim a GPU. The machine evidence in the trace names the cause: the kernel module is
not loaded (kernel-module-not-loaded), and no finding says the driver works.
Usage: test_driverless.py <repository root> <build directory>
"""
import json
import subprocess
import sys

from scenario import Scenario, calls

DRIVER = "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.550.163.01"

PROGRAM = """
import warnings
import torch
warnings.simplefilter("always")
print("available", torch.cuda.is_available(), "count", torch.cuda.device_count(), flush=True)
try:
    torch.zeros(2).cuda()
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    shim, plain = s.parallel(lambda: s.torch(PROGRAM, standin=False), lambda: s.torch(PROGRAM, standin=False, shim=False))
    s.check("PyTorch sees no GPU", "available False count 0" in plain.stdout, plain.stdout + plain.stderr[-300:])
    s.check("same exit status with and without the shim", shim.rc == plain.rc == 0, f"{shim.rc}, {plain.rc}")
    s.check("same output with and without the shim", shim.stdout == plain.stdout, shim.stdout)
    # Each run has its own program path (in its trace directory): compare the rest.
    strip = lambda run: run.stderr.replace(run.trace_dir, "DIR")
    s.check("same warnings and errors with and without the shim", strip(shim) == strip(plain), shim.stderr[-300:])
    report = s.report(*shim.traces)
    counts = calls(report, "cudaGetDeviceCount")
    s.check("the real cudaGetDeviceCount fails and is recorded", counts and all(c["failed"] for c in counts),
            [(c["status"], c["status_name"]) for c in counts])
    ids = [d["id"] for d in report["diagnoses"]]
    s.check("the report has a diagnosis", bool(ids), ids)
    s.check("no diagnosis claims a usable GPU or blames cuBLAS",
            not set(ids) & {"cublas-init-failed", "execution-failed", "async-error"} and
            all("1 device" not in d["evidence"] for d in report["diagnoses"]),
            [(d["id"], d["summary"]) for d in report["diagnoses"]])
    s.check("the cause is the kernel module that is not loaded", "kernel-module-not-loaded" in ids, ids)
    s.check("no finding says the driver works", "no-device" not in ids and
            all("driver works" not in d["summary"] for d in report["diagnoses"]),
            [(d["id"], d["summary"]) for d in report["diagnoses"]])
    module = next((d for d in report["diagnoses"] if d["id"] == "kernel-module-not-loaded"), {"evidence": ""})
    s.check("the evidence names the driver library and the missing module file",
            "libcuda.so.550.163.01" in module["evidence"] and "/proc/driver/nvidia/version" in module["evidence"],
            module["evidence"])
    print("diagnoses:", [(d["id"], d["summary"]) for d in report["diagnoses"]])

    # /dev/null bound over the driver library (in the call's private mount namespace): no driver,
    # and that, not the module, is the finding.
    gone = s.torch(PROGRAM, standin=False, options=["--bind", "/dev/null:" + DRIVER])
    s.check("without the driver library PyTorch still sees no GPU", "available False count 0" in gone.stdout,
            gone.stdout + gone.stderr[-300:])
    ids = [d["id"] for d in s.report(*gone.traces)["diagnoses"]]
    s.check("/dev/null as the driver library: no-driver", ids[:1] == ["no-driver"], ids)
    s.check("/dev/null as the driver library: not the module", "kernel-module-not-loaded" not in ids, ids)

    # doctor --python with the root's python3 and real PyTorch, doctor itself in the root.
    doc = subprocess.run(s.root_command([s.cli, "doctor", "--json", "--python", "python3"], standin=False),
                         capture_output=True, text=True, timeout=240)
    details = {}
    for check in json.loads(doc.stdout or "{}").get("checks", []):
        details.setdefault(check["name"], []).append(check["detail"])
    s.check("doctor --python: torch and its CUDA", details.get("torch") == ["torch 2.6.0+debian, built for CUDA 12.4"], details.get("torch"))
    s.check("doctor --python: the libcublas import torch maps, with its version",
            any("libcublas.so.12" in d and "version 12.4" in d for d in details.get("mapped by torch", [])),
            details.get("mapped by torch"))
    s.check("doctor --python: the version table", any("torch CUDA 12.4, driver supports CUDA" in d for d in details.get("versions", [])),
            details.get("versions"))
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
