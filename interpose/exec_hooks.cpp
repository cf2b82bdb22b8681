// The exec family: a process that execs ends its image there, neither by exit nor by a signal.
// The exec's record names the target and stays in flight, and the trace is marked as ended by
// it just before the real call (FORMAT.md, EndState::kExecuted): a successful exec never
// returns, so there is no later moment. An exec that returns failed: the mark is taken back,
// the record completed with its errno, and the image goes on.
//
// Only the process that owns the trace marks it. The child of a vfork runs in its parent's
// memory until its exec: the parent's trace, the shim's state, the parent thread's TLS. Its
// exec must not end the parent's trace, so it passes straight through, touching nothing. A
// process with no trace open (no CUDA call made yet, or a forked child before its first) has
// nothing to end, and an exec opens no trace either.
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "exec_hooks.h"
#include "hook_expansion.h"

namespace cublasspy {
namespace {

// glibc's function behind exec hook `id`, or nullptr when none can be found.
void* real_exec(uint16_t id) {
  if (void* fn = resolved_real(id)) return fn;
  return resolve_real(Library::kSystem, id, hook_name(id), kDefaultVariant);
}

// The recorded exec's real call: the trace is marked as ended by it while it runs. `Real` is
// the exec's type, as the hook list spells it.
// What the recording sees an exec return: its int as a status (-1: failed), not as a value
// (intercept.h records a plain int as a value returned, with status 0).
enum class ExecStatus : int {};

template <typename Real>
class ImageReplacement {
 public:
  template <typename... Args>
  ExecStatus operator()(void* real, Args... args) {
    TraceWriter& writer = runtime()->writer;  // set up: exec_ends_own_trace() said so
    const bool marked = writer.mark_executing();
    const int result = reinterpret_cast<Real>(real)(args...);
    exec_errno_ = errno;
    if (marked) writer.unmark_executing();
    return static_cast<ExecStatus>(result);
  }
  // The program reads the exec's errno, not whatever the recording left.
  int exec_errno() const { return exec_errno_; }

 private:
  int exec_errno_ = ENOSYS;  // when no real function was found to call
};

// A straight pass-through: in a vfork child, with no trace of this process, or for the shim's
// own calls.
template <typename Real, typename... Args>
int pass_exec_through(uint16_t id, Args... args) {
  void* fn = real_exec(id);
  if (fn == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return reinterpret_cast<Real>(fn)(args...);
}

}  // namespace

void resolve_exec_functions() {
#define CBS_RESOLVE_EXEC(lib_, ret_, fn_, ...) (void)real_exec(static_cast<uint16_t>(FnId::k##fn_));
  CUBLASSPY_EXEC_HOOKS(CBS_RESOLVE_EXEC)
#undef CBS_RESOLVE_EXEC
}

extern const HookInfo kExecHooks[] = {CUBLASSPY_EXEC_HOOKS(CBS_HOOK_INFO)};

}  // namespace cublasspy

// glibc declares the exec functions noexcept (__THROW); so are the wrappers.
#define CBS_DEFINE_EXEC_WRAPPER(lib_, ret_, fn_, fail_, family_, traits_, ...)                           \
  CUBLASSPY_EXPORT ret_ fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) noexcept {                   \
    using Real = CBS_REAL_TYPE(ret_, __VA_ARGS__);                                              \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                       \
                  "hook_list.h prototype differs from unistd.h: " #fn_);                        \
    constexpr uint16_t kId = static_cast<uint16_t>(::cublasspy::FnId::k##fn_);                  \
    if (!::cublasspy::exec_ends_own_trace() || ::cublasspy::thread_state().internal != 0) {     \
      return ::cublasspy::pass_exec_through<Real>(kId CBS_MAP_AFTER_COMMA(CBS_NAME, __VA_ARGS__)); \
    }                                                                                           \
    ::cublasspy::ImageReplacement<Real> replacement;                                            \
    using Status = ::cublasspy::ExecStatus;                                                     \
    const Status status = [&]() -> Status { CBS_RECORD_CALL(Status, fn_, fail_, replacement, __VA_ARGS__) }(); \
    errno = replacement.exec_errno();                                                           \
    return static_cast<ret_>(status);                                                           \
  }
CUBLASSPY_EXEC_HOOKS(CBS_DEFINE_EXEC_WRAPPER)
#undef CBS_DEFINE_EXEC_WRAPPER

// The list forms. Their arguments become a vector on the stack, as glibc's own execl does
// before it calls execve; then the vector form's wrapper (this library's own: the shim links
// with -Bsymbolic-functions) records the exec. No allocation: a child of a threaded program's
// fork may call them.
namespace {
// The list's arguments after `first`, up to its terminating null pointer, counted.
size_t count_list(va_list ap) {
  size_t n = 0;
  while (va_arg(ap, const char*) != nullptr) ++n;
  return n;
}
}  // namespace

#define CBS_LIST_TO_VECTOR(first_)                                                              \
  va_list ap;                                                                                   \
  va_start(ap, first_);                                                                         \
  const size_t argc = 1 + count_list(ap);                                                       \
  va_end(ap);                                                                                   \
  const char* argv[argc + 1];                                                                   \
  argv[0] = first_;                                                                             \
  va_start(ap, first_);                                                                         \
  for (size_t i = 1; i <= argc; ++i) argv[i] = va_arg(ap, const char*);

CUBLASSPY_EXPORT int execl(const char* path, const char* arg, ...) noexcept {
  CBS_LIST_TO_VECTOR(arg)
  va_end(ap);
  return execv(path, const_cast<char* const*>(argv));
}

CUBLASSPY_EXPORT int execlp(const char* file, const char* arg, ...) noexcept {
  CBS_LIST_TO_VECTOR(arg)
  va_end(ap);
  return execvp(file, const_cast<char* const*>(argv));
}

// execle: the environment follows the list's null pointer.
CUBLASSPY_EXPORT int execle(const char* path, const char* arg, ...) noexcept {
  CBS_LIST_TO_VECTOR(arg)
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return execve(path, const_cast<char* const*>(argv), envp);
}
#undef CBS_LIST_TO_VECTOR
