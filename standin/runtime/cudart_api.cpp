// The stand-in CUDA runtime, part 1: versions, devices, memory, copies, errors, driver entry
// points. See runtime_state.h for the conventions every runtime file follows.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "capture_work.h"
#include "cuda_enum_names.h"
#include "error_texts.h"
#include "runtime_state.h"
#include "stack_version.h"

using standin::DriverLink;
using namespace standin::runtime;

extern "C" {

// ---- versions and devices ------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  STANDIN_RUNTIME_ENTRY("cudaRuntimeGetVersion");
  if (runtimeVersion == nullptr) return record(cudaErrorInvalidValue);
  *runtimeVersion = standin::kCudaVersion;
  return finish(cudaSuccess, fault);
}

// Succeeds with 0 when there is no driver at all, like the real runtime.
STANDIN_EXPORT cudaError_t cudaDriverGetVersion(int* driverVersion) {
  STANDIN_RUNTIME_ENTRY("cudaDriverGetVersion");
  if (driverVersion == nullptr) return record(cudaErrorInvalidValue);
  const DriverLink* drv = standin::driver_link();
  if (drv == nullptr) {
    *driverVersion = 0;
    return finish(cudaSuccess, fault);
  }
  return finish(drv->cuDriverGetVersion(driverVersion), fault);
}

// On failure *count is left as it was (a real runtime quirk programs trip over).
STANDIN_EXPORT cudaError_t cudaGetDeviceCount(int* count) {
  STANDIN_RUNTIME_ENTRY("cudaGetDeviceCount");
  if (count == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  return finish(drv->cuDeviceGetCount(count), fault);
}

STANDIN_EXPORT cudaError_t cudaGetDevice(int* device) {
  STANDIN_RUNTIME_ENTRY("cudaGetDevice");
  if (device == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  CUcontext ctx = nullptr;
  CUresult r = drv->cuCtxGetCurrent(&ctx);
  if (r == CUDA_SUCCESS) {
    CUdevice dev = 0;
    if (ctx != nullptr) r = drv->cuCtxGetDevice(&dev);
    if (r == CUDA_SUCCESS) *device = dev;
  }
  return finish(r, fault);
}

STANDIN_EXPORT cudaError_t cudaSetDevice(int device) {
  STANDIN_RUNTIME_ENTRY("cudaSetDevice");
  STANDIN_RUNTIME_INIT();
  int count = 0;
  CUresult r = drv->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) return record(from_driver(r));
  if (device < 0 || device >= count) return record(cudaErrorInvalidDevice);
  CUcontext ctx = nullptr;
  r = drv->cuDevicePrimaryCtxRetain(&ctx, device);
  if (r == CUDA_SUCCESS) r = drv->cuCtxSetCurrent(ctx);
  return finish(r, fault);
}

STANDIN_EXPORT cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  STANDIN_RUNTIME_ENTRY("cudaDeviceGetAttribute");
  if (value == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  CUresult r = drv->cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attr), device);
  return finish(r == CUDA_ERROR_INVALID_DEVICE ? cudaErrorInvalidDevice : from_driver(r), fault);
}

// "domain:bus:device.function", as nvidia-smi prints it; from the device's PCI attributes.
STANDIN_EXPORT cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  STANDIN_RUNTIME_ENTRY("cudaDeviceGetPCIBusId");
  if (pciBusId == nullptr || len <= 0) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  int domain = 0, bus = 0, slot = 0;
  CUresult r = drv->cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device);
  if (r == CUDA_SUCCESS) r = drv->cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device);
  if (r == CUDA_SUCCESS) r = drv->cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device);
  if (r != CUDA_SUCCESS) return record(r == CUDA_ERROR_INVALID_DEVICE ? cudaErrorInvalidDevice : from_driver(r));
  std::snprintf(pciBusId, static_cast<size_t>(len), "%08X:%02X:%02X.0", domain, bus, slot);
  return finish(cudaSuccess, fault);
}

