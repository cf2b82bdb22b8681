// Driver API, part 1: initialization, devices, contexts, streams, errors, modules.
// Prototypes come from cuda.h, so every definition is checked against the real signature.
#include <cstdio>
#include <cstring>

#include "capture.h"
#include "device_attributes.h"
#include "driver_bodies.h"
#include "driver_entry.h"
#include "cuda_enum_names.h"
#include "error_texts.h"

using namespace standin::driver;

namespace {

int physical_index(CUdevice dev) { return config().visible[static_cast<size_t>(dev)]; }

}  // namespace

extern "C" {

// ---- initialization -----------------------------------------------------------------------

STANDIN_EXPORT CUresult cuInit(unsigned int Flags) {
  STANDIN_DRIVER_ENTRY("cuInit");
  if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (config().count_error != CUDA_SUCCESS) return config().count_error;
  if (device_count() == 0) return CUDA_ERROR_NO_DEVICE;
  mark_initialized();
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuDriverGetVersion(int* driverVersion) {
  STANDIN_DRIVER_ENTRY("cuDriverGetVersion");
  if (driverVersion == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = config().driver_version;
  return finish(CUDA_SUCCESS, fault);
}

// ---- devices -------------------------------------------------------------------------------

STANDIN_EXPORT CUresult cuDeviceGetCount(int* count) {
  STANDIN_DRIVER_ENTRY("cuDeviceGetCount");
  if (config().count_error != CUDA_SUCCESS) return config().count_error;
  STANDIN_REQUIRE_INIT();
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = device_count();
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  STANDIN_DRIVER_ENTRY("cuDeviceGet");
  STANDIN_REQUIRE_INIT();
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  STANDIN_DRIVER_ENTRY("cuDeviceGetName");
  STANDIN_REQUIRE_INIT();
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<size_t>(len), "%s", kDeviceName);
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  STANDIN_DRIVER_ENTRY("cuDeviceGetAttribute");
  STANDIN_REQUIRE_INIT();
  if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  if (!device_attribute(attrib, physical_index(dev), pi)) return CUDA_ERROR_INVALID_VALUE;
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  STANDIN_DRIVER_ENTRY("cuDeviceTotalMem_v2");
  STANDIN_REQUIRE_INIT();
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = config().memory_per_device;
  return finish(CUDA_SUCCESS, fault);
}

}  // extern "C"

CUresult standin::driver::device_get_uuid(const char* name, CUuuid* uuid, CUdevice dev) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_INIT();
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  std::memset(uuid->bytes, 0, sizeof uuid->bytes);
  std::memcpy(uuid->bytes, "STANDIN-GPU-", 12);
  uuid->bytes[15] = static_cast<char>(physical_index(dev));
  return finish(CUDA_SUCCESS, fault);
}

extern "C" {

STANDIN_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  return device_get_uuid("cuDeviceGetUuid_v2", uuid, dev);
}

// ---- contexts ------------------------------------------------------------------------------

STANDIN_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  STANDIN_DRIVER_ENTRY("cuDevicePrimaryCtxRetain");
  STANDIN_REQUIRE_INIT();
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *pctx = primary_context(dev);
  return finish(CUDA_SUCCESS, fault);
}

}  // extern "C"

CUresult standin::driver::primary_ctx_release(const char* name, CUdevice dev) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_INIT();
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  return finish(CUDA_SUCCESS, fault);
}

extern "C" {

STANDIN_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return primary_ctx_release("cuDevicePrimaryCtxRelease_v2", dev);
}

// Destroys what the device's primary context held: its allocations and its sticky error.
STANDIN_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  STANDIN_DRIVER_ENTRY("cuDevicePrimaryCtxReset_v2");
  STANDIN_REQUIRE_INIT();
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  release_device(dev);
  clear_sticky_error();
  deactivate_primary_context(dev);
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuCtxGetCurrent(CUcontext* pctx) {
  STANDIN_DRIVER_ENTRY("cuCtxGetCurrent");
  STANDIN_REQUIRE_INIT();
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pctx = current_context();
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  STANDIN_DRIVER_ENTRY("cuCtxSetCurrent");
  STANDIN_REQUIRE_INIT();
  if (ctx != nullptr && !is_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  set_current_context(ctx);
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  STANDIN_DRIVER_ENTRY("cuCtxGetDevice");
  STANDIN_REQUIRE_CONTEXT();
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = current_context()->device;
  return finish(CUDA_SUCCESS, fault);
}

#if STANDIN_CUDA_MAJOR >= 13  // new in the 13.0 driver; a 12.4 driver (550) lacks it
STANDIN_EXPORT CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
  STANDIN_DRIVER_ENTRY("cuCtxGetDevice_v2");
  STANDIN_REQUIRE_INIT();
  if (ctx == nullptr) ctx = current_context();
  if (ctx == nullptr || !is_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = ctx->device;
  return finish(CUDA_SUCCESS, fault);
}
#endif

// Everything ran when it was called, so synchronizing only reports the sticky error; during a
// capture on the device it conflicts with the capture (which it would wait for).
STANDIN_EXPORT CUresult cuCtxSynchronize(void) {
  STANDIN_DRIVER_ENTRY("cuCtxSynchronize");
  STANDIN_REQUIRE_CONTEXT();
  if (CUresult r = capture_sync_context(); r != CUDA_SUCCESS) return r;
  return finish(sticky(), fault);
}

#if STANDIN_CUDA_MAJOR >= 13
STANDIN_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  STANDIN_DRIVER_ENTRY("cuCtxSynchronize_v2");
  STANDIN_REQUIRE_INIT();
  if (ctx == nullptr) ctx = current_context();
  if (ctx == nullptr || !is_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult r = capture_sync_context(); r != CUDA_SUCCESS) return r;
  return finish(sticky(), fault);
}
#endif

