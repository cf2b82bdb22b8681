// THE list of intercepted functions. Everything else (function ids, the trace's function table,
// the real-function tables, the exported wrappers, the dlsym redirect) is expanded from it, so
// adding a function is one entry here. Each entry:
//
//   X(library, return type, name, value returned when the real function cannot be found,
//     family, Trait::kNone, (type, parameter name, tag)...)
//
// The parameter types must match the CUDA headers exactly: the wrappers are compiled against
// them, and each wrapper (interpose/hook_expansion.h, CBS_DEFINE_WRAPPER) static_asserts its
// type against the header's declaration.
// Tags (arg_tags.h) say how each argument is recorded and what it means (its role: Int<Role::kM>
// is the GEMM's m; Int<> means nothing a reader looks for). The library in the first column
// and the roles go into each trace's function table, so readers find a call's fields by role,
// never by name. Ids are positions in this list and are written into each trace's function
// table, so a reader never depends on this order. The GEMM entries (every line of the v2 API's,
// cublasXt's and the v1 API's GEMMs) are in gemm_hooks.h, written by scripts/gen_gemm_hooks.py:
// change the script and regenerate them, rather than editing them by hand.
#pragma once

// This header is only macros and a plain enum: the CUDA types in it are tokens until a
// translation unit that includes the headers expands an entry (hooks.cpp, hooks_legacy.cpp).
#include <cstdint>

// cuda.h maps the names cuMemcpyBatchAsync and cuMemcpy3DBatchAsync to their CUDA 13 forms
// (_v2) with macros, but the list also names the CUDA 12.8 functions of those very names, which
// the driver still exports for programs built against 12.8 or 12.9. A macro would turn an
// entry's name into the _v2 one wherever the list is expanded, so where the CUDA headers are
// in reach the header is included here, first, and the two macros undone (a translation unit
// that calls the _v2 functions names them). Where they are not (the replay's signatures, which
// only stringize the list), no macro can rename an entry.
#if __has_include(<cuda.h>)
#include <cuda.h>
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#endif

#include "trace/trace_format.h"
#include "spec/gemm_hooks.h"  // the GEMM entries, generated

namespace cublasspy {
using Family = format::Family;  // FunctionEntry::family: lets a reader group functions
using Role = format::ArgRole;   // ArgDescriptor::role: what a slot means (the tags' Int<Role::kM>)
namespace Trait = format::Trait;  // FunctionEntry::traits: what the function means (the traits column)
}  // namespace cublasspy

#define CBS_STATUS_FAIL CUBLAS_STATUS_NOT_INITIALIZED

// clang-format off
#define CUBLASSPY_HOOKS(X)                                                                      \
  /* CUDA runtime: device enumeration */                                                        \
  X(kCudart, cudaError_t, cudaGetDeviceCount, cudaErrorInsufficientDriver, kDevice, Trait::kEnumeratesDevices | Trait::kSetupCall, \
    (int*, count, OutInt<Role::kDeviceCount>))                                                  \
  /* cuBLAS handles and their state */                                                          \
  X(kCublas, cublasStatus_t, cublasCreate_v2, CBS_STATUS_FAIL, kHandle, Trait::kCreatesHandle | Trait::kSetupCall, \
    (cublasHandle_t*, handle, HandleCreated))                                                   \
  X(kCublas, cublasStatus_t, cublasDestroy_v2, CBS_STATUS_FAIL, kHandle, Trait::kNone,              \
    (cublasHandle_t, handle, HandleDestroyed))                                                  \
  X(kCublas, cublasStatus_t, cublasSetStream_v2, CBS_STATUS_FAIL, kHandle, Trait::kNone,            \
    (cublasHandle_t, handle, Handle), (cudaStream_t, stream, StreamSet))                        \
  X(kCublas, cublasStatus_t, cublasGetStream_v2, CBS_STATUS_FAIL, kHandle, Trait::kNone,            \
    (cublasHandle_t, handle, Handle), (cudaStream_t*, stream, OutPtr<Role::kStream>))           \
  X(kCublas, cublasStatus_t, cublasSetPointerMode_v2, CBS_STATUS_FAIL, kHandle, Trait::kNone,       \
    (cublasHandle_t, handle, Handle), (cublasPointerMode_t, mode, PModeSet))                    \
  X(kCublas, cublasStatus_t, cublasGetPointerMode_v2, CBS_STATUS_FAIL, kHandle, Trait::kNone,       \
    (cublasHandle_t, handle, Handle), (cublasPointerMode_t*, mode, OutPMode))                   \
  X(kCublas, cublasStatus_t, cublasSetMathMode, CBS_STATUS_FAIL, kHandle, Trait::kNone,             \
    (cublasHandle_t, handle, Handle), (cublasMath_t, mode, MModeSet))                           \
  X(kCublas, cublasStatus_t, cublasGetMathMode, CBS_STATUS_FAIL, kHandle, Trait::kNone,             \
    (cublasHandle_t, handle, Handle), (cublasMath_t*, mode, OutMMode))                          \
  X(kCublas, cublasStatus_t, cublasSetWorkspace_v2, CBS_STATUS_FAIL, kHandle, Trait::kNone,         \
    (cublasHandle_t, handle, Handle), (void*, workspace, WorkspaceSet),                         \
    (size_t, workspaceSizeInBytes, WorkspaceBytesSet))                                          \
  /* cuBLAS GEMMs: every entry point of libcublas that computes C = alpha op(A) op(B) + beta C */ \
  CUBLASSPY_GEMM_HOOKS(X) \
  CUBLASSPY_LT_HOOKS(X) \
  CUBLASSPY_DRIVER_HOOKS(X)

