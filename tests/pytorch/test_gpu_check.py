"""The GPU check's embedding case (scripts/gpu/gpu_check.py, issue 14), rehearsed on the CPU
stand-in: scripts/gpu/workloads.py's own embedding_out_of_range, in real PyTorch in the root,
where the stand-in makes the first kernel launch (the embedding's index_select) trip a
device-side assert (710), under CUBLASSPY_SYNC=all and CUBLASSPY_SYNC=1 as `cublasspy run --sync
all` and `--sync` set them. gpu_check.embedding_verdict's criteria must all hold: a GPU machine's
few minutes should not be the first time they meet a report.
Usage: test_gpu_check.py <repository root> <build directory>"""
import os
import sys

from scenario import Scenario


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    gpu = os.path.join(s.repo, "scripts", "gpu")
    sys.path.insert(0, gpu)
    import gpu_check  # noqa: E402  (the GPU check's own criteria)

    argv = ["python3", os.path.join(gpu, "workloads.py"), "embedding_out_of_range"]
    fault = {"STANDIN_ASYNC_ERROR": "cudaLaunchKernel:1:710"}
    sync_all, sync = s.parallel(
        lambda: s.torch("", argv=argv, env=dict(fault, CUBLASSPY_SYNC="all")),
        lambda: s.torch("", argv=argv, env=dict(fault, CUBLASSPY_SYNC="1")))
    for name, run in (("--sync all", sync_all), ("--sync", sync)):
        s.check(f"{name}: the workload ran to its end, the assert raised in PyTorch",
                run.rc == 0 and "ERROR: CUDA error: device-side assert triggered" in run.stdout and run.traces,
                (run.stdout + run.stderr)[-400:])
    verdict = gpu_check.embedding_verdict(s.report(*sync_all.traces), s.report(*sync.traces))
    for key in ("blames_kernel_sync_all", "gemm_not_blamed_sync", "suspects_name_kernel_sync",
                "embedding_line_recorded", "embedding_line_shown"):
        s.check(f"gpu_check's criterion {key}", verdict[key],
                {k: (verdict[k] or {}).get("summary", verdict[k]) if k != "location_sync_all" else verdict[k]
                 for k in ("location_sync_all", "diagnosis_sync_all", "diagnosis_sync")})
    s.check("gpu_check's verdict: ok (and no --sync all advised to a run that used it)", verdict["ok"],
            (verdict["diagnosis_sync_all"] or {}).get("advice", "")[:200])
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
