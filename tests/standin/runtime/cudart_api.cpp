// The stand-in CUDA runtime (libcudart.so.13): a thin translation onto the driver API, reached
// the way the real runtime reaches it (dlopen + cuGetProcAddress_v2, see driver_link.h). Device
// state lives in the driver's current context; errors follow the runtime's conventions: a
// failing call records its code for cudaGetLastError, a failed initialization is returned by
// every call that needs the device, and a sticky error poisons everything after it.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

#include "driver_link.h"
#include "standin_private.h"

using standin::DriverLink;

namespace {

thread_local cudaError_t last_error = cudaSuccess;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

// Since CUDA 10.1 the runtime's error numbers equal the driver's for every code both have.
cudaError_t from_driver(CUresult r) { return static_cast<cudaError_t>(r); }

cudaError_t finish(cudaError_t e, const standin_fault_action& fault) {
  if (e == cudaSuccess && fault.async_error) standin_set_sticky_error(fault.async_error);
  return record(e);
}

cudaError_t finish(CUresult r, const standin_fault_action& fault) { return finish(from_driver(r), fault); }

struct Runtime {
  cudaError_t error;       // why initialization failed, or cudaSuccess
  const DriverLink* drv;   // null when the driver could not be loaded
};

// Initialization, once per process: load the driver, check its version, cuInit. Its failure is
// permanent and returned by every call that needs a device, as the real runtime does.
const Runtime& runtime() {
  static const Runtime rt = [] {
    const DriverLink* drv = standin::driver_link();
    if (drv == nullptr) return Runtime{cudaErrorInsufficientDriver, nullptr};
    if (drv->driver_version < CUDART_VERSION) return Runtime{cudaErrorInsufficientDriver, drv};
    const CUresult r = drv->cuInit(0);
    if (r != CUDA_SUCCESS) {
      const int forced = standin_device_count_error();  // the exact code asked for
      return Runtime{forced ? static_cast<cudaError_t>(forced) : from_driver(r), drv};
    }
    return Runtime{cudaSuccess, drv};
  }();
  return rt;
}

// Makes sure the calling thread has a current context (the primary context of device 0 unless
// cudaSetDevice chose another), as the runtime does lazily before any device work.
cudaError_t bind_context(const DriverLink* drv) {
  CUcontext ctx = nullptr;
  CUresult r = drv->cuCtxGetCurrent(&ctx);
  if (r == CUDA_SUCCESS && ctx == nullptr) {
    r = drv->cuDevicePrimaryCtxRetain(&ctx, 0);
    if (r == CUDA_SUCCESS) r = drv->cuCtxSetCurrent(ctx);
  }
  return from_driver(r);
}

bool is_device_memory(const void* p) {
  standin_allocation a{};
  return standin_find_allocation(p, &a) != 0;
}

}  // namespace

// Counts the call and applies STANDIN_FAIL / CRASH / HANG.
#define STANDIN_RUNTIME_ENTRY(name)                             \
  const standin_fault_action fault = standin_enter(name);       \
  if (fault.fail) return record(static_cast<cudaError_t>(fault.status))

// Initialization (and, with CONTEXT, a current context) or the error that prevents it.
#define STANDIN_RUNTIME_INIT()                          \
  const Runtime& rt = runtime();                        \
  if (rt.error != cudaSuccess) return record(rt.error); \
  const DriverLink* drv = rt.drv

#define STANDIN_RUNTIME_CONTEXT()                                           \
  STANDIN_RUNTIME_INIT();                                                   \
  if (cudaError_t bind = bind_context(drv); bind != cudaSuccess) return record(bind)