// cuBLASLt: handles, descriptors (shadowed, see lt_descriptors.h), heuristics and the matmul.
#define CUBLASSPY_LT_HOOKS(X)                                                                   \
  /* The library's versions, which a program checks before it picks a path (LtFp8Matmul). The */ \
  /* size_t ones return a value, not a status: the value is the derived slot `returned`. */     \
  X(kCublasLt, size_t, cublasLtGetVersion, 0, kOther, Trait::kNone)                                 \
  X(kCublasLt, size_t, cublasLtGetCudartVersion, 0, kOther, Trait::kNone)                           \
  X(kCublasLt, cublasStatus_t, cublasLtGetProperty, CBS_STATUS_FAIL, kOther, Trait::kNone,          \
    (libraryPropertyType, type, Int<>), (int*, value, OutInt<>))                                \
  X(kCublasLt, cublasStatus_t, cublasLtCreate, CBS_STATUS_FAIL, kHandle, Trait::kCreatesHandle,     \
    (cublasLtHandle_t*, lightHandle, LtHandleCreated))                                          \
  X(kCublasLt, cublasStatus_t, cublasLtDestroy, CBS_STATUS_FAIL, kHandle, Trait::kNone,             \
    (cublasLtHandle_t, lightHandle, HandleDestroyed))                                           \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulDescCreate, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatmulDesc_t*, matmulDesc, LtDescCreated),                                         \
    (cublasComputeType_t, computeType, LtInitComputeType),                                      \
    (cudaDataType_t, scaleType, LtInitScaleType))                                               \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulDescInit_internal, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatmulDesc_t, matmulDesc, LtDescInitialized), (size_t, size, UInt<>),              \
    (cublasComputeType_t, computeType, LtInitComputeType),                                      \
    (cudaDataType_t, scaleType, LtInitScaleType))                                               \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulDescSetAttribute, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatmulDesc_t, matmulDesc, LtTarget), (cublasLtMatmulDescAttributes_t, attr, LtAttr), \
    (const void*, buf, LtAttrBuffer), (size_t, sizeInBytes, LtAttrSize))                        \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulDescDestroy, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatmulDesc_t, matmulDesc, LtDestroyed))                                            \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixLayoutCreate, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatrixLayout_t*, matLayout, LtLayoutCreated), (cudaDataType, type, LtInitType),    \
    (uint64_t, rows, LtInitRows), (uint64_t, cols, LtInitCols), (int64_t, ld, LtInitLd))        \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixLayoutInit_internal, CBS_STATUS_FAIL,              \
    kLtDescriptor, Trait::kNone, (cublasLtMatrixLayout_t, matLayout, LtLayoutInitialized),          \
    (size_t, size, UInt<>), (cudaDataType, type, LtInitType), (uint64_t, rows, LtInitRows),    \
    (uint64_t, cols, LtInitCols), (int64_t, ld, LtInitLd))                                      \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixLayoutSetAttribute, CBS_STATUS_FAIL,               \
    kLtDescriptor, Trait::kNone, (cublasLtMatrixLayout_t, matLayout, LtTarget),                     \
    (cublasLtMatrixLayoutAttribute_t, attr, LtAttr), (const void*, buf, LtAttrBuffer),          \
    (size_t, sizeInBytes, LtAttrSize))                                                          \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixLayoutDestroy, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatrixLayout_t, matLayout, LtDestroyed))                                           \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulPreferenceCreate, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatmulPreference_t*, pref, LtPreferenceCreated))                                   \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulPreferenceInit_internal, CBS_STATUS_FAIL,          \
    kLtDescriptor, Trait::kNone, (cublasLtMatmulPreference_t, pref, LtPreferenceInitialized),       \
    (size_t, size, UInt<>))                                                                     \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulPreferenceSetAttribute, CBS_STATUS_FAIL,           \
    kLtDescriptor, Trait::kNone, (cublasLtMatmulPreference_t, pref, LtTarget),                      \
    (cublasLtMatmulPreferenceAttributes_t, attr, LtAttr), (const void*, buf, LtAttrBuffer),     \
    (size_t, sizeInBytes, LtAttrSize))                                                          \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulPreferenceDestroy, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatmulPreference_t, pref, LtDestroyed))                                            \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoGetHeuristic, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtHandle_t, lightHandle, Handle), (cublasLtMatmulDesc_t, operationDesc, LtMatmulDescArg), \
    (cublasLtMatrixLayout_t, Adesc, LtLayoutA), (cublasLtMatrixLayout_t, Bdesc, LtLayoutB),     \
    (cublasLtMatrixLayout_t, Cdesc, LtLayoutC), (cublasLtMatrixLayout_t, Ddesc, LtLayoutD),     \
    (cublasLtMatmulPreference_t, preference, Ptr<>), (int, requestedAlgoCount, Int<>),          \
    (cublasLtMatmulHeuristicResult_t*, heuristicResultsArray, Ptr<>),                           \
    (int*, returnAlgoCount, OutInt<>))                                                            \
  X(kCublasLt, cublasStatus_t, cublasLtMatmul, CBS_STATUS_FAIL, kLtMatmul, Trait::kNone,            \
    (cublasLtHandle_t, lightHandle, Handle), (cublasLtMatmulDesc_t, computeDesc, LtMatmulDescArg), \
    (const void*, alpha, Alpha<ScalarType::kByScaleType>), (const void*, A, Ptr<Role::kA>),     \
    (cublasLtMatrixLayout_t, Adesc, LtLayoutA), (const void*, B, Ptr<Role::kB>),                \
    (cublasLtMatrixLayout_t, Bdesc, LtLayoutB),                                                 \
    (const void*, beta, Beta<ScalarType::kByScaleType>), (const void*, C, Ptr<Role::kC>),       \
    (cublasLtMatrixLayout_t, Cdesc, LtLayoutC), (void*, D, Ptr<Role::kD>),                      \
    (cublasLtMatrixLayout_t, Ddesc, LtLayoutD), (const cublasLtMatmulAlgo_t*, algo, LtAlgoArg), \
    (void*, workspace, Ptr<Role::kWorkspace>), (size_t, workspaceSizeInBytes, UInt<Role::kWorkspaceBytes>), \
    (cudaStream_t, stream, StreamArg))                                                          \
  /* cuBLASLt algorithms: listing, initializing, configuring and checking them (a preset */    \
  /* algorithm passed to cublasLtMatmul is recorded on the matmul: LtAlgoArg) */               \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoGetIds, CBS_STATUS_FAIL, kLtDescriptor, Trait::kConfiguresAlgo, \
    (cublasLtHandle_t, lightHandle, Handle), (cublasComputeType_t, computeType, Compute),     \
    (cudaDataType_t, scaleType, DType<Role::kScaleType>), (cudaDataType_t, Atype, DType<Role::kAType>), \
    (cudaDataType_t, Btype, DType<Role::kBType>), (cudaDataType_t, Ctype, DType<Role::kCType>), \
    (cudaDataType_t, Dtype, DType<Role::kDType>), (int, requestedAlgoCount, Int<>),           \
    (int*, algoIdsArray, Ptr<>), (int*, returnAlgoCount, OutInt<>))                            \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoInit, CBS_STATUS_FAIL, kLtDescriptor, Trait::kConfiguresAlgo, \
    (cublasLtHandle_t, lightHandle, Handle), (cublasComputeType_t, computeType, Compute),     \
    (cudaDataType_t, scaleType, DType<Role::kScaleType>), (cudaDataType_t, Atype, DType<Role::kAType>), \
    (cudaDataType_t, Btype, DType<Role::kBType>), (cudaDataType_t, Ctype, DType<Role::kCType>), \
    (cudaDataType_t, Dtype, DType<Role::kDType>), (int, algoId, Int<>),                       \
    (cublasLtMatmulAlgo_t*, algo, Ptr<>))                                                      \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoCheck, CBS_STATUS_FAIL, kLtDescriptor, Trait::kConfiguresAlgo, \
    (cublasLtHandle_t, lightHandle, Handle), (cublasLtMatmulDesc_t, operationDesc, LtMatmulDescArg), \
    (cublasLtMatrixLayout_t, Adesc, LtLayoutA), (cublasLtMatrixLayout_t, Bdesc, LtLayoutB),   \
    (cublasLtMatrixLayout_t, Cdesc, LtLayoutC), (cublasLtMatrixLayout_t, Ddesc, LtLayoutD),   \
    (const cublasLtMatmulAlgo_t*, algo, Ptr<>), (cublasLtMatmulHeuristicResult_t*, result, Ptr<>)) \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoConfigSetAttribute, CBS_STATUS_FAIL, kLtDescriptor, Trait::kConfiguresAlgo, \
    (cublasLtMatmulAlgo_t*, algo, Ptr<>), (cublasLtMatmulAlgoConfigAttributes_t, attr, LtAttr), \
    (const void*, buf, LtAttrBuffer), (size_t, sizeInBytes, UInt<>))                          \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoConfigGetAttribute, CBS_STATUS_FAIL, kLtDescriptor, Trait::kConfiguresAlgo, \
    (const cublasLtMatmulAlgo_t*, algo, Ptr<>), (cublasLtMatmulAlgoConfigAttributes_t, attr, LtAttr), \
    (void*, buf, LtAttrOutBuffer), (size_t, sizeInBytes, UInt<>), (size_t*, sizeWritten, OutInt<>)) \
  X(kCublasLt, cublasStatus_t, cublasLtMatmulAlgoCapGetAttribute, CBS_STATUS_FAIL, kLtDescriptor, Trait::kConfiguresAlgo, \
    (const cublasLtMatmulAlgo_t*, algo, Ptr<>), (cublasLtMatmulAlgoCapAttributes_t, attr, LtAttr), \
    (void*, buf, LtAttrOutBuffer), (size_t, sizeInBytes, UInt<>), (size_t*, sizeWritten, OutInt<>)) \
  /* cuBLASLt floating-point emulation descriptors (CUDA 13), shadowed like the others; a */  \
  /* matmul descriptor's CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR attaches one (LtDgemmEmulated) */ \
  X(kCublasLt, cublasStatus_t, cublasLtEmulationDescCreate, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtEmulationDesc_t*, emulationDesc, LtEmulationCreated))                            \
  X(kCublasLt, cublasStatus_t, cublasLtEmulationDescInit_internal, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtEmulationDesc_t, emulationDesc, LtEmulationInitialized), (size_t, size, UInt<>)) \
  X(kCublasLt, cublasStatus_t, cublasLtEmulationDescDestroy, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtEmulationDesc_t, emulationDesc, LtDestroyed))                                    \
  X(kCublasLt, cublasStatus_t, cublasLtEmulationDescSetAttribute, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtEmulationDesc_t, emulationDesc, LtTarget), (cublasLtEmulationDescAttributes_t, attr, LtAttr), \
    (const void*, buf, LtAttrBuffer), (size_t, sizeInBytes, LtAttrSize))                      \
  X(kCublasLt, cublasStatus_t, cublasLtEmulationDescGetAttribute, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtEmulationDesc_t, emulationDesc, Ptr<>), (cublasLtEmulationDescAttributes_t, attr, LtAttr), \
    (void*, buf, LtAttrOutBuffer), (size_t, sizeInBytes, UInt<>), (size_t*, sizeWritten, OutInt<>)) \
  /* cuBLASLt matrix transforms and their descriptors */                                      \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixTransform, CBS_STATUS_FAIL, kOther, Trait::kNone,      \
    (cublasLtHandle_t, lightHandle, Handle), (cublasLtMatrixTransformDesc_t, transformDesc, Ptr<>), \
    (const void*, alpha, Ptr<>), (const void*, A, Ptr<>), (cublasLtMatrixLayout_t, Adesc, Ptr<>), \
    (const void*, beta, Ptr<>), (const void*, B, Ptr<>), (cublasLtMatrixLayout_t, Bdesc, Ptr<>), \
    (void*, C, Ptr<>), (cublasLtMatrixLayout_t, Cdesc, Ptr<>), (cudaStream_t, stream, StreamArg)) \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixTransformDescCreate, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatrixTransformDesc_t*, transformDesc, OutPtr<>), (cudaDataType, scaleType, DType<>)) \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixTransformDescInit_internal, CBS_STATUS_FAIL,     \
    kLtDescriptor, Trait::kNone, (cublasLtMatrixTransformDesc_t, transformDesc, Ptr<>), (size_t, size, UInt<>), \
    (cudaDataType, scaleType, DType<>))                                                        \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixTransformDescDestroy, CBS_STATUS_FAIL, kLtDescriptor, Trait::kNone, \
    (cublasLtMatrixTransformDesc_t, transformDesc, Ptr<>))                                     \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixTransformDescSetAttribute, CBS_STATUS_FAIL,      \
    kLtDescriptor, Trait::kNone, (cublasLtMatrixTransformDesc_t, transformDesc, Ptr<>),             \
    (cublasLtMatrixTransformDescAttributes_t, attr, LtAttr), (const void*, buf, LtAttrBuffer), \
    (size_t, sizeInBytes, UInt<>))                                                             \
  X(kCublasLt, cublasStatus_t, cublasLtMatrixTransformDescGetAttribute, CBS_STATUS_FAIL,      \
    kLtDescriptor, Trait::kNone, (cublasLtMatrixTransformDesc_t, transformDesc, Ptr<>),             \
    (cublasLtMatrixTransformDescAttributes_t, attr, LtAttr), (void*, buf, LtAttrOutBuffer),   \
    (size_t, sizeInBytes, UInt<>), (size_t*, sizeWritten, OutInt<>))

