// Driver API for device code beyond loading a module: the entry points PyTorch's NVRTC stub
// (libcaffe2_nvrtc, linked -z now) imports, JIT linking, launches, function attributes. The
// stand-in cannot run or build device code: cuModuleLoadData never yields a module (driver_api.cpp),
// so no CUmodule or CUfunction exists, and every call that takes one reports an invalid handle
// (a launch scripted to succeed is captured on a capturing stream, as a kernel that does nothing);
// linking and tensor-map encoding, which need the GPU's JIT and formats, fail as not supported.
#include "capture.h"
#include "capture_work.h"
#include "driver_entry.h"

using namespace standin::driver;

namespace {

// A launch scripted to succeed (STANDIN_FAIL=cuLaunchKernel:N:0) "runs" a kernel that does
// nothing; on a capturing stream, that kernel is a node of the graph.
CUresult scripted_launch(const standin_fault_action& fault, CUstream stream) {
  if (fault.status == CUDA_SUCCESS && initialized() && current_context() != nullptr && stream_valid(stream)) {
    bool record = false;
    if (CUresult r = capture_enqueue(stream, &record); r != CUDA_SUCCESS) return r;
    if (record) return static_cast<CUresult>(standin::capture_work(stream, "kernel", [] { return 0; }));
  }
  return static_cast<CUresult>(fault.status);
}

}  // namespace

// STANDIN_DRIVER_ENTRY for the launches: a scripted outcome may be a kernel to capture.
#define STANDIN_LAUNCH_ENTRY(name, stream)                  \
  const standin_fault_action fault = standin_enter(name);   \
  if (fault.fail) return scripted_launch(fault, stream);    \
  if (::standin::driver::config().no_driver) return CUDA_ERROR_STUB_LIBRARY

extern "C" {

// PyTorch asks this before creating a context on a device (c10::cuda::hasPrimaryContext).
STANDIN_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  STANDIN_DRIVER_ENTRY("cuDevicePrimaryCtxGetState");
  STANDIN_REQUIRE_INIT();
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *flags = 0;
  *active = primary_context_active(dev) ? 1 : 0;
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
  STANDIN_DRIVER_ENTRY("cuModuleUnload");
  STANDIN_REQUIRE_CONTEXT();
  (void)hmod;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  STANDIN_DRIVER_ENTRY("cuModuleGetFunction");
  STANDIN_REQUIRE_CONTEXT();
  if (hfunc == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  (void)hmod;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  STANDIN_DRIVER_ENTRY("cuFuncGetAttribute");
  STANDIN_REQUIRE_CONTEXT();
  if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
  (void)attrib, (void)hfunc;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  STANDIN_DRIVER_ENTRY("cuFuncSetAttribute");
  STANDIN_REQUIRE_CONTEXT();
  (void)hfunc, (void)attrib, (void)value;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                                     size_t dynamicSMemSize) {
  STANDIN_DRIVER_ENTRY("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  STANDIN_REQUIRE_CONTEXT();
  if (numBlocks == nullptr) return CUDA_ERROR_INVALID_VALUE;
  (void)func, (void)blockSize, (void)dynamicSMemSize;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream hStream, void** kernelParams,
                                       void** extra) {
  STANDIN_LAUNCH_ENTRY("cuLaunchKernel", hStream);
  STANDIN_REQUIRE_CONTEXT();
  (void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY, (void)blockDimZ,
      (void)sharedMemBytes, (void)hStream, (void)kernelParams, (void)extra;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                  unsigned int gridDimZ, unsigned int blockDimX,
                                                  unsigned int blockDimY, unsigned int blockDimZ,
                                                  unsigned int sharedMemBytes, CUstream hStream,
                                                  void** kernelParams) {
  STANDIN_LAUNCH_ENTRY("cuLaunchCooperativeKernel", hStream);
  STANDIN_REQUIRE_CONTEXT();
  (void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY, (void)blockDimZ,
      (void)sharedMemBytes, (void)hStream, (void)kernelParams;
  return CUDA_ERROR_INVALID_HANDLE;
}

// ---- JIT linking and tensor maps: not available without the GPU's toolchain ---------------------

STANDIN_EXPORT CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option* options, void** optionValues,
                                        CUlinkState* stateOut) {
  STANDIN_DRIVER_ENTRY("cuLinkCreate_v2");
  STANDIN_REQUIRE_CONTEXT();
  (void)numOptions, (void)options, (void)optionValues;
  if (stateOut == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_NOT_SUPPORTED;
}

STANDIN_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, size_t size,
                                         const char* name, unsigned int numOptions, CUjit_option* options,
                                         void** optionValues) {
  STANDIN_DRIVER_ENTRY("cuLinkAddData_v2");
  STANDIN_REQUIRE_CONTEXT();
  (void)state, (void)type, (void)data, (void)size, (void)name, (void)numOptions, (void)options, (void)optionValues;
  return CUDA_ERROR_INVALID_HANDLE;  // no link state can exist
}

STANDIN_EXPORT CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
  STANDIN_DRIVER_ENTRY("cuLinkComplete");
  STANDIN_REQUIRE_CONTEXT();
  (void)state, (void)cubinOut, (void)sizeOut;
  return CUDA_ERROR_INVALID_HANDLE;
}

STANDIN_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType,
                                               cuuint32_t tensorRank, void* globalAddress, const cuuint64_t* globalDim,
                                               const cuuint64_t* globalStrides, const cuuint32_t* boxDim,
                                               const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                                               CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                               CUtensorMapFloatOOBfill oobFill) {
  STANDIN_DRIVER_ENTRY("cuTensorMapEncodeTiled");
  (void)tensorMap, (void)tensorDataType, (void)tensorRank, (void)globalAddress, (void)globalDim, (void)globalStrides,
      (void)boxDim, (void)elementStrides, (void)interleave, (void)swizzle, (void)l2Promotion, (void)oobFill;
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"
