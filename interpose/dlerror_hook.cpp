// The exported dlerror: where the text of a failed load reaches the program. A load the dlopen
// hook does not see (torch's extension module, whose libcublas finds the wrong libcublasLt)
// fails with a text that names the CUDA library at fault; load_failure_record.h records it.
//
// dlerror has no caller semantics (unlike dlopen and dlsym), so a plain wrapper serves. It must
// reach glibc's dlerror without a dl* call, which would clear the very error it is asked for:
// libc_symbol() finds it in libc.so.6's symbol table instead of dlvsym.
#include <dlfcn.h>

#include <atomic>

#include "libc_symbol.h"
#include "load_failure_record.h"
#include "machine/library_resolution.h"

namespace {

using DlerrorFn = char* (*)();

DlerrorFn glibc_dlerror() {
  static constinit std::atomic<DlerrorFn> fn{nullptr};
  DlerrorFn f = fn.load(std::memory_order_acquire);
  if (f != nullptr) return f;
  f = reinterpret_cast<DlerrorFn>(cublasspy::libc_symbol("dlerror"));
  // A libc whose table could not be read: dlvsym clears a pending error once, the price of
  // still answering at all.
  if (f == nullptr) f = reinterpret_cast<DlerrorFn>(dlvsym(RTLD_NEXT, "dlerror", "GLIBC_2.34"));
  if (f == nullptr) f = reinterpret_cast<DlerrorFn>(dlvsym(RTLD_NEXT, "dlerror", "GLIBC_2.2.5"));
  fn.store(f, std::memory_order_release);
  return f;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) char* dlerror() {
  DlerrorFn real = glibc_dlerror();
  if (real == nullptr) return nullptr;
  char* text = real();
  if (text == nullptr || !cublasspy::names_cuda_library(text)) [[likely]] return text;
  return cublasspy::note_load_error(text);
}
