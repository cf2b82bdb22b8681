"""Real PyTorch on a GPU its build has no code for: `torch.ones(3).cuda() * 2`.

The stand-in runs no device code: every launch of PyTorch's kernels returns 209
(cudaErrorNoKernelImageForDevice), as on a GPU the build carries no code for, and PyTorch raises
"no kernel image is available for execution on the device". With the stand-in's device playing an
RTX 50xx (STANDIN_DEVICE_CC=12.0), the report's `no-kernel-image` finding names compute capability
12.0, the architectures libtorch_cuda's fatbins carry (read by the shim from its .nv_fatbin
section, cross-checked against torch.cuda.get_arch_list() in the same root) and the build to
install (sm_120, PyTorch's cu128 wheels). Debian's torch carries compute_90 PTX beside its SASS,
so for 12.0 it has code only as PTX the driver must compile, which the finding says. On the
stand-in's default device (9.0), which it has sm_90 SASS for, the finding says the build has code
for this GPU. `doctor --python` prints the architectures torch was built for.
Usage: test_kernel_image.py <repository root> <build directory>
"""
import json
import subprocess
import sys

from scenario import Scenario, diagnosis

TIMES_TWO = """
import torch
x = torch.ones(3).cuda()
try:
    y = x * 2
    torch.cuda.synchronize()
    print("computed", flush=True)
except RuntimeError as e:
    print("error:", str(e).splitlines()[0], flush=True)
"""

ARCH_LIST = """
import json, torch
print(json.dumps(torch.cuda.get_arch_list()))
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    rtx50, hopper, arch_list = s.parallel(
        lambda: s.torch(TIMES_TWO, env={"STANDIN_DEVICE_CC": "12.0"}),
        lambda: s.torch(TIMES_TWO),
        lambda: s.torch(ARCH_LIST, shim=False, env={"STANDIN_DEVICE_CC": "12.0"}))

    torch_archs = json.loads(arch_list.stdout.strip().splitlines()[-1]) if arch_list.rc == 0 else []
    s.check("torch.cuda.get_arch_list() in the root lists sm_ entries", any(a.startswith("sm_") for a in torch_archs),
            arch_list.stdout + arch_list.stderr)

    s.check("12.0: PyTorch raises 'no kernel image is available'",
            "error: CUDA error: no kernel image is available for execution on the device" in rtx50.stdout,
            rtx50.stdout + rtx50.stderr[-600:])
    report = s.report(*rtx50.traces)
    d = diagnosis(report, "no-kernel-image")
    s.check("12.0: the report has a no-kernel-image finding", d is not None, report["diagnoses"])
    if d is not None:
        s.check("12.0: it names the device's compute capability and libtorch_cuda",
                "compute capability 12.0" in d["summary"] and "libtorch_cuda.so" in d["summary"], d["summary"])
        # The SASS the finding names, against torch's own list (its PTX entries are compute_XY).
        summary = d["summary"]
        sass = summary[summary.index("SASS for ") + len("SASS for "):].split(" and PTX")[0].split()
        s.check("12.0: the SASS list is non-empty and has sm_ entries", sass and all(a.startswith("sm_") for a in sass), sass)
        s.check("12.0: it is torch.cuda.get_arch_list()'s SASS",
                sorted(sass) == sorted(a for a in torch_archs if a.startswith("sm_")), (sass, torch_archs))
        s.check("12.0: for this GPU, torch has only its compute_90 PTX",
                "for this GPU, only PTX (compute_90) that the driver must compile" in summary, summary)
        s.check("12.0: the advice names the build to install",
                "Install a build with sm_120, e.g. PyTorch's cu128" in d["advice"], d["advice"])
        s.check("12.0: the finding names the launch", d.get("launch") is not None and "launch #" in d["evidence"], d)
    s.check("12.0: no reported-error says the same 209 again", diagnosis(report, "reported-error") is None,
            [x["id"] for x in report["diagnoses"]])

    report = s.report(*hopper.traces)
    d = diagnosis(report, "no-kernel-image")
    s.check("9.0: the finding says the build has code for this GPU",
            d is not None and "carries code for this GPU (compute capability 9.0)" in d["summary"]
            and "The build has code for this GPU" in d["advice"], d)

    # doctor --python: the architectures torch was built for.
    doc = subprocess.run(s.root_command([s.cli, "doctor", "--json", "--python", "python3"], standin=False),
                         capture_output=True, text=True, timeout=240)
    checks = json.loads(doc.stdout).get("checks", []) if doc.stdout.strip().startswith("{") else []
    archs = [c.get("detail", "") for c in checks if c.get("name") == "torch architectures"]
    s.check("doctor --python prints torch's architectures",
            len(archs) == 1 and all(a in archs[0].split() for a in torch_archs) and "sm_90" in archs[0],
            (archs, doc.stdout[-400:], doc.stderr[-400:]))
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
