// The rest of the runtime's memory API: stream-ordered allocation and its pools, page-locking
// host memory, peer access and peer copies, and IPC handles.
//
// Everything is synchronous, so a stream-ordered allocation is an ordinary one, and the default
// pool of each device only counts what cudaMallocAsync handed out (used = reserved: the stand-in
// caches nothing). On a capturing stream the allocation is made at the capture and kept for the
// graph's launches, and a captured cudaFreeAsync frees nothing. Peers share one address space (it
// is all host memory), so any two distinct devices can reach each other. IPC cannot work:
// "device" memory is private anonymous memory of this process, so the IPC calls fail with
// cudaErrorNotSupported, honestly.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "capture_work.h"
#include "runtime_state.h"

using namespace standin::runtime;

// A device's default memory pool (cudaMemPool_t is a pointer to this).
struct CUmemPoolHandle_st {
  int device;
  int reuse_follow_event_dependencies = 1;
  int reuse_allow_opportunistic = 1;
  int reuse_allow_internal_dependencies = 1;
  uint64_t release_threshold = 0;
  uint64_t used = 0, used_high = 0;
};

namespace {

constexpr int kMaxDevices = 64;

struct Pools {
  std::mutex mutex;
  std::array<CUmemPoolHandle_st, kMaxDevices> pools{};
  std::array<std::array<bool, kMaxDevices>, kMaxDevices> peer_enabled{};  // [device][peer]
};

Pools& pools() {
  static Pools* const p = [] {
    auto* all = new Pools;
    for (int i = 0; i < kMaxDevices; ++i) all->pools[static_cast<size_t>(i)].device = i;
    return all;
  }();
  return *p;
}

CUmemPoolHandle_st* pool_of(cudaMemPool_t pool) {
  Pools& p = pools();
  for (auto& candidate : p.pools)
    if (&candidate == pool) return pool;
  return nullptr;
}

int device_count(const standin::DriverLink* drv) {
  int count = 0;
  drv->cuDeviceGetCount(&count);
  return count;
}

// The stream-ordered allocations' body, with the context current: from `pool`, or the current
// device's default pool when it is null.
cudaError_t allocate_stream_ordered(const standin::DriverLink* drv, const standin_fault_action& fault, void** devPtr,
                                    size_t size, cudaStream_t hStream, CUmemPoolHandle_st* pool) {
  if (!standin_stream_valid(hStream)) return record(cudaErrorInvalidResourceHandle);
  const int how = enqueue(hStream);  // stream-ordered: legal during a capture, unlike cudaMalloc
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (size == 0) {
    *devPtr = nullptr;
    return finish(cudaSuccess, fault);
  }
  CUdeviceptr p = 0;
  CUresult r = CUDA_SUCCESS;
  {
    CaptureRulesApplied applied;
    r = drv->cuMemAlloc(&p, size);
  }
  if (r != CUDA_SUCCESS) return record(from_driver(r));
  *devPtr = reinterpret_cast<void*>(p);
  {
    Pools& all = pools();
    std::lock_guard lock(all.mutex);
    CUmemPoolHandle_st& counted = pool != nullptr ? *pool : all.pools[static_cast<size_t>(current_device(drv))];
    counted.used += size;
    counted.used_high = std::max(counted.used_high, counted.used);
  }
  // Captured, the allocation is a node of the graph; its memory is the one allocated now, kept
  // for every launch (a real graph allocates the same address at each launch).
  if (how == STANDIN_RECORD) {
    return record(static_cast<cudaError_t>(standin::capture_work(hStream, "mem alloc", [] { return 0; })));
  }
  return finish(cudaSuccess, fault);
}

}  // namespace