// ---- memory --------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaMalloc(void** devPtr, size_t size) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMalloc");
  if (devPtr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (size == 0) {  // no allocation, no error
    *devPtr = nullptr;
    return finish(cudaSuccess, fault);
  }
  CUdeviceptr p = 0;
  const CUresult r = drv->cuMemAlloc(&p, size);
  if (r == CUDA_SUCCESS) *devPtr = reinterpret_cast<void*>(p);
  return finish(r, fault);
}

// cudaFree(0) is the customary way to initialize the runtime and create the context.
STANDIN_EXPORT cudaError_t cudaFree(void* devPtr) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaFree");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemFree(reinterpret_cast<CUdeviceptr>(devPtr)), fault);
}

STANDIN_EXPORT cudaError_t cudaMallocHost(void** ptr, size_t size) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMallocHost");
  if (ptr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemAllocHost(ptr, size), fault);
}

STANDIN_EXPORT cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaHostAlloc");
  if (pHost == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemHostAlloc(pHost, size, flags), fault);  // same flag values
}

STANDIN_EXPORT cudaError_t cudaFreeHost(void* ptr) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaFreeHost");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemFreeHost(ptr), fault);
}

STANDIN_EXPORT cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMallocManaged");
  if (devPtr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (size == 0) {
    *devPtr = nullptr;
    return finish(cudaSuccess, fault);
  }
  CUdeviceptr p = 0;
  const CUresult r = drv->cuMemAllocManaged(&p, size, flags);
  if (r == CUDA_SUCCESS) *devPtr = reinterpret_cast<void*>(p);
  return finish(r, fault);
}

STANDIN_EXPORT cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMemGetInfo");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemGetInfo(free, total), fault);
}

}  // extern "C"

namespace {

// The direction must fit the pointers: "device" ends must be memory the driver knows.
cudaError_t check_direction(void* dst, const void* src, cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault: return cudaSuccess;
    case cudaMemcpyHostToDevice: return is_device_memory(dst) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost: return is_device_memory(src) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice:
      return is_device_memory(dst) && is_device_memory(src) ? cudaSuccess : cudaErrorInvalidValue;
  }
  return cudaErrorInvalidMemcpyDirection;
}

cudaError_t copy(const DriverLink* drv, void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  // An empty copy succeeds whatever the pointers, as in CUDA (PyTorch copies empty tensors so);
  // the driver still reports a sticky error.
  if (count == 0 && kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault) {
    return from_driver(drv->cuMemcpy(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), 0));
  }
  if (cudaError_t e = check_direction(dst, src, kind); e != cudaSuccess) return e;
  return from_driver(drv->cuMemcpy(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), count));
}

// The checks `copy` makes, without copying: what a capture checks before it records a row.
cudaError_t check_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (const int sticky = standin_sticky_error()) return static_cast<cudaError_t>(sticky);
  if (count == 0 && kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault) return cudaSuccess;
  if (cudaError_t e = check_direction(dst, src, kind); e != cudaSuccess) return e;
  return standin_copy_range(dst, !is_device_memory(dst), src, !is_device_memory(src), count, 0) ? cudaSuccess
                                                                                                : cudaErrorInvalidValue;
}

// Rows of an asynchronous copy on a capturing stream: checked now, recorded as one memcpy node.
cudaError_t capture_rows(const standin_fault_action& fault, cudaStream_t stream, const std::vector<CopyRow>& rows,
                         cudaMemcpyKind kind) {
  std::vector<CopyRow> moving;
  for (const CopyRow& r : rows) {
    if (cudaError_t e = check_copy(r.dst, r.src, r.bytes, kind); e != cudaSuccess) return record(e);
    if (r.bytes != 0) moving.push_back(r);
  }
  if (moving.empty()) return cudaSuccess;
  return record(capture_copy(stream, std::move(moving), fault.async_error));
}

