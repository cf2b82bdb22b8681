#include "process/child.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>

namespace cublasspy::process {
namespace {

using Clock = std::chrono::steady_clock;

// ---- signal forwarding ---------------------------------------------------------------------

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Written before the signals are unblocked, read by the handler: a plain sig_atomic_t suffices.
volatile sig_atomic_t g_child_pid = 0;

void forward_signal(int sig, siginfo_t* info, void*) {
  // si_code <= 0: sent by a process (kill, sigqueue, tgkill); a terminal's SIGINT comes from the
  // kernel and has already reached the child through the foreground process group.
  pid_t child = g_child_pid;
  if (child > 0 && info != nullptr && info->si_code <= 0 && info->si_pid != child) kill(child, sig);
}

// The handlers are installed with the signals blocked across the fork, so that none is lost
// before the child's pid is known.
class SignalForwarding {
 public:
  explicit SignalForwarding(bool on) : on_(on) {
    if (!on_) return;
    sigset_t forwarded;
    sigemptyset(&forwarded);
    for (int sig : kForwarded) sigaddset(&forwarded, sig);
    sigprocmask(SIG_BLOCK, &forwarded, &original_mask_);
    for (size_t i = 0; i < std::size(kForwarded); ++i) {
      struct sigaction sa {};
      sa.sa_sigaction = forward_signal;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&sa.sa_mask);
      sigaction(kForwarded[i], &sa, &previous_[i]);
    }
  }
  // In the child, before its exec: exec would reset the caught signals to their default action,
  // but a signal forwarded before the exec would reach this copy of the handler, which has no
  // child to pass it to, and be lost. So the original actions come back first, then the mask (a
  // pending signal then acts on the child as it would on the command).
  void in_child() const {
    if (!on_) return;
    for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &previous_[i], nullptr);
    sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
  }
  // In this process once fork returned: the child (if any) receives what arrives from now on.
  void forked(pid_t pid) const {
    if (!on_) return;
    if (pid > 0) g_child_pid = pid;
    sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
  }
  ~SignalForwarding() {
    if (!on_) return;
    g_child_pid = 0;
    for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &previous_[i], nullptr);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  bool on_;
  sigset_t original_mask_{};
  struct sigaction previous_[std::size(kForwarded)] {};
};

// ---- file descriptors ----------------------------------------------------------------------

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  static void close_end(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  void close_both() {
    close_end(read);
    close_end(write);
  }
};

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void keep(std::string& text, const Output& output, bool final) {
  if (output.limit == 0 || text.size() <= output.limit) return;
  if (!output.keep_last) {
    text.resize(output.limit);
  } else if (final || text.size() > 4 * output.limit) {  // trimmed now and then, not per read
    text.erase(0, text.size() - output.limit);
  }
}

// The child's side, between fork and exec (or the function): only async-signal-safe calls.
void redirect(int fd, int target) {
  if (fd >= 0 && fd != target) dup2(fd, target);
}

// ---- the parent's side ---------------------------------------------------------------------

// One captured stream (or the function's answer) read until it closes.
struct Drain {
  int fd;
  std::string* text;
  Output output;
};

// Feeds `input` and reads the drains until they all close or the deadline passes (then the child
// is killed). Returns whether the deadline passed.
bool exchange(pid_t kill_target, std::vector<Drain>& drains, int input_fd, const std::string& input,
              std::optional<Clock::time_point> deadline) {
  // The child may stop reading its input: a write then fails with EPIPE rather than killing us.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  const bool feeding = input_fd >= 0;
  if (feeding) sigaction(SIGPIPE, &ignore, &previous);
  size_t written = 0;
  if (input_fd >= 0 && input.empty()) Pipe::close_end(input_fd);
  if (input_fd >= 0) fcntl(input_fd, F_SETFL, O_NONBLOCK);
  bool timed_out = false;
  auto open_drains = [&] {
    return std::count_if(drains.begin(), drains.end(), [](const Drain& d) { return d.fd >= 0; });
  };
  while (open_drains() > 0 || input_fd >= 0) {
    int wait_ms = 1000;
    if (deadline) {
      const auto now = Clock::now();
      if (now >= *deadline) {
        timed_out = true;
        kill(kill_target, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min<double>(
          1000, std::chrono::duration<double, std::milli>(*deadline - now).count() + 1));
    }
    std::vector<pollfd> fds;
    for (const Drain& d : drains)
      if (d.fd >= 0) fds.push_back({d.fd, POLLIN, 0});
    if (input_fd >= 0) fds.push_back({input_fd, POLLOUT, 0});
    if (poll(fds.data(), static_cast<nfds_t>(fds.size()), wait_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == input_fd) {
        ssize_t w = write(input_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // the child is gone
        if (written == input.size()) Pipe::close_end(input_fd);
        continue;
      }
      Drain& d = *std::find_if(drains.begin(), drains.end(), [&](const Drain& x) { return x.fd == p.fd; });
      char buf[65536];
      ssize_t r = read(d.fd, buf, sizeof buf);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) {
        Pipe::close_end(d.fd);
        continue;
      }
      d.text->append(buf, static_cast<size_t>(r));
      keep(*d.text, d.output, false);
    }
  }
  Pipe::close_end(input_fd);
  for (Drain& d : drains) {
    Pipe::close_end(d.fd);
    keep(*d.text, d.output, true);
  }
  if (feeding) sigaction(SIGPIPE, &previous, nullptr);
  return timed_out;
}

}  // namespace

