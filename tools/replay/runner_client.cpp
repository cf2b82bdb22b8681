#include "replay/runner_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "cli/shim_location.h"

extern char** environ;

namespace cublasspy::replay {
namespace {

constexpr const char* kRunnerName = "cublasspy-replay-runner";
constexpr size_t kStderrKept = 8192;

bool executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

bool is_shim(const std::string& entry) {
  auto slash = entry.rfind('/');
  return (slash == std::string::npos ? entry : entry.substr(slash + 1)) == "libcublasspy.so";
}

}  // namespace

const nlohmann::json* RunnerOutcome::event(const std::string& name) const {
  for (const nlohmann::json& e : events) {
    if (e.value("event", "") == name) return &e;
  }
  return nullptr;
}

std::optional<std::string> find_runner(std::vector<std::string>* looked) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("CUBLASSPY_REPLAY_RUNNER"); env && *env) candidates.emplace_back(env);
  const std::string dir = tools::executable_directory();
  if (!dir.empty()) {
    candidates.push_back(dir + "/" + kRunnerName);
    candidates.push_back(dir + "/../libexec/cublasspy/" + kRunnerName);
  }
  for (const std::string& c : candidates) {
    char real[PATH_MAX];
    if (realpath(c.c_str(), real) != nullptr && executable(real)) return std::string(real);
  }
  if (looked) *looked = candidates;
  return std::nullopt;
}

std::vector<std::string> runner_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) != 0) {
      env.push_back(entry);
      continue;
    }
    std::string kept, item;
    auto flush = [&] {
      if (!item.empty() && !is_shim(item)) kept += (kept.empty() ? "" : ":") + item;
      item.clear();
    };
    for (char ch : entry.substr(11)) {
      if (ch == ':' || ch == ' ') flush();
      else item += ch;
    }
    flush();
    if (!kept.empty()) env.push_back("LD_PRELOAD=" + kept);
  }
  return env;
}

RunnerOutcome run_runner(const std::string& runner, const std::string& plan_json, double timeout_s) {
  RunnerOutcome out;
  int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(exec_pipe, O_CLOEXEC) != 0) {
    out.start_error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  std::vector<std::string> env = runner_environment();
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string path = runner;
  char* argv[] = {path.data(), nullptr};

  const auto started = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    out.start_error = std::string("fork: ") + std::strerror(errno);
    return out;
  }
  if (pid == 0) {
    // Same process group as the tool: Ctrl-C at the terminal ends both.
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    execve(path.c_str(), argv, envp.data());
    int e = errno;
    ssize_t ignored = write(exec_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_errno = 0;
  if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    out.start_error = runner + ": " + std::strerror(exec_errno);
  } else {
    out.started = true;
  }
  close(exec_pipe[0]);

  // Feed the plan and drain both outputs together: neither side may block the other.
  struct sigaction ignore{}, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  size_t written = 0;
  int in_fd = in_pipe[1];
  fcntl(in_fd, F_SETFL, O_NONBLOCK);
  std::string stdout_text, stderr_text;
  bool out_open = true, err_open = true;
  const auto deadline = started + std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 1e9);
  while (out_open || err_open) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      out.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    int wait_ms = static_cast<int>(std::min<double>(
        1000, std::chrono::duration<double, std::milli>(deadline - now).count() + 1));
    pollfd fds[3];
    int n = 0;
    if (out_open) fds[n++] = {out_pipe[0], POLLIN, 0};
    if (err_open) fds[n++] = {err_pipe[0], POLLIN, 0};
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    if (poll(fds, static_cast<nfds_t>(n), wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        ssize_t w = write(in_fd, plan_json.data() + written, plan_json.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) written = plan_json.size();  // the runner is gone
        if (written == plan_json.size()) {
          close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      char buf[65536];
      ssize_t r = read(fds[i].fd, buf, sizeof buf);
      if (r <= 0) {
        if (fds[i].fd == out_pipe[0]) out_open = false;
        else err_open = false;
        continue;
      }
      (fds[i].fd == out_pipe[0] ? stdout_text : stderr_text).append(buf, static_cast<size_t>(r));
      if (stderr_text.size() > 4 * kStderrKept) stderr_text.erase(0, stderr_text.size() - kStderrKept);
    }
  }
  if (in_fd >= 0) close(in_fd);
  sigaction(SIGPIPE, &previous, nullptr);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (WIFEXITED(status)) {
    out.exited = true;
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  if (stderr_text.size() > kStderrKept) stderr_text.erase(0, stderr_text.size() - kStderrKept);
  out.stderr_text = stderr_text;

  // Events are the lines that parse as JSON objects with "event"; anything else a library
  // printed on stdout joins stderr's text.
  size_t start = 0;
  while (start < stdout_text.size()) {
    size_t end = stdout_text.find('\n', start);
    if (end == std::string::npos) end = stdout_text.size();
    std::string line = stdout_text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("event")) out.events.push_back(std::move(j));
    else out.stderr_text += line + "\n";
  }
  return out;
}

}  // namespace cublasspy::replay
