// The native location of a call: the return addresses of the thread that made it, with their
// modules and, where dladdr knows it, the symbol (format::SideKind::kNativeStack).
#pragma once

#include "trace/stack_codec.h"

namespace cublasspy {

// Up to kMaxNativeFrames callers of the shim's wrapper (the shim's own frames left out).
// Not async-signal-safe (the unwinder and dladdr take the loader's lock): never in a handler.
bool take_native_stack(StackEncoder& out);

// For the fatal-signal handler: only the faulting PC, unresolved (kNativeAtSignal). Nothing
// else is async-signal-safe to take: unwinding and dladdr lock, and a frame-pointer walk reads
// memory a corrupt stack may not have mapped.
// Writes the entry into `out` (a few words: the handler may run on a small alternate stack) and
// returns its length.
inline constexpr uint32_t kFaultPcBytes = 32;
uint32_t encode_fault_pc(uint8_t (&out)[kFaultPcBytes], uint64_t pc);

}  // namespace cublasspy
