#!/usr/bin/env python3
"""Coverage is measured, not claimed: every GEMM entry point that the real libcublas.so /
libcublasLt.so export must be exported (hooked) by libcublasspy.so.

Every entry of the hook list, and the look-up hooks outside it, must be exported too.

usage: check_hook_coverage.py SHIM CUDA_LIBDIR HOOK_MANIFEST
Exit 0 when covered; 1 with the list of unhooked entry points.
"""
import re
import subprocess
import sys

# Exported by libcublas but declared in no header: internal entry points between libcublas and
# its own cuBLASLt kernels; no program can call them by name.
INTERNAL = re.compile(r"^cublasLtLegacyGemm")
# cuBLASLt's typed matmuls (cublasLtSSSMatmul, ...) are likewise undeclared internals.
LT_INTERNAL = re.compile(r"^cublasLt[A-Z]{3}Matmul")
# The hooks outside the hook list: they resolve names (the dlsym redirect, the driver's and the
# runtime's entry-point look-ups) or pass dlerror through, and record nothing of their own.
LOOKUP_HOOKS = ["dlsym", "dlerror", "cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint",
                "cudaGetDriverEntryPointByVersion"]


def listed_hooks(manifest):
    """Every entry of the hook list (src/spec/hook_list.h), as tests/integration/hook_manifest.cpp prints it."""
    out = subprocess.run([manifest], check=True, capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line]


def defined_symbols(path):
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[6] != "UND" and cols[3] in ("FUNC", "IFUNC"):
            names.add(cols[7].split("@")[0])
    return names


def main():
    shim, libdir, manifest = sys.argv[1], sys.argv[2], sys.argv[3]
    listed = listed_hooks(manifest)
    hooked = defined_symbols(shim)
    cublas = defined_symbols(libdir + "/libcublas.so.13")
    gemm = sorted(n for n in cublas if "gemm" in n.lower() and not INTERNAL.match(n))
    lt = defined_symbols(libdir + "/libcublasLt.so.13")
    lt_gemm = sorted(n for n in lt if "matmul" in n.lower() and n == "cublasLtMatmul")
    missing = [n for n in gemm + lt_gemm + listed + LOOKUP_HOOKS if n not in hooked]
    internal = sorted(n for n in cublas | lt if INTERNAL.match(n) or LT_INTERNAL.match(n))
    print(f"libcublas GEMM entry points: {len(gemm)}, hooked: {len(gemm) - len([m for m in missing if m in gemm])}")
    print(f"excluded as undeclared internals: {len(internal)}")
    print(f"hook-list entries: {len(listed)}, look-up hooks: {len(LOOKUP_HOOKS)}")
    # __cudaLaunchKernel(_ptsz): the runtime entry point nvcc's host stubs call for <<<...>>>.
    hook_names = r"^(cu|__cudaLaunchKernel(_ptsz)?$|dlsym$|dlopen$|dlerror$|exec(ve|v|vp|vpe|veat|l|le|lp)$|fexecve$)"
    bad = [n for n in hooked if not re.match(hook_names, n)]
    if bad:
        print("the shim exports non-hook symbols:", " ".join(sorted(bad)))
        return 1
    if missing:
        print("NOT HOOKED:", " ".join(missing))
        return 1
    return 0


sys.exit(main())
