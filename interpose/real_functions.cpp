#include "real_functions.h"

#include <atomic>
#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include "found_objects.h"
#include "hook_table.h"
#include "trace/trace_format.h"

namespace cublasspy {
namespace detail {
// Real addresses per variant (plus the default binding), per hook id. Plain data, zero at load.
std::atomic<void*> g_real[kVariants + 2][format::kMaxFunctions];
}  // namespace detail
using detail::g_real;
using detail::kCallerDefault;

namespace {

constexpr const char* kSonames[static_cast<int>(Library::kCount)][kVariants] = {
    {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"},
    {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"},
    {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"},
    {"libcuda.so.1", nullptr, nullptr},
    {nullptr, nullptr, nullptr},
};

// The libraries whose calls are routed by caller (note_loaded_majors), once seen with two majors.
std::atomic<bool> g_by_caller[static_cast<int>(Library::kCount)];
bool routed_by_caller(Library lib) { return g_by_caller[static_cast<int>(lib)].load(std::memory_order_acquire); }
// The row of g_real that holds `variant`'s functions of `lib`: the default of a library routed by
// caller has a row of its own, so that its default row stays empty.
int row_of(Library lib, int variant) {
  return variant == kDefaultVariant && routed_by_caller(lib) ? kCallerDefault : variant;
}

// variant_of_caller per page of the caller's code: a library's code pages are its own, and a
// library routed by caller makes most of its calls from a few of them. Direct-mapped, one word
// an entry (the page, and the variant + 1 in its low bits), lock-free; a collision asks again.
struct CallerVariants {
  std::atomic<uint64_t> entries[64];
};
CallerVariants g_caller_variants[static_cast<int>(Library::kCount)];

int variant_for_caller(Library lib, const void* caller) {
  const uint64_t page = reinterpret_cast<uintptr_t>(caller) & ~uint64_t{0xfff};
  std::atomic<uint64_t>& entry = g_caller_variants[static_cast<int>(lib)].entries[(page >> 12) & 63];
  const uint64_t seen = entry.load(std::memory_order_relaxed);
  if (seen != 0 && (seen & ~uint64_t{0xfff}) == page) return static_cast<int>(seen & 0xfff) - 1;
  const int variant = variant_of_caller(lib, caller);
  entry.store(page | static_cast<uint64_t>(variant + 1), std::memory_order_relaxed);
  return variant;
}

using DlsymFn = void* (*)(void*, const char*);
std::atomic<DlsymFn> g_dlsym{nullptr};

// The variant a loaded object belongs to, from its file name (libcublas.so.12.4.5.8 -> 1).
int variant_of_path(Library lib, const char* path) {
  if (path == nullptr) return kDefaultVariant;
  const char* base = std::strrchr(path, '/');
  base = base ? base + 1 : path;
  for (int v = 0; v < kVariants; ++v) {
    const char* so = kSonames[static_cast<int>(lib)][v];
    if (so && std::strncmp(base, so, std::strlen(so)) == 0) return v;
  }
  return kDefaultVariant;
}

// An object's dynamic string table, from its dynamic section `dyn` (loaded at `base`). The
// dynamic linker relocates the section's addresses in place, except where it is read-only (the
// vDSO's): an address below the object's base is still relative to it.
const char* string_table(const ElfW(Dyn)* dyn, ElfW(Addr) base) {
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag != DT_STRTAB) continue;
    const ElfW(Addr) at = d->d_un.d_ptr;
    return reinterpret_cast<const char*>(at < base ? at + base : at);
  }
  return nullptr;
}

// An object's DT_SONAME; nullptr without one.
const char* soname_of(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char* strtab = string_table(dyn, info->dlpi_addr);
    for (const ElfW(Dyn)* d = dyn; strtab != nullptr && d->d_tag != DT_NULL; ++d) {
      if (d->d_tag == DT_SONAME) return strtab + d->d_un.d_val;
    }
    return nullptr;
  }
  return nullptr;
}

// The majors of `lib` loaded now: the loaded objects whose file name or soname is one of its
// majors' sonames. One walk of the loaded objects; never loading one, nor searching the library
// path (as dlopen(RTLD_NOLOAD) of a soname not loaded does, some 6 µs each).
int majors_loaded(Library lib) {
  struct Seen {
    Library lib;
    bool major[kVariants];
  } seen{lib, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* seen = static_cast<Seen*>(data);
        int v = variant_of_path(seen->lib, info->dlpi_name);
        if (v == kDefaultVariant) v = variant_of_path(seen->lib, soname_of(info));
        if (v != kDefaultVariant) seen->major[v] = true;
        return 0;
      },
      &seen);
  int loaded = 0;
  for (bool m : seen.major) loaded += m ? 1 : 0;
  return loaded;
}

// The dl_iterate_phdr fallback: the first loaded object whose file name starts like the
// soname (loaded under another name: a versioned file name, a path), opened RTLD_NOLOAD.
void* open_by_walking(Library lib, int variant) {
  const char* so = kSonames[static_cast<int>(lib)][variant == kDefaultVariant ? 0 : variant];
  if (so == nullptr) return nullptr;
  struct Search {
    char prefix[64];
    char path[4096];  // PATH_MAX; nothing here allocates
  } s;
  s.path[0] = '\0';
  std::strncpy(s.prefix, so, sizeof s.prefix - 1);
  s.prefix[sizeof s.prefix - 1] = '\0';
  // libcublas.so.13 -> "libcublas.so" prefix when the default binding is wanted.
  if (variant == kDefaultVariant) {
    if (char* dot = std::strstr(s.prefix, ".so")) dot[3] = '\0';
  }
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        const char* path = info->dlpi_name;
        if (path == nullptr || *path == '\0') return 0;
        const char* base = std::strrchr(path, '/');
        base = base ? base + 1 : path;
        if (std::strncmp(base, s->prefix, std::strlen(s->prefix)) != 0) return 0;
        if (std::strlen(path) >= sizeof s->path) return 0;
        std::strcpy(s->path, path);
        return 1;
      },
      &s);
  return s.path[0] == '\0' ? nullptr : real_dlopen(s.path, RTLD_LAZY | RTLD_NOLOAD);
}

