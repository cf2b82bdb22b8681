// The exported dlsym: programs that dlopen CUDA themselves and call through dlsym'd pointers
// (Python ctypes, TensorFlow/XLA/JAX) never reach a preloaded definition, so the shim hands
// them its hook instead and remembers the real address.
//
// glibc's dlsym looks at its caller to resolve RTLD_NEXT. A C wrapper would make the shim that
// caller and turn the program's RTLD_NEXT into "next after the shim" (an endless loop in other
// preloaded libraries). So the entry point is a few instructions that jump, without a frame of
// their own, to glibc for RTLD_NEXT and to the C++ part for everything else.
#include <dlfcn.h>

#include <atomic>

#include "hook_table.h"
#include "real_functions.h"
#include "runtime.h"

extern "C" __attribute__((visibility("hidden"), used)) void* cublasspy_dlsym_impl(void* handle,
                                                                                 const char* name);
extern "C" __attribute__((visibility("hidden"), used)) void* cublasspy_glibc_dlsym();

#if defined(__x86_64__)
asm(R"(
    .text
    .globl dlsym
    .type dlsym, @function
dlsym:
    cmpq $-1, %rdi              # RTLD_NEXT: glibc must see the program's return address
    je 1f
    jmp cublasspy_dlsym_impl
1:  pushq %rdi
    pushq %rsi
    subq $8, %rsp               # keep the stack 16-byte aligned for the call
    call cublasspy_glibc_dlsym
    addq $8, %rsp
    popq %rsi
    popq %rdi
    jmp *%rax
    .size dlsym, .-dlsym
)");
#else
// Other architectures: a plain wrapper (RTLD_NEXT from the program then resolves relative to
// the shim; documented in README as a limitation).
extern "C" __attribute__((visibility("default"))) void* dlsym(void* handle, const char* name) {
  return cublasspy_dlsym_impl(handle, name);
}
#endif

extern "C" void* cublasspy_glibc_dlsym() {
  // real_dlsym() caches glibc's dlsym; ask it for something harmless to make sure it is set.
  static void* fn = nullptr;
  if (fn == nullptr) {
    fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (fn == nullptr) fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  }
  return fn;
}

namespace {
// A library handle not looked up on before: a library just loaded, perhaps by a dlopen of its
// own name (glibc's alone: dlopen_hook.cpp), whose dependencies may bring a second CUDA major
// (a Python extension that links its own runtime, looked up for its PyInit_ right after). The
// loaded libraries are looked at once per new handle, before any call of the library's.
void note_handle_looked_up(void* handle) {
  static std::atomic<void*> last{nullptr};
  if (handle == RTLD_DEFAULT || last.load(std::memory_order_relaxed) == handle) return;
  last.store(handle, std::memory_order_relaxed);
  cublasspy::note_loaded_majors();
}
}  // namespace

extern "C" void* cublasspy_dlsym_impl(void* handle, const char* name) {
  using namespace cublasspy;
  if (!thread_state().internal) note_handle_looked_up(handle);
  void* real = real_dlsym(handle, name);
  if (real == nullptr || name == nullptr || name[0] != 'c' || name[1] != 'u') return real;
  if (thread_state().internal) return real;
  if (void* resolver = own_resolver(name, real)) return resolver;
  int id = find_hook(name);
  if (id < 0) return real;
  void* hook = hook_address(static_cast<uint16_t>(id));
  if (real == hook) return real;  // RTLD_DEFAULT found the shim itself: nothing to remember
  remember_real(hook_library(static_cast<uint16_t>(id)), static_cast<uint16_t>(id), real);
  return hook;
}
