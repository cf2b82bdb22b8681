#include "keep_policy.h"

#include "fatal_signals.h"
#include "runtime.h"

namespace cublasspy {
namespace {

// Whether this process's trace must stay: what the process alone knows, then what the trace
// holds (TraceWriter::recorded_incident).
bool worth_keeping(Runtime& rt, int status) {
  const auto end = static_cast<format::EndState>(
      std::atomic_ref<uint32_t>(rt.writer.header()->end_state).load());
  // An exit() from the program's own handler after a crash stays signaled.
  if (end != format::EndState::kExited) return true;
  if ((status & 0xff) != 0) return true;
  // A fatal signal the program handled and went on from; a check or scan finding; operands
  // dumped beside the trace, which name it.
  if (fatal_signal_arrived() || rt.flagged.load(std::memory_order_relaxed) || rt.dump_budget.used() != 0) return true;
  return rt.writer.recorded_incident();
}

}  // namespace

void settle_trace_at_exit(Runtime& rt, int status) {
  if (rt.config.keep == KeepMode::kAlways) return;
  // No trace of this process's own (a forked child that made no call has its parent's path in
  // trace_path but no open trace), or one in memory only.
  if (!rt.writer.is_open() || rt.trace_path.empty()) return;
  if (worth_keeping(rt, status)) return;
  rt.writer.remove_file();
}

}  // namespace cublasspy
