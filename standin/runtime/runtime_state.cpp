#include "runtime_state.h"

#include "capture_work.h"
#include "stack_version.h"

namespace standin::runtime {

cudaError_t& last_error() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

const Runtime& runtime() {
  static const Runtime rt = [] {
    const DriverLink* drv = driver_link();
    if (drv == nullptr) return Runtime{cudaErrorInsufficientDriver, nullptr};
    if (drv->driver_version < kCudaVersion) return Runtime{cudaErrorInsufficientDriver, drv};
    const CUresult r = drv->cuInit(0);
    if (r != CUDA_SUCCESS) {
      const int forced = standin_device_count_error();  // the exact code asked for
      return Runtime{forced ? static_cast<cudaError_t>(forced) : from_driver(r), drv};
    }
    return Runtime{cudaSuccess, drv};
  }();
  return rt;
}

cudaError_t bind_context(const DriverLink* drv) {
  CUcontext ctx = nullptr;
  CUresult r = drv->cuCtxGetCurrent(&ctx);
  if (r == CUDA_SUCCESS && ctx == nullptr) {
    r = drv->cuDevicePrimaryCtxRetain(&ctx, 0);
    if (r == CUDA_SUCCESS) r = drv->cuCtxSetCurrent(ctx);
  }
  return from_driver(r);
}

cudaError_t scripted_device_call(const standin_fault_action& fault) {
  const Runtime& rt = runtime();
  if (rt.error == cudaSuccess) bind_context(rt.drv);  // a failure here is the script's to hide
  return record(static_cast<cudaError_t>(fault.status));
}

int current_device(const DriverLink* drv) {
  CUdevice dev = 0;
  drv->cuCtxGetDevice(&dev);
  return dev;
}

bool is_device_memory(const void* p) {
  standin_allocation a{};
  return standin_find_allocation(p, &a) != 0;
}

cudaError_t capture_copy(cudaStream_t stream, std::vector<CopyRow> rows, int async_error) {
  struct Row {
    CopyRow copy;
    bool dst_host, src_host;  // pageable host memory at the capture
  };
  std::vector<Row> recorded;
  for (const CopyRow& r : rows) recorded.push_back(Row{r, !is_device_memory(r.dst), !is_device_memory(r.src)});
  return static_cast<cudaError_t>(standin::capture_work(stream, "memcpy", [recorded, async_error] {
    for (const Row& r : recorded)
      if (!standin_copy_range(r.copy.dst, r.dst_host, r.copy.src, r.src_host, r.copy.bytes, 1)) return 700;
    return async_error;
  }));
}

}  // namespace standin::runtime
