"""The GPU check (scripts/gpu-check.sh, scripts/gpu/gpu_check.py) rehearsed on the CPU stand-in:
scripts/gpu/workloads.py's own programs, in real PyTorch in the root, judged by gpu_check.py's
own criteria (its *_verdict functions), with the settings `cublasspy run` gives them there. A
GPU machine's few minutes should not be the first time those criteria meet a report.
- embedding_out_of_range: the stand-in makes the first kernel launch (the embedding's
  index_select) trip a device-side assert (710), under CUBLASSPY_SYNC=all and =1;
- nan_input (CUBLASSPY_SCAN=inputs), fp16_overflow (CUBLASSPY_SCAN=all);
- bad_pointer (CUBLASSPY_SYNC=1): the stand-in, like a GPU, faults on an address it never
  allocated (cudaErrorIllegalAddress, 700, at the next wait);
- missing_device (CUDA_VISIBLE_DEVICES=97);
- graph_replay: torch.cuda.graph and five replays, without the shim and under each of
  gpu_check.GRAPH_MODES (PyTorch's own kernels scripted to succeed doing nothing: its capture and
  replay launch the generator's fill kernels).
Not here: clean_step and scan_throughput, whose GEMMs are too large for a CPU.
Usage: test_gpu_check.py <repository root> <build directory>"""
import os
import sys
import types

from scenario import Scenario


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    gpu = os.path.join(s.repo, "scripts", "gpu")
    sys.path.insert(0, gpu)
    import gpu_check  # noqa: E402  (the GPU check's own criteria)

    def workload(name, **env):
        return lambda: s.torch("", argv=["python3", os.path.join(gpu, "workloads.py"), name], env=env)

    fault = {"STANDIN_ASYNC_ERROR": "cudaLaunchKernel:1:710"}
    sync_all, sync, nan, overflow, bad, missing = s.parallel(
        workload("embedding_out_of_range", CUBLASSPY_SYNC="all", **fault),
        workload("embedding_out_of_range", CUBLASSPY_SYNC="1", **fault),
        workload("nan_input", CUBLASSPY_SCAN="inputs"),
        workload("fp16_overflow", CUBLASSPY_SCAN="all"),
        workload("bad_pointer", CUBLASSPY_SYNC="1"),
        workload("missing_device", CUDA_VISIBLE_DEVICES="97"))
    # The default run with the GPU's timing (the fault seen at the next call that checks the
    # device), and a device of 40 MiB for the out-of-memory case.
    default, oom = s.parallel(
        workload("embedding_out_of_range", STANDIN_DELAYED_ERROR="cudaLaunchKernel:1:710"),
        workload("out_of_memory", STANDIN_DEVICE_MEMORY=str(40 << 20)))
    for name, run in (("embedding --sync all", sync_all), ("embedding --sync", sync)):
        s.check(f"{name}: the workload ran to its end, the assert raised in PyTorch",
                run.rc == 0 and "ERROR: CUDA error: device-side assert triggered" in run.stdout and run.traces,
                (run.stdout + run.stderr)[-400:])
    for name, run in (("nan_input", nan), ("fp16_overflow", overflow), ("bad_pointer", bad), ("missing_device", missing)):
        s.check(f"{name}: the workload ran to its end, traced", run.rc == 0 and run.traces, (run.stdout + run.stderr)[-400:])

    verdict = gpu_check.embedding_verdict(s.report(*sync_all.traces), s.report(*sync.traces))
    for key in ("blames_kernel_sync_all", "gemm_not_blamed_sync", "suspects_name_kernel_sync",
                "embedding_line_recorded", "embedding_line_shown"):
        s.check(f"embedding: gpu_check's criterion {key}", verdict[key],
                {k: (verdict[k] or {}).get("summary", verdict[k]) if k != "location_sync_all" else verdict[k]
                 for k in ("location_sync_all", "diagnosis_sync_all", "diagnosis_sync")})
    s.check("embedding: gpu_check's verdict ok (and no --sync all advised to a run that used it)", verdict["ok"],
            (verdict["diagnosis_sync_all"] or {}).get("advice", "")[:200])
    # The graph case: `cublasspy run OPTIONS` stands for the variables those options set.
    variables = {"sync": {"CUBLASSPY_SYNC": "1"}, "sync_all": {"CUBLASSPY_SYNC": "all"},
                 "scan_all": {"CUBLASSPY_SCAN": "all"}, "check": {"CUBLASSPY_CHECK": "1"}, "defaults": {}}
    quiet = {"STANDIN_FAIL": "cudaLaunchKernel:*:0", "CUBLASSPY_LOG": "off"}
    graph_runs = s.parallel(
        lambda: s.torch("", shim=False, argv=["python3", os.path.join(gpu, "workloads.py"), "graph_replay"], env=quiet),
        *[workload("graph_replay", **quiet, **variables[mode]) for mode, _ in gpu_check.GRAPH_MODES])
    # gpu_check judges subprocess results: the same fields, from the scenario's runs.
    def process(run):
        return types.SimpleNamespace(returncode=run.rc, stdout=run.stdout)
    graph_base = process(graph_runs[0])
    runs = {mode: (process(run), s.report(*run.traces) if run.traces else None)
            for (mode, _), run in zip(gpu_check.GRAPH_MODES, graph_runs[1:])}
    v = gpu_check.graph_replay_verdict(graph_base, runs)
    s.check("graph_replay: gpu_check's verdict ok", v["ok"], v)
    for name, run, judge in (("nan_input", nan, gpu_check.nan_input_verdict),
                             ("fp16_overflow", overflow, gpu_check.fp16_overflow_verdict),
                             ("bad_pointer", bad, gpu_check.bad_pointer_verdict),
                             ("missing_device", missing, gpu_check.missing_device_verdict)):
        v = judge(s.report(*run.traces)) if run.traces else {"ok": False}
        s.check(f"{name}: gpu_check's verdict ok", v["ok"], v)
    v = gpu_check.embedding_default_verdict(s.report(*default.traces)) if default.traces else {"ok": False}
    s.check("embedding, default run: gpu_check's verdict ok (the kernel named, with its usual cause)", v["ok"], v)
    s.check("out_of_memory: PyTorch raised OutOfMemoryError", "OOM: CUDA out of memory" in oom.stdout,
            (oom.stdout + oom.stderr)[-400:])
    v = gpu_check.out_of_memory_verdict(s.report(*oom.traces)) if oom.traces else {"ok": False}
    s.check("out_of_memory: gpu_check's verdict ok", v["ok"], v)
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
