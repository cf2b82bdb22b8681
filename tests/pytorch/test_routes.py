"""Routes: which cuBLAS entry point each PyTorch GEMM takes, with which arguments.

Runs routes_program.py in the PyTorch root on the CUDA 12 stand-in, under the shim, and
compares each GEMM record with the arguments computed here from the tensors' shapes, strides
and data pointers, as PyTorch 2.6 maps them (aten/src/ATen/native/cuda/Blas.cpp): PyTorch is
row-major and cuBLAS column-major, so for out = mat1 @ mat2 it asks cuBLAS for
out^T = mat2^T mat1^T: cuBLAS's m is out's columns, n its rows, A is mat2 and B is mat1. An
operand whose rows are contiguous is passed as it is (N, ld = its row stride); one whose
columns are contiguous (a transposed view) as T with ld = its column stride.
Also: the output is the same with and without the shim.
Usage: test_routes.py <repository root> <build directory>
"""
import os
import sys

from scenario import Scenario, calls

GEMMS = {"cublasSgemm_v2", "cublasGemmEx", "cublasSgemmStridedBatched", "cublasGemmStridedBatchedEx",
         "cublasLtMatmul"}
CUDA_TYPE = {"float32": "CUDA_R_32F", "float16": "CUDA_R_16F", "bfloat16": "CUDA_R_16BF"}


def as_cublas_operand(t):
    """How a PyTorch matrix (the last two dims) reaches cuBLAS as the transpose it needs."""
    rows, cols = t["shape"][-2:]
    s_row, s_col = t["stride"][-2:]
    if s_col == 1 and s_row >= max(1, cols):
        return "N", s_row
    if s_row == 1 and s_col >= max(1, rows):
        return "T", s_col
    raise AssertionError(f"PyTorch would copy this operand first: {t}")


def expected(op, route, math_mode):
    """The cuBLAS arguments of out = a @ b (+ bias) as PyTorch computes them."""
    a, b, out = op["a"], op["b"], op["out"]
    transa, lda = as_cublas_operand(b)
    transb, ldb = as_cublas_operand(a)
    want = {"m": out["shape"][-1], "n": out["shape"][-2], "k": a["shape"][-1], "transa": transa,
            "transb": transb, "lda": lda, "ldb": ldb, "ldc": out["stride"][-2], "alpha": op["alpha"],
            "a": hex(b["ptr"]), "b": hex(a["ptr"]), "c": hex(out["ptr"])}
    dtype = out["dtype"]
    batched = len(out["shape"]) == 3
    if batched:
        want.update(stride_a=b["stride"][0], stride_b=a["stride"][0], stride_c=out["stride"][0],
                    batch_count=out["shape"][0])
    if route == "lt":  # cuBLASLt: the bias (if any) is an epilogue, beta stays 0
        want.update(function="cublasLtMatmul", compute_type="CUBLAS_COMPUTE_32F", scale_type="CUDA_R_32F",
                    d=hex(out["ptr"]), ldd=out["stride"][-2], beta=0.0,
                    epilogue=4 if "bias" in op else 1,  # CUBLASLT_EPILOGUE_BIAS / _DEFAULT
                    bias=hex(op["bias"]["ptr"]) if "bias" in op else "0x0",
                    batch_count=out["shape"][0] if batched else 1)
        if batched:
            want["stride_d"] = out["stride"][0]
        for x in "abcd":
            want[f"{x}_type"] = CUDA_TYPE[dtype]
    else:
        want["beta"] = op["beta"]
        want["math_mode"] = math_mode
        if dtype == "float32":
            want["function"] = "cublasSgemmStridedBatched" if batched else "cublasSgemm_v2"
        else:
            want["function"] = "cublasGemmStridedBatchedEx" if batched else "cublasGemmEx"
            want["compute_type"] = "CUBLAS_COMPUTE_32F"
            want["algo"] = 99  # CUBLAS_GEMM_DEFAULT_TENSOR_OP
        for x in "abc":
            want[f"{x}_type"] = CUDA_TYPE[dtype]
    return want


