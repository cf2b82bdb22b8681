// Every CUDA function the shim calls for its own use, with what it is for, who calls it, and
// what happens when it is missing (mimalloc's prim.h is the model). Nothing else in the shim
// looks up a CUDA function to call it itself.
//
// Three tables, one per library the functions come from. The shim fills them from the libraries
// the program has loaded (interpose/driver_table.{h,cpp}): lazily, on first use, never loading a
// library, never initializing CUDA on the program's behalf, never in a constructor. The tests
// fill them with fakes, and the engines that use them (src/scan, src/dump) take a table, so they
// never see how it was filled.
//
// Rules for callers:
// - A null entry is a missing function: the library is not loaded (yet), or lacks it. Each
//   entry below says how its callers carry on without it; none of them fails the program's call.
// - Inside the shim, keep thread_state().internal raised while calling through a table, so that
//   anything the call reaches which the shim also hooks passes straight through, unrecorded.
// - None of these initializes CUDA: without a context they fail (CUDA_ERROR_NOT_INITIALIZED,
//   CUDA_ERROR_INVALID_CONTEXT), and the caller treats that as "cannot tell".
#pragma once

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace cublasspy {

// From libcuda.so.1. Plain names are the legacy-default-stream entry points; _v2 where cuda.h
// maps the API name to one.
struct DriverApi {
  // --- Reading operands: CUBLASSPY_SCAN and CUBLASSPY_DUMP (src/scan/gemm_scan.cpp,
  // device_reader.cpp, src/dump/gemm_dump.cpp, driven by interpose/live_scan.cpp and
  // live_dump.cpp). Without any one of the first three (can_copy()), nothing is scanned or
  // dumped, and the log says so once.

  // cuCtxGetCurrent: the context a scan runs in; the scan kernel is loaded once per context.
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  // cuStreamSynchronize: waits for the call's stream before its operands are read. Also
  // CUBLASSPY_SYNC (interpose/post_call.cpp): waits after each GEMM and reads the asynchronous
  // error it returns. Without it, CUBLASSPY_SYNC does nothing and records are not marked synced.
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  // cuMemcpyDtoH_v2: the host path's copy of an operand, in bounded chunks (a bad address is an
  // error code, never a fault in the program).
  decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
  // cuStreamIsCapturing: a stream captured into a CUDA graph is left alone (a scan or dump would
  // break the capture). Missing: streams are taken as not capturing.
  decltype(&::cuStreamIsCapturing) stream_is_capturing = nullptr;
  // cuThreadExchangeStreamCaptureMode: the shim's own waits, copies and launches run in the
  // relaxed capture mode (cuda_driver/stream_wait.h), so that they never invalidate another thread's
  // global-mode capture. Missing: the thread's mode is left as it is.
  decltype(&::cuThreadExchangeStreamCaptureMode) thread_exchange_capture_mode = nullptr;
  // cuGetErrorName: names the driver's errors in the log. Missing: the number alone.
  decltype(&::cuGetErrorName) get_error_name = nullptr;

  // --- The GPU scan kernel (src/scan/gemm_scan.cpp). Without any one of these (can_launch()),
  // every operand takes the host path, and the log says so once.

  // cuMemGetAddressRange_v2: an operand's whole extent lies in one allocation, or it goes to the
  // host path (a kernel reading a bad address would poison the program's context).
  decltype(&::cuMemGetAddressRange_v2) mem_get_address_range = nullptr;
  // cuModuleLoadData, cuModuleGetFunction: the embedded kernel image, once per context.
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  // cuLaunchKernel: one launch per operand, on the call's stream.
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  // cuMemAlloc_v2: the kernels' result buffer (8 KiB per context, kept).
  decltype(&::cuMemAlloc_v2) mem_alloc = nullptr;
  // cuMemsetD8Async, cuMemcpyDtoHAsync_v2: clear a result slot, read it back.
  decltype(&::cuMemsetD8Async) memset_d8_async = nullptr;
  decltype(&::cuMemcpyDtoHAsync_v2) memcpy_dtoh_async = nullptr;

  // --- The memory questions of CUBLASSPY_CHECK (interpose/live_checks.cpp).

  // cuPointerGetAttributes: the kind, device and allocation of each operand address (cached per
  // thread). Missing: every address is "not known" and the memory checks (pointer mode, host
  // pointer, bounds, device) stay silent; the checks of the arguments alone still run.
  decltype(&::cuPointerGetAttributes) pointer_get_attributes = nullptr;
  // cuCtxGetDevice: the device the call runs on. Missing: -1, and the device-mismatch check
  // stays silent.
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  // cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS): whether the device reads
  // pageable host memory (HMM, ATS), asked once per device. Missing: taken as no, so host memory
  // the driver does not know is flagged as unreadable by the GPU.
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;

  // --- The trace header (interpose/post_call.cpp, after each set-up call).

  // cuDriverGetVersion: FileHeader::driver_version (works before cuInit). Missing: stays -1.
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  // cuMemGetInfo_v2: free and total device memory when cublasCreate fails for memory
  // (interpose/machine_record.cpp), asked only while a context is current. Missing: not recorded.
  decltype(&::cuMemGetInfo_v2) mem_get_info = nullptr;

  // --- The launch recorder (interpose/launch_hooks.cpp).

  // cuFuncGetName: the name of a kernel launched through cuLaunchKernel(Ex), once per function
  // (CUDA 12.3 and later drivers). Missing: the kernel is recorded unnamed.
  decltype(&::cuFuncGetName) func_get_name = nullptr;
  // cuKernelGetName: the name of a kernel launched through the runtime's __cudaLaunchKernel by
  // its cudaKernel_t (the CUkernel of the same name), as nvcc 12.4+ host stubs launch, once per
  // kernel (CUDA 12.3 and later drivers). Missing: the runtime's cudaFuncGetName is asked, which
  // takes a cudaKernel_t in place of the entry function; else the kernel is recorded unnamed.
  decltype(&::cuKernelGetName) kernel_get_name = nullptr;

  // --- CUDA graphs (interpose/graph_registry.cpp).

  // cuStreamGetCaptureInfo_v2 (drivers of CUDA 11.3 on; the plain name is CUDA 10's form, the
  // 13 headers' cuStreamGetCaptureInfo is _v3, of 12.3 on): the id of the capture a stream is in,
  // which ties a GEMM made during a capture to the graph it is captured into. Missing: such a
  // GEMM is marked as captured under an unknown id (format::kCaptureIdUnknown).
  using StreamGetCaptureInfoV2 = CUresult (*)(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*,
                                              const CUgraphNode**, size_t*);
  StreamGetCaptureInfoV2 stream_get_capture_info = nullptr;

  bool can_copy() const { return ctx_get_current && stream_synchronize && memcpy_dtoh; }
  bool can_launch() const {
    return can_copy() && mem_get_address_range && module_load_data && module_get_function &&
           launch_kernel && mem_alloc && memset_d8_async && memcpy_dtoh_async;
  }
};

// From libcudart (the first loaded of .13, .12, .11.0). A program with the static runtime has
// none: its runtime is inside the executable.
struct RuntimeApi {
  // cudaRuntimeGetVersion: FileHeader::runtime_version (interpose/post_call.cpp, after each
  // set-up call). Missing: stays -1.
  decltype(&::cudaRuntimeGetVersion) runtime_get_version = nullptr;
  // cudaFuncGetName (CUDA 12.3+): a launched kernel's name when dladdr cannot name its host
  // stub (nvcc 13 makes stubs local symbols). Missing: the kernel stays unnamed.
  decltype(&::cudaFuncGetName) func_get_name = nullptr;
};

// From libcublasLt (the first loaded of .13, .12, .11).
struct CublasLtApi {
  // cublasLtMatrixLayoutGetAttribute, cublasLtMatmulDescGetAttribute: for the record of a
  // cublasLtMatmul, an attribute the shim holds no value for: of a descriptor made before the
  // shim saw it, or one never set that has no known default (interpose/lt_descriptors.cpp).
  // Missing: the attribute is recorded as unknown (kArgUnset).
  decltype(&::cublasLtMatrixLayoutGetAttribute) matrix_layout_get_attribute = nullptr;
  decltype(&::cublasLtMatmulDescGetAttribute) matmul_desc_get_attribute = nullptr;
};

}  // namespace cublasspy
