#!/usr/bin/env python3
"""Prints the GEMM entries of the hook list (src/spec/gemm_hooks.h) from the CUDA headers,
choosing each argument's tag, and with it its role (what the slot means to a reader: Int<Role::kM>
is the GEMM's m), by the argument's name and type. The GEMM lines of the list are this script's
output: when a new cuBLAS adds entry points, or a tag or role changes, change this script and
regenerate them rather than editing them by hand (the entries are still reviewed: the list is
what is compiled).

usage: scripts/gen_gemm_hooks.py [--legacy] [/usr/local/cuda/include] > /tmp/entries.txt
       scripts/gen_gemm_hooks.py --check src/spec/gemm_hooks.h [/usr/local/cuda/include]
  default:   the v2 API's GEMMs (cublas_api.h), then cublasXt's (cublasXt.h), in header order:
             the lines of CUBLASSPY_GEMM_HOOKS (src/spec/gemm_hooks.h)
  --legacy:  the v1 API's GEMMs (cublas.h): the lines of CUBLASSPY_LEGACY_HOOKS
  --check:   exits 1, naming the first difference, unless the list holds both outputs as they
             are (ctest shim.gemm_hooks_generated)
"""
import io
import re
import sys
from contextlib import redirect_stdout

argv = sys.argv[1:]
check = None
if argv[:1] == ["--check"]:
    check, argv = argv[1], argv[2:]
legacy = "--legacy" in argv
args = [a for a in argv if a != "--legacy"]
inc = args[0] if args else "/usr/local/cuda/include"
WANTED = re.compile(r"^cublas(Xt)?([SDCZH]gemm|Gemm|SgemmEx|CgemmEx|Cgemm3m|Zgemm3m|Uint8gemmBias)")
EXCLUDE = re.compile(r"gemv|gemmt|LtLegacy")

SCALAR = {"float": "kF32", "double": "kF64", "cuComplex": "kC32", "cuDoubleComplex": "kC64",
          "__half": "kF16", "void": "kByCompute"}

# Roles by parameter name (format::ArgRole in trace_format.h). An argument not named here is
# recorded with no role (Int<>, Ptr<>): shown by its name, looked for by no reader.
ROLES = {
    "transa": "kTransA", "transb": "kTransB", "m": "kM", "n": "kN", "k": "kK",
    "A": "kA", "B": "kB", "C": "kC", "Aarray": "kA", "Barray": "kB", "Carray": "kC",
    "lda": "kLda", "ldb": "kLdb", "ldc": "kLdc",
    "Atype": "kAType", "Btype": "kBType", "Ctype": "kCType",
    "strideA": "kStrideA", "strideB": "kStrideB", "strideC": "kStrideC",
    "batchCount": "kBatchCount", "group_count": "kGroupCount",
    "alpha_array": "kAlphaArray", "beta_array": "kBetaArray",
}
# Grouped forms: per-group host arrays whose first element the shim reads (a derived slot).
GROUP_ARRAYS = {
    "transa_array": "kTransAArray", "transb_array": "kTransBArray", "m_array": "kMArray",
    "n_array": "kNArray", "k_array": "kKArray", "lda_array": "kLdaArray",
    "ldb_array": "kLdbArray", "ldc_array": "kLdcArray", "group_size": "kGroupSizeArray",
}


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


def with_role(tag, name):
    return "%s<%s>" % (tag, "Role::" + ROLES[name] if name in ROLES else "")


def tag_for(ctype, name, is_array):
    base = ctype.replace("const", "").replace("*", "").strip()
    if name == "handle":
        return "XtHandle" if base == "cublasXtHandle_t" else "Handle"
    if name in ("alpha", "beta"):
        if "*" not in ctype:  # the v1 API passes the scalars by value
            return "AlphaValue" if name == "alpha" else "BetaValue"
        return ("Alpha" if name == "alpha" else "Beta") + "<ScalarType::%s>" % SCALAR[base]
    if name in ("alpha_array", "beta_array"):
        return "%s<ScalarType::%s>" % ("AlphaArray" if name == "alpha_array" else "BetaArray", SCALAR[base])
    if name == "group_count":
        return "GroupCount"
    if name in GROUP_ARRAYS:
        first = "FirstOp" if base == "cublasOperation_t" else "FirstInt"
        return "%s<Role::%s>" % (first, GROUP_ARRAYS[name])
    if is_array or name.endswith("_array"):
        return with_role("Ptr", name)
    if base == "char":
        return with_role("LegacyOp", name)
    if base == "cublasOperation_t":
        return with_role("Op", name)
    if base == "cudaDataType" or base == "cudaDataType_t":
        return "Compute" if name == "computeType" else with_role("DType", name)
    if base == "cublasComputeType_t":
        return "Compute"
    if base == "cublasGemmAlgo_t":
        return "Algo"
    if "*" in ctype:
        return with_role("Ptr", name)
    return with_role("Int", name)


# The traits column: what the hook list says of a GEMM beyond its family (format::Trait). Their
# element types and 32-bit sizes come from the prototypes, not from here.
def traits(fn):
    return "Trait::kQuantized" if fn.startswith("cublasUint8gemmBias") else "Trait::kNone"


def family(fn):
    if "Grouped" in fn:
        return "kGemmGrouped"
    if "StridedBatched" in fn:
        return "kGemmStridedBatched"
    if "Batched" in fn:
        return "kGemmBatched"
    return "kGemm"


def entries(header, ret):
    text = open(inc + "/" + header).read()
    seen = set()
    for m in re.finditer(ret + r"\s+CUBLASWINAPI\s+(\w+)\s*\(([^;{]*?)\)\s*;", text):
        fn, params = m.group(1), m.group(2)
        if not WANTED.match(fn) or EXCLUDE.search(fn) or fn in seen:
            continue
        seen.add(fn)
        yield fn, ", ".join("(%s, %s, %s)" % (t, n, tag_for(t, n, a)) for t, n, a in params_of(params))


def print_legacy():
    lines = ["  X(kCublas, void, %s, 0, kLegacyGemm, Trait::kNone, %s)" % e for e in entries("cublas.h", "void")]
    print(" \\\n".join(lines))


def print_main():
    for fn, args in entries("cublas_api.h", "cublasStatus_t"):
        print("  X(kCublas, cublasStatus_t, %s, CBS_STATUS_FAIL, %s, %s, %s) \\" % (fn, family(fn), traits(fn), args))
    print("  /* cublasXt (host-memory GEMMs spread over devices) */ \\")
    for fn, args in entries("cublasXt.h", "cublasStatus_t"):
        print("  X(kCublas, cublasStatus_t, %s, CBS_STATUS_FAIL, %s, %s, %s) \\" % (fn, family(fn), traits(fn), args))


def check_list(path):
    listed = open(path).read()
    for block in (print_main, print_legacy):
        out = io.StringIO()
        with redirect_stdout(out):
            block()
        text = out.getvalue()
        if text not in listed:
            for line in text.splitlines():
                if line not in listed:
                    print("%s: not as scripts/gen_gemm_hooks.py writes it:\n%s" % (path, line[:300]))
                    return 1
            print("%s: the generated lines are all there, but not in the generated order" % path)
            return 1
    print("%s: the GEMM entries are the generator's" % path)
    return 0


if check:
    sys.exit(check_list(check))
elif legacy:
    print_legacy()
else:
    print_main()