// The copies and the asynchronous memset under every name they are exported by: the plain one
// and the per-thread-default-stream form (_ptds/_ptsz, what a program built with
// --default-stream per-thread calls), each counted under its own name. Work is synchronous, so
// a per-thread form behaves as its base; on a capturing stream an asynchronous one is recorded
// instead (one node), to be done by each launch of the graph.
//
// A synchronous copy synchronizes its stream (the legacy one, or the thread's own for _ptds):
// the capture rules of that apply, then the driver copies.
cudaError_t memcpy_named(const char* name, void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                         cudaStream_t on) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  STANDIN_RUNTIME_CONTEXT();
  if (const int e = standin_capture_sync_stream(on)) return record(static_cast<cudaError_t>(e));
  CaptureRulesApplied applied;
  return finish(copy(drv, dst, src, count, kind), fault);
}

cudaError_t memcpy_async_named(const char* name, void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                               cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (how == STANDIN_RECORD) return capture_rows(fault, stream, {CopyRow{dst, src, count}}, kind);
  CaptureRulesApplied applied;
  return finish(copy(drv, dst, src, count, kind), fault);
}

// A 2D copy: `height` rows of `width` bytes, each a 1D copy checked as cudaMemcpy's is. A pitch
// narrower than the width is CUDA's cudaErrorInvalidPitchValue.
cudaError_t memcpy_2d_async_named(const char* name, void* dst, size_t dpitch, const void* src, size_t spitch,
                                  size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (height > 1 && (width > dpitch || width > spitch)) return record(cudaErrorInvalidPitchValue);
  std::vector<CopyRow> rows;
  for (size_t row = 0; row < height; ++row) {
    rows.push_back(
        CopyRow{static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width});
  }
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (how == STANDIN_RECORD) return capture_rows(fault, stream, rows, kind);
  CaptureRulesApplied applied;
  cudaError_t e = cudaSuccess;
  for (size_t i = 0; i < rows.size() && e == cudaSuccess; ++i) e = copy(drv, rows[i].dst, rows[i].src, width, kind);
  return finish(e, fault);
}

// A 3D copy between pitched pointers: `depth` slices of `height` rows of `width` bytes (a pitched
// pointer's extent counts bytes), each row a 1D copy checked as cudaMemcpy's is, from each end's
// position, whose rows are `pitch` and whose slices `ysize` rows apart. CUDA arrays are not
// modelled (cudaErrorInvalidValue); a pitch narrower than the width is cudaErrorInvalidPitchValue.
cudaError_t memcpy_3d_async_named(const char* name, const cudaMemcpy3DParms* p, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  if (p == nullptr || p->srcArray != nullptr || p->dstArray != nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  const cudaExtent e = p->extent;
  if (e.width > p->dstPtr.pitch || e.width > p->srcPtr.pitch) return record(cudaErrorInvalidPitchValue);
  const auto row_of = [](const cudaPitchedPtr& ptr, const cudaPos& pos, size_t z, size_t y) {
    return static_cast<char*>(ptr.ptr) + ((pos.z + z) * ptr.ysize + pos.y + y) * ptr.pitch + pos.x;
  };
  std::vector<CopyRow> rows;
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y) {
      rows.push_back(CopyRow{row_of(p->dstPtr, p->dstPos, z, y), row_of(p->srcPtr, p->srcPos, z, y), e.width});
    }
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (how == STANDIN_RECORD) return capture_rows(fault, stream, rows, p->kind);
  CaptureRulesApplied applied;
  cudaError_t err = cudaSuccess;
  for (size_t i = 0; i < rows.size() && err == cudaSuccess; ++i) {
    err = copy(drv, rows[i].dst, rows[i].src, e.width, p->kind);
  }
  return finish(err, fault);
}

