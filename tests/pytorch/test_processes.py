"""Processes: torchrun ranks under `cublasspy run`, and a DataLoader with forked workers.

- `cublasspy run -o DIR/t-%r-%p.cbt -- scripts/in-pytorch-root.sh ... python3 -m
  torch.distributed.run --standalone --nproc_per_node 2 prog.py`, the CLI on the host and the
  launcher in the root (the environment passes through): one trace per rank; rank 1 fails its
  GEMM (its script sets the stand-in's fault plan before importing torch), and both `run`'s
  summary and `cublasspy report DIR` name rank 1.
- A parent that used CUDA, then a DataLoader whose forked workers use only the CPU: no diagnosis.
Usage: test_processes.py <repository root> <build directory>
"""
import os
import sys

from scenario import Scenario, calls

# Rank 1 fails only once rank 0 has its result: torchrun stops every rank as soon as one exits
# with an error, and a rank 0 slower to import torch (a loaded machine) would be stopped before
# its GEMM.
RANKS = """
import os
import sys
import time
if os.environ.get("RANK") == "1":  # only this rank's stand-in fails its first cublasSgemm
    os.environ["STANDIN_FAIL"] = "cublasSgemm_v2:1:13"
import torch
rank = int(os.environ["RANK"])
done = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rank0.done")
try:
    r = torch.mm(torch.ones(64, 48).cuda(), torch.ones(48, 80).cuda()).cpu()
    print(f"rank {rank}: result {r[0, 0].item()}", flush=True)
    open(done, "w").close()
except RuntimeError as e:
    print(f"rank {rank}: ERROR {str(e).splitlines()[0]}", flush=True)
    deadline = time.monotonic() + 120
    while not os.path.exists(done) and time.monotonic() < deadline:
        time.sleep(0.05)
    sys.exit(3)
"""

TORCHRUN = """
import functools, runpy, sys
import torch.distributed
torch.distributed.TCPStore = functools.partial(torch.distributed.TCPStore, use_libuv=False)
sys.argv[0] = "torch.distributed.run"
runpy.run_module("torch.distributed.run", run_name="__main__")
"""

DATALOADER = """
import torch
from torch.utils.data import DataLoader, TensorDataset
print("gpu", torch.mm(torch.ones(4, 4).cuda(), torch.ones(4, 4).cuda()).cpu()[0, 0].item(), flush=True)
data = TensorDataset(torch.arange(64, dtype=torch.float32).reshape(16, 4))
loader = DataLoader(data, batch_size=4, num_workers=2, multiprocessing_context="fork")
print("batches", [float(b[0].sum()) for b in loader], flush=True)
"""


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    trace_dir = os.path.join(s.work, "ranks")
    os.makedirs(trace_dir)
    script = os.path.join(trace_dir, "ranks.py")
    with open(script, "w") as f:
        f.write(RANKS)
    # Debian's PyTorch is built without libuv, and torchrun's TCP store asks for it whatever
    # USE_LIBUV says: this wrapper turns it off, then runs torch.distributed.run as `-m` would.
    # --standalone serves the rendezvous on the host's name, which the host's /etc/hosts knows.
    wrapper = os.path.join(trace_dir, "torchrun.py")
    with open(wrapper, "w") as f:
        f.write(TORCHRUN)
    launcher = s.root_command(["python3", wrapper, "--standalone", "--nproc_per_node", "2", script],
                              options=["--bind", "/etc/hosts"])
    ranks, loader = s.parallel(
        lambda: s.cli_run(["run", "-o", os.path.join(trace_dir, "t-%r-%p.cbt"), "--", *launcher], timeout=280),
        lambda: s.torch(DATALOADER))

    said = ranks.stdout + ranks.stderr
    s.check("torchrun: rank 0 computes, rank 1 gets PyTorch's EXECUTION_FAILED",
            "rank 0: result 48.0" in said and "rank 1: ERROR CUDA error: CUBLAS_STATUS_EXECUTION_FAILED" in said,
            said.strip()[-600:])
    s.check("cublasspy run: exit status is the launcher's (a rank failed)", ranks.returncode != 0, ranks.returncode)
    s.check("cublasspy run: its summary names rank 1", "rank 1" in ranks.stderr, ranks.stderr.strip()[-600:])
    report = s.report(trace_dir)
    by_rank = {}
    for t in report["traces"]:
        if any(c["function"] == "cublasSgemm_v2" for c in t["calls"]):
            by_rank.setdefault(t["process"]["rank"], []).append(t)
    s.check("one trace with a GEMM per rank (0 and 1)", sorted(by_rank) == [0, 1] and
            all(len(v) == 1 for v in by_rank.values()), {k: len(v) for k, v in by_rank.items()})
    failed = [d for d in report["diagnoses"] if d["id"] == "execution-failed"]
    pid_rank = {t["process"]["pid"]: t["process"]["rank"] for t in report["traces"]}
    s.check("report DIR: execution-failed in rank 1's process",
            len(failed) == 1 and pid_rank.get(failed[0]["pid"]) == 1,
            [(d["id"], d["pid"], pid_rank.get(d["pid"])) for d in report["diagnoses"]])
    s.check("every trace in DIR carries the run's id (run found them all)",
            len({t["environment"]["vars"].get("CUBLASSPY_RUN_ID") for t in report["traces"]} - {None}) == 1 and
            all(t["environment"]["vars"].get("CUBLASSPY_RUN_ID") for t in report["traces"]),
            [t["environment"]["vars"].get("CUBLASSPY_RUN_ID") for t in report["traces"]])

    s.check("DataLoader: the program ran", loader.rc == 0 and "batches [120.0, 376.0, 632.0, 888.0]" in loader.stdout,
            (loader.stdout + loader.stderr).strip()[-400:])
    report = s.report(loader.trace_dir)
    s.check("DataLoader with CPU-only forked workers: no diagnosis", report["diagnoses"] == [],
            [(d["id"], d["summary"]) for d in report["diagnoses"]])
    s.check("DataLoader: the parent's GEMM is recorded", len(calls(report, "cublasSgemm_v2")) == 1)
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
