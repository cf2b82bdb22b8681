#include "machine_record.h"

#include <dlfcn.h>
#include <library_types.h>
#include <link.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "hook_table.h"
#include "real_functions.h"
#include "driver_table.h"
#include "spec/hook_list.h"
#include "machine/machine_evidence.h"

namespace cublasspy {
namespace {

// Once per process, and again in a forked child (machine_evidence_after_fork): the state of the
// machine at the first failed set-up call, the libraries at the first failed call of any
// library (a mixed libcublasLt fails GEMMs after a successful cublasCreate).
constinit std::atomic<bool> g_machine_recorded{false};
constinit std::atomic<bool> g_libraries_recorded{false};

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

// The loaded libcublas, libcublasLt, libcudart and libcuda, as the loader lists them, copied
// into fixed buffers inside dl_iterate_phdr's callback (which allocates nothing and calls back
// into nothing of ours but this copy). Why this cannot deadlock: dl_iterate_phdr takes glibc's
// dl_load_write_lock, a recursive lock the loader holds only while it edits its list, never
// while a library's constructor runs; a failing call made from inside a constructor (or from
// inside the program's own dl_iterate_phdr callback) takes it again on the same thread, which
// a recursive lock allows. The shim holds no blocking lock of its own here (the process
// section's flag is tried, never waited for), so no cycle can go through us. The dlopen
// (RTLD_NOLOAD) and dlsym made afterwards take the loader's dl_load_lock, recursive too, as
// every dlsym the shim makes for its real functions already does.
struct LoadedLibraries {
  static constexpr int kMax = 8;  // on the caller's stack: 4 KiB
  char path[kMax][512];
  int count = 0;
};

LoadedLibraries list_loaded_libraries() {
  LoadedLibraries out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* list = static_cast<LoadedLibraries*>(data);
        const char* name = info->dlpi_name;
        if (name == nullptr || *name == '\0' || family_of(name) == nullptr || list->count == LoadedLibraries::kMax ||
            std::strlen(name) >= sizeof list->path[0]) {
          return 0;
        }
        std::memcpy(list->path[list->count++], name, std::strlen(name) + 1);
        return 0;
      },
      &out);
  return out;
}

// The driver library's real path ("" when none is loaded). realpath into a PATH_MAX buffer
// allocates nothing.
void driver_library(const LoadedLibraries& loaded, char (&driver)[PATH_MAX]) {
  driver[0] = '\0';
  for (int i = 0; i < loaded.count; ++i) {
    if (std::strcmp(family_of(loaded.path[i]), "libcuda.so") != 0) continue;
    if (::realpath(loaded.path[i], driver) == nullptr) std::snprintf(driver, sizeof driver, "%s", loaded.path[i]);
    return;
  }
}

// "machine.library": "<family>\t<path>\t<version>\t<origin>\t<LD_LIBRARY_PATH or ->" for each
// loaded libcublas, libcublasLt and libcudart.
void record_libraries(Runtime& rt, const LoadedLibraries& loaded) {
  const char* ld_library_path = std::getenv("LD_LIBRARY_PATH");
  const char* conda_prefix = std::getenv("CONDA_PREFIX");
  for (int i = 0; i < loaded.count; ++i) {
    const char* lib = loaded.path[i];
    const char* family = family_of(lib);
    if (std::strcmp(family, "libcuda.so") == 0) continue;
    char version[64] = "";
    if (void* handle = real_dlopen(lib, RTLD_NOLOAD | RTLD_LAZY)) {
      library_version(handle, family, version, sizeof version);
      dlclose(handle);
    }
    const char* slash = std::strrchr(lib, '/');
    const size_t dir_len = slash != nullptr ? static_cast<size_t>(slash - lib) : 0;
    const bool on_path = is_ld_library_path_entry(lib, dir_len, ld_library_path);
    char value[kEvidenceValueMax];
    std::snprintf(value, sizeof value, "%.*s\t%s\t%s\t%s\t%s", static_cast<int>(std::strlen(family) - 3), family, lib,
                  version, library_origin(lib, conda_prefix, rt.config.machine_root.c_str()),
                  on_path ? "LD_LIBRARY_PATH" : "-");
    rt.writer.append_process_entry("machine.library", value);
  }
}

// cublasCreate's NOT_INITIALIZED and ALLOC_FAILED are often a GPU another process fills: the
// free memory says so, if a context is current to ask.
void record_memory(Runtime& rt) {
  DriverApi scratch;
  const DriverApi& d = driver_table(scratch);
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

}  // namespace

void record_machine_evidence(Runtime& rt, uint16_t id, int status, bool setup_call, std::atomic<bool>& process_section_busy) {
  const bool want_machine = setup_call && !g_machine_recorded.load(std::memory_order_relaxed);
  const bool want_libraries = !g_libraries_recorded.load(std::memory_order_relaxed);
  if (!want_machine && !want_libraries) return;
  bool expected = false;
  if (!process_section_busy.compare_exchange_strong(expected, true)) return;  // next failure
  ThreadState& ts = thread_state();
  ts.internal++;  // the version functions pass straight through
  const LoadedLibraries loaded = list_loaded_libraries();
  MachineSource source;
  source.root = rt.config.machine_root.c_str();
  source.get_var = environment_variable;
  WriterSink sink(rt.writer);
  if (!g_libraries_recorded.exchange(true)) {
    record_libraries(rt, loaded);
    collect_library_variables(source, sink);
  }
  if (setup_call && !g_machine_recorded.exchange(true)) {
    char driver[PATH_MAX];
    driver_library(loaded, driver);
    source.driver_library = driver[0] != '\0' ? driver : nullptr;
    collect_machine_state(source, sink);
    // CUBLAS_STATUS_NOT_INITIALIZED (1), CUBLAS_STATUS_ALLOC_FAILED (3).
    if (hook_has_trait(id, Trait::kCreatesHandle) && (status == 1 || status == 3)) record_memory(rt);
  }
  ts.internal--;
  process_section_busy.store(false);
}

void machine_evidence_after_fork() {
  g_machine_recorded.store(false);
  g_libraries_recorded.store(false);
}

}  // namespace cublasspy