cudaError_t memset_async_named(const char* name, void* devPtr, int value, size_t count, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  const auto byte = static_cast<unsigned char>(value);
  if (how == STANDIN_RECORD) {  // checked now as cuMemsetD8 checks, done by each launch
    if (const int sticky = standin_sticky_error()) return record(static_cast<cudaError_t>(sticky));
    if (!standin_set_range(devPtr, byte, 1, count, 0)) return record(cudaErrorInvalidValue);
    if (count == 0) return cudaSuccess;
    const int async_error = fault.async_error;
    return record(static_cast<cudaError_t>(standin::capture_work(stream, "memset", [=] {
      return standin_set_range(devPtr, byte, 1, count, 1) ? async_error : 700;
    })));
  }
  CaptureRulesApplied applied;
  return finish(drv->cuMemsetD8(reinterpret_cast<CUdeviceptr>(devPtr), byte, count), fault);
}

}  // namespace

extern "C" {

STANDIN_EXPORT cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return memcpy_named("cudaMemcpy", dst, src, count, kind, cudaStreamLegacy);
}

STANDIN_EXPORT cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return memcpy_named("cudaMemcpy_ptds", dst, src, count, kind, cudaStreamPerThread);
}

STANDIN_EXPORT cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                           cudaStream_t stream) {
  return memcpy_async_named("cudaMemcpyAsync", dst, src, count, kind, stream);
}

STANDIN_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                                cudaStream_t stream) {
  return memcpy_async_named("cudaMemcpyAsync_ptsz", dst, src, count, kind, stream);
}

STANDIN_EXPORT cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                             size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return memcpy_2d_async_named("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream);
}

STANDIN_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch,
                                                  size_t width, size_t height, enum cudaMemcpyKind kind,
                                                  cudaStream_t stream) {
  return memcpy_2d_async_named("cudaMemcpy2DAsync_ptsz", dst, dpitch, src, spitch, width, height, kind, stream);
}

STANDIN_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream) {
  return memcpy_3d_async_named("cudaMemcpy3DAsync", p, stream);
}

STANDIN_EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms* p, cudaStream_t stream) {
  return memcpy_3d_async_named("cudaMemcpy3DAsync_ptsz", p, stream);
}

STANDIN_EXPORT cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMemset");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemsetD8(reinterpret_cast<CUdeviceptr>(devPtr), static_cast<unsigned char>(value), count), fault);
}

STANDIN_EXPORT cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_async_named("cudaMemsetAsync", devPtr, value, count, stream);
}

STANDIN_EXPORT cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_async_named("cudaMemsetAsync_ptsz", devPtr, value, count, stream);
}

STANDIN_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaPointerGetAttributes");
  if (attributes == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  unsigned int type = 0;
  int device = -2;
  bool managed = false;
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void* data[] = {&type, &device, &managed};
  const CUresult r = drv->cuPointerGetAttributes(3, which, data, reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS) return record(from_driver(r));
  // Field by field: CUDA 13 appended `long reserved[8]` to the struct, which a CUDA 12 caller's
  // struct does not have (it ends at hostPointer); only the 13 build may clear it.
#if STANDIN_CUDA_MAJOR >= 13
  std::memset(attributes->reserved, 0, sizeof attributes->reserved);
#endif
  attributes->devicePointer = attributes->hostPointer = nullptr;
  attributes->device = device;
  if (managed) {
    attributes->type = cudaMemoryTypeManaged;
    attributes->devicePointer = attributes->hostPointer = const_cast<void*>(ptr);
  } else if (type == CU_MEMORYTYPE_DEVICE) {
    attributes->type = cudaMemoryTypeDevice;
    attributes->devicePointer = const_cast<void*>(ptr);
  } else if (type == CU_MEMORYTYPE_HOST) {
    attributes->type = cudaMemoryTypeHost;
    attributes->devicePointer = attributes->hostPointer = const_cast<void*>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return finish(cudaSuccess, fault);
}

// ---- synchronization and streams: the work is already done, only errors remain ----------------

STANDIN_EXPORT cudaError_t cudaDeviceSynchronize(void) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaDeviceSynchronize");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuCtxSynchronize(), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamSynchronize");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamSynchronize(stream), fault);
}

