// Records a fatal signal in the trace, then lets the program die exactly as it would have.
// The handler does only async-signal-safe work: plain stores into the mapped trace.
#pragma once

namespace cublasspy {

class TraceWriter;

// Installs the handlers for SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, keeping the previous ones
// to chain to. Called once, when the trace opens.
// A forked child that opens its own trace may call it again: the handlers stay installed once.
void install_fatal_signal_handlers(TraceWriter* writer);

// True on a thread running inside the fatal-signal handler (an exit() called by the program's
// own handler after a crash), false once that handler was left by siglongjmp.
bool inside_fatal_signal_handler();

// Whether a fatal signal reached the handler in this process (or forked child) since its trace
// opened, even one the program handled and went on from: such a trace is kept at exit.
bool fatal_signal_arrived();
// In a forked child: its parent's signals are not its own.
void forget_fatal_signals();

}  // namespace cublasspy