extern "C" {

// ---- versions and devices ------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  STANDIN_RUNTIME_ENTRY("cudaRuntimeGetVersion");
  if (runtimeVersion == nullptr) return record(cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;
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

STANDIN_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  STANDIN_RUNTIME_ENTRY("cudaGetDeviceProperties");
  if (prop == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  int count = 0;
  CUresult r = drv->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) return record(from_driver(r));
  if (device < 0 || device >= count) return record(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  drv->cuDeviceGetName(prop->name, sizeof prop->name, device);
  drv->cuDeviceGetUuid(reinterpret_cast<CUuuid*>(&prop->uuid), device);
  drv->cuDeviceTotalMem(&prop->totalGlobalMem, device);
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    drv->cuDeviceGetAttribute(&v, a, device);
    return v;
  };
  prop->sharedMemPerBlock = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  prop->regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  prop->warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  prop->memPitch = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_PITCH));
  prop->maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  prop->maxThreadsDim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  prop->maxThreadsDim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  prop->maxThreadsDim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  prop->maxGridSize[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  prop->maxGridSize[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  prop->maxGridSize[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  prop->totalConstMem = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY));
  prop->major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  prop->minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  prop->textureAlignment = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT));
  prop->texturePitchAlignment = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT));
  prop->multiProcessorCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  prop->integrated = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED);
  prop->canMapHostMemory = attr(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  prop->surfaceAlignment = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT));
  prop->concurrentKernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  prop->ECCEnabled = attr(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  prop->pciBusID = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  prop->pciDeviceID = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  prop->pciDomainID = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  prop->asyncEngineCount = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  prop->unifiedAddressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  prop->memoryBusWidth = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  prop->l2CacheSize = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  prop->persistingL2CacheMaxSize = attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
  prop->maxThreadsPerMultiProcessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  prop->streamPrioritiesSupported = attr(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
  prop->globalL1CacheSupported = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
  prop->localL1CacheSupported = attr(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
  prop->sharedMemPerMultiprocessor = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  prop->regsPerMultiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  prop->managedMemory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  prop->multiGpuBoardGroupID = attr(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID);
  prop->concurrentManagedAccess = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  prop->computePreemptionSupported = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
  prop->canUseHostPointerForRegisteredMem = attr(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  prop->cooperativeLaunch = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  prop->sharedMemPerBlockOptin = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  prop->maxBlocksPerMultiProcessor = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  prop->accessPolicyMaxWindowSize = attr(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
  prop->reservedSharedMemPerBlock = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  prop->hostRegisterSupported = attr(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  prop->memoryPoolsSupported = attr(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  prop->clusterLaunch = attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  prop->ipcEventSupported = attr(CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
  prop->unifiedFunctionPointers = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
  prop->deviceNumaId = attr(CU_DEVICE_ATTRIBUTE_NUMA_ID);
  prop->hostNumaId = attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID);
  return finish(cudaSuccess, fault);
}

// ---- memory --------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaMalloc(void** devPtr, size_t size) {
  STANDIN_RUNTIME_ENTRY("cudaMalloc");
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
  STANDIN_RUNTIME_ENTRY("cudaFree");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemFree(reinterpret_cast<CUdeviceptr>(devPtr)), fault);
}

STANDIN_EXPORT cudaError_t cudaMallocHost(void** ptr, size_t size) {
  STANDIN_RUNTIME_ENTRY("cudaMallocHost");
  if (ptr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemAllocHost(ptr, size), fault);
}

STANDIN_EXPORT cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  STANDIN_RUNTIME_ENTRY("cudaHostAlloc");
  if (pHost == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemHostAlloc(pHost, size, flags), fault);  // same flag values
}

STANDIN_EXPORT cudaError_t cudaFreeHost(void* ptr) {
  STANDIN_RUNTIME_ENTRY("cudaFreeHost");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemFreeHost(ptr), fault);
}

STANDIN_EXPORT cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  STANDIN_RUNTIME_ENTRY("cudaMallocManaged");
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
  STANDIN_RUNTIME_ENTRY("cudaMemGetInfo");
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
  if (cudaError_t e = check_direction(dst, src, kind); e != cudaSuccess) return e;
  return from_driver(drv->cuMemcpy(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), count));
}

}  // namespace

extern "C" {

STANDIN_EXPORT cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  STANDIN_RUNTIME_ENTRY("cudaMemcpy");
  STANDIN_RUNTIME_CONTEXT();
  return finish(copy(drv, dst, src, count, kind), fault);
}

STANDIN_EXPORT cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                           cudaStream_t stream) {
  STANDIN_RUNTIME_ENTRY("cudaMemcpyAsync");
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  return finish(copy(drv, dst, src, count, kind), fault);
}