// `name` in the object behind `handle`, which is closed; nullptr when either is missing.
void* symbol_in(void* handle, const char* name) {
  if (handle == nullptr) return nullptr;
  void* p = real_dlsym(handle, name);
  dlclose(handle);
  return p;
}

// `name` in the loaded library of `lib`'s major `variant`, by its soname or file name.
void* lookup_by_soname(Library lib, int variant, const char* name) {
  const char* so = kSonames[static_cast<int>(lib)][variant];
  if (so == nullptr) return nullptr;
  if (void* p = symbol_in(real_dlopen(so, RTLD_LAZY | RTLD_NOLOAD), name)) return p;
  return symbol_in(open_by_walking(lib, variant), name);
}

// Whether the next definition in the search order, `p`, may serve `variant`: anything but
// another major's copy of the library. It is the CUDA library itself, or another interposer
// preloaded after the shim (HAMi-core's libvgpu.so, an accounting shim, a test supplement),
// which the program would have reached without the shim, and which forwards the call on itself.
bool serves_variant(Library lib, int variant, const void* p) {
  Dl_info info;
  if (dladdr(p, &info) == 0) return true;
  const int found = variant_of_path(lib, info.dli_fname);
  return found == kDefaultVariant || variant == kDefaultVariant || found == variant;
}

void* lookup(Library lib, int variant, const char* name) {
  if (lib == Library::kSystem) return real_dlsym(RTLD_NEXT, name);
  // What the dynamic linker would have bound without the shim: the next definition in the
  // search order, whoever provides it.
  if (void* p = real_dlsym(RTLD_NEXT, name); p != nullptr && serves_variant(lib, variant, p)) return p;
  // Nothing in the global scope: a library the program loaded with dlopen(RTLD_LOCAL), or under
  // another file name; or a second major, found by its soname. RTLD_NOLOAD: never load a
  // library the program did not load itself (a second copy).
  if (variant == kDefaultVariant) {
    for (int v = 0; v < kVariants; ++v) {
      if (void* p = lookup_by_soname(lib, v, name)) return p;
    }
    return symbol_in(open_by_walking(lib, kDefaultVariant), name);
  }
  return lookup_by_soname(lib, variant, name);
}

}  // namespace

