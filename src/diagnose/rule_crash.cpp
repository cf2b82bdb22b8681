// crashed-in-call and killed-in-call: the process ended inside an intercepted call. The trace
// is memory-mapped, so the call's record (marked in flight before the real call started)
// survives both a fatal signal (the shim's handler records which) and SIGKILL (nothing runs:
// the trace simply never says how the process ended).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "trace/process_end.h"
#include "machine/process_info.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{} ({})", abbrev, sig) : fmt::format("signal {}", sig);
}

// The call the signal hit: the one flagged by the handler, else the innermost in flight.
const CallView* crashed_call(const TraceFacts& f) {
  for (const CallView& c : f.in_flight) {
    if (c.rec().flags & format::kFlagCrashed) return &c;
  }
  const CallView* innermost = nullptr;
  for (const CallView& c : f.in_flight) {
    if (innermost == nullptr || c.rec().depth >= innermost->rec().depth) innermost = &c;
  }
  return innermost;
}

std::string in_flight_list(const TraceFile& trace, const TraceFacts& f, const CallView* except) {
  std::string out;
  for (const CallView& c : f.in_flight) {
    if (&c == except) continue;
    out += (out.empty() ? "" : ", ") + call_with_shape(trace, c) + fmt::format(" on thread {}", c.rec().tid);
  }
  return out;
}

std::string crash_advice(const CallView& call, int sig) {
  std::string fn = call.function_name();
  std::string advice;
  if (launches_device_work(call)) {
    advice = "Rerun with `cublasspy run --check` to validate the call's arguments first (a host "
             "pointer where a device pointer belongs, a pointer mode that does not match where "
             "alpha/beta live, or an ld/stride past the allocation make cuBLAS read memory it "
             "cannot). ";
  }
  if (sig == SIGABRT) {
    advice += "SIGABRT means the library or the program aborted on purpose: the lines printed on "
              "stderr just before it say why. ";
  }
  advice += fmt::format("`cublasspy replay TRACE --call {}` re-executes this one call alone, a "
                        "reproducer to debug with gdb or to file with the library's maintainers.",
                        call.seq);
  return advice;
}

// The process may still be alive (a trace read while it runs): then it is not dead, it hangs.
bool still_running_here(const TraceFacts& f) {
  if (!f.pid || f.trace->process().get("host") != host_name()) return false;
  char exe[4096];
  std::string link = fmt::format("/proc/{}/exe", *f.pid);
  ssize_t n = readlink(link.c_str(), exe, sizeof exe - 1);
  if (n <= 0) return false;
  return std::string(exe, static_cast<size_t>(n)) == f.exe;
}

std::string duration_text(uint64_t ns) {
  if (ns >= 60'000'000'000ull) return fmt::format("{:.1f} min", ns / 60e9);
  if (ns >= 1'000'000'000ull) return fmt::format("{:.1f} s", ns / 1e9);
  return fmt::format("{:.1f} ms", ns / 1e6);
}

// How long the process went on recording after the call started (other threads' calls).
std::optional<uint64_t> time_after_start(const TraceFacts& f, const CallView& call) {
  if (f.last_activity_ns <= call.rec().start_ns) return std::nullopt;
  return f.last_activity_ns - call.rec().start_ns;
}

}  // namespace

void rule_crashed_in_call(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const format::FileHeader& h = f.header();
    if (h.end_state != static_cast<uint32_t>(format::EndState::kSignaled) || f.in_flight.empty()) continue;
    const CallView* call = crashed_call(f);
    Diagnosis d = finding(ids::kCrashedInCall, Severity::kError, f);
    d.call = call->seq;
    d.summary = fmt::format("the process died of {} inside {}", signal_text(h.end_signal), call_name(*call));
    d.evidence = fmt::format("The trace ends with {} in flight on thread {} and the process killed by {}.",
                             call_with_shape(*f.trace, *call), call->rec().tid, signal_text(h.end_signal));
    if (call->rec().depth > 0) d.evidence += " It was called from inside another intercepted call.";
    if (std::string others = in_flight_list(*f.trace, f, call); !others.empty()) {
      d.evidence += " Also in flight: " + others + ".";
    }
    d.advice = crash_advice(*call, h.end_signal);
    ctx.add(std::move(d));
  }
}