def compare(s, title, ops, records, route_of, env_note):
    s.check(f"{env_note}: one GEMM record per operation", len(records) == len(ops),
            f"{len(records)} records for {len(ops)} operations: {[r['function'] for r in records]}")
    for op, rec in zip(ops, records):
        route, math_mode = route_of(op)
        want = expected(op, route, math_mode)
        got = dict(rec["args"], function=rec["function"])
        wrong = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
        s.check(f"{env_note}: {op['op']} -> {want['function']}", not wrong and rec["status"] == 0,
                f"(recorded, expected): {wrong}" if wrong else
                f"m={want['m']} n={want['n']} k={want['k']} {want['transa']}{want['transb']} "
                f"ld={want['lda']},{want['ldb']},{want['ldc']}")
    s.check(f"{title}: no diagnosis", not s.last_report["diagnoses"], s.last_report["diagnoses"])


def gemm_records(report):
    return [c for c in calls(report, nested=False) if c["function"] in GEMMS]


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    program = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "routes_program.py")).read()

    # The four processes at once (most of their time is importing torch).
    run, plain, no_lt, prefer_lt = s.parallel(
        lambda: s.torch(program, env={"ROUTES": "default"}),
        lambda: s.torch(program, shim=False, env={"ROUTES": "default"}),
        lambda: s.torch(program, env={"ROUTES": "no_lt", "DISABLE_ADDMM_CUDA_LT": "1",
                                      "STANDIN_FAIL": "cudaLaunchKernel:*:0"}),
        lambda: s.torch(program, env={"ROUTES": "prefer_lt", "TORCH_BLAS_PREFER_CUBLASLT": "1"}))

    # The default routes, and the same program without the shim: same output, same status.
    s.check("exit status 0 with and without the shim", run.rc == plain.rc == 0,
            f"{run.rc}, {plain.rc}: {run.stderr[-500:]}{plain.stderr[-500:]}")
    results = [line for line in run.lines() if line.startswith("result")]
    s.check("printed results equal with and without the shim",
            results == [line for line in plain.lines() if line.startswith("result")] and len(results) == 13,
            f"{len(results)} result lines")
    s.check("one trace", len(run.traces) == 1, run.traces)
    s.last_report = s.report(*run.traces)

    def default_route(op):
        if op["op"] == "Linear with bias":
            return "lt", None  # addmm with a 1-D bias: cuBLASLt with the bias epilogue
        return "blas", "CUBLAS_TF32_TENSOR_OP_MATH" if op["op"] == "mm allow_tf32" else "CUBLAS_DEFAULT_MATH"

    compare(s, "default routes", run.json_lines(), gemm_records(s.last_report), default_route, "default")
    nested = calls(s.last_report, "cublasLtMatmul", nested=True)
    s.check("fp16/bf16 cublasGemmEx/StridedBatchedEx call cuBLASLt inside (nested records)", len(nested) == 4,
            f"{len(nested)} nested cublasLtMatmul")
    s.check("no cublasLtCreate: PyTorch passes its cuBLAS handle to cuBLASLt",
            not calls(s.last_report, "cublasLtCreate") and
            all(c["args"]["handle"] == calls(s.last_report, "cublasSgemm_v2")[0]["args"]["handle"]
                for c in calls(s.last_report, "cublasLtMatmul")))

    # DISABLE_ADDMM_CUDA_LT=1: Linear's bias is copied into the output (a kernel of PyTorch's
    # own, made to succeed doing nothing), then cublasSgemm with beta 1.
    run = no_lt
    s.check("DISABLE_ADDMM_CUDA_LT=1: exit status 0", run.rc == 0, run.stderr[-500:])
    s.last_report = s.report(*run.traces)
    compare(s, "DISABLE_ADDMM_CUDA_LT=1", run.json_lines(), gemm_records(s.last_report),
            lambda op: ("blas", "CUBLAS_DEFAULT_MATH"), "DISABLE_ADDMM_CUDA_LT=1")

    # TORCH_BLAS_PREFER_CUBLASLT=1: mm and bmm go to cublasLtMatmul.
    run = prefer_lt
    s.check("TORCH_BLAS_PREFER_CUBLASLT=1: exit status 0", run.rc == 0, run.stderr[-500:])
    s.last_report = s.report(*run.traces)
    compare(s, "TORCH_BLAS_PREFER_CUBLASLT=1", run.json_lines(), gemm_records(s.last_report),
            lambda op: ("lt", None), "TORCH_BLAS_PREFER_CUBLASLT=1")
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