// CUDA runtime and driver: device enumeration, the memory the checks reason about, and the
// synchronization points where asynchronous errors surface. The driver functions are reached
// through cuGetProcAddress by programs linked with the static runtime (driver_entry_points.cpp).
#define CUBLASSPY_DRIVER_HOOKS(X)                                                               \
  X(kCuda, CUresult, cuInit, CUDA_ERROR_NOT_INITIALIZED, kDevice, Trait::kEnumeratesDevices | Trait::kSetupCall, (unsigned int, Flags, UInt<>)) \
  X(kCuda, CUresult, cuDeviceGetCount, CUDA_ERROR_NOT_INITIALIZED, kDevice, Trait::kEnumeratesDevices | Trait::kSetupCall, \
    (int*, count, OutInt<Role::kDeviceCount>))                                                  \
  X(kCudart, cudaError_t, cudaSetDevice, cudaErrorInsufficientDriver, kDevice, Trait::kSelectsDevice, \
    (int, device, Int<Role::kDevice>))                                                          \
  X(kCudart, cudaError_t, cudaMalloc, cudaErrorInsufficientDriver, kMemory, Trait::kAllocatesDevice, \
    (void**, devPtr, AllocatedPtr), (size_t, size, UInt<Role::kByteCount>))                     \
  X(kCudart, cudaError_t, cudaFree, cudaErrorInsufficientDriver, kMemory, Trait::kNone,             \
    (void*, devPtr, FreedPtr))                                                                  \
  CBS_STREAM_ORDERED_ALLOCATION_HOOKS(X)                                                        \
  X(kCudart, cudaError_t, cudaStreamSynchronize, cudaErrorInsufficientDriver, kSync, Trait::kWaitsForStream, \
    (cudaStream_t, stream, StreamArg))                                                          \
  X(kCudart, cudaError_t, cudaStreamSynchronize_ptsz, cudaErrorInsufficientDriver, kSync, Trait::kWaitsForStream, \
    (cudaStream_t, stream, StreamArg))                                                          \
  X(kCudart, cudaError_t, cudaMemcpy, cudaErrorInsufficientDriver, kSync, Trait::kNone, CBS_MEMCPY_PARAMS) \
  X(kCudart, cudaError_t, cudaMemcpy_ptds, cudaErrorInsufficientDriver, kSync, Trait::kNone, CBS_MEMCPY_PARAMS) \
  CBS_KERNEL_ATTRIBUTE_HOOKS(X)
