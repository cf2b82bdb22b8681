// Records each load of a CUDA library (libcuda, libcudart, libcublas, libcublasLt,
// libnvidia-ml, libcudnn) with the path found or dlerror()'s text: a missing driver shows up as
// a failed load of libcuda.so.1, the first thing a post-mortem wants to know.
//
// glibc's dlopen searches the *calling* object's RPATH/RUNPATH and expands $ORIGIN against it,
// so a C wrapper would make the shim the caller and change what gets loaded. The exported entry
// point is therefore a few instructions: other names jump straight to glibc (the program stays
// the caller); CUDA names go to a recorder that follows the caller's search order by hand.
#include <dlfcn.h>
#include <link.h>
#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "hook_expansion.h"
#include "shim_guard.h"
#include "driver_table.h"
#include "machine/process_info.h"

extern "C" __attribute__((visibility("hidden"), used)) int cublasspy_dlopen_wanted(const char* name);
extern "C" __attribute__((visibility("hidden"), used)) void* cublasspy_glibc_dlopen();
extern "C" __attribute__((visibility("hidden"), used)) void* cublasspy_dlopen_record(const char* name, int flags);

#if defined(__x86_64__)
asm(R"(
    .text
    .globl dlopen
    .type dlopen, @function
dlopen:
    pushq %rdi
    pushq %rsi
    subq $8, %rsp
    call cublasspy_dlopen_wanted
    addq $8, %rsp
    popq %rsi
    popq %rdi
    testl %eax, %eax
    jnz cublasspy_dlopen_record   # the return address is still the program's
    pushq %rdi
    pushq %rsi
    subq $8, %rsp
    call cublasspy_glibc_dlopen
    addq $8, %rsp
    popq %rsi
    popq %rdi
    jmp *%rax
    .size dlopen, .-dlopen
)");
#endif

namespace cublasspy {
namespace {

using DlopenFn = void* (*)(const char*, int);

// The caller's DT_RPATH / DT_RUNPATH and its directory (for $ORIGIN).
struct SearchPaths {
  std::vector<std::string> rpath, runpath;
};

std::vector<std::string> split_path(const char* list, const std::string& origin) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  std::string all = list;
  size_t pos = 0;
  while (pos <= all.size()) {
    size_t end = all.find(':', pos);
    if (end == std::string::npos) end = all.size();
    std::string dir = all.substr(pos, end - pos);
    for (const char* token : {"$ORIGIN", "${ORIGIN}"}) {
      for (size_t at; (at = dir.find(token)) != std::string::npos;) dir.replace(at, std::strlen(token), origin);
    }
    // $LIB and $PLATFORM need the loader's knowledge: leave such entries to glibc.
    if (!dir.empty() && dir.find('$') == std::string::npos) out.push_back(dir);
    pos = end + 1;
  }
  return out;
}

SearchPaths caller_paths(const void* caller) {
  SearchPaths paths;
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(caller, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr) {
    return paths;
  }
  std::string object = map->l_name && *map->l_name ? map->l_name : "";
  if (object.empty()) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) object.assign(exe, n);
  }
  std::string origin = object.substr(0, object.rfind('/'));
  const char* strtab = nullptr;
  const ElfW(Dyn)* rpath = nullptr;
  const ElfW(Dyn)* runpath = nullptr;
  for (const ElfW(Dyn)* d = map->l_ld; d && d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
    if (d->d_tag == DT_RPATH) rpath = d;
    if (d->d_tag == DT_RUNPATH) runpath = d;
  }
  if (strtab == nullptr) return paths;
  if (runpath) paths.runpath = split_path(strtab + runpath->d_un.d_val, origin);
  else if (rpath) paths.rpath = split_path(strtab + rpath->d_un.d_val, origin);
  return paths;
}

void* try_directories(DlopenFn real, const std::vector<std::string>& dirs, const char* name, int flags) {
  for (const std::string& dir : dirs) {
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), F_OK) != 0) continue;
    if (void* h = real(candidate.c_str(), flags)) return h;
  }
  return nullptr;
}

// glibc's search order for a bare name, as seen from `caller`: already loaded; the caller's
// RPATH (when it has no RUNPATH); LD_LIBRARY_PATH; its RUNPATH; then the cache and the defaults
// (glibc's own dlopen, `real`, which also repeats LD_LIBRARY_PATH harmlessly).
void* load_as(DlopenFn real, const void* caller, const char* name, int flags) {
  if (name == nullptr || std::strchr(name, '/') != nullptr) return real(name, flags);
  if (void* h = real(name, flags | RTLD_NOLOAD)) return h;
  SearchPaths paths = caller_paths(caller);
  if (void* h = try_directories(real, paths.rpath, name, flags)) return h;
  if (!paths.runpath.empty()) {
    if (void* h = try_directories(real, split_path(getenv("LD_LIBRARY_PATH"), ""), name, flags)) return h;
    if (void* h = try_directories(real, paths.runpath, name, flags)) return h;
  }
  return real(name, flags);
}

