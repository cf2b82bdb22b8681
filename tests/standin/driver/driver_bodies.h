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
// The copies and memsets, synchronous or (with the stream they were enqueued on) asynchronous:
// the work is done before they return either way.
CUresult mem_copy(const char* name, CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream = nullptr);
CUresult mem_copy_checked(const char* name, void* dst, bool dst_device, const void* src, bool src_device,
                          size_t bytes, CUstream stream = nullptr);
// cuMemsetD8/D16/D32: `count` elements of `width` bytes (1, 2 or 4), each set to `value`.
CUresult mem_set(const char* name, CUdeviceptr dst, unsigned value, size_t width, size_t count,
                 CUstream stream = nullptr);
CUresult get_proc_address(const char* name, const char* symbol, void** pfn, int cuda_version,
                          cuuint64_t flags, CUdriverProcAddressQueryResult* status, bool legacy);

}  // namespace standin::driver