extern "C" {

// ---- stream-ordered allocation ---------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMallocAsync");
  if (devPtr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return allocate_stream_ordered(drv, fault, devPtr, size, hStream, nullptr);
}

// The pools are the devices' default ones (the stand-in creates no other).
STANDIN_EXPORT cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMallocFromPoolAsync");
  CUmemPoolHandle_st* pool = pool_of(memPool);
  if (ptr == nullptr || pool == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return allocate_stream_ordered(drv, fault, ptr, size, stream, pool);
}

STANDIN_EXPORT cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaFreeAsync");
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(hStream)) return record(cudaErrorInvalidResourceHandle);
  const int how = enqueue(hStream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  // Captured, the free is a node of the graph that frees nothing: the memory stays allocated for
  // the graph's later launches (the stand-in allocated it once, at the capture).
  if (how == STANDIN_RECORD) {
    if (devPtr != nullptr && !is_device_memory(devPtr)) return record(cudaErrorInvalidValue);
    return record(static_cast<cudaError_t>(standin::capture_work(hStream, "mem free", [] { return 0; })));
  }
  standin_allocation a{};
  const bool known = devPtr != nullptr && standin_find_allocation(devPtr, &a);
  CaptureRulesApplied applied;
  const CUresult r = drv->cuMemFree(reinterpret_cast<CUdeviceptr>(devPtr));
  if (r == CUDA_SUCCESS && known) {
    Pools& all = pools();
    std::lock_guard lock(all.mutex);
    CUmemPoolHandle_st& pool = all.pools[static_cast<size_t>(a.device)];
    pool.used -= std::min<uint64_t>(pool.used, a.size);
  }
  return finish(r, fault);
}

STANDIN_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  STANDIN_RUNTIME_ENTRY("cudaDeviceGetDefaultMemPool");
  if (memPool == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  if (device < 0 || device >= device_count(drv)) return record(cudaErrorInvalidDevice);
  *memPool = &pools().pools[static_cast<size_t>(device)];
  return finish(cudaSuccess, fault);
}

STANDIN_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  STANDIN_RUNTIME_ENTRY("cudaMemPoolGetAttribute");
  CUmemPoolHandle_st* pool = pool_of(memPool);
  if (pool == nullptr || value == nullptr) return record(cudaErrorInvalidValue);
  Pools& all = pools();
  std::lock_guard lock(all.mutex);
  auto put = [&](auto v) { std::memcpy(value, &v, sizeof v); };
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: put(pool->reuse_follow_event_dependencies); break;
    case cudaMemPoolReuseAllowOpportunistic: put(pool->reuse_allow_opportunistic); break;
    case cudaMemPoolReuseAllowInternalDependencies: put(pool->reuse_allow_internal_dependencies); break;
    case cudaMemPoolAttrReleaseThreshold: put(pool->release_threshold); break;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent: put(pool->used); break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: put(pool->used_high); break;
    default: return record(cudaErrorInvalidValue);
  }
  return finish(cudaSuccess, fault);
}

// The high-water marks may only be reset to zero.
STANDIN_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  STANDIN_RUNTIME_ENTRY("cudaMemPoolSetAttribute");
  CUmemPoolHandle_st* pool = pool_of(memPool);
  if (pool == nullptr || value == nullptr) return record(cudaErrorInvalidValue);
  Pools& all = pools();
  std::lock_guard lock(all.mutex);
  int flag = 0;
  uint64_t bytes = 0;
  std::memcpy(&flag, value, sizeof flag);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: pool->reuse_follow_event_dependencies = flag; break;
    case cudaMemPoolReuseAllowOpportunistic: pool->reuse_allow_opportunistic = flag; break;
    case cudaMemPoolReuseAllowInternalDependencies: pool->reuse_allow_internal_dependencies = flag; break;
    case cudaMemPoolAttrReleaseThreshold: std::memcpy(&pool->release_threshold, value, sizeof bytes); break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
      std::memcpy(&bytes, value, sizeof bytes);
      if (bytes != 0) return record(cudaErrorInvalidValue);
      pool->used_high = pool->used;
      break;
    default: return record(cudaErrorInvalidValue);
  }
  return finish(cudaSuccess, fault);
}

STANDIN_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc* descList,
                                                size_t count) {
  STANDIN_RUNTIME_ENTRY("cudaMemPoolSetAccess");
  STANDIN_RUNTIME_INIT();
  if (pool_of(memPool) == nullptr || (count > 0 && descList == nullptr)) return record(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    const cudaMemAccessDesc& d = descList[i];
    if (d.location.type != cudaMemLocationTypeDevice || d.location.id < 0 || d.location.id >= device_count(drv)) {
      return record(cudaErrorInvalidDevice);
    }
  }
  return finish(cudaSuccess, fault);
}

