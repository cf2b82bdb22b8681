#include "cli/child_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cublasspy::tools {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Written before the signals are unblocked, read by the handler: a plain sig_atomic_t suffices.
volatile sig_atomic_t g_child_pid = 0;

void forward_signal(int sig, siginfo_t* info, void*) {
  // si_code <= 0: sent by a process (kill, sigqueue, tgkill); a terminal's SIGINT comes from the
  // kernel and has already reached the child through the foreground process group.
  pid_t child = g_child_pid;
  if (child > 0 && info != nullptr && info->si_code <= 0 && info->si_pid != child) kill(child, sig);
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const std::string& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

int ChildOutcome::shell_status() const {
  if (!started) return exec_errno == ENOENT ? 127 : 126;
  if (signaled) return 128 + signal;
  return exit_code;
}

ChildOutcome run_child(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  ChildOutcome outcome;
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(environment);

  // The child reports a failed exec through this pipe; a successful exec closes it (CLOEXEC).
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    outcome.exec_errno = errno;
    return outcome;
  }

  // Handlers first, with the signals blocked across fork so none is lost before the child's
  // pid is known; the child restores the original mask before exec.
  sigset_t forwarded, original;
  sigemptyset(&forwarded);
  for (int sig : kForwarded) sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &original);
  struct sigaction previous[std::size(kForwarded)];
  for (size_t i = 0; i < std::size(kForwarded); ++i) {
    struct sigaction sa {};
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(kForwarded[i], &sa, &previous[i]);
  }

  pid_t pid = fork();
  if (pid == 0) {
    // Exec would reset the caught signals to their default action, but a signal forwarded
    // before the exec would reach this copy of the handler, which has no child to pass it to,
    // and be lost: restore the original actions first, then the mask (a pending signal then
    // acts on the child as it would on the command).
    for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &previous[i], nullptr);
    sigprocmask(SIG_SETMASK, &original, nullptr);
    close(report[0]);
    execvpe(args[0], args.data(), envp.data());
    int err = errno;
    ssize_t ignored = write(report[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  int fork_errno = errno;
  if (pid > 0) g_child_pid = pid;
  sigprocmask(SIG_SETMASK, &original, nullptr);
  close(report[1]);

  if (pid < 0) {
    close(report[0]);
    outcome.exec_errno = fork_errno;
  } else {
    int err = 0;
    ssize_t n;
    do n = read(report[0], &err, sizeof err); while (n < 0 && errno == EINTR);
    close(report[0]);
    int status = 0;
    pid_t waited;
    do waited = waitpid(pid, &status, 0); while (waited < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof err)) {
      outcome.exec_errno = err;
    } else {
      outcome.started = true;
      outcome.pid = pid;
      outcome.wait_status = status;
      if (WIFSIGNALED(status)) {
        outcome.signaled = true;
        outcome.signal = WTERMSIG(status);
      } else if (WIFEXITED(status)) {
        outcome.exit_code = WEXITSTATUS(status);
      }
    }
  }

  g_child_pid = 0;
  for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &previous[i], nullptr);
  return outcome;
}

}  // namespace cublasspy::tools