// ---- streams -------------------------------------------------------------------------------

STANDIN_EXPORT CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  STANDIN_DRIVER_ENTRY("cuStreamCreate");
  STANDIN_REQUIRE_CONTEXT();
  if (phStream == nullptr || (Flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING)) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  *phStream = create_stream(Flags, current_context()->device);
  return finish(CUDA_SUCCESS, fault);
}

}  // extern "C"

CUresult standin::driver::stream_destroy(const char* name, CUstream hStream) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  capture_forget_stream(hStream);  // a capturing stream leaves its capture
  if (!destroy_stream(hStream)) return CUDA_ERROR_INVALID_HANDLE;
  return finish(CUDA_SUCCESS, fault);
}

// Synchronizing or querying a capturing stream conflicts with its capture; another stream is a
// potentially unsafe call during a capture (capture.cpp).
CUresult standin::driver::stream_synchronize(const char* name, CUstream hStream) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  if (!stream_valid(hStream)) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = capture_sync_stream(hStream); r != CUDA_SUCCESS) return r;
  return finish(sticky(), fault);
}

CUresult standin::driver::stream_query(const char* name, CUstream hStream) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  if (!stream_valid(hStream)) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = capture_sync_stream(hStream); r != CUDA_SUCCESS) return r;
  return finish(sticky(), fault);
}

extern "C" {

STANDIN_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream) { return stream_destroy("cuStreamDestroy_v2", hStream); }

STANDIN_EXPORT CUresult cuStreamSynchronize(CUstream hStream) { return stream_synchronize("cuStreamSynchronize", hStream); }

STANDIN_EXPORT CUresult cuStreamQuery(CUstream hStream) { return stream_query("cuStreamQuery", hStream); }

}  // extern "C"

// ---- errors --------------------------------------------------------------------------------

namespace {

// The driver's names are CUresult's (cuda.h), its texts the runtime's for the same number.
const char* driver_name(int code) { return standin::driver_error_name(code); }

}  // namespace

extern "C" {

STANDIN_EXPORT CUresult cuGetErrorName(CUresult error, const char** pStr) {
  STANDIN_DRIVER_ENTRY("cuGetErrorName");
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const char* name = driver_name(error);
  *pStr = name;
  return name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

STANDIN_EXPORT CUresult cuGetErrorString(CUresult error, const char** pStr) {
  STANDIN_DRIVER_ENTRY("cuGetErrorString");
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (driver_name(error) == nullptr) {
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  const char* text = standin::runtime_error_text(error);
  *pStr = text ? text : driver_name(error);
  return CUDA_SUCCESS;
}

// ---- modules and private tables --------------------------------------------------------------

// The stand-in cannot run device code: any image is "not for this GPU".
STANDIN_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  STANDIN_DRIVER_ENTRY("cuModuleLoadData");
  STANDIN_REQUIRE_CONTEXT();
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *module = nullptr;
  return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

STANDIN_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
  STANDIN_DRIVER_ENTRY("cuModuleLoadDataEx");
  STANDIN_REQUIRE_CONTEXT();
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *module = nullptr;
  return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

// NVIDIA's runtime asks for private function tables by UUID; the stand-in has none. A caller
// that needs them (a statically linked real cudart) then fails cleanly instead of crashing.
STANDIN_EXPORT CUresult cuGetExportTable(const void** ppExportTable, const CUuuid* pExportTableId) {
  STANDIN_DRIVER_ENTRY("cuGetExportTable");
  if (ppExportTable != nullptr) *ppExportTable = nullptr;
  if (ppExportTable == nullptr || pExportTableId == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"
