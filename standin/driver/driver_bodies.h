// Driver entry points reachable under more than one exported name: the current symbol
// (cuMemcpyHtoD_v2), its per-thread-default-stream alias (cuMemcpyHtoD_v2_ptds) or a legacy
// symbol with the same signature (cuStreamDestroy). Each exported name is a one-line wrapper
// that passes its own name, so STANDIN_FAIL and friends count exactly the symbol that was called.
#pragma once

#include <cuda.h>

namespace standin::driver {

CUresult device_get_uuid(const char* name, CUuuid* uuid, CUdevice dev);
CUresult primary_ctx_release(const char* name, CUdevice dev);
CUresult stream_destroy(const char* name, CUstream stream);
CUresult stream_synchronize(const char* name, CUstream stream);
// Every stream is idle (its work ran when it was enqueued): the sticky error, or success.
CUresult stream_query(const char* name, CUstream stream);
// Where a copy or memset goes: a synchronous one onto the legacy stream (the _ptds names: the
// thread's own default stream), an asynchronous one onto its stream, where a capture may record it.
struct Target {
  CUstream stream = nullptr;
  bool async = false;
};
inline Target async_on(CUstream stream) { return Target{stream, true}; }
inline Target per_thread_sync() { return Target{CU_STREAM_PER_THREAD, false}; }
// The copies and memsets: the work is done before they return, or recorded by a capture.
CUresult mem_copy(const char* name, CUdeviceptr dst, CUdeviceptr src, size_t bytes, Target target = {});
CUresult mem_copy_checked(const char* name, void* dst, bool dst_device, const void* src, bool src_device,
                          size_t bytes, Target target = {});
// cuMemsetD8/D16/D32: `count` elements of `width` bytes (1, 2 or 4), each set to `value`.
CUresult mem_set(const char* name, CUdeviceptr dst, unsigned value, size_t width, size_t count, Target target = {});
CUresult get_proc_address(const char* name, const char* symbol, void** pfn, int cuda_version,
                          cuuint64_t flags, CUdriverProcAddressQueryResult* status, bool legacy);

}  // namespace standin::driver
