#!/usr/bin/env python3
"""Prints hook-list entries (src/spec/hook_list.h syntax) for the GEMM entry points of the CUDA
headers, choosing each argument's tag by the argument's name and type. Used once to write the
GEMM part of the list and again when a new cuBLAS adds entry points; the list itself is the
source of truth (its entries are reviewed, not regenerated blindly).

usage: scripts/gen_gemm_hooks.py [/usr/local/cuda/include] > /tmp/entries.txt
"""
import re
import sys

inc = sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/include"
WANTED = re.compile(r"^cublas(Xt)?([SDCZH]gemm|Gemm|SgemmEx|CgemmEx|Cgemm3m|Zgemm3m)")
EXCLUDE = re.compile(r"gemv|gemmt|Uint8|LtLegacy")

SCALAR = {"float": "kF32", "double": "kF64", "cuComplex": "kC32", "cuDoubleComplex": "kC64",
          "__half": "kF16", "void": "kByCompute"}


def params_of(text):
    out = []
    for p in [x.strip() for x in text.split(",")]:
        p = re.sub(r"\s+", " ", p)
        is_array = p.endswith("[]")
        p = p[:-2].strip() if is_array else p
        m = re.match(r"(.*?)(\w+)$", p)
        ctype, name = m.group(1).strip(), m.group(2)
        if is_array:
            ctype += "*"
        ctype = ctype.replace(" *", "*")
        out.append((ctype, name, is_array))
    return out


def tag_for(ctype, name, is_array, fn):
    base = ctype.replace("const", "").replace("*", "").strip()
    if name == "handle":
        return "Handle"
    if name in ("alpha", "beta"):
        return ("Alpha" if name == "alpha" else "Beta") + "<ScalarType::%s>" % SCALAR[base]
    if is_array or name.endswith("_array") or name == "group_size":
        # Grouped forms: host arrays with one value per group.
        if name in ("m_array", "n_array", "k_array", "lda_array", "ldb_array", "ldc_array"):
            return "FirstInt<%s>" % ("int64_t" if "int64" in ctype else "int")
        if name in ("transa_array", "transb_array"):
            return "FirstOp"
        if name == "group_size":
            return "FirstInt<%s>" % ("int64_t" if "int64" in ctype else "int")
        return "Ptr"
    if base == "cublasOperation_t":
        return "Op"
    if base == "cudaDataType" or base == "cudaDataType_t":
        return "Compute" if name == "computeType" else "DType"
    if base == "cublasComputeType_t":
        return "Compute"
    if base == "cublasGemmAlgo_t":
        return "Algo"
    if "*" in ctype:
        return "Ptr"
    return "Int"


def family(fn):
    if "Grouped" in fn:
        return "kGemmGrouped"
    if "StridedBatched" in fn:
        return "kGemmStridedBatched"
    if "Batched" in fn:
        return "kGemmBatched"
    return "kGemm"


def main():
    text = open(inc + "/cublas_api.h").read()
    seen = set()
    for m in re.finditer(r"cublasStatus_t\s+CUBLASWINAPI\s+(\w+)\s*\(([^;{]*?)\)\s*;", text):
        fn, params = m.group(1), m.group(2)
        if not WANTED.match(fn) or EXCLUDE.search(fn) or fn in seen:
            continue
        seen.add(fn)
        args = ", ".join("(%s, %s, %s)" % (t, n, tag_for(t, n, a, fn)) for t, n, a in params_of(params))
        print("  X(kCublas, cublasStatus_t, %s, CBS_STATUS_FAIL, %s, %s) \\" % (fn, family(fn), args))


main()
