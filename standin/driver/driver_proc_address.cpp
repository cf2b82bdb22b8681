// cuGetProcAddress: the door through which NVIDIA's runtime and libraries reach the driver.
// Names are asked for without version suffixes ("cuMemAlloc") together with the CUDA version
// the caller was built for; the driver answers with the newest ABI-compatible symbol
// (cuMemAlloc_v2 from 3.2 on). The stand-in answers with its own functions, and reports names
// it does not implement as not found, never as a crash.
#include <cstring>
#include <vector>

#include "driver_bodies.h"
#include "driver_entry.h"

using namespace standin::driver;

// The per-thread-default-stream aliases and legacy names are defined in driver_legacy_names.cpp,
// which sees cuda.h in its internal mode; here they are declared by hand to take their addresses.
extern "C" {
CUresult cuMemcpy_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr, const void*, size_t);
CUresult cuMemcpyDtoH_v2_ptds(void*, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemsetD8_v2_ptds(CUdeviceptr, unsigned char, size_t);
CUresult cuStreamSynchronize_ptsz(CUstream);
CUresult cuStreamQuery_ptsz(CUstream);
CUresult cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void*, size_t, CUstream);
CUresult cuMemcpyDtoHAsync_v2_ptsz(void*, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemsetD8Async_ptsz(CUdeviceptr, unsigned char, size_t, CUstream);
CUresult cuMemsetD16Async_ptsz(CUdeviceptr, unsigned short, size_t, CUstream);
CUresult cuMemsetD32Async_ptsz(CUdeviceptr, unsigned int, size_t, CUstream);
CUresult cuStreamBeginCapture_v2_ptsz(CUstream, CUstreamCaptureMode);
CUresult cuStreamEndCapture_ptsz(CUstream, CUgraph*);
CUresult cuStreamIsCapturing_ptsz(CUstream, CUstreamCaptureStatus*);
CUresult cuStreamGetCaptureInfo_ptsz(CUstream, CUstreamCaptureStatus*, cuuint64_t*);
CUresult cuStreamGetCaptureInfo_v2(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*, const CUgraphNode**,
                                   size_t*);
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*, const CUgraphNode**,
                                        size_t*);
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*, const CUgraphNode**,
                                        const CUgraphEdgeData**, size_t*);
CUresult cuStreamBeginCapture_ptsz(CUstream);
CUresult cuGraphInstantiate_v2(CUgraphExec*, CUgraph, CUgraphNode*, char*, size_t);
CUresult cuGraphLaunch_ptsz(CUgraphExec, CUstream);
CUresult cuGraphUpload_ptsz(CUgraphExec, CUstream);
// Public cuda.h #defines these names to their successors; the asm labels name the real symbols.
CUresult standin_legacy_cuGetProcAddress(const char*, void**, int, cuuint64_t) __asm__("cuGetProcAddress");
CUresult standin_legacy_cuStreamDestroy(CUstream) __asm__("cuStreamDestroy");
CUresult standin_legacy_cuDevicePrimaryCtxRelease(CUdevice) __asm__("cuDevicePrimaryCtxRelease");
CUresult standin_legacy_cuDeviceGetUuid(CUuuid*, CUdevice) __asm__("cuDeviceGetUuid");
CUresult standin_legacy_cuStreamBeginCapture(CUstream) __asm__("cuStreamBeginCapture");
CUresult standin_legacy_cuStreamGetCaptureInfo(CUstream, CUstreamCaptureStatus*, cuuint64_t*) __asm__(
    "cuStreamGetCaptureInfo");
CUresult standin_legacy_cuGraphInstantiate(CUgraphExec*, CUgraph, CUgraphNode*, char*, size_t) __asm__(
    "cuGraphInstantiate");
}

