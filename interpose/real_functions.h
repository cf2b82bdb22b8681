// Finding the real CUDA functions behind the hooks: lazily, on first use, never in a
// constructor, with the fallbacks of shared/notes/interception.md. A process may hold cuBLAS 12
// and 13 at once; each library major is a "variant" with its own table of real functions.
#pragma once

#include <atomic>
#include <cstdint>

#include "trace/trace_format.h"

namespace cublasspy {

// kSystem: glibc (dlopen), found with RTLD_NEXT.
enum class Library : uint8_t { kCublas, kCublasLt, kCudart, kCuda, kSystem, kCount };
inline constexpr int kVariants = 3;           // .13, .12, .11 (libcuda has one: .1)
inline constexpr int kDefaultVariant = kVariants;  // "whichever the dynamic linker would bind"

const char* soname(Library lib, int variant);  // nullptr past the known ones

// The real function `name` (hook id `id`) of `lib`; variant kDefaultVariant or 0..2.
// Returns nullptr when no loaded library defines it.
void* resolve_real(Library lib, uint16_t id, const char* name, int variant);

namespace detail {
// resolve_real's cache: a row per variant, the default binding's (kDefaultVariant), and the
// default of a library routed by caller (kCallerDefault, below).
inline constexpr int kCallerDefault = kVariants + 1;
extern std::atomic<void*> g_real[kVariants + 2][format::kMaxFunctions];
}
// The default binding of hook `id` once resolve_real has found it, else nullptr: its usual
// case, inline, for the launch recorder's path (tens of nanoseconds a launch).
inline void* resolved_real(uint16_t id) {
  return detail::g_real[kDefaultVariant][id].load(std::memory_order_acquire);
}
// The same for `variant` (0..kVariants; any other value is resolve_real's business).
inline void* resolved_real(uint16_t id, int variant) {
  if (variant < 0 || variant > kVariants) [[unlikely]] return nullptr;
  return detail::g_real[variant][id].load(std::memory_order_acquire);
}

// A process holding two majors of cuBLAS, cuBLASLt or the CUDA runtime at once: a call no
// handle routes (kDefaultVariant) must reach the major its caller links, as the dynamic linker
// binds each library's versioned references to its own, not the one it would bind an
// unversioned reference to. From the moment two are seen loaded (note_loaded_majors), the
// library's default row stays empty, so that each such call finds no function inline and asks
// resolve_real_for, which routes it by its caller's DT_NEEDED (cached per page of code).
// A process with one major pays nothing for it.
// Asked where libraries may have changed: at the first look-up of each function, after a CUDA
// library's dlopen, at a handle's creation, at the first dlsym on a library handle (a second
// major brought in as the dependency of another library's dlopen, which goes to glibc alone, is
// seen at the next of those). Sees unloads first (note_unloads).
void note_loaded_majors();
// When an object was unloaded since the last look, every CUDA function found so far is
// forgotten, to be looked up again at its next call: the library it was in may be gone, and
// another, or the same one, loaded at its place. Asked before every dlopen the program makes (a
// library unloaded can only come back through one), and by note_loaded_majors.
void note_unloads();
// resolve_real for a call made from `caller` (a return address): routed by the caller where the
// library is (above), otherwise as resolve_real routes it. Cold: the inline look-up found nothing.
void* resolve_real_for(Library lib, uint16_t id, const char* name, int variant, const void* caller);

// The dlsym hook saw a program look up `name` in a library handle: remember the real address,
// filed under the variant of the library it lives in.
void remember_real(Library lib, uint16_t id, void* real);

// For handle-creating calls when several majors are loaded: the variant the calling object
// links against (its DT_NEEDED), else kDefaultVariant.
int variant_of_caller(Library lib, const void* return_address);

// A handle of `lib` as the program loaded it (the first loaded of its majors, .13 first),
// opened RTLD_NOLOAD: never loading it. nullptr when it is not loaded; dlclose() it after use.
// The shim's own CUDA calls find their functions through it (driver_table.cpp).
void* open_loaded(Library lib);

// A function of an already-loaded library, for the resolvers outside the hook list
// (driver_entry_points.cpp: their real functions, and which of them the driver handed out);
// uncached, so callers keep the result. The shim's own calls go through driver_table.h instead.
void* find_loaded_symbol(Library lib, const char* name);

// Whether `real`, a loaded library's function `name`, is that library's definition of `name`
// under the symbol version `version` ("libcudart.so.12"): the version node names the ABI a
// library was built for, whatever file name it was loaded by. Asks the dynamic linker (its lock),
// so callers keep the answer.
bool defined_with_version(const void* real, const char* name, const char* version);

// The shim's cuGetProcAddress(_v2) when `symbol` names one of them (`real` is what the driver
// or dlsym returned, remembered), else nullptr. driver_entry_points.cpp.
void* own_resolver(const char* symbol, void* real);

// glibc's own dlopen, for the shim's RTLD_NOLOAD probes: calling the exported name would reach
// the shim's dlopen hook and record the shim's own look-ups as the program's.
void* real_dlopen(const char* name, int flags);

// glibc's own dlsym, found through dlvsym so the shim's exported dlsym is not itself found.
void* real_dlsym(void* handle, const char* name);

}  // namespace cublasspy