void rule_killed_in_call(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const format::FileHeader& h = f.header();
    if (h.end_state != static_cast<uint32_t>(format::EndState::kRunning) || f.in_flight.empty()) continue;
    const CallView* call = crashed_call(f);
    // `cublasspy run` may have seen how it ended (format version 5): then it is not running.
    const ProcessEnd end = process_end(h);
    const bool exited = end.how == ProcessEnd::How::kExited;
    const bool running = end.how == ProcessEnd::How::kUnknown && still_running_here(f);
    Diagnosis d = finding(ids::kKilledInCall, running ? Severity::kWarning : Severity::kError, f);
    d.call = call->seq;
    if (running) {
      d.summary = fmt::format("the process is still inside {}: it may hang", call_name(*call));
    } else if (exited) {
      d.summary = fmt::format("the process exited with status {} inside {} without running its exit handlers",
                              end.exit_status, call_name(*call));
    } else if (end.how == ProcessEnd::How::kSignaled) {
      d.summary = fmt::format("the process was killed by {} inside {}", signal_text(end.signal), call_name(*call));
    } else {
      d.summary = fmt::format("the process ended inside {} without a trace of a signal: killed "
                              "(SIGKILL, the OOM killer) or hung and stopped",
                              call_name(*call));
    }
    d.evidence = fmt::format("The trace ends with {} in flight on thread {}", call_with_shape(*f.trace, *call), call->rec().tid);
    if (running) {
      d.evidence += fmt::format("; process {} is still running.", *f.pid);
    } else if (exited) {
      d.evidence += fmt::format("; the process recorded no end, and cublasspy run saw it exit with status {}: "
                                "an _exit, which runs no exit handler.", end.exit_status);
    } else if (end.how == ProcessEnd::How::kSignaled) {
      d.evidence += fmt::format("; the process recorded no end, and cublasspy run saw it killed by {}.",
                                signal_text(end.signal));
    } else {
      d.evidence += "; no exit and no fatal signal were recorded, and nothing else runs after a SIGKILL.";
    }
    if (auto t = time_after_start(f, *call)) {
      d.evidence += fmt::format(" Other calls went on for {} after it started.", duration_text(*t));
    }
    if (std::string others = in_flight_list(*f.trace, f, call); !others.empty()) {
      d.evidence += " Also in flight: " + others + ".";
    }
    if (exited) {
      d.advice = end.exit_status == 127
                     ? "Status 127 without exit handlers is the dynamic linker's: a \"symbol lookup error\" "
                       "(a library older than the program expects) or a library it could not load; its "
                       "message is on stderr. `cublasspy doctor` shows which CUDA libraries are found."
                     : "Something called _exit inside the call (the library, or a handler of the program's): "
                       "the lines printed on stderr just before it say why.";
      ctx.add(std::move(d));
      continue;
    }
    d.advice =
        "Find out who stopped it: `dmesg | grep -i -E 'killed process|out of memory'` shows the OOM "
        "killer (then the host ran out of RAM: fewer DataLoader workers, smaller batches), a job "
        "scheduler's log shows a time or memory limit. If the call hung, `py-spy dump --pid PID` or "
        "`gdb -p PID -batch -ex 'thread apply all bt'` on a live process shows where; a hang inside "
        "GPU work often follows a GPU fault (`sudo dmesg | grep -i NVRM` for Xid errors) or, in "
        "multi-GPU jobs, a collective waiting for a rank that died (set "
        "TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and a timeout). Rerun with `cublasspy run --sync` to "
        "see whether the GPU work itself never finishes.";
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
