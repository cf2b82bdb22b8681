#include "driver_table.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>

#include "real_functions.h"
#include "runtime.h"

namespace cublasspy {
namespace {

// Moves whenever a CUDA library may have been loaded (note_libraries_changed).
constinit std::atomic<uint64_t> g_libraries_generation{1};

// The library `lib` as the program loaded it, for the time its table is filled.
class LoadedLibrary {
 public:
  explicit LoadedLibrary(Library lib) : handle_(open_loaded(lib)) {}
  ~LoadedLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;

  explicit operator bool() const { return handle_ != nullptr; }
  template <typename Fn>
  void find(Fn& entry, const char* name) const {
    entry = reinterpret_cast<Fn>(real_dlsym(handle_, name));
  }

 private:
  void* handle_;
};

// Each fill: false when the library is not loaded.
bool fill(DriverApi& t) {
  LoadedLibrary cuda(Library::kCuda);
  if (!cuda) return false;
  cuda.find(t.ctx_get_current, "cuCtxGetCurrent");
  cuda.find(t.stream_synchronize, "cuStreamSynchronize");
  cuda.find(t.memcpy_dtoh, "cuMemcpyDtoH_v2");
  cuda.find(t.stream_is_capturing, "cuStreamIsCapturing");
  cuda.find(t.thread_exchange_capture_mode, "cuThreadExchangeStreamCaptureMode");
  cuda.find(t.stream_get_capture_info, "cuStreamGetCaptureInfo_v2");
  cuda.find(t.get_error_name, "cuGetErrorName");
  cuda.find(t.mem_get_address_range, "cuMemGetAddressRange_v2");
  cuda.find(t.module_load_data, "cuModuleLoadData");
  cuda.find(t.module_get_function, "cuModuleGetFunction");
  cuda.find(t.launch_kernel, "cuLaunchKernel");
  cuda.find(t.mem_alloc, "cuMemAlloc_v2");
  cuda.find(t.memset_d8_async, "cuMemsetD8Async");
  cuda.find(t.memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2");
  cuda.find(t.pointer_get_attributes, "cuPointerGetAttributes");
  cuda.find(t.ctx_get_device, "cuCtxGetDevice");
  cuda.find(t.device_get_attribute, "cuDeviceGetAttribute");
  cuda.find(t.driver_get_version, "cuDriverGetVersion");
  cuda.find(t.mem_get_info, "cuMemGetInfo_v2");
  cuda.find(t.func_get_name, "cuFuncGetName");
  cuda.find(t.kernel_get_name, "cuKernelGetName");
  return true;
}

bool fill(RuntimeApi& t) {
  LoadedLibrary cudart(Library::kCudart);
  if (!cudart) return false;
  cudart.find(t.runtime_get_version, "cudaRuntimeGetVersion");
  cudart.find(t.func_get_name, "cudaFuncGetName");
  return true;
}

bool fill(CublasLtApi& t) {
  LoadedLibrary lt(Library::kCublasLt);
  if (!lt) return false;
  lt.find(t.matrix_layout_get_attribute, "cublasLtMatrixLayoutGetAttribute");
  lt.find(t.matmul_desc_get_attribute, "cublasLtMatmulDescGetAttribute");
  return true;
}

// One table: empty until its library is found loaded, then filled once and kept. Plain data,
// zero at load: no constructor runs.
template <typename Table>
class LoadedTable {
 public:
  const Table& get(Table& scratch) {
    if (filled_.load(std::memory_order_acquire) == kFilled) return table_;
    // Not loaded when last looked, and nothing loaded since: still nothing to find.
    const uint64_t generation = g_libraries_generation.load(std::memory_order_acquire);
    if (looked_at_.load(std::memory_order_relaxed) == generation) return kEmpty;
    scratch = Table{};
    if (!fill(scratch)) {
      looked_at_.store(generation, std::memory_order_relaxed);
      return kEmpty;
    }
    // The first thread to get here keeps its table for everyone; the others use their own
    // (identical) copy this once.
    int expected = kUnfilled;
    if (filled_.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) {
      table_ = scratch;
      filled_.store(kFilled, std::memory_order_release);
    }
    return scratch;
  }

 private:
  enum : int { kUnfilled, kFilling, kFilled };
  static constexpr Table kEmpty{};
  std::atomic<int> filled_{kUnfilled};
  std::atomic<uint64_t> looked_at_{0};  // the generation of the last look that found nothing
  Table table_{};
};

constinit LoadedTable<DriverApi> g_driver;
constinit LoadedTable<RuntimeApi> g_runtime;
constinit LoadedTable<CublasLtApi> g_cublaslt;

}  // namespace

const DriverApi& driver_table(DriverApi& scratch) { return g_driver.get(scratch); }
const RuntimeApi& shim_runtime(RuntimeApi& scratch) { return g_runtime.get(scratch); }
const CublasLtApi& shim_cublaslt(CublasLtApi& scratch) { return g_cublaslt.get(scratch); }

void note_libraries_changed() { g_libraries_generation.fetch_add(1, std::memory_order_acq_rel); }

StreamWait shim_wait_for_stream(uint64_t stream) {
  ThreadState& ts = thread_state();
  ts.internal++;
  DriverApi scratch;
  const StreamWait w = wait_for_stream(driver_table(scratch), stream);
  ts.internal--;
  return w;
}

}  // namespace cublasspy
