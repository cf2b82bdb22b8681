// The Python location of a call: the frames of the thread that made it, when the process hosts
// CPython (format::SideKind::kPythonStack, trace/stack_codec.h).
#pragma once

#include "trace/stack_codec.h"

namespace cublasspy {

// Encodes up to kMaxPythonFrames frames of the calling thread into `out`; false when there is
// nothing to take or it must not be taken (no CPython in the process, the interpreter not
// running or finalizing, a thread without Python state). Never call it from a signal handler,
// nor while the thread holds a lock that a thread holding the GIL may wait for: see the
// comment in python_stack.cpp (the shim calls it only for the program's own calls, depth 0).
bool take_python_stack(StackEncoder& out);

// The innermost frame of the calling thread: its code object (as an address, for identity
// only) and line. Under the same rules as take_python_stack, and false where it would be false.
// A failure's site (format::FailureSite): a few hundred nanoseconds, where the whole stack
// costs microseconds.
bool take_python_site(uint64_t& code, int32_t& line);

}  // namespace cublasspy