namespace {

struct Entry {
  const char* name;  // as requested: no version suffix
  int version;       // CUDA version that introduced this ABI
  void* fn;
  void* per_thread;  // the _ptds/_ptsz flavour, when the API has one
};

template <class F>
void* addr(F* f) {
  return reinterpret_cast<void*>(f);
}

// A function-local table: built at the first lookup, not by a constructor at load time
// (the function-pointer casts keep it from being a compile-time constant).
const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
    {"cuInit", 2000, addr(&cuInit), nullptr},
    {"cuDriverGetVersion", 2020, addr(&cuDriverGetVersion), nullptr},
    {"cuDeviceGet", 2000, addr(&cuDeviceGet), nullptr},
    {"cuDeviceGetCount", 2000, addr(&cuDeviceGetCount), nullptr},
    {"cuDeviceGetName", 2000, addr(&cuDeviceGetName), nullptr},
    {"cuDeviceGetAttribute", 2000, addr(&cuDeviceGetAttribute), nullptr},
    {"cuDeviceTotalMem", 3020, addr(&cuDeviceTotalMem_v2), nullptr},
    {"cuDeviceGetUuid", 9020, addr(&standin_legacy_cuDeviceGetUuid), nullptr},
    {"cuDeviceGetUuid", 11040, addr(&cuDeviceGetUuid_v2), nullptr},
    {"cuDevicePrimaryCtxRetain", 7000, addr(&cuDevicePrimaryCtxRetain), nullptr},
    {"cuDevicePrimaryCtxRelease", 7000, addr(&standin_legacy_cuDevicePrimaryCtxRelease), nullptr},
    {"cuDevicePrimaryCtxRelease", 11000, addr(&cuDevicePrimaryCtxRelease_v2), nullptr},
    {"cuDevicePrimaryCtxReset", 11000, addr(&cuDevicePrimaryCtxReset_v2), nullptr},
    {"cuCtxGetCurrent", 4000, addr(&cuCtxGetCurrent), nullptr},
    {"cuCtxSetCurrent", 4000, addr(&cuCtxSetCurrent), nullptr},
    {"cuCtxGetDevice", 2000, addr(&cuCtxGetDevice), nullptr},
#if STANDIN_CUDA_MAJOR >= 13  // the _v2 ABI (with a context argument) is new in the 13.0 driver
    {"cuCtxGetDevice", 13000, addr(&cuCtxGetDevice_v2), nullptr},
#endif
    {"cuCtxSynchronize", 2000, addr(&cuCtxSynchronize), nullptr},
#if STANDIN_CUDA_MAJOR >= 13
    {"cuCtxSynchronize", 13000, addr(&cuCtxSynchronize_v2), nullptr},
#endif
    {"cuStreamCreate", 2000, addr(&cuStreamCreate), nullptr},
    {"cuStreamDestroy", 2000, addr(&standin_legacy_cuStreamDestroy), nullptr},
    {"cuStreamDestroy", 4000, addr(&cuStreamDestroy_v2), nullptr},
    {"cuStreamSynchronize", 2000, addr(&cuStreamSynchronize), addr(&cuStreamSynchronize_ptsz)},
    {"cuStreamQuery", 2000, addr(&cuStreamQuery), addr(&cuStreamQuery_ptsz)},
    {"cuMemAlloc", 3020, addr(&cuMemAlloc_v2), nullptr},
    {"cuMemAllocAsync", 11020, addr(&cuMemAllocAsync), nullptr},
    {"cuMemAllocManaged", 6000, addr(&cuMemAllocManaged), nullptr},
    {"cuMemFree", 3020, addr(&cuMemFree_v2), nullptr},
    {"cuMemAllocHost", 3020, addr(&cuMemAllocHost_v2), nullptr},
    {"cuMemHostAlloc", 2020, addr(&cuMemHostAlloc), nullptr},
    {"cuMemFreeHost", 2000, addr(&cuMemFreeHost), nullptr},
    {"cuMemHostRegister", 6050, addr(&cuMemHostRegister_v2), nullptr},
    {"cuMemHostUnregister", 4000, addr(&cuMemHostUnregister), nullptr},
    {"cuMemHostGetDevicePointer", 3020, addr(&cuMemHostGetDevicePointer_v2), nullptr},
    {"cuMemGetInfo", 3020, addr(&cuMemGetInfo_v2), nullptr},
    {"cuMemGetAddressRange", 3020, addr(&cuMemGetAddressRange_v2), nullptr},
    {"cuMemcpy", 4000, addr(&cuMemcpy), addr(&cuMemcpy_ptds)},
    {"cuMemcpyHtoD", 3020, addr(&cuMemcpyHtoD_v2), addr(&cuMemcpyHtoD_v2_ptds)},
    {"cuMemcpyDtoH", 3020, addr(&cuMemcpyDtoH_v2), addr(&cuMemcpyDtoH_v2_ptds)},
    {"cuMemcpyDtoD", 3020, addr(&cuMemcpyDtoD_v2), addr(&cuMemcpyDtoD_v2_ptds)},
    {"cuMemsetD8", 3020, addr(&cuMemsetD8_v2), addr(&cuMemsetD8_v2_ptds)},
    {"cuMemcpyAsync", 4000, addr(&cuMemcpyAsync), addr(&cuMemcpyAsync_ptsz)},
    {"cuMemcpyHtoDAsync", 3020, addr(&cuMemcpyHtoDAsync_v2), addr(&cuMemcpyHtoDAsync_v2_ptsz)},
    {"cuMemcpyDtoHAsync", 3020, addr(&cuMemcpyDtoHAsync_v2), addr(&cuMemcpyDtoHAsync_v2_ptsz)},
    {"cuMemcpyDtoDAsync", 3020, addr(&cuMemcpyDtoDAsync_v2), addr(&cuMemcpyDtoDAsync_v2_ptsz)},
    {"cuMemsetD8Async", 3020, addr(&cuMemsetD8Async), addr(&cuMemsetD8Async_ptsz)},
    {"cuMemsetD16Async", 3020, addr(&cuMemsetD16Async), addr(&cuMemsetD16Async_ptsz)},
    {"cuMemsetD32Async", 3020, addr(&cuMemsetD32Async), addr(&cuMemsetD32Async_ptsz)},
    {"cuPointerGetAttribute", 4000, addr(&cuPointerGetAttribute), nullptr},
    {"cuPointerGetAttributes", 7000, addr(&cuPointerGetAttributes), nullptr},
    {"cuGetErrorName", 6000, addr(&cuGetErrorName), nullptr},
    {"cuGetErrorString", 6000, addr(&cuGetErrorString), nullptr},
    {"cuDevicePrimaryCtxGetState", 7000, addr(&cuDevicePrimaryCtxGetState), nullptr},
    {"cuModuleUnload", 2000, addr(&cuModuleUnload), nullptr},
    {"cuModuleGetFunction", 2000, addr(&cuModuleGetFunction), nullptr},
    {"cuFuncGetAttribute", 2020, addr(&cuFuncGetAttribute), nullptr},
    {"cuFuncSetAttribute", 9000, addr(&cuFuncSetAttribute), nullptr},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, addr(&cuOccupancyMaxActiveBlocksPerMultiprocessor), nullptr},
    {"cuLaunchKernel", 4000, addr(&cuLaunchKernel), nullptr},
    {"cuLaunchCooperativeKernel", 9000, addr(&cuLaunchCooperativeKernel), nullptr},
    {"cuLinkCreate", 6050, addr(&cuLinkCreate_v2), nullptr},
    {"cuLinkAddData", 6050, addr(&cuLinkAddData_v2), nullptr},
    {"cuLinkComplete", 5050, addr(&cuLinkComplete), nullptr},
    {"cuTensorMapEncodeTiled", 12000, addr(&cuTensorMapEncodeTiled), nullptr},
    {"cuModuleLoadData", 2000, addr(&cuModuleLoadData), nullptr},
    {"cuModuleLoadDataEx", 2010, addr(&cuModuleLoadDataEx), nullptr},
    {"cuGetExportTable", 3000, addr(&cuGetExportTable), nullptr},
    {"cuStreamBeginCapture", 10000, addr(&standin_legacy_cuStreamBeginCapture), addr(&cuStreamBeginCapture_ptsz)},
    {"cuStreamBeginCapture", 10010, addr(&cuStreamBeginCapture_v2), addr(&cuStreamBeginCapture_v2_ptsz)},
    {"cuStreamEndCapture", 10000, addr(&cuStreamEndCapture), addr(&cuStreamEndCapture_ptsz)},
    {"cuStreamIsCapturing", 10000, addr(&cuStreamIsCapturing), addr(&cuStreamIsCapturing_ptsz)},
    {"cuStreamGetCaptureInfo", 10010, addr(&standin_legacy_cuStreamGetCaptureInfo), addr(&cuStreamGetCaptureInfo_ptsz)},
    {"cuStreamGetCaptureInfo", 11030, addr(&cuStreamGetCaptureInfo_v2), addr(&cuStreamGetCaptureInfo_v2_ptsz)},
    {"cuStreamGetCaptureInfo", 12030, addr(&cuStreamGetCaptureInfo_v3), addr(&cuStreamGetCaptureInfo_v3_ptsz)},
    {"cuThreadExchangeStreamCaptureMode", 10010, addr(&cuThreadExchangeStreamCaptureMode), nullptr},
    {"cuGraphInstantiate", 10000, addr(&standin_legacy_cuGraphInstantiate), nullptr},
    {"cuGraphInstantiate", 11000, addr(&cuGraphInstantiate_v2), nullptr},
    {"cuGraphInstantiate", 12000, addr(&cuGraphInstantiateWithFlags), nullptr},
    {"cuGraphInstantiateWithFlags", 11040, addr(&cuGraphInstantiateWithFlags), nullptr},
    {"cuGraphLaunch", 10000, addr(&cuGraphLaunch), addr(&cuGraphLaunch_ptsz)},
    {"cuGraphUpload", 11010, addr(&cuGraphUpload), addr(&cuGraphUpload_ptsz)},
    {"cuGraphDestroy", 10000, addr(&cuGraphDestroy), nullptr},
    {"cuGraphExecDestroy", 10000, addr(&cuGraphExecDestroy), nullptr},
    {"cuGraphGetNodes", 10000, addr(&cuGraphGetNodes), nullptr},
    {"cuGraphDebugDotPrint", 11030, addr(&cuGraphDebugDotPrint), nullptr},
    {"cuGetProcAddress", 11030, addr(&standin_legacy_cuGetProcAddress), nullptr},
    {"cuGetProcAddress", 12000, addr(&cuGetProcAddress_v2), nullptr},
  };
  return table;
}

}  // namespace