Outcome run(const Spawn& spawn) {
  Outcome outcome;
  auto fail = [&](Outcome::Step step, const std::string& what, int err) {
    outcome.failed_step = step;
    outcome.start_errno = err;
    outcome.start_error = what + ": " + std::strerror(err);
    return outcome;
  };
  const bool exec_mode = !spawn.child_function;

  // Everything the child needs is made before the fork: it only calls async-signal-safe functions.
  std::vector<std::string> argv = spawn.argv, env;
  std::vector<char*> args = c_strings(argv), envp;
  if (spawn.environment) {
    env = *spawn.environment;
    envp = c_strings(env);
  }
  if (exec_mode && argv.empty()) return fail(Outcome::Step::kExec, "exec", EINVAL);

  // report: a failed exec sends its errno; a successful one closes it (CLOEXEC).
  Pipe report, in, out, err, answer;
  const bool capture_out = spawn.out.mode == Output::Mode::kCapture;
  const bool capture_err = spawn.err.mode == Output::Mode::kCapture;
  if ((exec_mode && !report.open()) || (spawn.input && !in.open()) || (capture_out && !out.open()) ||
      (capture_err && !err.open()) || (!exec_mode && !answer.open())) {
    int e = errno;
    for (Pipe* p : {&report, &in, &out, &err, &answer}) p->close_both();
    return fail(Outcome::Step::kPipe, "pipe", e);
  }

  if (!exec_mode) std::fflush(nullptr);
  const auto started = Clock::now();
  SignalForwarding forwarding(spawn.forward_signals);
  pid_t pid = fork();
  if (pid == 0) {
    forwarding.in_child();
    if (spawn.own_process_group) setpgid(0, 0);
    redirect(in.read, STDIN_FILENO);
    redirect(out.write, STDOUT_FILENO);
    redirect(err.write, STDERR_FILENO);
    for (const Output* o : {&spawn.out, &spawn.err}) {
      if (o->mode != Output::Mode::kDiscard) continue;
      int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
      redirect(devnull, o == &spawn.out ? STDOUT_FILENO : STDERR_FILENO);
    }
    if (!exec_mode) {
      write_all(answer.write, spawn.child_function());
      _exit(0);
    }
    char** environment = spawn.environment ? envp.data() : environ;
    if (spawn.search_path) execvpe(args[0], args.data(), environment);
    else execve(args[0], args.data(), environment);
    int e = errno;
    ssize_t ignored = write(report.write, &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  const int fork_errno = errno;
  forwarding.forked(pid);
  for (int* child_end : {&report.write, &in.read, &out.write, &err.write, &answer.write}) Pipe::close_end(*child_end);
  if (pid < 0) {
    for (Pipe* p : {&report, &in, &out, &err, &answer}) p->close_both();
    return fail(Outcome::Step::kFork, "fork", fork_errno);
  }
  if (spawn.own_process_group) setpgid(pid, pid);  // also here: no race with the kill below

  int exec_errno = 0;
  if (exec_mode) {
    ssize_t n;
    do n = read(report.read, &exec_errno, sizeof exec_errno); while (n < 0 && errno == EINTR);
    Pipe::close_end(report.read);
    if (n != static_cast<ssize_t>(sizeof exec_errno)) exec_errno = 0;
  }

  const pid_t kill_target = spawn.own_process_group ? -pid : pid;
  std::optional<Clock::time_point> deadline;
  if (spawn.limit.count() > 0) deadline = started + spawn.limit;
  std::vector<Drain> drains;
  if (capture_out) drains.push_back({out.read, &outcome.out, spawn.out});
  if (capture_err) drains.push_back({err.read, &outcome.err, spawn.err});
  if (!exec_mode) drains.push_back({answer.read, &outcome.answer, Output{}});
  int status = 0;
  if (!drains.empty() || in.write >= 0) {
    // The streams close when the child ends; a child killed at the deadline is then reaped.
    outcome.timed_out = exchange(kill_target, drains, in.write, spawn.input.value_or(""), deadline);
    wait_for_end(pid, std::nullopt, kill_target, &status);
  } else {
    outcome.timed_out = wait_for_end(pid, deadline, kill_target, &status);
  }
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - started).count();

  if (exec_errno != 0) {
    fail(Outcome::Step::kExec, argv[0], exec_errno);
    return outcome;
  }
  outcome.started = true;
  outcome.pid = pid;
  outcome.wait_status = status;
  if (WIFEXITED(status)) {
    outcome.exited = true;
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
  }
  return outcome;
}

bool wait_for_end(pid_t pid, std::optional<Clock::time_point> deadline, pid_t kill_target, int* status) {
  if (!deadline) {
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    return false;
  }
  for (;;) {
    pid_t waited = waitpid(pid, status, WNOHANG);
    if (waited == pid || (waited < 0 && errno != EINTR)) return false;
    if (Clock::now() > *deadline) {
      kill(kill_target, SIGKILL);
      while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
      }
      return true;
    }
    usleep(2000);
  }
}

}  // namespace cublasspy::process
