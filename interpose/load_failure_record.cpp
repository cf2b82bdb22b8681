#include "load_failure_record.h"

#include <link.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "machine_record.h"
#include "post_call.h"
#include "runtime.h"
#include "shim_guard.h"
#include "machine/library_resolution.h"
#include "machine/machine_evidence.h"

namespace cublasspy {
namespace {

// A program that retries a failing import does not fill the process section.
constexpr size_t kMaxRecorded = 8;

// What this process recorded, guarded by the process-section flag (post_call.h) like every
// append. Allocated at the first failure, never freed (a later dlerror may come during exit).
struct Recorded {
  std::vector<std::string> errors;   // each text once
  std::vector<std::string> sonames;  // whose copies are recorded, each once
};
Recorded* g_recorded = nullptr;

__attribute__((tls_model("initial-exec"))) thread_local char* t_returned = nullptr;
// The text the dlopen hook read inside its call (its record holds it), until the program reads
// it again.
__attribute__((tls_model("initial-exec"))) thread_local char* t_read_by_hook = nullptr;

char* copy_of(const char* text) {
  const size_t n = std::strlen(text) + 1;
  char* copy = static_cast<char*>(std::malloc(n));
  if (copy != nullptr) std::memcpy(copy, text, n);
  return copy;
}

// A failure the dlopen hook's own record already says all of: a CUDA library it loaded that
// could not be found or read (no-driver and the others read the record). A missing symbol or
// version is recorded again: its finding needs the copies of the sonames.
bool already_recorded(const char* text) {
  if (t_read_by_hook == nullptr || std::strcmp(text, t_read_by_hook) != 0) return false;
  std::free(t_read_by_hook);
  t_read_by_hook = nullptr;
  return std::strstr(text, "undefined symbol") == nullptr && std::strstr(text, "version `") == nullptr;
}

// The objects loaded now, by the names the loader gives them (dl_iterate_phdr: no dl* call,
// so no error state is touched).
std::vector<std::string> loaded_objects() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/') {
          static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &out);
  return out;
}

// A load's failure, not a dlsym's. Both say "OBJECT: undefined symbol: NAME"; a failed load
// leaves nothing it loaded behind, so the object of a load's failure is not loaded any more,
// while dlsym's is.
bool is_load_failure(const std::string& text, const std::vector<std::string>& loaded) {
  for (const char* load_only : {"cannot open shared object file", "' not found (required by", "file too short",
                                "invalid ELF header", "wrong ELF class"}) {
    if (text.find(load_only) != std::string::npos) return true;
  }
  const size_t undefined = text.find(": undefined symbol: ");
  if (undefined == std::string::npos) return false;
  const std::string object = text.substr(0, undefined);
  for (const std::string& l : loaded) {
    if (l == object) return false;
  }
  return true;
}

// With the process-section flag held.
void record(Runtime& rt, const std::string& text, const std::vector<std::string>& loaded) {
  if (g_recorded == nullptr) g_recorded = new Recorded;
  Recorded& r = *g_recorded;
  for (const std::string& e : r.errors) {
    if (e == text) return;
  }
  if (r.errors.size() >= kMaxRecorded) return;
  r.errors.push_back(text);
  rt.writer.append_process_entry("load.failed", text.c_str());

  // The files the loader finds for each soname, as this process sees them (the libraries are
  // the process's own view: CUBLASSPY_MACHINE_ROOT is for /proc and /dev only).
  ResolutionSource source;
  const char* ld_library_path = std::getenv("LD_LIBRARY_PATH");
  const char* conda_prefix = std::getenv("CONDA_PREFIX");
  source.ld_library_path = ld_library_path != nullptr ? ld_library_path : "";
  source.conda_prefix = conda_prefix != nullptr ? conda_prefix : "";
  source.beside = cuda_library_directories_in(text);
  bool any = false;
  for (const std::string& soname : cuda_sonames_in(text)) {
    bool seen = false;
    for (const std::string& s : r.sonames) seen = seen || s == soname;
    if (seen) continue;
    r.sonames.push_back(soname);
    any = true;
    // A copy already loaded is the one every later load by that name gets.
    for (const std::string& object : loaded) {
      const std::string name = object.substr(object.rfind('/') + 1);
      if (name == soname || name.rfind(soname + ".", 0) == 0) {
        LibraryCopy copy{soname, object, "", library_origin(object.c_str(), source.conda_prefix.c_str(), "/"), "loaded"};
        rt.writer.append_process_entry("load.library", library_copy_entry(copy).c_str());
      }
    }
    for (const LibraryCopy& copy : resolve_soname(soname, source)) {
      rt.writer.append_process_entry("load.library", library_copy_entry(copy).c_str());
    }
  }
  if (any) {
    MachineSource machine;
    machine.get_var = environment_variable;
    WriterSink sink(rt.writer);
    collect_library_variables(machine, sink);  // LD_LIBRARY_PATH as it was at the failure
  }
}

}  // namespace

char* note_load_error(char* text) {
  ThreadState& ts = thread_state();
  if (ts.internal != 0) return text;
  // Inside an intercepted call: the dlopen hook reading why a CUDA library did not load.
  if (ts.depth != 0) {
    std::free(t_read_by_hook);
    t_read_by_hook = copy_of(text);
    return text;
  }
  // The shim's work below may throw (shim_guard.h): the program then gets `text` when no
  // loader call ran yet, else the copy made before them.
  char* copy = nullptr;
  shim_guarded([&] {
    if (already_recorded(text)) return;
    std::string error = text;
    ts.internal++;  // nothing below is the program's
    const std::vector<std::string> loaded = loaded_objects();
    if (!is_load_failure(error, loaded)) {
      ts.internal--;
      return;
    }
    // From here on loader calls may free glibc's buffer: the program gets a copy.
    copy = copy_of(text);
    if (copy == nullptr) {
      ts.internal--;
      return;
    }
    Runtime* rt = runtime();
    if (rt != nullptr && ensure_trace(*rt)) {
      std::atomic<bool>& busy = process_section_busy();
      bool expected = false;
      if (busy.compare_exchange_strong(expected, true)) {
        shim_guarded([&] { record(*rt, error, loaded); });
        busy.store(false);
      }
    }
    ts.internal--;
  });
  if (copy == nullptr) return text;
  std::free(t_returned);
  t_returned = copy;
  return copy;
}

void load_failures_after_fork() {
  // The parent's list describes the parent's trace; the child starts one of its own.
  g_recorded = nullptr;
}

}  // namespace cublasspy
