#include "runtime.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cuda_names.h"
#include "clock/call_clock.h"
#include "fatal_signals.h"
#include "hook_table.h"
#include "settings/path_template.h"
#include "machine/process_info.h"
#include "exec_hooks.h"
#include "keep_policy.h"
#include "post_call.h"
#include "shim_guard.h"
#include "shim_log.h"

namespace cublasspy {
namespace detail {
constinit __attribute__((tls_model("initial-exec"))) thread_local ThreadState t_state;
constinit std::atomic<int> g_init{kUninitialized};
Runtime* g_runtime = nullptr;  // allocated once, never freed: hooks may run during exit
// 1 once this process (or forked child) has tried to open its trace; the fork handler resets it,
// so the call path needs no getpid() system call to notice a fork.
constinit std::atomic<int> g_trace_attempted{0};
constinit std::atomic<int> g_recording{kNotRecording};
}  // namespace detail
using detail::g_init;
using detail::g_runtime;
using detail::g_trace_attempted;
using detail::g_recording;
using detail::kDisabled;
using detail::kReady;
using detail::kUninitialized;
using detail::t_state;

namespace {

const char* read_env(const char* name) { return getenv(name); }


// Set-up and trace opening are rare (once per process and forked child) and never hold the lock
// across a real CUDA call. fork() takes it too (before_fork), so a child is never made while
// another thread is half-way through them: it would wait forever for a lock, or for a set-up,
// that no thread of its own will ever finish.
std::mutex g_open_mutex;
std::atomic<long> g_trace_pid{0};
std::atomic<uint64_t> g_parent_seq{0};
std::atomic<uint64_t> g_parent_calls{0};
std::atomic<long> g_parent_pid{0};
std::atomic<bool> g_parent_cuda_ready{false};

void write_stderr(const std::string& line) {
  std::string text = line + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

// In a forked child: the parent's mapping is shared memory; writing it would corrupt the
// parent's record. Forget it; the child's first call opens the child's own trace.
void on_fork_child() {
  // Another thread may have held the open lock at the fork: it does not exist in the child,
  // so the lock is made anew (the child has one thread).
  new (&g_open_mutex) std::mutex;
  call_clock::reset_after_fork();
  t_state.tid = 0;
  t_state.depth = 0;
  t_state.current = nullptr;
  Runtime* rt = g_runtime;
  if (rt == nullptr) return;
  if (rt->writer.header() != nullptr) {
    g_parent_seq.store(rt->writer.last_seq_of(t_state.claim));
    g_parent_calls.store(rt->writer.calls_made());
    g_parent_pid.store(g_trace_pid.load());
    g_parent_cuda_ready.store(rt->cuda_ready.load());
  }
  rt->writer.abandon_after_fork();
  rt->flagged.store(false);
  forget_fatal_signals();
  process_section_after_fork();
  t_state.claim = ClaimCursor{};
  g_trace_pid.store(0);
  g_trace_attempted.store(0);
  g_recording.store(detail::kNotRecording);
}

// pthread's own calls, which throw nothing (std::mutex::lock throws on an error code). Before
// a fork: waits for a set-up or an opening in progress.
void before_fork() { pthread_mutex_lock(g_open_mutex.native_handle()); }
void after_fork_in_parent() { pthread_mutex_unlock(g_open_mutex.native_handle()); }
void after_fork_in_child() {
  pthread_mutex_unlock(g_open_mutex.native_handle());
  on_fork_child();
}

// Registered with on_exit (not atexit) for the status the program passed to exit() or returned
// from main. Registered at the shim's first use, never in a constructor; a forked child
// inherits the registration, and g_runtime's writer is by then the child's own trace.
void on_exit_mark(int status, void*) {
  Runtime* rt = g_runtime;
  if (rt == nullptr) return;
  // A fatal signal whose handler the program left by siglongjmp (it recovered) still reads
  // "signaled"; an exit from outside any handler is a normal end after all. An exit() made by
  // the program's own handler after a crash keeps the signal.
  if (!inside_fatal_signal_handler()) rt->writer.unmark_signaled();
  rt->writer.mark_exited(status);
  settle_trace_at_exit(*rt, status);
}

// Once, outside the signal handler that detached the trace (see TraceWriter::detach_on_fault).
[[gnu::noinline, gnu::cold]] void report_detached(Runtime& rt) {
  if (!rt.writer.take_detach_notice()) return;
  shim_guarded([&] {
    t_state.internal++;
    log_warning("the trace file " + rt.trace_path +
                " was truncated while the process ran; its calls from now on are kept in memory "
                "only (the file on disk is incomplete)");
    t_state.internal--;
  });
}

void register_fork_handlers() { pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); }

// Called with g_open_mutex held, once.
void initialize() {
  std::vector<std::string> errors;
  Config config = parse_config(&read_env, errors);
  for (const std::string& e : errors) write_stderr(e);
  if (config.disabled) {
    g_init.store(kDisabled, std::memory_order_release);
    return;
  }
  auto* rt = new Runtime(std::move(config));
  log_configure(rt->config.log);
  on_exit(on_exit_mark, nullptr);
  g_runtime = rt;
  g_init.store(kReady, std::memory_order_release);
}

[[gnu::cold, gnu::noinline]] Runtime* set_up() {
  // A set-user-ID or set-group-ID program (or one with file capabilities): the shim writes
  // nothing on behalf of a user who may not own the files, and stays a pure pass-through.
  if (getauxval(AT_SECURE) != 0) {
    g_init.store(kDisabled, std::memory_order_release);
    return nullptr;
  }
  // The fork handlers first, then the set-up under the lock they take: a fork from another
  // thread waits for the set-up to finish, so no child is ever made with it half done.
  static pthread_once_t fork_handlers = PTHREAD_ONCE_INIT;
  pthread_once(&fork_handlers, register_fork_handlers);
  std::lock_guard<std::mutex> lock(g_open_mutex);
  if (g_init.load(std::memory_order_acquire) == kUninitialized) {
    // A set-up that threw (no memory for the runtime) leaves the shim a pass-through for good.
    const bool done = shim_guarded([] {
      t_state.internal++;
      initialize();
      t_state.internal--;
    });
    if (!done) g_init.store(kDisabled, std::memory_order_release);
  }
  return g_init.load(std::memory_order_acquire) == kReady ? g_runtime : nullptr;
}

}  // namespace


std::atomic<uint64_t>& allocation_generation() {
  static constinit std::atomic<uint64_t> generation{0};
  return generation;
}

Runtime* runtime_slow() {
  int state = g_init.load(std::memory_order_acquire);
  if (state == kReady) return g_runtime;
  if (state == kDisabled) return nullptr;
  return set_up();
}

Runtime* recording_runtime_slow(ThreadState& ts) {
  if (ts.internal != 0) return nullptr;
  Runtime* rt = runtime();
  return rt != nullptr && ensure_trace(*rt) ? rt : nullptr;
}

namespace {

// Opens the trace, under the open lock, once per process (and forked child).
bool open_trace(Runtime& rt) {
  long pid = getpid();
  t_state.internal++;
  TemplateValues values;
  values.pid = pid;
  values.host = host_name();
  values.rank = rank_from_environment(&read_env);
  values.start_time = start_time_text();
  std::string template_error;
  std::string path = expand_path_template(rt.config.trace_template, values, &template_error);
  if (!template_error.empty()) log_warning("CUBLASSPY_TRACE: " + template_error);
  rt.libraries_recorded = loaded_cuda_libraries();
  KeyValueBlob info = collect_process_info(values.rank, values.start_time);
  OpenResult opened =
      rt.writer.open(path, rt.config.ring, function_table(), function_count(), info.bytes(),
                     rt.config.side_mb << 20, rt.config.launch_ring);
  if (!opened.warning.empty()) log_warning(opened.warning);
  rt.trace_path = opened.file_backed ? opened.path : std::string();
  bool ok = opened.ok;
  if (ok) {
    format::FileHeader* h = rt.writer.header();
    if (g_parent_pid.load() != 0) {
      h->forked_child = 1;
      h->parent_pid_at_fork = static_cast<uint64_t>(g_parent_pid.load());
      h->parent_seq_at_fork = g_parent_seq.load();
      h->parent_calls_at_fork = g_parent_calls.load();
      h->parent_cuda_ready = g_parent_cuda_ready.load() ? 1 : 0;
    }
    install_fatal_signal_handlers(&rt.writer);
    // Now, not in a vfork child that passes an exec through: there, a look-up would run on
    // its parent's memory.
    resolve_exec_functions();
    g_trace_pid.store(pid);
  }
  g_trace_attempted.store(1, std::memory_order_release);
  if (ok) g_recording.store(detail::recording_state(rt), std::memory_order_release);
  t_state.internal--;
  return ok;
}

}  // namespace

bool ensure_trace_slow(Runtime& rt) {
  if (g_trace_attempted.load(std::memory_order_acquire)) {
    if (rt.writer.detached_unreported()) [[unlikely]] report_detached(rt);
    const bool open = rt.writer.is_open();
    if (open && !rt.writer.detached_unreported()) {
      // Checked again after: a fault that detaches the trace now clears the flag after
      // marking the notice, so one of the two stores of kNotRecording comes last.
      g_recording.store(detail::recording_state(rt));
      if (rt.writer.detached_unreported()) g_recording.store(detail::kNotRecording);
    }
    return open;
  }
  std::lock_guard<std::mutex> lock(g_open_mutex);
  if (g_trace_attempted.load(std::memory_order_acquire)) return rt.writer.is_open();
  bool ok = false;
  if (shim_guarded([&] { ok = open_trace(rt); })) return ok;
  // An opening that threw is not tried again: the process goes on with whatever trace the
  // writer has (none, unless it threw after opening it).
  g_trace_attempted.store(1, std::memory_order_release);
  return rt.writer.is_open();
}

bool exec_ends_own_trace() {
  if (g_init.load(std::memory_order_acquire) != kReady) return false;
  if (g_trace_attempted.load(std::memory_order_acquire) == 0 || !g_runtime->writer.is_open()) return false;
  // getpid() asks the kernel (glibc caches no pid): a vfork child gets its own.
  return g_trace_pid.load(std::memory_order_relaxed) == static_cast<long>(syscall(SYS_getpid));
}

void apply_error_policy(const Runtime& rt, uint16_t id, const format::Record& rec) {
  switch (rt.config.on_error) {
    case OnError::kContinue: return;
    case OnError::kAbort: {
      // "cublasSgemm_v2 returned CUBLAS_STATUS_EXECUTION_FAILED (13)": the vocabulary's names.
      const auto library = static_cast<format::Library>(function_table()[id].library);
      const std::optional<NameSet> statuses = status_set_of(library);
      // Aborts all the same when the line cannot be made.
      shim_guarded([&] {
        std::string what = std::string(hook_name(id)) + " returned " +
                           (statuses ? name_and_number(*statuses, rec.status) : std::to_string(rec.status));
        if (rec.async_status != 0) what += ", then " + name_and_number(NameSet::kCudaError, rec.async_status);
        if (rec.status == 0 && rec.async_status == 0) what += " and was flagged by CUBLASSPY_CHECK or CUBLASSPY_SCAN";
        log_warning("CUBLASSPY_ON_ERROR=abort: " + what + "; aborting (the trace is complete)");
      });
      abort();
    }
    case OnError::kTrap:
      raise(SIGTRAP);
      return;
  }
}

}  // namespace cublasspy
