"""The four field reports, reproduced with real PyTorch on the stand-in's fault script.

Each case makes the stand-in fail the way the users' machines did, runs a small PyTorch program
under the shim, and checks both PyTorch's own message (what the user saw) and cublasspy's
diagnosis (`report --json`: id, the call it rests on, evidence, advice).
Usage: test_field_reports.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, calls, diagnosis

# Moves a tensor to the GPU and multiplies: the first CUDA and the first cuBLAS call.
PROGRAM = """
import warnings
import torch
warnings.simplefilter("always")
try:
    a, b = torch.ones(64, 48).cuda(), torch.ones(48, 80).cuda()
    print("result", torch.mm(a, b).cpu()[0, 0].item())
except RuntimeError as e:
    print("ERROR:", str(e).replace(chr(10), " | "))
"""

CASES = {
    "cublasCreate fails": {
        "env": {"STANDIN_FAIL": "cublasCreate_v2:1:1"},
        "message": "CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
        "id": "cublas-init-failed", "function": "cublasCreate_v2",
        # No allocation ran out of memory first, so the rule gives the context's advice.
        "advice": ["context", "torch.cuda.set_device"]},
    "cublasSgemm fails": {
        "env": {"STANDIN_FAIL": "cublasSgemm_v2:1:13"},
        "message": "CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, ",
        "id": "execution-failed", "function": "cublasSgemm_v2", "shape": (80, 64, 48),
        "advice": ["--sync"]},
    "device count error 999": {
        "env": {"STANDIN_DEVICE_COUNT_ERROR": "999"},
        "message": "CUDA unknown error - this may be due to an incorrectly set up environment",
        "id": "device-enumeration-failed", "function": "cudaGetDeviceCount", "advice": ["nvidia-smi"]},
    "device count error 2": {
        "env": {"STANDIN_DEVICE_COUNT_ERROR": "2"},
        "message": "Unexpected error from cudaGetDeviceCount()",
        "message2": "Error 2: out of memory",
        "id": "device-enumeration-failed", "function": "cudaGetDeviceCount",
        "advice": ["CUDA_DEVICE_ORDER=PCI_BUS_ID", "PYTORCH_NVML_BASED_CUDA_CHECK=1", "CUDA_VISIBLE_DEVICES"]},
}


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    names = list(CASES)
    runs = dict(zip(names, s.parallel(*[lambda c=CASES[n]: s.torch(PROGRAM, env=c["env"]) for n in names])))
    for name in names:
        case, run = CASES[name], runs[name]
        said = run.stdout + run.stderr
        s.check(f"{name}: PyTorch says {case['message']!r}", case["message"] in said and
                case.get("message2", "") in said, said.strip()[-400:])
        report = s.report(*run.traces)
        d = diagnosis(report, case["id"])
        s.check(f"{name}: diagnosis {case['id']}", d is not None, [x["id"] for x in report["diagnoses"]])
        if d is None:
            continue
        s.check(f"{name}: the diagnosis comes first", report["diagnoses"][0]["id"] == case["id"],
                [x["id"] for x in report["diagnoses"]])
        call = next((c for c in calls(report) if c["seq"] == d["call"]), None)
        s.check(f"{name}: it names the failing {case['function']} call",
                call is not None and call["function"] == case["function"] and call["failed"],
                f"call {d['call']}: {call and call['function']}")
        if "shape" in case and call is not None:
            got = (call["args"]["m"], call["args"]["n"], call["args"]["k"])
            s.check(f"{name}: the failing call's m, n, k match the tensors (80, 64, 48)", got == case["shape"], got)
            s.check(f"{name}: the evidence gives m, n, k",
                    all(f"{x}={v}" in d["evidence"].replace(" ", "") for x, v in zip("mnk", case["shape"])),
                    d["evidence"])
        for word in case["advice"]:
            s.check(f"{name}: the advice mentions {word}", word.lower() in d["advice"].lower(), d["advice"][:300])
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
