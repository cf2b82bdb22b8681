#include "fatal_signals.h"

#include <atomic>
#include <csignal>
#include <cstring>

#include "runtime.h"
#include "trace_writer.h"

namespace cublasspy {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
constexpr int kMaxSignal = 65;

struct sigaction g_previous[kMaxSignal];
std::atomic<TraceWriter*> g_writer{nullptr};
std::atomic<int> g_handling{0};  // a second fatal signal while recording the first: just chain

void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction != nullptr) {
      prev.sa_sigaction(sig, info, context);
      return;
    }
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  if (prev.sa_handler == SIG_IGN && sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE &&
      sig != SIGILL) {
    return;
  }
  // Default action: restore it and raise again, so the exit status and core dump are the
  // program's own.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  int saved_errno = errno;
  TraceWriter* writer = g_writer.load(std::memory_order_relaxed);
  bool first = g_handling.fetch_add(1) == 0;
  if (first && writer != nullptr) {
    writer->mark_signaled(sig);
    ThreadState& ts = thread_state();
    for (format::RecordSlot* slot = ts.current; slot != nullptr; slot = nullptr) {
      slot->call.flags |= format::kFlagCrashed;
    }
  }
  chain(sig, info, context);
  // The previous handler returned: the program handled the signal and goes on.
  if (first && writer != nullptr) writer->unmark_signaled();
  g_handling.fetch_sub(1);
  errno = saved_errno;
}

}  // namespace

void install_fatal_signal_handlers(TraceWriter* writer) {
  g_writer.store(writer);
  for (int sig : kSignals) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    struct sigaction prev;
    if (sigaction(sig, &sa, &prev) == 0) g_previous[sig] = prev;
  }
}

}  // namespace cublasspy