const char* soname(Library lib, int variant) {
  if (variant < 0 || variant >= kVariants) return nullptr;
  return kSonames[static_cast<int>(lib)][variant];
}

void* real_dlopen(const char* name, int flags) {
  using DlopenFn = void* (*)(const char*, int);
  static std::atomic<DlopenFn> cached{nullptr};
  DlopenFn fn = cached.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<DlopenFn>(dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.34"));
    if (fn == nullptr) fn = reinterpret_cast<DlopenFn>(dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5"));
    cached.store(fn, std::memory_order_release);
  }
  return fn ? fn(name, flags) : nullptr;
}

void* real_dlsym(void* handle, const char* name) {
  DlsymFn fn = g_dlsym.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
    if (fn == nullptr) fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"));
    g_dlsym.store(fn, std::memory_order_release);
  }
  return fn ? fn(handle, name) : nullptr;
}

using detail::g_real;

void* resolve_real(Library lib, uint16_t id, const char* name, int variant) {
  if (variant < 0 || variant > kVariants) variant = kDefaultVariant;
  int row = row_of(lib, variant);
  void* p = g_real[row][id].load(std::memory_order_acquire);
  if (p != nullptr) return p;
  // A function's first look-up: the libraries loaded since the last look are seen now.
  if (lib != Library::kSystem) {
    note_loaded_majors();
    row = row_of(lib, variant);
  }
  p = lookup(lib, variant, name);
  // A library that looks its own functions up by name (dlsym(RTLD_DEFAULT)) finds the shim's
  // hook first; calling that as "real" would recurse forever.
  if (p == hook_address(id)) p = nullptr;
  if (p == nullptr && variant != kDefaultVariant) {
    p = g_real[row_of(lib, kDefaultVariant)][id].load(std::memory_order_acquire);
  }
  if (p != nullptr) {
    // Another thread may see a second major meanwhile and empty the default row: it stays empty.
    // Sequentially consistent, here and where the library is marked: either this thread sees
    // the mark after its store, or that thread's emptying comes after the store.
    g_real[row][id].store(p, std::memory_order_seq_cst);
    note_found_in(p);  // after the store: see found_objects_gone
    if (row == kDefaultVariant && g_by_caller[static_cast<int>(lib)].load(std::memory_order_seq_cst)) {
      g_real[row][id].store(nullptr, std::memory_order_seq_cst);
    }
  }
  return p;
}

namespace {
// What the dynamic linker has loaded and unloaded so far (dl_phdr_info::dlpi_adds and
// dlpi_subs, which the first object's entry gives; the walk stops there), zeros where glibc does
// not say.
struct LoaderCounts {
  unsigned long long adds = 0;
  unsigned long long subs = 0;
};
LoaderCounts loader_counts() {
  LoaderCounts counts;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          *static_cast<LoaderCounts*>(data) = {info->dlpi_adds, info->dlpi_subs};
        }
        return 1;
      },
      &counts);
  return counts;
}

// An object was unloaded: any real function found so far may have been in it (a program that
// closed the last library using cuBLAS unloads cuBLAS too), and a library loaded since may sit
// at its addresses, or the same library at others. Every CUDA function is looked up again at
// its next call, and every caller's page asked again. (libc's, the loader's, stay.) Plain
// stores: a thread that reads an entry as it is emptied calls what it would have called a
// moment before, as it would without the shim.
void forget_real_functions() {
  for (auto& row : g_real) {
    for (uint16_t id = 0; id < kHookCount; ++id) {
      if (hook_library(id) != Library::kSystem) row[id].store(nullptr, std::memory_order_release);
    }
  }
  for (CallerVariants& cache : g_caller_variants) {
    for (std::atomic<uint64_t>& entry : cache.entries) entry.store(0, std::memory_order_relaxed);
  }
}

void forget_if_unloaded(const LoaderCounts& now) {
  static std::atomic<unsigned long long> unloads_seen{0};
  if (now.subs == 0 || unloads_seen.exchange(now.subs, std::memory_order_acq_rel) == now.subs) return;
  // Only when an object of the functions found went (found_objects.h): a program that loads and
  // closes libraries of its own keeps its CUDA functions found.
  if (found_objects_gone()) forget_real_functions();
}
}  // namespace

