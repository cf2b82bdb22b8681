#include "post_call.h"

#include <dlfcn.h>

#include "hook_list.h"
#include "hook_table.h"
#include "process_info.h"
#include "real_functions.h"

namespace cublasspy {
namespace {

// Driver and runtime versions, read once they can be read without side effects: from
// libraries the program itself has loaded, by functions that initialize nothing.
void read_versions(Runtime& rt) {
  format::FileHeader* h = rt.writer.header();
  if (h->driver_version < 0) {
    if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      using Fn = int (*)(int*);
      if (auto fn = reinterpret_cast<Fn>(real_dlsym(lib, "cuDriverGetVersion"))) {
        int v = 0;
        if (fn(&v) == 0) h->driver_version = v;
      }
      dlclose(lib);
    }
  }
  if (h->runtime_version < 0) {
    for (int variant = 0; variant < kVariants; ++variant) {
      void* lib = dlopen(soname(Library::kCudart, variant), RTLD_LAZY | RTLD_NOLOAD);
      if (lib == nullptr) continue;
      using Fn = int (*)(int*);
      if (auto fn = reinterpret_cast<Fn>(real_dlsym(lib, "cudaRuntimeGetVersion"))) {
        int v = 0;
        if (fn(&v) == 0) h->runtime_version = v;
      }
      dlclose(lib);
      if (h->runtime_version >= 0) break;
    }
  }
}

// Libraries loaded since the trace opened (cuBLAS loading cuBLASLt, cudart loading libcuda).
void refresh_libraries(Runtime& rt) {
  static std::atomic<bool> busy{false};
  bool expected = false;
  if (!busy.compare_exchange_strong(expected, true)) return;  // another thread is at it
  for (const std::string& lib : loaded_cuda_libraries()) {
    bool seen = false;
    for (const std::string& k : rt.libraries_recorded) seen = seen || k == lib;
    if (!seen) {
      rt.libraries_recorded.push_back(lib);
      rt.writer.append_process_entry("library", lib);
    }
  }
  busy.store(false);
}

bool is_setup_call(uint16_t id) {
  return id == static_cast<uint16_t>(FnId::kcudaGetDeviceCount) ||
         id == static_cast<uint16_t>(FnId::kcublasCreate_v2);
}

}  // namespace

void before_real_call(Runtime&, CallContext&) {}

PostCallOutcome after_real_call(Runtime& rt, CallContext& ctx, bool failed) {
  PostCallOutcome outcome;
  uint16_t id = ctx.rec.function_id;
  if (is_setup_call(id)) {
    ThreadState& ts = thread_state();
    ts.internal++;
    read_versions(rt);
    refresh_libraries(rt);
    ts.internal--;
    if (!failed) rt.cuda_ready.store(true, std::memory_order_relaxed);
  }
  return outcome;
}

}  // namespace cublasspy
