"""A fault in one of PyTorch's own kernels, named with its usual cause (src/diagnose/kernel_causes).

An Embedding(10, 4) is looked up with index 12, then a Linear. The stand-in makes the first kernel
launch, the lookup's index_select (indexSelectSmallIndex; the copies before it are no kernels),
trip a device-side assert (STANDIN_ASYNC_ERROR=cudaLaunchKernel:1:710), and PyTorch's launch check
raises it at once. In a default run the finding names the kernel and the program's line, says the
kernel is the culprit (the only launch since the last clean synchronization) without asking for a
rerun under --sync, and gives the embedding's usual cause (an index at or above num_embeddings,
resize_token_embeddings after add_tokens) instead of a GEMM's operands. Under --sync all the
pinned launch gets the same advice.
Usage: test_kernel_causes.py <repository root> <build directory>
"""
import sys

from scenario import Scenario, diagnosis

EMBEDDING = """import torch

table, lin = torch.nn.Embedding(10, 4).cuda(), torch.nn.Linear(4, 3).cuda()
ids = torch.tensor([1, 12]).cuda()
try:
    h = table(ids)  # LOOKUP
    print("result", lin(h).cpu().tolist())
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
"""
LOOKUP_LINE = next(i for i, line in enumerate(EMBEDDING.splitlines(), 1) if "# LOOKUP" in line)
GEMM_ADVICE = ("lda", "ldb", "ldc", "operands of that call")


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    fault = {"STANDIN_ASYNC_ERROR": "cudaLaunchKernel:1:710"}
    default, sync_all = s.parallel(lambda: s.torch(EMBEDDING, env=fault),
                                   lambda: s.torch(EMBEDDING, env=dict(fault, CUBLASSPY_SYNC="all")))
    for name, run in (("default", default), ("--sync all", sync_all)):
        s.check(f"{name}: the lookup's assert raised in PyTorch",
                "ERROR: CUDA error: device-side assert triggered" in run.stdout and run.traces,
                (run.stdout + run.stderr)[-400:])

    report = s.report(*default.traces) if default.traces else {"diagnoses": []}
    d = diagnosis(report, "async-error")
    s.check("default: async-error", d is not None, [x["id"] for x in report["diagnoses"]])
    d = d or {"summary": "", "evidence": "", "advice": ""}
    s.check("default: the evidence names the lookup's kernel as the culprit, without the hedge",
            "so it is the culprit: void at::native::(anonymous namespace)::indexSelectSmallIndex<" in d["evidence"]
            and "one of the" not in d["evidence"], d["evidence"])
    where = d.get("location") or ""
    s.check("default: the finding names the lookup's line", f"program.py:{LOOKUP_LINE} in <module>" in where, where)
    s.check("default: the advice says the launch is the culprit and asks for no rerun under --sync",
            d["advice"].startswith("That launch is the culprit") and "--sync" not in d["advice"], d["advice"])
    s.check("default: the advice names the embedding's usual cause",
            "indexSelectSmallIndex is PyTorch's kernel for an embedding lookup or index_select" in d["advice"]
            and "num_embeddings" in d["advice"] and "resize_token_embeddings" in d["advice"], d["advice"])
    s.check("default: no GEMM advice", not any(w in d["advice"] for w in GEMM_ADVICE), d["advice"])

    d = diagnosis(s.report(*sync_all.traces), "async-error") if sync_all.traces else None
    d = d or {"summary": "", "advice": ""}
    s.check("--sync all: the pinned kernel's advice names its usual cause, not a GEMM's operands",
            "indexSelectSmallIndex" in d["summary"] and "num_embeddings" in d["advice"]
            and not any(w in d["advice"] for w in GEMM_ADVICE), d)
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