// Nothing is cached, so there is nothing to trim.
STANDIN_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  STANDIN_RUNTIME_ENTRY("cudaMemPoolTrimTo");
  (void)minBytesToKeep;
  if (pool_of(memPool) == nullptr) return record(cudaErrorInvalidValue);
  return finish(cudaSuccess, fault);
}

// ---- page-locked host memory -------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaHostRegister");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemHostRegister(ptr, size, flags), fault);  // same flag values
}

STANDIN_EXPORT cudaError_t cudaHostUnregister(void* ptr) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaHostUnregister");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemHostUnregister(ptr), fault);
}

STANDIN_EXPORT cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaHostGetDevicePointer");
  if (pDevice == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  CUdeviceptr p = 0;
  const CUresult r = drv->cuMemHostGetDevicePointer(&p, pHost, flags);
  if (r == CUDA_SUCCESS) *pDevice = reinterpret_cast<void*>(p);
  return finish(r, fault);
}

// ---- peers ---------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  STANDIN_RUNTIME_ENTRY("cudaDeviceCanAccessPeer");
  if (canAccessPeer == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  const int count = device_count(drv);
  if (device < 0 || device >= count || peerDevice < 0 || peerDevice >= count) return record(cudaErrorInvalidDevice);
  *canAccessPeer = device != peerDevice ? 1 : 0;
  return finish(cudaSuccess, fault);
}

STANDIN_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaDeviceEnablePeerAccess");
  if (flags != 0) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  const int device = current_device(drv);
  if (peerDevice < 0 || peerDevice >= device_count(drv) || peerDevice == device) return record(cudaErrorInvalidDevice);
  Pools& all = pools();
  std::lock_guard lock(all.mutex);
  bool& enabled = all.peer_enabled[static_cast<size_t>(device)][static_cast<size_t>(peerDevice)];
  if (enabled) return record(cudaErrorPeerAccessAlreadyEnabled);
  enabled = true;
  return finish(cudaSuccess, fault);
}

STANDIN_EXPORT cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                               cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaMemcpyPeerAsync");
  STANDIN_RUNTIME_CONTEXT();
  const int devices = device_count(drv);
  if (dstDevice < 0 || dstDevice >= devices || srcDevice < 0 || srcDevice >= devices) {
    return record(cudaErrorInvalidDevice);
  }
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (count != 0 && (!is_device_memory(dst) || !is_device_memory(src))) return record(cudaErrorInvalidValue);
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (how == STANDIN_RECORD) {
    if (const int sticky = standin_sticky_error()) return record(static_cast<cudaError_t>(sticky));
    if (count == 0) return cudaSuccess;
    if (!standin_copy_range(dst, 0, src, 0, count, 0)) return record(cudaErrorInvalidValue);
    return record(capture_copy(stream, {CopyRow{dst, src, count}}, fault.async_error));
  }
  CaptureRulesApplied applied;
  return finish(drv->cuMemcpy(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), count), fault);
}

// ---- IPC: not possible with process-private "device" memory ------------------------------------

STANDIN_EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* devPtr) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaIpcGetMemHandle");
  (void)handle, (void)devPtr;
  STANDIN_RUNTIME_CONTEXT();
  return record(cudaErrorNotSupported);
}

STANDIN_EXPORT cudaError_t cudaIpcOpenMemHandle(void** devPtr, cudaIpcMemHandle_t handle, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaIpcOpenMemHandle");
  (void)devPtr, (void)handle, (void)flags;
  STANDIN_RUNTIME_CONTEXT();
  return record(cudaErrorNotSupported);
}

STANDIN_EXPORT cudaError_t cudaIpcCloseMemHandle(void* devPtr) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaIpcCloseMemHandle");
  (void)devPtr;
  STANDIN_RUNTIME_CONTEXT();
  return record(cudaErrorNotSupported);
}

STANDIN_EXPORT cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t* handle, cudaEvent_t event) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaIpcGetEventHandle");
  (void)handle, (void)event;
  STANDIN_RUNTIME_CONTEXT();
  return record(cudaErrorNotSupported);
}

STANDIN_EXPORT cudaError_t cudaIpcOpenEventHandle(cudaEvent_t* event, cudaIpcEventHandle_t handle) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaIpcOpenEventHandle");
  (void)event, (void)handle;
  STANDIN_RUNTIME_CONTEXT();
  return record(cudaErrorNotSupported);
}

}  // extern "C"
