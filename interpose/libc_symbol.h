// glibc's own definition of a function the shim exports under the same name, found in
// libc.so.6's dynamic symbol table through dl_iterate_phdr: no dl* call, so nothing of the
// thread's pending dlerror() state is touched (dlsym or dlvsym would clear it, which is what
// the shim's dlerror must not do before it has read it).
#pragma once

namespace cublasspy {

// The address of `name` as libc.so.6 defines it; nullptr when it does not.
void* libc_symbol(const char* name);

}  // namespace cublasspy
