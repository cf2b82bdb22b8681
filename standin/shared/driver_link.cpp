#include "driver_link.h"

#include <dlfcn.h>

#include <algorithm>

#include "stack_version.h"
#include "standin_private.h"

namespace standin {

namespace {

template <class Fn>
bool resolve(const DriverLink& link, const char* name, int version, Fn* out) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (link.cuGetProcAddress(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||
      fn == nullptr) {
    return false;
  }
  *out = reinterpret_cast<Fn>(fn);
  return true;
}

const DriverLink* load() {
  // A missing driver shows up in real programs as a failed dlopen: STANDIN_NO_DRIVER acts it out.
  if (standin_no_driver()) return nullptr;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) return nullptr;
  auto* link = new DriverLink;  // lives for the whole process, like the real runtime's table
  link->cuGetProcAddress = reinterpret_cast<decltype(link->cuGetProcAddress)>(dlsym(lib, "cuGetProcAddress_v2"));
  if (link->cuGetProcAddress == nullptr) return nullptr;
  if (!resolve(*link, "cuDriverGetVersion", 2020, &link->cuDriverGetVersion) ||
      link->cuDriverGetVersion(&link->driver_version) != CUDA_SUCCESS) {
    return nullptr;
  }
  // Ask for the ABI this toolkit was built against, or the driver's, whichever is older.
  const int v = std::min(kCudaVersion, link->driver_version);
  bool ok = resolve(*link, "cuGetProcAddress", v, &link->cuGetProcAddress);
  ok = ok && resolve(*link, "cuInit", v, &link->cuInit);
  ok = ok && resolve(*link, "cuDeviceGet", v, &link->cuDeviceGet);
  ok = ok && resolve(*link, "cuDeviceGetCount", v, &link->cuDeviceGetCount);
  ok = ok && resolve(*link, "cuDeviceGetName", v, &link->cuDeviceGetName);
  ok = ok && resolve(*link, "cuDeviceGetAttribute", v, &link->cuDeviceGetAttribute);
  ok = ok && resolve(*link, "cuDeviceTotalMem", v, &link->cuDeviceTotalMem);
  ok = ok && resolve(*link, "cuDeviceGetUuid", v, &link->cuDeviceGetUuid);
  ok = ok && resolve(*link, "cuDevicePrimaryCtxRetain", v, &link->cuDevicePrimaryCtxRetain);
  ok = ok && resolve(*link, "cuDevicePrimaryCtxReset", v, &link->cuDevicePrimaryCtxReset);
  ok = ok && resolve(*link, "cuCtxGetCurrent", v, &link->cuCtxGetCurrent);
  ok = ok && resolve(*link, "cuCtxSetCurrent", v, &link->cuCtxSetCurrent);
  // From 13.0 on these names resolve to the _v2 ABI (with a context argument): ask for the first.
  ok = ok && resolve(*link, "cuCtxGetDevice", 2000, &link->cuCtxGetDevice);
  ok = ok && resolve(*link, "cuCtxSynchronize", 2000, &link->cuCtxSynchronize);
  ok = ok && resolve(*link, "cuStreamCreate", v, &link->cuStreamCreate);
  ok = ok && resolve(*link, "cuStreamDestroy", v, &link->cuStreamDestroy);
  ok = ok && resolve(*link, "cuStreamSynchronize", v, &link->cuStreamSynchronize);
  ok = ok && resolve(*link, "cuMemAlloc", v, &link->cuMemAlloc);
  ok = ok && resolve(*link, "cuMemAllocAsync", v, &link->cuMemAllocAsync);
  ok = ok && resolve(*link, "cuMemFree", v, &link->cuMemFree);
  ok = ok && resolve(*link, "cuMemAllocHost", v, &link->cuMemAllocHost);
  ok = ok && resolve(*link, "cuMemHostAlloc", v, &link->cuMemHostAlloc);
  ok = ok && resolve(*link, "cuMemFreeHost", v, &link->cuMemFreeHost);
  ok = ok && resolve(*link, "cuMemAllocManaged", v, &link->cuMemAllocManaged);
  ok = ok && resolve(*link, "cuMemHostRegister", v, &link->cuMemHostRegister);
  ok = ok && resolve(*link, "cuMemHostUnregister", v, &link->cuMemHostUnregister);
  ok = ok && resolve(*link, "cuMemHostGetDevicePointer", v, &link->cuMemHostGetDevicePointer);
  ok = ok && resolve(*link, "cuMemGetInfo", v, &link->cuMemGetInfo);
  ok = ok && resolve(*link, "cuMemcpy", v, &link->cuMemcpy);
  ok = ok && resolve(*link, "cuMemsetD8", v, &link->cuMemsetD8);
  ok = ok && resolve(*link, "cuPointerGetAttributes", v, &link->cuPointerGetAttributes);
  ok = ok && resolve(*link, "cuModuleLoadData", v, &link->cuModuleLoadData);
  ok = ok && resolve(*link, "cuStreamBeginCapture", v, &link->cuStreamBeginCapture);
  ok = ok && resolve(*link, "cuStreamEndCapture", v, &link->cuStreamEndCapture);
  ok = ok && resolve(*link, "cuStreamIsCapturing", v, &link->cuStreamIsCapturing);
  ok = ok && resolve(*link, "cuStreamGetCaptureInfo", v, &link->cuStreamGetCaptureInfo);
  ok = ok && resolve(*link, "cuThreadExchangeStreamCaptureMode", v, &link->cuThreadExchangeStreamCaptureMode);
  ok = ok && resolve(*link, "cuGraphInstantiate", v, &link->cuGraphInstantiate);
  ok = ok && resolve(*link, "cuGraphUpload", v, &link->cuGraphUpload);
  ok = ok && resolve(*link, "cuGraphLaunch", v, &link->cuGraphLaunch);
  ok = ok && resolve(*link, "cuGraphDestroy", v, &link->cuGraphDestroy);
  ok = ok && resolve(*link, "cuGraphExecDestroy", v, &link->cuGraphExecDestroy);
  ok = ok && resolve(*link, "cuGraphGetNodes", v, &link->cuGraphGetNodes);
  ok = ok && resolve(*link, "cuGraphDebugDotPrint", v, &link->cuGraphDebugDotPrint);
  return ok ? link : nullptr;
}

}  // namespace

const DriverLink* driver_link() {
  static const DriverLink* const link = load();
  return link;
}

bool bind_library_context(int* device) {
  const DriverLink* drv = driver_link();
  if (drv == nullptr || drv->driver_version < kCudaVersion || drv->cuInit(0) != CUDA_SUCCESS) return false;
  CUcontext ctx = nullptr;
  if (drv->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS) return false;
  if (ctx == nullptr &&
      (drv->cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS || drv->cuCtxSetCurrent(ctx) != CUDA_SUCCESS)) {
    return false;
  }
  CUdevice dev = 0;
  if (drv->cuCtxGetDevice(&dev) != CUDA_SUCCESS) return false;
  *device = dev;
  return true;
}

}  // namespace standin
