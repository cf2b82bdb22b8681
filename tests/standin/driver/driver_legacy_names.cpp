// Exported names that cuda.h only declares in its internal mode: the 11.x cuGetProcAddress,
// legacy symbols whose signature equals their successor's, and the per-thread-default-stream
// (_ptds/_ptsz) flavours. Work is synchronous, so a per-thread flavour behaves as its base.
// Compiling this file in internal mode lets the header check these signatures too.
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include "driver_bodies.h"
#include "export.h"

using namespace standin::driver;

extern "C" {

STANDIN_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return get_proc_address("cuGetProcAddress", symbol, pfn, cudaVersion, flags, nullptr, true);
}

STANDIN_EXPORT CUresult cuStreamDestroy(CUstream hStream) { return stream_destroy("cuStreamDestroy", hStream); }

STANDIN_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return primary_ctx_release("cuDevicePrimaryCtxRelease", dev);
}

STANDIN_EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return device_get_uuid("cuDeviceGetUuid", uuid, dev); }

STANDIN_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return mem_copy("cuMemcpy_ptds", dst, src, ByteCount);
}

STANDIN_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyHtoD_v2_ptds", reinterpret_cast<void*>(dstDevice), true, srcHost, false, ByteCount);
}

STANDIN_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyDtoH_v2_ptds", dstHost, false, reinterpret_cast<void*>(srcDevice), true, ByteCount);
}

STANDIN_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyDtoD_v2_ptds", reinterpret_cast<void*>(dstDevice), true,
                          reinterpret_cast<void*>(srcDevice), true, ByteCount);
}

STANDIN_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return mem_set("cuMemsetD8_v2_ptds", dstDevice, uc, 1, N);
}

STANDIN_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
  return stream_synchronize("cuStreamSynchronize_ptsz", hStream);
}

STANDIN_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream) { return stream_query("cuStreamQuery_ptsz", hStream); }

STANDIN_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return mem_copy("cuMemcpyAsync_ptsz", dst, src, ByteCount, hStream);
}

STANDIN_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                                  CUstream hStream) {
  return mem_copy_checked("cuMemcpyHtoDAsync_v2_ptsz", reinterpret_cast<void*>(dstDevice), true, srcHost, false,
                          ByteCount, hStream);
}

STANDIN_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                                  CUstream hStream) {
  return mem_copy_checked("cuMemcpyDtoHAsync_v2_ptsz", dstHost, false, reinterpret_cast<void*>(srcDevice), true,
                          ByteCount, hStream);
}

STANDIN_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                                  CUstream hStream) {
  return mem_copy_checked("cuMemcpyDtoDAsync_v2_ptsz", reinterpret_cast<void*>(dstDevice), true,
                          reinterpret_cast<void*>(srcDevice), true, ByteCount, hStream);
}

STANDIN_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD8Async_ptsz", dstDevice, uc, 1, N, hStream);
}

STANDIN_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD16Async_ptsz", dstDevice, us, 2, N, hStream);
}

STANDIN_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD32Async_ptsz", dstDevice, ui, 4, N, hStream);
}

}  // extern "C"
