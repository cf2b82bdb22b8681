// How the stand-in runtime and cuBLAS libraries reach the driver: the way NVIDIA's own
// libraries do, through dlopen("libcuda.so.1"), a single dlsym of cuGetProcAddress_v2, and then
// cuGetProcAddress_v2 for every entry point. A shim that wraps cuGetProcAddress_v2 (or dlsym)
// therefore sees the same driver traffic under the stand-in as under the real stack.
#pragma once

#include <cuda.h>

namespace standin {

struct DriverLink {
  int driver_version = 0;
  // Members are named after the API (cuda.h's macros turn cuMemAlloc into cuMemAlloc_v2 in both
  // the member and the call, so the pointer types always match the header).
  decltype(&::cuGetProcAddress) cuGetProcAddress = nullptr;
  decltype(&::cuInit) cuInit = nullptr;
  decltype(&::cuDriverGetVersion) cuDriverGetVersion = nullptr;
  decltype(&::cuDeviceGet) cuDeviceGet = nullptr;
  decltype(&::cuDeviceGetCount) cuDeviceGetCount = nullptr;
  decltype(&::cuDeviceGetName) cuDeviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) cuDeviceGetAttribute = nullptr;
  decltype(&::cuDeviceTotalMem) cuDeviceTotalMem = nullptr;
  decltype(&::cuDeviceGetUuid) cuDeviceGetUuid = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) cuDevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxReset) cuDevicePrimaryCtxReset = nullptr;
  decltype(&::cuCtxGetCurrent) cuCtxGetCurrent = nullptr;
  decltype(&::cuCtxSetCurrent) cuCtxSetCurrent = nullptr;
  decltype(&::cuCtxGetDevice) cuCtxGetDevice = nullptr;
  decltype(&::cuCtxSynchronize) cuCtxSynchronize = nullptr;
  decltype(&::cuStreamCreate) cuStreamCreate = nullptr;
  decltype(&::cuStreamDestroy) cuStreamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) cuStreamSynchronize = nullptr;
  decltype(&::cuMemAlloc) cuMemAlloc = nullptr;
  decltype(&::cuMemAllocAsync) cuMemAllocAsync = nullptr;
  decltype(&::cuMemFree) cuMemFree = nullptr;
  decltype(&::cuMemAllocHost) cuMemAllocHost = nullptr;
  decltype(&::cuMemHostAlloc) cuMemHostAlloc = nullptr;
  decltype(&::cuMemFreeHost) cuMemFreeHost = nullptr;
  decltype(&::cuMemAllocManaged) cuMemAllocManaged = nullptr;
  decltype(&::cuMemHostRegister) cuMemHostRegister = nullptr;
  decltype(&::cuMemHostUnregister) cuMemHostUnregister = nullptr;
  decltype(&::cuMemHostGetDevicePointer) cuMemHostGetDevicePointer = nullptr;
  decltype(&::cuMemGetInfo) cuMemGetInfo = nullptr;
  decltype(&::cuMemcpy) cuMemcpy = nullptr;
  decltype(&::cuMemsetD8) cuMemsetD8 = nullptr;
  decltype(&::cuPointerGetAttributes) cuPointerGetAttributes = nullptr;
  decltype(&::cuModuleLoadData) cuModuleLoadData = nullptr;
  // Stream capture and graphs (the macros make these cuStreamBeginCapture_v2,
  // cuStreamGetCaptureInfo_v3 and cuGraphInstantiateWithFlags).
  decltype(&::cuStreamBeginCapture) cuStreamBeginCapture = nullptr;
  decltype(&::cuStreamEndCapture) cuStreamEndCapture = nullptr;
  decltype(&::cuStreamIsCapturing) cuStreamIsCapturing = nullptr;
  decltype(&::cuStreamGetCaptureInfo) cuStreamGetCaptureInfo = nullptr;
  decltype(&::cuThreadExchangeStreamCaptureMode) cuThreadExchangeStreamCaptureMode = nullptr;
  decltype(&::cuGraphInstantiate) cuGraphInstantiate = nullptr;
  decltype(&::cuGraphUpload) cuGraphUpload = nullptr;
  decltype(&::cuGraphLaunch) cuGraphLaunch = nullptr;
  decltype(&::cuGraphDestroy) cuGraphDestroy = nullptr;
  decltype(&::cuGraphExecDestroy) cuGraphExecDestroy = nullptr;
  decltype(&::cuGraphGetNodes) cuGraphGetNodes = nullptr;
  decltype(&::cuGraphDebugDotPrint) cuGraphDebugDotPrint = nullptr;
};

// The driver's entry points, resolved once (thread-safe, on first use), or nullptr when the
// driver cannot be loaded (STANDIN_NO_DRIVER, or a driver that lacks an entry point).
const DriverLink* driver_link();

// What cuBLAS and cuBLASLt do when a handle is created (through their static runtime):
// initialize the driver, make sure the thread has a current context (the primary context of
// device 0 if none), and report its device. False when any step fails: no driver, a driver
// older than this toolkit, no device.
bool bind_library_context(int* device);

}  // namespace standin
