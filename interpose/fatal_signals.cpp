#include "fatal_signals.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <ucontext.h>

#include "native_stack.h"
#include "runtime.h"
#include "trace/trace_writer.h"
#include "unchanged_setter.h"

namespace cublasspy {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
constexpr int kMaxSignal = 65;

struct sigaction g_previous[kMaxSignal];
std::atomic<TraceWriter*> g_writer{nullptr};
// Set by the handler (a lock-free store), read at exit (fatal_signal_arrived).
std::atomic<bool> g_fatal_signal_arrived{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// The innermost frame of on_fatal_signal still running on this thread (nullptr: none). A signal
// that arrives while it runs (the previous handler aborted, or something faulted) is a second
// signal: it is only chained, never recorded over the first. initial-exec TLS: no allocation on
// first use inside a handler.
__attribute__((tls_model("initial-exec"))) thread_local const char* t_handler_frame = nullptr;

// Stacks grow down: a frame below the recorded one runs inside our handler. A frame at or above
// it means the earlier handler was left by siglongjmp (the program recovered), so it is stale.
bool below_active_handler(const char* frame) {
  return t_handler_frame != nullptr && frame < t_handler_frame;
}

// Calls the handler that was there before ours the way the kernel would have: with its
// sa_mask blocked (and the signal itself, unless it asked for SA_NODEFER), once only when it
// asked for SA_RESETHAND. Our own handler runs with SA_NODEFER so that a second signal inside
// it reaches it; the previous handler must not see that difference.
void call_previous(const struct sigaction& prev, int sig, siginfo_t* info, void* context) {
  if (prev.sa_flags & SA_RESETHAND) {
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
  }
  sigset_t mask = prev.sa_mask;
  if (!(prev.sa_flags & SA_NODEFER)) sigaddset(&mask, sig);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &mask, &old);
  if (prev.sa_flags & SA_SIGINFO) prev.sa_sigaction(sig, info, context);
  else prev.sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// Passes the signal on to what was there before us. True when the program handled it and goes
// on (its handler returned, or it ignores the signal); false when the default action was taken:
// the process dies now, or as soon as the signal is unblocked (when a handler of the program's
// that blocks it called ours), and the trace must keep saying so.
bool chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  bool has_function = (prev.sa_flags & SA_SIGINFO)
                          ? prev.sa_sigaction != nullptr
                          : prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN;
  if (has_function) {
    call_previous(prev, sig, info, context);
    return true;
  }
  if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN && sig != SIGSEGV &&
      sig != SIGBUS && sig != SIGFPE && sig != SIGILL) {
    return true;
  }
  // Default action: restore it and raise again, so the exit status and core dump are the
  // program's own.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  raise(sig);
  return false;
}

// The program counter of the interrupted code, from the signal's context (0 if unknown).
uint64_t faulting_pc(void* context) {
  if (context == nullptr) return 0;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uint64_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  int saved_errno = errno;
  TraceWriter* writer = g_writer.load(std::memory_order_relaxed);
  // A store into a trace file that was truncated under the running process: the mapping is
  // replaced with memory and the store retried. Not the program's fault: nothing is chained.
  // (si_code > 0: raised by the kernel for a real access, not by kill() or raise().)
  if (sig == SIGBUS && writer != nullptr && info != nullptr && info->si_code > 0 &&
      writer->detach_on_fault(info->si_addr)) {
    // The calls take the slow path until one has reported the detached trace.
    detail::g_recording.store(detail::kNotRecording);
    errno = saved_errno;
    return;
  }
  g_fatal_signal_arrived.store(true, std::memory_order_relaxed);
  char frame;
  const bool second = below_active_handler(&frame);
  const char* outer = t_handler_frame;
  t_handler_frame = &frame;
  bool marked = false, flagged = false;
  format::RecordSlot* slot = thread_state().current;
  if (!second && writer != nullptr) {
    // A handle setter that changed nothing has no record until now: it gets one, in flight.
    if (format::RecordSlot* unchanged = record_unchanged_in_flight(thread_state())) slot = unchanged;
    writer->mark_signaled(sig);
    marked = true;
    if (slot != nullptr && !(slot->call.flags & format::kFlagCrashed)) {
      slot->call.flags |= format::kFlagCrashed;
      flagged = true;
      // The faulting PC, unresolved (native_stack.h says why nothing more is taken here).
      const uint64_t pc = faulting_pc(context);
      uint8_t entry[kFaultPcBytes];
      if (pc != 0) {
        writer->attach(slot, format::word_seq(slot->call.word), static_cast<uint32_t>(format::SideKind::kNativeStack),
                       entry, encode_fault_pc(entry, pc));
      }
    }
  }
  if (chain(sig, info, context)) {
    // The previous handler returned: the program handled the signal and goes on.
    if (flagged) slot->call.flags &= ~static_cast<uint32_t>(format::kFlagCrashed);
    if (marked) writer->unmark_signaled();
  }
  t_handler_frame = second ? outer : nullptr;
  errno = saved_errno;
}

}  // namespace

void install_fatal_signal_handlers(TraceWriter* writer) {
  g_writer.store(writer);
  for (int sig : kSignals) {
    struct sigaction prev;
    if (sigaction(sig, nullptr, &prev) != 0) continue;
    // Already ours: a forked child opening its own trace inherited them. Keeping the handler we
    // chain to matters: chaining to ourselves would recurse until the stack ran out.
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction == on_fatal_signal) continue;
    g_previous[sig] = prev;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

bool fatal_signal_arrived() { return g_fatal_signal_arrived.load(std::memory_order_relaxed); }
void forget_fatal_signals() { g_fatal_signal_arrived.store(false, std::memory_order_relaxed); }

bool inside_fatal_signal_handler() {
  char frame;
  return below_active_handler(&frame);
}

}  // namespace cublasspy
