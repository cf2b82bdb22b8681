"""Runs the workloads of workloads.py under `cublasspy run` and checks each report.
Writes OUT/results.json; exit status 1 when anything was missed."""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cublasspy, out, name, options=(), env=None, traced=True, program=None):
    """Runs workloads.py's NAME (the part before a dot), or `program` (a command), under
    `cublasspy run` with its trace in OUT/NAME; returns the process and the report."""
    trace_dir = os.path.join(out, name)
    os.makedirs(trace_dir, exist_ok=True)
    cmd = program or [sys.executable, os.path.join(HERE, "workloads.py"), name.split(".")[0]]
    if traced:
        cmd = [cublasspy, "run", "-o", os.path.join(trace_dir, "t-%p.cbt"), *options, "--"] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=240)
    with open(os.path.join(trace_dir, "output.txt"), "w") as f:
        f.write(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    report = None
    traces = sorted(glob.glob(os.path.join(trace_dir, "t-*.cbt")))
    if traced and traces:
        rep = subprocess.run([cublasspy, "report", "--json", "--all", *traces], capture_output=True, text=True)
        if rep.returncode == 0:
            report = json.loads(rep.stdout)
            with open(os.path.join(trace_dir, "report.json"), "w") as f:
                f.write(rep.stdout)
    return proc, report


def diagnosis_ids(report):
    return [d["id"] for d in (report or {}).get("diagnoses", [])]


def find_diagnosis(report, ident):
    for d in (report or {}).get("diagnoses", []):
        if d["id"] == ident:
            return d
    return None


def call_by_seq(report, seq):
    for t in (report or {}).get("traces", []):
        for c in t.get("calls", []):
            if c["seq"] == seq:
                return c
    return None


def seconds(proc):
    m = re.search(r"seconds=([0-9.]+)", proc.stdout)
    return float(m.group(1)) if m else None


# The criteria of the cases whose reports a CPU stand-in can give as well: tests/pytorch/
# test_gpu_check.py applies them to the same workloads there, so that they are known to hold
# before a GPU machine's few minutes run them.
def nan_input_verdict(rep):
    """--scan inputs: a non-finite-input finding on the Linear's GEMM."""
    d = find_diagnosis(rep, "non-finite-input")
    call = call_by_seq(rep, d["call"]) if d and d.get("call") else None
    return {"ok": bool(d and call and ("gemm" in call["function"].lower() or "Matmul" in call["function"])),
            "diagnosis": d, "function": call and call["function"]}


def fp16_overflow_verdict(rep):
    """--scan all: the fp16 product beyond 65504 found."""
    d = find_diagnosis(rep, "half-overflow")
    return {"ok": d is not None, "diagnosis": d}


def bad_pointer_verdict(rep):
    """--sync: the illegal address pinned on the cublasSgemm_v2 call."""
    d = find_diagnosis(rep, "async-error")
    call = call_by_seq(rep, d["call"]) if d and d.get("call") else None
    return {"ok": bool(call and call["function"] == "cublasSgemm_v2"), "diagnosis": d, "function": call and call["function"]}


def missing_device_verdict(rep):
    """CUDA_VISIBLE_DEVICES=97: the device enumeration's diagnosis."""
    ids = diagnosis_ids(rep)
    return {"ok": "invalid-visible-devices" in ids or "no-device" in ids, "diagnoses": ids}


def graph_replay_verdict(base, runs):
    """CUDA graphs: base, the workload without the shim; runs, {mode: (process, report)} under
    the shim. Each mode's output is the baseline's (five replays equal to eager), its report has
    no error finding and shows the graph with its captured GEMM and its five replays."""
    modes = {}
    for mode, (proc, rep) in runs.items():
        graphs = [g for t in (rep or {}).get("traces", []) for g in (t.get("launches") or {}).get("graphs", [])]
        errors = [d["id"] for d in (rep or {}).get("diagnoses", []) if d["severity"] == "error"]
        modes[mode] = {
            "same_output": proc.returncode == 0 and proc.stdout == base.stdout,
            "no_error": rep is not None and not errors, "errors": errors,
            "graph_shown": any(g["launches"] == 5 and g["captured_calls"] for g in graphs), "graphs": graphs}
    ok = base.returncode == 0 and "replays: 5 equal eager: True" in base.stdout and all(
        m["same_output"] and m["no_error"] and m["graph_shown"] for m in modes.values())
    return {"ok": ok, "baseline": base.stdout.strip(), "modes": modes}


def embedding_verdict(rep, rep2):
    """The embedding case's criteria, from the reports of its --sync all run (rep) and its --sync
    run (rep2). Under --sync all the launch recorder pins the device assert on the embedding's own
    kernel (an index_select / gather kernel of at::native), not on the Linear's GEMM, and the
    report names the line of workloads.py that launched it (EMBEDDING-LINE); under --sync the GEMM
    is not blamed."""
    d = find_diagnosis(rep, "async-error")
    summary = (d or {}).get("summary", "")
    blames_kernel = bool(d) and re.search(r"index|gather|embedding", summary, re.I) is not None and "gemm" not in summary.lower()
    d2 = find_diagnosis(rep2, "async-error")
    # Under --sync the GEMM is not blamed: it finds the error pending ("did not cause it"), or the
    # error surfaced before it, at a wait or query of the launch ring (PyTorch's cudaGetLastError
    # after the launch, where the kernel failed at once: the stand-in's fault, a quick GPU), a
    # diagnosis on a launch, not on a call. Either way the suspects (the launches since the last
    # clean wait) name the indexing kernel.
    surfaced_before = bool(d2) and d2.get("call") is None and d2.get("launch") is not None
    gemm_not_blamed = bool(d2) and ("did not cause it" in d2["summary"] or surfaced_before)
    suspects_name_kernel = bool(d2) and re.search(r"index|gather|embedding", d2.get("evidence", ""), re.I) is not None
    # The Python line: the pinned launch is the trace's first failed launch, whose locations the
    # report gives in launches.first_failed (python_stack) and on the diagnosis ("launched at
    # ... workloads.py:LINE in embedding_out_of_range ...", after torch.nn's own frames).
    with open(os.path.join(HERE, "workloads.py")) as f:
        line = next(i for i, text in enumerate(f, 1) if "# EMBEDDING-LINE" in text)
    failed = [(t.get("launches") or {}).get("first_failed") or {} for t in (rep or {}).get("traces", [])]
    lines = [(fr.get("file", ""), fr.get("line")) for l in failed for fr in l.get("python_stack", [])]
    line_recorded = any(f.endswith("workloads.py") and l == line for f, l in lines)
    location = (d or {}).get("location", "")
    line_shown = location.startswith("launched at ") and f"workloads.py:{line} in embedding_out_of_range" in location
    return {
        "ok": blames_kernel and gemm_not_blamed and suspects_name_kernel and line_recorded and line_shown
              and "--sync all" not in (d or {}).get("advice", "x"),
        "blames_kernel_sync_all": blames_kernel, "gemm_not_blamed_sync": gemm_not_blamed,
        "suspects_name_kernel_sync": suspects_name_kernel,
        "embedding_line_recorded": line_recorded, "embedding_line_shown": line_shown,
        "location_sync_all": location, "first_failed_launch": failed,
        "diagnosis_sync_all": d, "diagnosis_sync": d2}


# The suspect kernels' findings: the earlier kernel's fault named where the user meets it.
KERNEL_FAULT_IDS = ("cublas-init-failed", "execution-failed", "async-error")


def embedding_default_verdict(rep):
    """The embedding case in a default run (no --sync): wherever the assert surfaces (cublasCreate,
    the Linear's GEMM, the next copy), a finding names the indexing kernel as the earlier fault,
    and its advice names that kernel's usual cause (an index at or above num_embeddings)."""
    found = [d for d in (rep or {}).get("diagnoses", []) if d["id"] in KERNEL_FAULT_IDS]
    named = [d for d in found
             if re.search(r"indexSelect|index_select|gather|embedding", d["summary"] + d.get("evidence", ""), re.I)]
    advised = [d for d in named if "num_embeddings" in d.get("advice", "")]
    return {"ok": bool(advised), "findings": [(d["id"], d["summary"]) for d in found],
            "names_kernel": bool(named), "advises_cause": bool(advised),
            "advice": (advised or named or found or [{}])[0].get("advice", "")[:300]}


def out_of_memory_verdict(rep):
    """device-out-of-memory names the failed allocation, its size, and the device's free and total
    memory at the failure."""
    d = find_diagnosis(rep, "device-out-of-memory")
    text = (d or {}).get("summary", "") + " " + (d or {}).get("evidence", "")
    sized = re.search(r"asked for \d+ bytes", text) is not None
    memory = re.search(r"\(\d+ of \d+ bytes\)", text) is not None
    return {"ok": bool(d) and sized and memory and "CUBLAS_WORKSPACE_CONFIG" in d.get("advice", ""),
            "sized": sized, "free_and_total": memory, "diagnosis": d, "diagnoses": diagnosis_ids(rep)}


def no_kernel_image_verdict(rep, capability, arch):
    """no-kernel-image names the GPU's compute capability (MAJOR.MINOR) and the sm_ARCH the program
    was built for, and the build to install."""
    d = find_diagnosis(rep, "no-kernel-image")
    text = (d or {}).get("summary", "") + " " + (d or {}).get("evidence", "")
    return {"ok": bool(d) and capability in text and f"sm_{arch}" in text and "Install a build with" in d.get("advice", ""),
            "capability": capability, "built_for": f"sm_{arch}", "diagnosis": d, "diagnoses": diagnosis_ids(rep)}


def kernel_for_another_gpu(out, major):
    """tests/diagnoses/programs/diag_kernel_image.cu built by nvcc with SASS only, for a major
    architecture other than the GPU's (SASS runs only on its own major): every launch of its
    kernel gives 209 here. Returns (the program, its arch), or (None, why)."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    arch = 80 if major != 8 else 90
    source = os.path.join(HERE, "..", "..", "tests", "diagnoses", "programs", "diag_kernel_image.cu")
    program = os.path.join(out, f"kernel_image_sm{arch}")
    built = subprocess.run([nvcc, f"-gencode=arch=compute_{arch},code=sm_{arch}", "-o", program, source],
                           capture_output=True, text=True)
    return (program, arch) if built.returncode == 0 else (None, built.stderr[-400:])


# The modes the graph case runs in (`cublasspy run` options).
GRAPH_MODES = [("defaults", []), ("sync", ["--sync"]), ("sync_all", ["--sync", "all"]),
               ("scan_all", ["--scan", "all"]), ("check", ["--check"])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cublasspy", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    results = {}

    # 1. A clean training step: no findings; the time trace mode adds.
    base, _ = run(a.cublasspy, a.out, "clean_step.baseline", traced=False)
    traced, rep = run(a.cublasspy, a.out, "clean_step")
    errors = [d for d in (rep or {}).get("diagnoses", []) if d["severity"] == "error"]
    b, t = seconds(base), seconds(traced)
    calls = sum(tr["totals"]["calls"] for tr in (rep or {}).get("traces", []))
    results["clean_step"] = {
        "ok": base.returncode == 0 and traced.returncode == 0 and rep is not None and not errors,
        "baseline_seconds": b, "traced_seconds": t, "calls": calls,
        "overhead_ratio": (t / b) if b and t else None,
        "overhead_ns_per_call": ((t - b) * 1e9 / calls) if b and t and calls else None,
        "diagnoses": diagnosis_ids(rep)}

    # 2. NaN in a Linear input, found by the input scan at that GEMM.
    _, rep = run(a.cublasspy, a.out, "nan_input", ["--scan", "inputs"])
    results["nan_input"] = nan_input_verdict(rep)

    # 3. fp16 overflow.
    _, rep = run(a.cublasspy, a.out, "fp16_overflow", ["--scan", "all"])
    results["fp16_overflow"] = fp16_overflow_verdict(rep)

    # 4. Bad pointer through ctypes: --sync pins the illegal address on cublasSgemm_v2.
    _, rep = run(a.cublasspy, a.out, "bad_pointer", ["--sync"])
    results["bad_pointer"] = bad_pointer_verdict(rep)

    # 4b. The field's case (a device-side assert that cuBLAS reports later): an embedding index out of range before a Linear layer.
    _, rep = run(a.cublasspy, a.out, "embedding_out_of_range", ["--sync", "all"])
    _, rep2 = run(a.cublasspy, a.out, "embedding_out_of_range.sync", ["--sync"])
    results["embedding_out_of_range"] = embedding_verdict(rep, rep2)

    # 4b'. The same in a default run: the earlier kernel named, with its usual cause.
    _, rep = run(a.cublasspy, a.out, "embedding_out_of_range.default")
    results["embedding_default"] = embedding_default_verdict(rep)

    # 4b''. A kernel built for another GPU: no-kernel-image with the GPU's compute capability.
    import torch
    major, minor = torch.cuda.get_device_capability(0)
    program, arch = kernel_for_another_gpu(a.out, major)
    if program is None:
        results["no_kernel_image"] = {"ok": False, "why": f"nvcc failed: {arch}"}
    else:
        _, rep = run(a.cublasspy, a.out, "no_kernel_image", program=[program])
        results["no_kernel_image"] = no_kernel_image_verdict(rep, f"{major}.{minor}", arch)

    # 4b'''. Out of memory at a GEMM: device-out-of-memory with the memory at the failure.
    _, rep = run(a.cublasspy, a.out, "out_of_memory")
    results["out_of_memory"] = out_of_memory_verdict(rep)

    # 4c. CUDA graphs: a capture and its replays, the same under every mode as without the shim.
    base, _ = run(a.cublasspy, a.out, "graph_replay.baseline", traced=False)
    runs = {mode: run(a.cublasspy, a.out, f"graph_replay.{mode}", options)
            for mode, options in GRAPH_MODES}
    results["graph_replay"] = graph_replay_verdict(base, runs)

    # 5. CUDA_VISIBLE_DEVICES naming a device that does not exist.
    _, rep = run(a.cublasspy, a.out, "missing_device", env={"CUDA_VISIBLE_DEVICES": "97"})
    results["missing_device"] = missing_device_verdict(rep)

    # 6. Scan throughput against copy bandwidth.
    base, _ = run(a.cublasspy, a.out, "scan_throughput.baseline", traced=False)
    scanned, rep = run(a.cublasspy, a.out, "scan_throughput", ["--scan", "inputs"])
    m0 = re.search(r"seconds=([0-9.]+) copy_seconds=([0-9.]+) bytes_per_call=(\d+)", base.stdout)
    m1 = re.search(r"seconds=([0-9.]+)", scanned.stdout)
    fig = None
    if m0 and m1:
        gemm_s, copy_s, nbytes = float(m0.group(1)), float(m0.group(2)), int(m0.group(3))
        extra = max(float(m1.group(1)) - gemm_s, 1e-9) / 20
        fig = {"scan_GBps": nbytes / extra / 1e9, "copy_GBps": 2 * nbytes * 20 / copy_s / 1e9}
    results["scan_throughput"] = {"ok": fig is not None and scanned.returncode == 0, **(fig or {})}

    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    missed = [k for k, v in results.items() if not v["ok"]]
    print(json.dumps(results, indent=2))
    print("gpu-check:", "all passed" if not missed else "MISSED: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
