// What becomes of the trace when its process exits cleanly (CUBLASSPY_KEEP; docs/CONTRACT.md,
// "Which traces are kept"). A flight recorder keeps the tape of the flights with an incident:
// under the default, `incident`, a trace with nothing in it worth reading is removed at a clean
// exit; `always` keeps every trace. A process that runs no exit handler (killed, `_exit`, an
// exec that replaced the image) leaves its trace as it is.
#pragma once

namespace cublasspy {

class Runtime;

// From the exit handler, after the trace is marked exited with `status` (what the program
// passed to exit()): removes the trace's file unless CUBLASSPY_KEEP=always or something
// happened. Never from a signal handler.
void settle_trace_at_exit(Runtime& rt, int status);

}  // namespace cublasspy