// dlerror()'s text for the failed load being recorded on this thread, for the LoadedFile tag's
// after() (reading dlerror() clears it, so the load itself keeps a copy).
__attribute__((tls_model("initial-exec"))) thread_local const char* t_load_error = nullptr;

// dlopen's real call, made as the program's own would have been (load_as: the caller's search
// order). The text of a failed load is kept, for the record, until the recorder returns.
class LoadAsCaller {
 public:
  explicit LoadAsCaller(const void* caller) : caller_(caller) {}
  ~LoadAsCaller() { t_load_error = nullptr; }
  LoadAsCaller(const LoadAsCaller&) = delete;
  LoadAsCaller& operator=(const LoadAsCaller&) = delete;

  // `real`: glibc's dlopen, as the shared recording found it.
  // The caller's search order is the shim's work (load_as allocates its directories' names):
  // should it throw (shim_guard.h), glibc's dlopen loads the name as it stands, once.
  void* operator()(void* real, const char* filename, int flags) {
    const auto glibc = reinterpret_cast<DlopenFn>(real);
    void* handle = nullptr;
    if (!shim_guarded([&] { handle = load_as(glibc, caller_, filename, flags); })) return glibc(filename, flags);
    if (handle != nullptr) {
      note_libraries_changed();  // a CUDA library, perhaps the driver: the shim's tables look again
      note_loaded_majors();      // perhaps a second major: its calls are then routed by caller
      return handle;
    }
    // Recording why reads dlerror(), which clears it, and the program must still find it. The
    // identical call fails identically (a failed dlopen leaves nothing loaded) and sets it
    // again. Never retry with other flags: RTLD_LAZY could succeed where RTLD_NOW failed,
    // loading the library and running its constructors behind the program's back.
    const char* error = dlerror();
    shim_guarded([&] {
      error_ = error ? error : "dlopen failed";
      t_load_error = error_.c_str();
    });
    if (shim_guarded([&] { load_as(glibc, caller_, filename, flags); })) return nullptr;
    glibc(filename, flags);  // dlerror() must say why, as it would without the shim
    return nullptr;
  }

 private:
  const void* caller_;
  std::string error_;
};

}  // namespace

namespace tags {
// After the load: the path that was loaded, or dlerror()'s text.
std::string loaded_path_or_error(const char* filename, bool failed) {
  if (failed) return t_load_error != nullptr ? t_load_error : "dlopen failed";
  std::string path;
  if (void* h = real_dlopen(filename, RTLD_LAZY | RTLD_NOLOAD)) {
    link_map* map = nullptr;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) path = map->l_name;
    dlclose(h);
  }
  return path;
}
}  // namespace tags

extern const HookInfo kLoaderHooks[] = {CUBLASSPY_LOADER_HOOKS(CBS_HOOK_INFO)};

}  // namespace cublasspy

extern "C" int cublasspy_dlopen_wanted(const char* name) {
  if (name == nullptr || cublasspy::thread_state().internal) return 0;
  // Before any library is loaded (most are glibc's alone, jumped to): one loaded again after an
  // unload must not be called at its old addresses.
  cublasspy::note_unloads();
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  for (const char* prefix : {"libcuda.so", "libcudart.so", "libcublas.so", "libcublasLt.so",
                             "libnvidia-ml.so", "libcudnn"}) {
    if (std::strncmp(base, prefix, std::strlen(prefix)) == 0) return 1;
  }
  return 0;
}

extern "C" void* cublasspy_glibc_dlopen() {
  // The address of glibc's dlopen itself (not real_dlopen): the jump must land in glibc with
  // the program's return address on the stack.
  static void* fn = nullptr;
  if (fn == nullptr) {
    fn = dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.34");
    if (fn == nullptr) fn = dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5");
  }
  return fn;
}

// The recorder the entry point jumps to for a CUDA library: the recording every wrapper shares
// (hook_expansion.h), around LoadAsCaller. Reached by a jump, so its return address is the
// program's.
#define CBS_DEFINE_LOAD_RECORDER(lib_, ret_, fn_, fail_, family_, traits_, ...)                    \
  extern "C" ret_ cublasspy_##fn_##_record(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) {       \
    ::cublasspy::LoadAsCaller call_as_caller(__builtin_return_address(0));                \
    CBS_RECORD_CALL(ret_, fn_, fail_, call_as_caller, __VA_ARGS__)                        \
  }
CUBLASSPY_LOADER_HOOKS(CBS_DEFINE_LOAD_RECORDER)
#undef CBS_DEFINE_LOAD_RECORDER
