#include "machine_record.h"

#include <dlfcn.h>
#include <library_types.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "hook_table.h"
#include "real_functions.h"
#include "shim_driver.h"
#include "spec/hook_list.h"
#include "trace/machine_evidence.h"
#include "trace/process_info.h"

namespace cublasspy {
namespace {

constinit std::atomic<bool> g_recorded{false};

class WriterSink final : public EvidenceSink {
 public:
  explicit WriterSink(TraceWriter& w) : w_(w) {}
  void add(const char* key, const char* value) override { w_.append_process_entry(key, value); }
 private:
  TraceWriter& w_;
};

const char* environment_variable(void*, const char* name) { return std::getenv(name); }

// The family of a library by its file name; nullptr for the others.
const char* family_of(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* name = slash != nullptr ? slash + 1 : path;
  for (const char* family : {"libcublasLt.so", "libcublas.so", "libcudart.so", "libcuda.so"}) {
    if (std::strncmp(name, family, std::strlen(family)) == 0) return family;
  }
  return nullptr;
}

void append_version(char* out, size_t size, int major, int minor, int patch) {
  char* end = out + std::strlen(out);
  if (patch >= 0) {
    std::snprintf(end, size - static_cast<size_t>(end - out), "%d.%d.%d", major, minor, patch);
  } else {
    std::snprintf(end, size - static_cast<size_t>(end - out), "%d.%d", major, minor);
  }
}

// The version the library reports of itself, through functions that initialize nothing:
// cublasGetProperty, cublasLtGetVersion, cudaRuntimeGetVersion. "" when it has none.
void library_version(void* handle, const char* family, char* out, size_t size) {
  out[0] = '\0';
  if (std::strcmp(family, "libcublas.so") == 0) {
    using GetProperty = int (*)(libraryPropertyType, int*);
    auto get = reinterpret_cast<GetProperty>(real_dlsym(handle, "cublasGetProperty"));
    int major = 0, minor = 0, patch = 0;
    if (get != nullptr && get(MAJOR_VERSION, &major) == 0 && get(MINOR_VERSION, &minor) == 0 &&
        get(PATCH_LEVEL, &patch) == 0) {
      append_version(out, size, major, minor, patch);
    }
  } else if (std::strcmp(family, "libcublasLt.so") == 0) {
    using GetVersion = size_t (*)();
    auto get = reinterpret_cast<GetVersion>(real_dlsym(handle, "cublasLtGetVersion"));
    if (get != nullptr) {
      const size_t v = get();  // major * 10000 + minor * 100 + patch
      if (v > 0) append_version(out, size, static_cast<int>(v / 10000), static_cast<int>(v / 100 % 100), static_cast<int>(v % 100));
    }
  } else if (std::strcmp(family, "libcudart.so") == 0) {
    using GetVersion = int (*)(int*);
    auto get = reinterpret_cast<GetVersion>(real_dlsym(handle, "cudaRuntimeGetVersion"));
    int v = 0;
    if (get != nullptr && get(&v) == 0 && v > 0) append_version(out, size, v / 1000, v % 1000 / 10, -1);
  }
}

// "machine.library": "<family>\t<path>\t<version>\t<origin>\t<LD_LIBRARY_PATH or ->" for each
// loaded libcublas, libcublasLt and libcudart; the driver library's real path is returned.
void record_libraries(Runtime& rt, char* driver, size_t driver_size) {
  driver[0] = '\0';
  const char* ld_library_path = std::getenv("LD_LIBRARY_PATH");
  const char* conda_prefix = std::getenv("CONDA_PREFIX");
  for (const std::string& lib : loaded_cuda_libraries()) {
    const char* family = family_of(lib.c_str());
    if (family == nullptr) continue;
    if (std::strcmp(family, "libcuda.so") == 0) {
      if (driver[0] == '\0' && ::realpath(lib.c_str(), driver) == nullptr) {
        std::snprintf(driver, driver_size, "%s", lib.c_str());
      }
      continue;
    }
    char version[64] = "";
    if (void* handle = real_dlopen(lib.c_str(), RTLD_NOLOAD | RTLD_LAZY)) {
      library_version(handle, family, version, sizeof version);
      dlclose(handle);
    }
    const char* slash = std::strrchr(lib.c_str(), '/');
    const size_t dir_len = slash != nullptr ? static_cast<size_t>(slash - lib.c_str()) : 0;
    const bool on_path = is_ld_library_path_entry(lib.c_str(), dir_len, ld_library_path);
    char value[kEvidenceValueMax];
    std::snprintf(value, sizeof value, "%.*s\t%s\t%s\t%s\t%s", static_cast<int>(std::strlen(family) - 3), family,
                  lib.c_str(), version, library_origin(lib.c_str(), conda_prefix, rt.config.machine_root.c_str()),
                  on_path ? "LD_LIBRARY_PATH" : "-");
    rt.writer.append_process_entry("machine.library", value);
  }
}

// cublasCreate's NOT_INITIALIZED and ALLOC_FAILED are often a GPU another process fills: the
// free memory says so, if a context is current to ask.
void record_memory(Runtime& rt) {
  DriverApi scratch;
  const DriverApi& d = shim_driver(scratch);
  if (d.ctx_get_current == nullptr || d.mem_get_info == nullptr) return;
  CUcontext ctx = nullptr;
  if (d.ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    rt.writer.append_process_entry("machine.memory", "no context");
    return;
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (d.mem_get_info(&free_bytes, &total_bytes) != CUDA_SUCCESS) return;
  char value[64];
  std::snprintf(value, sizeof value, "free %zu total %zu", free_bytes, total_bytes);
  rt.writer.append_process_entry("machine.memory", value);
}

bool is_create(uint16_t id) {
  return id == static_cast<uint16_t>(FnId::kcublasCreate_v2) || id == static_cast<uint16_t>(FnId::kcublasLtCreate);
}

}  // namespace

void record_machine_evidence(Runtime& rt, uint16_t id, int status, std::atomic<bool>& process_section_busy) {
  if (g_recorded.load(std::memory_order_relaxed)) return;
  bool expected = false;
  if (!process_section_busy.compare_exchange_strong(expected, true)) return;  // next failure
  if (!g_recorded.exchange(true)) {
    ThreadState& ts = thread_state();
    ts.internal++;  // the version functions pass straight through
    char driver[4096];
    record_libraries(rt, driver, sizeof driver);
    MachineSource source;
    source.root = rt.config.machine_root.c_str();
    source.get_var = environment_variable;
    source.driver_library = driver[0] != '\0' ? driver : nullptr;
    WriterSink sink(rt.writer);
    collect_machine_evidence(source, sink);
    // CUBLAS_STATUS_NOT_INITIALIZED (1), CUBLAS_STATUS_ALLOC_FAILED (3).
    if (is_create(id) && (status == 1 || status == 3)) record_memory(rt);
    ts.internal--;
  }
  process_section_busy.store(false);
}

}  // namespace cublasspy
