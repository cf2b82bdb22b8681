#!/usr/bin/env python3
"""Coverage is measured, not claimed: every GEMM entry point that the real libcublas.so /
libcublasLt.so export must be exported (hooked) by libcublasspy.so.

usage: check_hook_coverage.py SHIM CUDA_LIBDIR
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
# cuBLASLt functions the issue asks for, beyond the GEMM itself.
LT_REQUIRED = ["cublasLtCreate", "cublasLtDestroy", "cublasLtMatmul", "cublasLtMatmulAlgoGetHeuristic",
               "cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy", "cublasLtMatmulDescSetAttribute",
               "cublasLtMatmulDescInit_internal", "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy",
               "cublasLtMatrixLayoutSetAttribute", "cublasLtMatrixLayoutInit_internal",
               "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy",
               "cublasLtMatmulPreferenceSetAttribute", "cublasLtMatmulPreferenceInit_internal",
               # what NVIDIA's samples call beyond the matmul: versions, emulation
               "cublasLtGetVersion", "cublasLtGetCudartVersion", "cublasLtGetProperty",
               "cublasLtEmulationDescInit_internal", "cublasLtEmulationDescCreate", "cublasLtEmulationDescDestroy",
               "cublasLtEmulationDescSetAttribute", "cublasLtEmulationDescGetAttribute"]
OTHER_REQUIRED = ["cudaGetDeviceCount", "cuInit", "cuDeviceGetCount", "cuGetProcAddress", "cuGetProcAddress_v2",
                  "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", "dlsym", "dlopen", "dlerror",
                  "cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2", "cublasSetPointerMode_v2",
                  "cublasGetPointerMode_v2", "cublasSetMathMode", "cublasGetMathMode", "cublasSetWorkspace_v2",
                  # where asynchronous errors surface
                  "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamQuery",
                  "cudaEventQuery", "cudaGetLastError", "cudaPeekAtLastError", "cuCtxSynchronize",
                  "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
                  "cuStreamSynchronize", "cuStreamQuery", "cuEventSynchronize", "cuEventQuery",
                  # their per-thread-default-stream forms (--default-stream per-thread)
                  "cudaStreamSynchronize_ptsz", "cudaStreamQuery_ptsz", "cuStreamSynchronize_ptsz",
                  "cuStreamQuery_ptsz", "cudaMemcpy_ptds", "cudaMemcpyAsync_ptsz", "cudaMemsetAsync_ptsz",
                  # the asynchronous copies and memsets, runtime and driver, with those forms
                  "cudaMemcpyAsync", "cudaMemsetAsync", "cuMemcpyAsync", "cuMemcpyAsync_ptsz",
                  "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz", "cuMemcpyDtoHAsync_v2",
                  "cuMemcpyDtoHAsync_v2_ptsz", "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync_v2_ptsz",
                  "cuMemsetD8Async", "cuMemsetD8Async_ptsz", "cuMemsetD16Async", "cuMemsetD16Async_ptsz",
                  "cuMemsetD32Async", "cuMemsetD32Async_ptsz",
                  # the 2D, 3D, peer, 3D peer, symbol, array and batched ones (cudaMemcpyPeerAsync has no _ptsz)
                  "cudaMemcpy2DAsync", "cudaMemcpy2DAsync_ptsz", "cudaMemcpy3DAsync", "cudaMemcpy3DAsync_ptsz",
                  "cudaMemcpyPeerAsync", "cudaMemcpyToSymbolAsync", "cudaMemcpyToSymbolAsync_ptsz",
                  "cudaMemcpyFromSymbolAsync", "cudaMemcpyFromSymbolAsync_ptsz", "cudaMemcpy2DToArrayAsync",
                  "cudaMemcpy2DToArrayAsync_ptsz", "cudaMemcpy2DFromArrayAsync", "cudaMemcpy2DFromArrayAsync_ptsz",
                  "cudaMemset2DAsync", "cudaMemset2DAsync_ptsz", "cudaMemset3DAsync", "cudaMemset3DAsync_ptsz",
                  "cuMemcpy2DAsync_v2", "cuMemcpy2DAsync_v2_ptsz", "cuMemcpy3DAsync_v2", "cuMemcpy3DAsync_v2_ptsz",
                  "cuMemcpyPeerAsync", "cuMemcpyPeerAsync_ptsz", "cuMemsetD2D8Async", "cuMemsetD2D8Async_ptsz",
                  "cuMemsetD2D16Async", "cuMemsetD2D16Async_ptsz", "cuMemsetD2D32Async", "cuMemsetD2D32Async_ptsz",
                  "cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync_v2_ptsz",
                  "cudaMemcpy3DPeerAsync", "cudaMemcpy3DPeerAsync_ptsz", "cuMemcpy3DPeerAsync",
                  "cuMemcpy3DPeerAsync_ptsz", "cuMemcpy3DBatchAsync_v2", "cuMemcpy3DBatchAsync_v2_ptsz",
                  # CUDA 12.8's batches, the plain names with failIdx
                  "cuMemcpyBatchAsync", "cuMemcpyBatchAsync_ptsz", "cuMemcpy3DBatchAsync",
                  "cuMemcpy3DBatchAsync_ptsz",
                  # the runtime's batches, one wrapper for CUDA 13's prototype and CUDA 12.8's
                  "cudaMemcpyBatchAsync", "cudaMemcpyBatchAsync_ptsz", "cudaMemcpy3DBatchAsync",
                  "cudaMemcpy3DBatchAsync_ptsz",
                  # the exec family, which ends an image's trace (glibc's exports)
                  "execve", "execv", "execvp", "execvpe", "execveat", "fexecve", "execl", "execle", "execlp"]


def defined_symbols(path):
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[6] != "UND" and cols[3] in ("FUNC", "IFUNC"):
            names.add(cols[7].split("@")[0])
    return names


def main():
    shim, libdir = sys.argv[1], sys.argv[2]
    hooked = defined_symbols(shim)
    cublas = defined_symbols(libdir + "/libcublas.so.13")
    gemm = sorted(n for n in cublas if "gemm" in n.lower() and not INTERNAL.match(n))
    lt = defined_symbols(libdir + "/libcublasLt.so.13")
    lt_gemm = sorted(n for n in lt if "matmul" in n.lower() and n == "cublasLtMatmul")
    missing = [n for n in gemm + lt_gemm + LT_REQUIRED + OTHER_REQUIRED if n not in hooked]
    internal = sorted(n for n in cublas | lt if INTERNAL.match(n) or LT_INTERNAL.match(n))
    print(f"libcublas GEMM entry points: {len(gemm)}, hooked: {len(gemm) - len([m for m in missing if m in gemm])}")
    print(f"excluded as undeclared internals: {len(internal)}")
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
