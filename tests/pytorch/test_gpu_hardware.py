"""Real PyTorch whose GEMM fails while NVML (the NVML stand-in, standin/nvml/, on
LD_LIBRARY_PATH) reports the GPU's state: the shim opens NVML at PyTorch's first cuBLAS handle,
watches the device's Xid and ECC events, and reads them at the failure.

- cublasSgemm_v2 scripted to fail (STANDIN_FAIL, 13) with Xid 79 reported: PyTorch raises
  CUBLAS_STATUS_EXECUTION_FAILED, and the report's `gpu-hardware-fault` names Xid 79 (the GPU
  has fallen off the bus) on the device PyTorch used, tied to the failing cublasSgemm_v2, with
  the advice to reboot the node; it explains the call, so no `execution-failed` is given for it.
- the same failure with NVML clean: no `gpu-hardware-fault`, and the GEMM's `execution-failed`.
Usage: test_gpu_hardware.py <repository root> <build directory>
"""
import os
import sys

from scenario import Scenario, diagnosis

PROGRAM = """
import torch
a = torch.ones(80, 48).cuda()
b = torch.ones(48, 64).cuda()
try:
    c = torch.mm(a, b)
    torch.cuda.synchronize()
    print("no error", flush=True)
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0], flush=True)
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    with_nvml = {"LD_LIBRARY_PATH": s.standin + ":" + os.path.join(s.build, "standin-nvml"),
                 "CUBLASSPY_MACHINE_ROOT": s.healthy_machine(),
                 "STANDIN_FAIL": "cublasSgemm_v2:1:13"}
    xid, clean = s.parallel(
        lambda: s.torch(PROGRAM, standin=False, env={**with_nvml, "STANDIN_NVML_XID": "79"}),
        lambda: s.torch(PROGRAM, standin=False, env=with_nvml))

    s.check("xid: PyTorch raises the GEMM's failure",
            "ERROR: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED" in xid.stdout, xid.stdout + xid.stderr)
    report = s.report(*xid.traces)
    d = diagnosis(report, "gpu-hardware-fault")
    s.check("xid: gpu-hardware-fault names Xid 79 on the device in use",
            d is not None and "Xid 79 on 00000000:01:00.0 (the GPU has fallen off the bus)" in d["evidence"], d)
    s.check("xid: it is tied to the failing cublasSgemm_v2",
            d is not None and "cublasSgemm_v2" in d["evidence"] and d.get("call") is not None, d)
    s.check("xid: the advice is the node's, not the program's", d is not None and "reboot" in d["advice"], d)
    s.check("xid: it explains the call, which gets no execution-failed of its own",
            diagnosis(report, "execution-failed") is None, [x["id"] for x in report.get("diagnoses", [])])

    s.check("clean: PyTorch raises the GEMM's failure",
            "ERROR: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED" in clean.stdout, clean.stdout + clean.stderr)
    report = s.report(*clean.traces)
    s.check("clean: no gpu-hardware-fault, the GEMM's execution-failed instead",
            diagnosis(report, "gpu-hardware-fault") is None and diagnosis(report, "execution-failed") is not None,
            [x["id"] for x in report.get("diagnoses", [])])
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