CUresult standin::driver::get_proc_address(const char* name, const char* symbol, void** pfn, int cuda_version,
                                           cuuint64_t flags, CUdriverProcAddressQueryResult* status, bool legacy) {
  STANDIN_DRIVER_ENTRY(name);
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~static_cast<cuuint64_t>(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  // "If the specified CUDA version is greater than the driver version, the API will return
  // CUDA_ERROR_INVALID_VALUE."
  if (cuda_version > config().driver_version) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const Entry* best = nullptr;
  bool name_known = false;
  for (const Entry& e : entries()) {
    if (std::strcmp(e.name, symbol) != 0) continue;
    name_known = true;
    if (e.version <= cuda_version && (best == nullptr || e.version > best->version)) best = &e;
  }
  if (best == nullptr) {
    if (status) *status = name_known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    // The 11.x entry point reported a miss as an error; cuGetProcAddress_v2 reports it in
    // symbolStatus and succeeds with a null pointer.
    return legacy ? CUDA_ERROR_NOT_FOUND : finish(CUDA_SUCCESS, fault);
  }
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  *pfn = (per_thread && best->per_thread) ? best->per_thread : best->fn;
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return finish(CUDA_SUCCESS, fault);
}

extern "C" STANDIN_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                                      cuuint64_t flags, CUdriverProcAddressQueryResult* symbolStatus) {
  return get_proc_address("cuGetProcAddress_v2", symbol, pfn, cudaVersion, flags, symbolStatus, false);
}