// The per-thread-default-stream form (--default-stream per-thread): work is synchronous here,
// so it waits as its base does.
STANDIN_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamSynchronize_ptsz");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamSynchronize(stream), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamCreate");
  if (pStream == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamCreate(pStream, CU_STREAM_DEFAULT), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamCreateWithFlags");
  if (pStream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)) {
    return record(cudaErrorInvalidValue);
  }
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamCreate(pStream, flags), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamDestroy");
  STANDIN_RUNTIME_CONTEXT();
  const CUresult r = drv->cuStreamDestroy(stream);
  if (r == CUDA_SUCCESS) forget_stream(stream);
  return finish(r, fault);
}

// ---- errors --------------------------------------------------------------------------------

// Returns and clears the thread's last error; a failed initialization and a sticky error are
// returned every time, since neither can be cleared. A fault still pending (STANDIN_DELAYED_ERROR:
// the kernel has not faulted yet, as seen from the host) is not: these calls check nothing on the
// device.
STANDIN_EXPORT cudaError_t cudaGetLastError(void) {
  STANDIN_RUNTIME_ENTRY("cudaGetLastError");
  const Runtime& rt = runtime();
  if (rt.error != cudaSuccess) return rt.error;
  const cudaError_t e = last_error();
  last_error() = cudaSuccess;
  if (const int sticky = standin_landed_error()) return static_cast<cudaError_t>(sticky);  // not a pending fault
  return e;
}

STANDIN_EXPORT cudaError_t cudaPeekAtLastError(void) {
  STANDIN_RUNTIME_ENTRY("cudaPeekAtLastError");
  const Runtime& rt = runtime();
  if (rt.error != cudaSuccess) return rt.error;
  if (const int sticky = standin_landed_error()) return static_cast<cudaError_t>(sticky);
  return last_error();
}

// The names are cudaError_t's (driver_types.h), the texts the real libcudart's.
STANDIN_EXPORT const char* cudaGetErrorName(cudaError_t error) {
  standin_enter("cudaGetErrorName");  // counted; there is no status to fail with
  const char* name = standin::runtime_error_name(error);
  return name ? name : "unrecognized error code";
}

STANDIN_EXPORT const char* cudaGetErrorString(cudaError_t error) {
  standin_enter("cudaGetErrorString");
  const char* text = standin::runtime_error_text(error);
  return text ? text : "unrecognized error code";
}

// ---- driver entry points: forwarded to the driver's cuGetProcAddress_v2 -----------------------

#if STANDIN_CUDA_MAJOR >= 13  // new in 12.5: the 12.4 runtime lacks it
STANDIN_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                                            unsigned long long flags,
                                                            cudaDriverEntryPointQueryResult* driverStatus) {
  STANDIN_RUNTIME_ENTRY("cudaGetDriverEntryPointByVersion");
  if (symbol == nullptr || funcPtr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult r = drv->cuGetProcAddress(symbol, funcPtr, static_cast<int>(cudaVersion), flags, &status);
  if (r == CUDA_SUCCESS && driverStatus != nullptr) *driverStatus = static_cast<cudaDriverEntryPointQueryResult>(status);
  return finish(r, fault);
}
#endif

STANDIN_EXPORT cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                                   cudaDriverEntryPointQueryResult* driverStatus) {
  STANDIN_RUNTIME_ENTRY("cudaGetDriverEntryPoint");
  if (symbol == nullptr || funcPtr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult r = drv->cuGetProcAddress(symbol, funcPtr, standin::kCudaVersion, flags, &status);
  if (r == CUDA_SUCCESS && driverStatus != nullptr) *driverStatus = static_cast<cudaDriverEntryPointQueryResult>(status);
  return finish(r, fault);
}

}  // extern "C"