void note_unloads() { forget_if_unloaded(loader_counts()); }

void note_loaded_majors() {
  // Nothing loaded since the last look: nothing to see (each look walks the loaded objects for
  // each library, and every function's first look-up asks).
  static std::atomic<unsigned long long> looked_at{0};
  const LoaderCounts now = loader_counts();
  forget_if_unloaded(now);
  if (now.adds != 0 && looked_at.exchange(now.adds, std::memory_order_acq_rel) == now.adds) return;
  for (Library lib : {Library::kCublas, Library::kCublasLt, Library::kCudart}) {
    if (routed_by_caller(lib) || majors_loaded(lib) < 2) continue;
    g_by_caller[static_cast<int>(lib)].store(true, std::memory_order_seq_cst);  // see resolve_real
    for (uint16_t id = 0; id < kHookCount; ++id) {
      if (hook_library(id) == lib) g_real[kDefaultVariant][id].store(nullptr, std::memory_order_seq_cst);
    }
  }
}

void* resolve_real_for(Library lib, uint16_t id, const char* name, int variant, const void* caller) {
  // A function not found yet, or a library not routed by caller: the libraries loaded since the
  // last look are seen before this call is routed, so that a second major loaded meanwhile
  // routes it too, not only the calls after it.
  if (lib != Library::kSystem && !routed_by_caller(lib)) note_loaded_majors();
  if ((variant < 0 || variant >= kVariants) && routed_by_caller(lib)) {
    const int own = variant_for_caller(lib, caller);
    if (own != kDefaultVariant) {
      if (void* p = resolve_real(lib, id, name, own)) return p;
    }
  }
  return resolve_real(lib, id, name, variant);
}

void* open_loaded(Library lib) {
  for (int v = 0; v < kVariants; ++v) {
    const char* so = kSonames[static_cast<int>(lib)][v];
    if (so == nullptr) continue;
    if (void* h = real_dlopen(so, RTLD_LAZY | RTLD_NOLOAD)) return h;
  }
  return open_by_walking(lib, kDefaultVariant);
}

void* find_loaded_symbol(Library lib, const char* name) { return symbol_in(open_loaded(lib), name); }

bool defined_with_version(const void* real, const char* name, const char* version) {
  Dl_info info;
  if (real == nullptr || dladdr(real, &info) == 0 || info.dli_fname == nullptr) return false;
  void* handle = real_dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  const bool same = dlvsym(handle, name, version) == real;
  dlclose(handle);
  return same;
}

void remember_real(Library lib, uint16_t id, void* real) {
  if (real == nullptr || real == hook_address(id)) return;
  Dl_info info;
  int variant = dladdr(real, &info) != 0 ? variant_of_path(lib, info.dli_fname) : kDefaultVariant;
  void* expected = nullptr;
  if (variant != kDefaultVariant && g_real[variant][id].compare_exchange_strong(expected, real)) note_found_in(real);
  if (routed_by_caller(lib)) return;  // its default row stays empty (note_loaded_majors)
  // The default binding stays the dynamic linker's, so that an interposer preloaded after the
  // shim keeps every call it would see without it; the remembered address serves where the
  // search order finds nothing (a library loaded RTLD_LOCAL under a file name of its own).
  if (resolve_real(lib, id, hook_name(id), kDefaultVariant) != nullptr) return;
  expected = nullptr;
  if (g_real[kDefaultVariant][id].compare_exchange_strong(expected, real)) note_found_in(real);
}

int variant_of_caller(Library lib, const void* return_address) {
  note_loaded_majors();
  if (!routed_by_caller(lib)) return kDefaultVariant;  // one major loaded: nothing to choose
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(return_address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr || map->l_ld == nullptr) {
    return kDefaultVariant;
  }
  const char* strtab = string_table(map->l_ld, map->l_addr);
  if (strtab == nullptr) return kDefaultVariant;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag != DT_NEEDED) continue;
    int v = variant_of_path(lib, strtab + d->d_un.d_val);
    if (v != kDefaultVariant) return v;
  }
  return kDefaultVariant;
}

}  // namespace cublasspy
