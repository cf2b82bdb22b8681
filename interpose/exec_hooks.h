// The exec family (hook_list.h, CUBLASSPY_EXEC_HOOKS): an exec ends the image's trace.
#pragma once

namespace cublasspy {

// Finds glibc's exec functions once, when a trace opens, so that an exec passed straight
// through later (a vfork child's) makes no look-up in its parent's memory.
void resolve_exec_functions();

}  // namespace cublasspy