// Stream-ordered allocations: cuBLAS 12.2 and later allocate their workspace this way
// (cuMemAllocAsync, through their static runtime), outside a framework's caching allocator, so
// an out-of-memory there is a cuBLAS status mid-run; the record names the size asked for.
#define CBS_STREAM_ORDERED_ALLOCATION_HOOKS(X)                                                  \
  X(kCudart, cudaError_t, cudaMallocAsync, cudaErrorInsufficientDriver, kMemory, Trait::kAllocatesDevice, \
    (void**, devPtr, AllocatedPtr), (size_t, size, UInt<Role::kByteCount>), (cudaStream_t, hStream, StreamArg)) \
  X(kCudart, cudaError_t, cudaMallocFromPoolAsync, cudaErrorInsufficientDriver, kMemory, Trait::kAllocatesDevice, \
    (void**, ptr, AllocatedPtr), (size_t, size, UInt<Role::kByteCount>), (cudaMemPool_t, memPool, Ptr<>), \
    (cudaStream_t, stream, StreamArg))                                                          \
  X(kCuda, CUresult, cuMemAllocAsync, CUDA_ERROR_NOT_INITIALIZED, kMemory, Trait::kAllocatesDevice, \
    (CUdeviceptr*, dptr, AllocatedPtr), (size_t, bytesize, UInt<Role::kByteCount>), (CUstream, hStream, StreamArg))
// A kernel's attributes, set and read before its launches: where a kernel the binary carries no
// image of for this GPU first fails ("no kernel image is available", PyTorch's memory-efficient
// attention sets its shared memory size this way).
#define CBS_KERNEL_ATTRIBUTE_HOOKS(X)                                                           \
  X(kCudart, cudaError_t, cudaFuncSetAttribute, cudaErrorInsufficientDriver, kOther, Trait::kNone,  \
    (const void*, func, Ptr<>), (cudaFuncAttribute, attr, Int<>), (int, value, Int<>))          \
  X(kCudart, cudaError_t, cudaFuncGetAttributes, cudaErrorInsufficientDriver, kOther, Trait::kNone, \
    (cudaFuncAttributes*, attr, Ptr<>), (const void*, func, Ptr<>))                             \
  X(kCuda, CUresult, cuFuncSetAttribute, CUDA_ERROR_NOT_INITIALIZED, kOther, Trait::kNone,          \
    (CUfunction, hfunc, Ptr<>), (CUfunction_attribute, attrib, Int<>), (int, value, Int<>))     \
  X(kCuda, CUresult, cuFuncGetAttribute, CUDA_ERROR_NOT_INITIALIZED, kOther, Trait::kNone,          \
    (int*, pi, Ptr<>), (CUfunction_attribute, attrib, Int<>), (CUfunction, hfunc, Ptr<>))
// cudaMemcpy and its per-thread-default-stream form (--default-stream per-thread), which waits
// for the calling thread's default stream only.
#define CBS_MEMCPY_PARAMS                                                                       \
  (void*, dst, Ptr<>), (const void*, src, Ptr<>), (size_t, count, UInt<Role::kByteCount>),      \
  (cudaMemcpyKind, kind, Int<>)

// The legacy v1 API's GEMMs: CUBLASSPY_LEGACY_HOOKS, in gemm_hooks.h.

// Loads of CUDA libraries: dlopen is exported through an assembly entry point that keeps the
// program's own search path; behind it, dlopen_hook.cpp expands this entry into the recorder,
// with the recording every wrapper shares.
#define CUBLASSPY_LOADER_HOOKS(X)                                                               \
  X(kSystem, void*, dlopen, nullptr, kLibraryLoad, Trait::kNone, (const char*, filename, LoadedFile), \
    (int, flags, Int<Role::kLoadFlags>))

// Replacing the process image (exec_hooks.cpp): the exec ends this image's trace, so its record
// is left in flight, naming the target, with the trace marked as ended by it; an exec that
// returns failed, and the image goes on. The list forms (execl, execle, execlp) build their
// argument vector as glibc's do and are recorded as the vector form they amount to.
#define CUBLASSPY_EXEC_HOOKS(X)                                                                 \
  X(kSystem, int, execve, -1, kExec, Trait::kNone, (const char*, path, ExecTarget), (char* const*, argv, Ptr<>), \
    (char* const*, envp, Ptr<>))                                                                \
  X(kSystem, int, execv, -1, kExec, Trait::kNone, (const char*, path, ExecTarget), (char* const*, argv, Ptr<>)) \
  X(kSystem, int, execvp, -1, kExec, Trait::kNone, (const char*, file, ExecTarget), (char* const*, argv, Ptr<>)) \
  X(kSystem, int, execvpe, -1, kExec, Trait::kNone, (const char*, file, ExecTarget), (char* const*, argv, Ptr<>), \
    (char* const*, envp, Ptr<>))                                                                \
  X(kSystem, int, fexecve, -1, kExec, Trait::kNone, (int, fd, ExecFdTarget), (char* const*, argv, Ptr<>), \
    (char* const*, envp, Ptr<>))                                                                \
  X(kSystem, int, execveat, -1, kExec, Trait::kNone, (int, dirfd, Int<>), (const char*, pathname, ExecTarget), \
    (char* const*, argv, Ptr<>), (char* const*, envp, Ptr<>), (int, flags, Int<>))

// GPU work launched outside the GEMMs: kernel launches, asynchronous copies and memsets. They go
// to the launch ring (format::LaunchEntry), not the call records, by a lean path of their own
// (interpose/launch_hooks.cpp): a launch costs tens of nanoseconds, and a program launching
// thousands of kernels per GEMM keeps its GEMMs in the flight recorder. Their tags
// (launch_tags.h) say where each argument goes in the entry. The _ptsz forms are the per-thread
// default stream's; the driver forms are also handed out through cuGetProcAddress
// (driver_entry_points.cpp). Of the waits and queries, those the CUDA 13 headers give a
// per-thread form (cudaStreamSynchronize, cudaStreamQuery, cuStreamSynchronize, cuStreamQuery)
// have it hooked too, so a program built with --default-stream per-thread is recorded alike;
// the events', the device's and the last error's have none.
#define CBS_KERNEL_LAUNCH_PARAMS                                                                \
  (const void*, func, KernelStub), (dim3, gridDim, Grid), (dim3, blockDim, Block),               \
  (void**, args, Unrecorded), (size_t, sharedMem, SharedMem), (cudaStream_t, stream, LaunchStream)
// The runtime's __cudaLaunchKernel(_ptsz): what <<<...>>> compiles to with nvcc 12.4 and later
// (crt/host_runtime.h), the kernel given by its cudaKernel_t.
#define CBS_KERNEL_HANDLE_LAUNCH_PARAMS                                                         \
  (cudaKernel_t, kernel, KernelHandle), (dim3, gridDim, Grid), (dim3, blockDim, Block),          \
  (void**, args, Unrecorded), (size_t, sharedMem, SharedMem), (cudaStream_t, stream, LaunchStream)