STANDIN_EXPORT cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  STANDIN_RUNTIME_ENTRY("cudaMemset");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuMemsetD8(reinterpret_cast<CUdeviceptr>(devPtr), static_cast<unsigned char>(value), count), fault);
}

STANDIN_EXPORT cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  STANDIN_RUNTIME_ENTRY("cudaMemsetAsync");
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  return finish(drv->cuMemsetD8(reinterpret_cast<CUdeviceptr>(devPtr), static_cast<unsigned char>(value), count), fault);
}

STANDIN_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  STANDIN_RUNTIME_ENTRY("cudaPointerGetAttributes");
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
  std::memset(attributes, 0, sizeof *attributes);
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
  STANDIN_RUNTIME_ENTRY("cudaDeviceSynchronize");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuCtxSynchronize(), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  STANDIN_RUNTIME_ENTRY("cudaStreamSynchronize");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamSynchronize(stream), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  STANDIN_RUNTIME_ENTRY("cudaStreamCreate");
  if (pStream == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamCreate(pStream, CU_STREAM_DEFAULT), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  STANDIN_RUNTIME_ENTRY("cudaStreamCreateWithFlags");
  if (pStream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)) {
    return record(cudaErrorInvalidValue);
  }
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamCreate(pStream, flags), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  STANDIN_RUNTIME_ENTRY("cudaStreamDestroy");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamDestroy(stream), fault);
}

// ---- errors --------------------------------------------------------------------------------

// Returns and clears the thread's last error; a failed initialization and a sticky error are
// returned every time, since neither can be cleared.
STANDIN_EXPORT cudaError_t cudaGetLastError(void) {
  STANDIN_RUNTIME_ENTRY("cudaGetLastError");
  const Runtime& rt = runtime();
  if (rt.error != cudaSuccess) return rt.error;
  const cudaError_t e = last_error;
  last_error = cudaSuccess;
  if (const int sticky = standin_sticky_error()) return static_cast<cudaError_t>(sticky);
  return e;
}

STANDIN_EXPORT cudaError_t cudaPeekAtLastError(void) {
  STANDIN_RUNTIME_ENTRY("cudaPeekAtLastError");
  const Runtime& rt = runtime();
  if (rt.error != cudaSuccess) return rt.error;
  if (const int sticky = standin_sticky_error()) return static_cast<cudaError_t>(sticky);
  return last_error;
}

}  // extern "C"

namespace {

struct ErrorText {
  int code;
  const char* name;
  const char* text;
};

// Taken from the real libcudart by tools/gen_error_tables.sh.
const ErrorText kErrors[] = {
#define STANDIN_CUDA_ERROR(code, name, text) {code, name, text},
#include "cudart_error_list.inc"
#undef STANDIN_CUDA_ERROR
};

const ErrorText* find_error(cudaError_t error) {
  for (const ErrorText& e : kErrors)
    if (e.code == static_cast<int>(error)) return &e;
  return nullptr;
}

}  // namespace

extern "C" {

STANDIN_EXPORT const char* cudaGetErrorName(cudaError_t error) {
  standin_enter("cudaGetErrorName");  // counted; there is no status to fail with
  const ErrorText* e = find_error(error);
  return e ? e->name : "unrecognized error code";
}

STANDIN_EXPORT const char* cudaGetErrorString(cudaError_t error) {
  standin_enter("cudaGetErrorString");
  const ErrorText* e = find_error(error);
  return e ? e->text : "unrecognized error code";
}

// ---- driver entry points: forwarded to the driver's cuGetProcAddress_v2 -----------------------

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

STANDIN_EXPORT cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                                   cudaDriverEntryPointQueryResult* driverStatus) {
  STANDIN_RUNTIME_ENTRY("cudaGetDriverEntryPoint");
  if (symbol == nullptr || funcPtr == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult r = drv->cuGetProcAddress(symbol, funcPtr, CUDART_VERSION, flags, &status);
  if (r == CUDA_SUCCESS && driverStatus != nullptr) *driverStatus = static_cast<cudaDriverEntryPointQueryResult>(status);
  return finish(r, fault);
}

}  // extern "C"
