// Records a fatal signal in the trace, then lets the program die exactly as it would have.
// The handler does only async-signal-safe work: plain stores into the mapped trace.
#pragma once

namespace cublasspy {

class TraceWriter;

// Installs the handlers for SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, keeping the previous ones
// to chain to. Called once, when the trace opens.
void install_fatal_signal_handlers(TraceWriter* writer);

}  // namespace cublasspy