#define CBS_KERNEL_LAUNCH_EX_PARAMS                                                             \
  (const cudaLaunchConfig_t*, config, LaunchConfig), (const void*, func, KernelStub),            \
  (void**, args, Unrecorded)
#define CBS_DRIVER_LAUNCH_PARAMS                                                                \
  (CUfunction, f, DriverKernel), (unsigned int, gridDimX, GridX), (unsigned int, gridDimY, GridY), \
  (unsigned int, gridDimZ, GridZ), (unsigned int, blockDimX, BlockX),                            \
  (unsigned int, blockDimY, BlockY), (unsigned int, blockDimZ, BlockZ),                          \
  (unsigned int, sharedMemBytes, SharedMem), (CUstream, hStream, LaunchStream),                  \
  (void**, kernelParams, Unrecorded), (void**, extra, Unrecorded)
#define CBS_DRIVER_LAUNCH_EX_PARAMS                                                             \
  (const CUlaunchConfig*, config, DriverLaunchConfig), (CUfunction, f, DriverKernel),            \
  (void**, kernelParams, Unrecorded), (void**, extra, Unrecorded)
#define CBS_MEMSET_ASYNC_PARAMS                                                                 \
  (void*, devPtr, Unrecorded), (int, value, Unrecorded), (size_t, count, Bytes),                 \
  (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_ASYNC_PARAMS                                                                 \
  (void*, dst, Unrecorded), (const void*, src, Unrecorded), (size_t, count, Bytes),              \
  (cudaMemcpyKind, kind, Unrecorded), (cudaStream_t, stream, LaunchStream)
// The driver's linear asynchronous copies and memsets, each with its per-thread-default-stream
// form (cuda.h names them so under CUDA_API_PER_THREAD_DEFAULT_STREAM; cuGetProcAddress hands
// them out for CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM). Same prototype, same recording.
#define CBS_DRIVER_ASYNC(X, fn_, ...)                                                           \
  X(kCuda, CUresult, fn_, CUDA_ERROR_NOT_INITIALIZED, kLaunch, Trait::kNone, __VA_ARGS__)           \
  X(kCuda, CUresult, fn_##_ptsz, CUDA_ERROR_NOT_INITIALIZED, kLaunch, Trait::kNone, __VA_ARGS__)
#define CBS_DRIVER_MEMSET_PARAMS(value_type, value, count_tag)                                  \
  (CUdeviceptr, dstDevice, Unrecorded), (value_type, value, Unrecorded), (size_t, N, count_tag), \
  (CUstream, hStream, LaunchStream)
#define CBS_DRIVER_COPY_PARAMS(dst_type, dst, src_type, src)                                    \
  (dst_type, dst, Unrecorded), (src_type, src, Unrecorded), (size_t, ByteCount, Bytes),          \
  (CUstream, hStream, LaunchStream)
// The runtime's 2D and 3D copies and memsets, its copies between devices and to and from
// symbols and arrays, and the driver's 2D/3D, peer and batched copies and 2D memsets: the bytes
// recorded are what the operation touches (width x height, the extent's width x height x depth,
// the elements times their size, the sum of a batch's sizes; 0 for a null parameter struct).
// cudaMemcpyPeerAsync has no per-thread form; the runtime's others are named _ptsz as above. The
// driver's cuMemcpy2DAsync and cuMemcpy3DAsync are the _v2 symbols (the plain ones take 32-bit
// pointers); the resolver answers their names with them, and the program keeps the driver's own
// for an older version asked for. Its batches are hooked in both forms, CUDA 13's _v2 and CUDA
// 12.8's plain ones with failIdx, and a look-up of the name gets the hook of whichever the driver
// answered for the version asked (driver_entry_points.cpp). The runtime's batches have one name
// for two prototypes: CBS_RUNTIME_BATCH_HOOKS below.
#define CBS_RUNTIME_ASYNC(X, fn_, ...)                                                          \
  X(kCudart, cudaError_t, fn_, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, __VA_ARGS__)     \
  X(kCudart, cudaError_t, fn_##_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, __VA_ARGS__)
#define CBS_MEMCPY_2D_ASYNC_PARAMS                                                              \
  (void*, dst, Unrecorded), (size_t, dpitch, Unrecorded), (const void*, src, Unrecorded),        \
  (size_t, spitch, Unrecorded), (size_t, width, Bytes), (size_t, height, Rows),                  \
  (cudaMemcpyKind, kind, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_3D_ASYNC_PARAMS                                                              \
  (const cudaMemcpy3DParms*, p, RuntimeCopy3D), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_PEER_ASYNC_PARAMS                                                            \
  (void*, dst, Unrecorded), (int, dstDevice, Unrecorded), (const void*, src, Unrecorded),        \
  (int, srcDevice, Unrecorded), (size_t, count, Bytes), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_TO_SYMBOL_ASYNC_PARAMS                                                       \
  (const void*, symbol, Unrecorded), (const void*, src, Unrecorded), (size_t, count, Bytes),     \
  (size_t, offset, Unrecorded), (cudaMemcpyKind, kind, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_FROM_SYMBOL_ASYNC_PARAMS                                                     \
  (void*, dst, Unrecorded), (const void*, symbol, Unrecorded), (size_t, count, Bytes),           \
  (size_t, offset, Unrecorded), (cudaMemcpyKind, kind, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_2D_TO_ARRAY_ASYNC_PARAMS                                                     \
  (cudaArray_t, dst, Unrecorded), (size_t, wOffset, Unrecorded), (size_t, hOffset, Unrecorded),  \
  (const void*, src, Unrecorded), (size_t, spitch, Unrecorded), (size_t, width, Bytes),          \
  (size_t, height, Rows), (cudaMemcpyKind, kind, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMCPY_2D_FROM_ARRAY_ASYNC_PARAMS                                                   \
  (void*, dst, Unrecorded), (size_t, dpitch, Unrecorded), (cudaArray_const_t, src, Unrecorded),  \
  (size_t, wOffset, Unrecorded), (size_t, hOffset, Unrecorded), (size_t, width, Bytes),          \
  (size_t, height, Rows), (cudaMemcpyKind, kind, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMSET_2D_ASYNC_PARAMS                                                              \
  (void*, devPtr, Unrecorded), (size_t, pitch, Unrecorded), (int, value, Unrecorded),            \
  (size_t, width, Bytes), (size_t, height, Rows), (cudaStream_t, stream, LaunchStream)
#define CBS_MEMSET_3D_ASYNC_PARAMS                                                              \
  (cudaPitchedPtr, pitchedDevPtr, Unrecorded), (int, value, Unrecorded),                         \
  (cudaExtent, extent, Extent3D), (cudaStream_t, stream, LaunchStream)
#define CBS_DRIVER_MEMSET_2D_PARAMS(value_type, value, width_tag)                               \
  (CUdeviceptr, dstDevice, Unrecorded), (size_t, dstPitch, Unrecorded),                          \
  (value_type, value, Unrecorded), (size_t, Width, width_tag), (size_t, Height, Rows),           \
  (CUstream, hStream, LaunchStream)
#define CBS_DRIVER_PEER_PARAMS                                                                  \
  (CUdeviceptr, dstDevice, Unrecorded), (CUcontext, dstContext, Unrecorded),                     \
  (CUdeviceptr, srcDevice, Unrecorded), (CUcontext, srcContext, Unrecorded),                     \
  (size_t, ByteCount, Bytes), (CUstream, hStream, LaunchStream)
#define CBS_DRIVER_BATCH_3D_PARAMS                                                              \
  (size_t, numOps, Batch3DCount), (CUDA_MEMCPY3D_BATCH_OP*, opList, Batch3DOps),              \
  (unsigned long long, flags, Unrecorded), (CUstream, hStream, LaunchStream)
#define CBS_DRIVER_BATCH_PARAMS                                                                 \
  (CUdeviceptr*, dsts, Unrecorded), (CUdeviceptr*, srcs, Unrecorded), (size_t*, sizes, BatchSizes), \
  (size_t, count, BatchCount), (CUmemcpyAttributes*, attrs, Unrecorded),                         \
  (size_t*, attrsIdxs, Unrecorded), (size_t, numAttrs, Unrecorded), (CUstream, hStream, LaunchStream)
// CUDA 12.8's batches, the plain names: the same, with failIdx (where the driver reports the
// operation that failed) before the stream.
#define CBS_DRIVER_BATCH_3D_FAIL_INDEX_PARAMS                                                   \
  (size_t, numOps, Batch3DCount), (CUDA_MEMCPY3D_BATCH_OP*, opList, Batch3DOps),              \
  (size_t*, failIdx, Unrecorded), (unsigned long long, flags, Unrecorded),                       \
  (CUstream, hStream, LaunchStream)
#define CBS_DRIVER_BATCH_FAIL_INDEX_PARAMS                                                      \
  (CUdeviceptr*, dsts, Unrecorded), (CUdeviceptr*, srcs, Unrecorded), (size_t*, sizes, BatchSizes), \
  (size_t, count, BatchCount), (CUmemcpyAttributes*, attrs, Unrecorded),                         \
  (size_t*, attrsIdxs, Unrecorded), (size_t, numAttrs, Unrecorded), (size_t*, failIdx, Unrecorded), \
  (CUstream, hStream, LaunchStream)
#define CBS_ASYNC_COPY_HOOKS(X)                                                                 \
  CBS_RUNTIME_ASYNC(X, cudaMemcpy2DAsync, CBS_MEMCPY_2D_ASYNC_PARAMS)                            \
  CBS_RUNTIME_ASYNC(X, cudaMemcpy3DAsync, CBS_MEMCPY_3D_ASYNC_PARAMS)                            \
  X(kCudart, cudaError_t, cudaMemcpyPeerAsync, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_MEMCPY_PEER_ASYNC_PARAMS) \
  CBS_RUNTIME_ASYNC(X, cudaMemcpy3DPeerAsync, (const cudaMemcpy3DPeerParms*, p, RuntimeCopy3DPeer),  \
                    (cudaStream_t, stream, LaunchStream))                                        \
  CBS_RUNTIME_ASYNC(X, cudaMemcpyToSymbolAsync, CBS_MEMCPY_TO_SYMBOL_ASYNC_PARAMS)               \
  CBS_RUNTIME_ASYNC(X, cudaMemcpyFromSymbolAsync, CBS_MEMCPY_FROM_SYMBOL_ASYNC_PARAMS)           \
  CBS_RUNTIME_ASYNC(X, cudaMemcpy2DToArrayAsync, CBS_MEMCPY_2D_TO_ARRAY_ASYNC_PARAMS)            \
  CBS_RUNTIME_ASYNC(X, cudaMemcpy2DFromArrayAsync, CBS_MEMCPY_2D_FROM_ARRAY_ASYNC_PARAMS)        \
  CBS_RUNTIME_ASYNC(X, cudaMemset2DAsync, CBS_MEMSET_2D_ASYNC_PARAMS)                            \
  CBS_RUNTIME_ASYNC(X, cudaMemset3DAsync, CBS_MEMSET_3D_ASYNC_PARAMS)                            \
  CBS_DRIVER_ASYNC(X, cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D*, pCopy, DriverCopy2D), (CUstream, hStream, LaunchStream)) \
  CBS_DRIVER_ASYNC(X, cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D*, pCopy, DriverCopy3D), (CUstream, hStream, LaunchStream)) \
  CBS_DRIVER_ASYNC(X, cuMemcpyPeerAsync, CBS_DRIVER_PEER_PARAMS)                                 \
  CBS_DRIVER_ASYNC(X, cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER*, pCopy, DriverCopy3DPeer),   \
                   (CUstream, hStream, LaunchStream))                                            \
  CBS_DRIVER_ASYNC(X, cuMemsetD2D8Async, CBS_DRIVER_MEMSET_2D_PARAMS(unsigned char, uc, Bytes))   \
  CBS_DRIVER_ASYNC(X, cuMemsetD2D16Async, CBS_DRIVER_MEMSET_2D_PARAMS(unsigned short, us, Halves)) \
  CBS_DRIVER_ASYNC(X, cuMemsetD2D32Async, CBS_DRIVER_MEMSET_2D_PARAMS(unsigned int, ui, Words))   \
  CBS_DRIVER_ASYNC(X, cuMemcpyBatchAsync_v2, CBS_DRIVER_BATCH_PARAMS)                            \
  CBS_DRIVER_ASYNC(X, cuMemcpy3DBatchAsync_v2, CBS_DRIVER_BATCH_3D_PARAMS)                       \
  CBS_DRIVER_ASYNC(X, cuMemcpyBatchAsync, CBS_DRIVER_BATCH_FAIL_INDEX_PARAMS)                    \
  CBS_DRIVER_ASYNC(X, cuMemcpy3DBatchAsync, CBS_DRIVER_BATCH_3D_FAIL_INDEX_PARAMS)
// The runtime's batches, as CUDA 13 declares them. libcudart.so.12 (CUDA 12.8 and 12.9) exports
// the same names with another prototype, one word longer: failIdx (where it reports the copy
// that failed) comes before the stream, which is then the word after the last of CUDA 13's.
// Their wrappers take that word too (launch_hooks.cpp) and record the stream from the word the
// real function's prototype puts it in; the other parameters the record reads are where CUDA 13
// has them in both.
#define CBS_RUNTIME_BATCH_PARAMS                                                                \
  (void* const*, dsts, Unrecorded), (const void* const*, srcs, Unrecorded),                      \
  (const size_t*, sizes, BatchSizes), (size_t, count, BatchCount),                               \
  (cudaMemcpyAttributes*, attrs, Unrecorded), (size_t*, attrsIdxs, Unrecorded),                  \
  (size_t, numAttrs, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_RUNTIME_BATCH_3D_PARAMS                                                             \
  (size_t, numOps, Batch3DCount), (cudaMemcpy3DBatchOp*, opList, Batch3DOps),                    \
  (unsigned long long, flags, Unrecorded), (cudaStream_t, stream, LaunchStream)
#define CBS_RUNTIME_BATCH_HOOKS(X)                                                              \
  CBS_RUNTIME_ASYNC(X, cudaMemcpyBatchAsync, CBS_RUNTIME_BATCH_PARAMS)                           \
  CBS_RUNTIME_ASYNC(X, cudaMemcpy3DBatchAsync, CBS_RUNTIME_BATCH_3D_PARAMS)
// CUDA graphs (launch ring entries of family kGraph, trace_format.h's GraphWords): a capture's
// beginning and end, the graph's instantiation, and each launch of an executable graph, whose
// captured GEMMs run again then (interpose/graph_registry.h ties the four together). The driver's
// plain cuStreamBeginCapture is CUDA 10.0's, without a mode: its _v2 is what cuda.h names.
#define CBS_RUNTIME_GRAPH(X, fn_, ...)                                                          \
  X(kCudart, cudaError_t, fn_, cudaErrorInsufficientDriver, kGraph, Trait::kNone, __VA_ARGS__)      \
  X(kCudart, cudaError_t, fn_##_ptsz, cudaErrorInsufficientDriver, kGraph, Trait::kNone, __VA_ARGS__)
#define CBS_DRIVER_GRAPH(X, fn_, ...)                                                           \
  X(kCuda, CUresult, fn_, CUDA_ERROR_NOT_INITIALIZED, kGraph, Trait::kNone, __VA_ARGS__)            \
  X(kCuda, CUresult, fn_##_ptsz, CUDA_ERROR_NOT_INITIALIZED, kGraph, Trait::kNone, __VA_ARGS__)
#define CBS_GRAPH_HOOKS(X)                                                                      \
  CBS_RUNTIME_GRAPH(X, cudaStreamBeginCapture, (cudaStream_t, stream, LaunchStream),             \
                    (cudaStreamCaptureMode, mode, CaptureMode))                                  \
  CBS_RUNTIME_GRAPH(X, cudaStreamEndCapture, (cudaStream_t, stream, LaunchStream),               \
                    (cudaGraph_t*, pGraph, GraphMade))                                           \
  X(kCudart, cudaError_t, cudaGraphInstantiate, cudaErrorInsufficientDriver, kGraph, Trait::kNone,  \
    (cudaGraphExec_t*, pGraphExec, GraphExecMade), (cudaGraph_t, graph, GraphIn),                \
    (unsigned long long, flags, Unrecorded))                                                     \
  X(kCudart, cudaError_t, cudaGraphInstantiateWithFlags, cudaErrorInsufficientDriver, kGraph, Trait::kNone, \
    (cudaGraphExec_t*, pGraphExec, GraphExecMade), (cudaGraph_t, graph, GraphIn),                \
    (unsigned long long, flags, Unrecorded))                                                     \
  CBS_RUNTIME_GRAPH(X, cudaGraphLaunch, (cudaGraphExec_t, graphExec, GraphExecIn),               \
                    (cudaStream_t, stream, LaunchStream))                                        \
  CBS_DRIVER_GRAPH(X, cuStreamBeginCapture_v2, (CUstream, hStream, LaunchStream),                \
                   (CUstreamCaptureMode, mode, CaptureMode))                                     \
  CBS_DRIVER_GRAPH(X, cuStreamEndCapture, (CUstream, hStream, LaunchStream), (CUgraph*, phGraph, GraphMade)) \
  X(kCuda, CUresult, cuGraphInstantiateWithFlags, CUDA_ERROR_NOT_INITIALIZED, kGraph, Trait::kNone, \
    (CUgraphExec*, phGraphExec, GraphExecMade), (CUgraph, hGraph, GraphIn),                      \
    (unsigned long long, flags, Unrecorded))                                                     \
  CBS_DRIVER_GRAPH(X, cuGraphLaunch, (CUgraphExec, hGraphExec, GraphExecIn), (CUstream, hStream, LaunchStream))
#define CBS_ONE_PROTOTYPE_LAUNCH_HOOKS(X)                                                       \
  X(kCudart, cudaError_t, cudaLaunchKernel, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_LAUNCH_PARAMS) \
  X(kCudart, cudaError_t, cudaLaunchKernel_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_LAUNCH_PARAMS) \
  X(kCudart, cudaError_t, __cudaLaunchKernel, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_HANDLE_LAUNCH_PARAMS) \
  X(kCudart, cudaError_t, __cudaLaunchKernel_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_HANDLE_LAUNCH_PARAMS) \
  X(kCudart, cudaError_t, cudaLaunchCooperativeKernel, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_LAUNCH_PARAMS) \
  X(kCudart, cudaError_t, cudaLaunchCooperativeKernel_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_LAUNCH_PARAMS) \
  X(kCudart, cudaError_t, cudaLaunchKernelExC, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_LAUNCH_EX_PARAMS) \
  X(kCudart, cudaError_t, cudaLaunchKernelExC_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_KERNEL_LAUNCH_EX_PARAMS) \
  X(kCuda, CUresult, cuLaunchKernel, CUDA_ERROR_NOT_INITIALIZED, kLaunch, Trait::kNone, CBS_DRIVER_LAUNCH_PARAMS) \
  X(kCuda, CUresult, cuLaunchKernel_ptsz, CUDA_ERROR_NOT_INITIALIZED, kLaunch, Trait::kNone, CBS_DRIVER_LAUNCH_PARAMS) \
  X(kCuda, CUresult, cuLaunchKernelEx, CUDA_ERROR_NOT_INITIALIZED, kLaunch, Trait::kNone, CBS_DRIVER_LAUNCH_EX_PARAMS) \
  X(kCuda, CUresult, cuLaunchKernelEx_ptsz, CUDA_ERROR_NOT_INITIALIZED, kLaunch, Trait::kNone, CBS_DRIVER_LAUNCH_EX_PARAMS) \
  X(kCudart, cudaError_t, cudaMemsetAsync, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_MEMSET_ASYNC_PARAMS) \
  X(kCudart, cudaError_t, cudaMemsetAsync_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_MEMSET_ASYNC_PARAMS) \
  X(kCudart, cudaError_t, cudaMemcpyAsync, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_MEMCPY_ASYNC_PARAMS) \
  X(kCudart, cudaError_t, cudaMemcpyAsync_ptsz, cudaErrorInsufficientDriver, kLaunch, Trait::kNone, CBS_MEMCPY_ASYNC_PARAMS) \
  CBS_DRIVER_ASYNC(X, cuMemsetD8Async, CBS_DRIVER_MEMSET_PARAMS(unsigned char, uc, Bytes))         \
  CBS_DRIVER_ASYNC(X, cuMemsetD16Async, CBS_DRIVER_MEMSET_PARAMS(unsigned short, us, Halves))       \
  CBS_DRIVER_ASYNC(X, cuMemsetD32Async, CBS_DRIVER_MEMSET_PARAMS(unsigned int, ui, Words))          \
  CBS_DRIVER_ASYNC(X, cuMemcpyAsync, CBS_DRIVER_COPY_PARAMS(CUdeviceptr, dst, CUdeviceptr, src))    \
  CBS_DRIVER_ASYNC(X, cuMemcpyHtoDAsync_v2,                                                       \
                   CBS_DRIVER_COPY_PARAMS(CUdeviceptr, dstDevice, const void*, srcHost))          \
  CBS_DRIVER_ASYNC(X, cuMemcpyDtoHAsync_v2,                                                       \
                   CBS_DRIVER_COPY_PARAMS(void*, dstHost, CUdeviceptr, srcDevice))                \
  CBS_DRIVER_ASYNC(X, cuMemcpyDtoDAsync_v2,                                                       \
                   CBS_DRIVER_COPY_PARAMS(CUdeviceptr, dstDevice, CUdeviceptr, srcDevice))        \
  CBS_ASYNC_COPY_HOOKS(X)                                                                        \
  CBS_GRAPH_HOOKS(X)                                                                             \
  CUBLASSPY_SURFACE_HOOKS(X)
// Every launch hook: those of one prototype, and the runtime's batches of two.
#define CUBLASSPY_LAUNCH_HOOKS(X) CBS_ONE_PROTOTYPE_LAUNCH_HOOKS(X) CBS_RUNTIME_BATCH_HOOKS(X)

// Where asynchronous errors surface: waits, queries and the runtime's last error. They are
// called as often as kernels are launched (PyTorch checks cudaGetLastError after each), so they
// take the launch ring's lean path too, as family kSync entries (no kernel-table totals, no wait
// after them under CUBLASSPY_SYNC=all): the entry keeps what each returned, so an error that
// surfaces there is recorded where it surfaced, and a clean wait on a stream bounds the suspects
// of a later error (docs/DIAGNOSES.md). A query's "not ready" is no failure. (cudaStreamSynchronize
// is a call record, CUBLASSPY_DRIVER_HOOKS, as before.) cuCtxSynchronize is wrapped at the PLT
// only: from CUDA 13 the driver hands out cuCtxSynchronize_v2(CUcontext) for that name
// (driver_entry_points.cpp).
#define CUBLASSPY_SURFACE_HOOKS(X)                                                              \
  X(kCudart, cudaError_t, cudaDeviceSynchronize, cudaErrorInsufficientDriver, kSync, Trait::kWaitsForDevice) \
  X(kCudart, cudaError_t, cudaEventSynchronize, cudaErrorInsufficientDriver, kSync, Trait::kNone,   \
    (cudaEvent_t, event, Unrecorded))                                                            \
  X(kCudart, cudaError_t, cudaStreamQuery, cudaErrorInsufficientDriver, kSync, Trait::kQueriesStream, \
    (cudaStream_t, stream, LaunchStream))                                                        \
  X(kCudart, cudaError_t, cudaStreamQuery_ptsz, cudaErrorInsufficientDriver, kSync, Trait::kQueriesStream, \
    (cudaStream_t, stream, LaunchStream))                                                        \
  X(kCudart, cudaError_t, cudaEventQuery, cudaErrorInsufficientDriver, kSync, Trait::kNone,         \
    (cudaEvent_t, event, Unrecorded))                                                            \
  X(kCudart, cudaError_t, cudaGetLastError, cudaErrorInsufficientDriver, kSync, Trait::kNone)       \
  X(kCudart, cudaError_t, cudaPeekAtLastError, cudaErrorInsufficientDriver, kSync, Trait::kNone)    \
  X(kCuda, CUresult, cuCtxSynchronize, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kWaitsForDevice)   \
  X(kCuda, CUresult, cuStreamSynchronize, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kWaitsForStream, \
    (CUstream, hStream, LaunchStream))                                                           \
  X(kCuda, CUresult, cuStreamSynchronize_ptsz, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kWaitsForStream, \
    (CUstream, hStream, LaunchStream))                                                           \
  X(kCuda, CUresult, cuStreamQuery, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kQueriesStream,       \
    (CUstream, hStream, LaunchStream))                                                           \
  X(kCuda, CUresult, cuStreamQuery_ptsz, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kQueriesStream,  \
    (CUstream, hStream, LaunchStream))                                                           \
  X(kCuda, CUresult, cuEventSynchronize, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kNone,           \
    (CUevent, hEvent, Unrecorded))                                                               \
  X(kCuda, CUresult, cuEventQuery, CUDA_ERROR_NOT_INITIALIZED, kSync, Trait::kNone,                 \
    (CUevent, hEvent, Unrecorded))

// The texts of failure codes (error_text_hooks.cpp, family kErrorText): a program that reports a
// CUDA or cuBLAS error asks for its text first, whichever call failed, hooked or not. Asked
// about a failure code, the call is recorded, with the code (the first parameter of each) and
// its Python and native location; asked about success, it passes straight through.
#define CUBLASSPY_ERROR_TEXT_HOOKS(X)                                                           \
  X(kCudart, const char*, cudaGetErrorString, CBS_NO_ERROR_TEXT, kErrorText, Trait::kNone,          \
    (cudaError_t, error, ReportedStatus))                                                        \
  X(kCudart, const char*, cudaGetErrorName, CBS_NO_ERROR_TEXT, kErrorText, Trait::kNone,            \
    (cudaError_t, error, ReportedStatus))                                                        \
  X(kCuda, CUresult, cuGetErrorString, CUDA_ERROR_NOT_INITIALIZED, kErrorText, Trait::kNone,        \
    (CUresult, error, ReportedStatus), (const char**, pStr, Ptr<>))                              \
  X(kCuda, CUresult, cuGetErrorName, CUDA_ERROR_NOT_INITIALIZED, kErrorText, Trait::kNone,          \
    (CUresult, error, ReportedStatus), (const char**, pStr, Ptr<>))                              \
  X(kCublas, const char*, cublasGetStatusString, CBS_NO_ERROR_TEXT, kErrorText, Trait::kNone,       \
    (cublasStatus_t, status, ReportedStatus))                                                    \
  X(kCublas, const char*, cublasGetStatusName, CBS_NO_ERROR_TEXT, kErrorText, Trait::kNone,         \
    (cublasStatus_t, status, ReportedStatus))                                                    \
  X(kCublasLt, const char*, cublasLtGetStatusString, CBS_NO_ERROR_TEXT, kErrorText, Trait::kNone,   \
    (cublasStatus_t, status, ReportedStatus))                                                    \
  X(kCublasLt, const char*, cublasLtGetStatusName, CBS_NO_ERROR_TEXT, kErrorText, Trait::kNone,     \
    (cublasStatus_t, status, ReportedStatus))
// What a text function returns when its real function cannot be found: a text, never null (a
// program prints it).
#define CBS_NO_ERROR_TEXT "unknown error (cublasspy found no real function to ask)"

#define CUBLASSPY_ALL_HOOKS(X) CUBLASSPY_HOOKS(X) CUBLASSPY_LEGACY_HOOKS(X) CUBLASSPY_LOADER_HOOKS(X) \
  CUBLASSPY_LAUNCH_HOOKS(X) CUBLASSPY_EXEC_HOOKS(X) CUBLASSPY_ERROR_TEXT_HOOKS(X)
// clang-format on
