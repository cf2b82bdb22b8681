#include "support/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "process/child.h"

extern char** environ;

namespace cublasspy::test_support {

namespace fs = std::filesystem;

Env operator+(Env a, const Env& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

std::string ProcessResult::describe() const {
  std::ostringstream s;
  if (timed_out) s << "timed out; ";
  if (signal) s << "killed by signal " << signal;
  else s << "exit " << exit_code;
  s << "\n--- stdout\n" << out << "--- stderr\n" << err;
  return s.str();
}

ScratchDir::ScratchDir() {
  std::string base = fs::temp_directory_path().string() + "/cublasspy-test-XXXXXX";
  if (mkdtemp(base.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = base;
}

ScratchDir::~ScratchDir() {
  // Tests make read-only directories; give the owner write access back so removal works.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) chmod(it->path().c_str(), 0700);
  }
  fs::remove_all(path_, ec);
}

std::vector<std::string> ScratchDir::files(const std::string& suffix) const {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(path_)) {
    std::string name = entry.path().string();
    if (!entry.is_regular_file() || entry.is_symlink()) continue;
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

ProcessOptions in_directory(const std::string& cwd) {
  ProcessOptions options;
  options.cwd = cwd;
  return options;
}

ProcessOptions isolated_in(const ScratchDir& dir, std::chrono::milliseconds limit) {
  ProcessOptions o;
  o.clean_environment = true;
  o.cwd = dir.path();
  o.capture_dir = dir.path();
  o.limit = limit;
  return o;
}

namespace {

bool inherited(const std::string& name) {
  if (name == "LD_PRELOAD" || name == "LD_LIBRARY_PATH") return false;
  for (const char* prefix : {"CUBLASSPY_", "STANDIN_", "CUDA_VISIBLE_DEVICES"}) {
    if (name.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

}  // namespace

RunningProcess start_process(const std::vector<std::string>& argv, const Env& env, const ProcessOptions& options) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    if (options.clean_environment && !inherited(entry.substr(0, eq))) continue;
    vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : env) {
    if (value) vars[name] = *value;
    else vars.erase(name);
  }
  std::vector<std::string> entries;
  for (const auto& [name, value] : vars) entries.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (std::string& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (std::string& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  // Output goes to files: nothing to drain while waiting, and the child sees no terminal.
  std::shared_ptr<ScratchDir> capture;
  std::string capture_dir = options.capture_dir;
  if (capture_dir.empty()) {
    capture = std::make_shared<ScratchDir>();
    capture_dir = capture->path();
  }
  static int counter = 0;
  std::string tag = std::to_string(getpid()) + "-" + std::to_string(++counter);
  std::string out_path = capture_dir + "/stdout-" + tag + ".txt";
  std::string err_path = capture_dir + "/stderr-" + tag + ".txt";
  const std::string& cwd = options.cwd;
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execvpe(args[0], args.data(), envp.data());
    _exit(127);
  }
  return RunningProcess(pid, out_path, err_path, options.limit, std::move(capture));
}

RunningProcess::RunningProcess(pid_t pid, std::string out_path, std::string err_path,
                               std::chrono::milliseconds limit, std::shared_ptr<ScratchDir> capture)
    : pid_(pid), out_path_(std::move(out_path)), err_path_(std::move(err_path)), limit_(limit),
      capture_(std::move(capture)) {}

RunningProcess::RunningProcess(RunningProcess&& o) noexcept
    : pid_(o.pid_), out_path_(std::move(o.out_path_)), err_path_(std::move(o.err_path_)), limit_(o.limit_),
      capture_(std::move(o.capture_)), reaped_(o.reaped_) {
  o.reaped_ = true;
}

RunningProcess::~RunningProcess() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  int status;
  process::wait_for_end(pid_, std::nullopt, pid_, &status);
}

void RunningProcess::kill(int sig) const { ::kill(pid_, sig); }

ProcessResult RunningProcess::wait() { return wait(limit_); }

ProcessResult RunningProcess::wait(std::chrono::milliseconds limit) {
  ProcessResult r;
  r.pid = pid_;
  if (reaped_) return r;
  int status = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (limit.count() > 0) deadline = std::chrono::steady_clock::now() + limit;
  r.timed_out = process::wait_for_end(pid_, deadline, pid_, &status);
  reaped_ = true;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(out_path_);
  r.err = read_file(err_path_);
  return r;
}

ProcessResult run_process(const std::vector<std::string>& argv, const Env& env, const ProcessOptions& options) {
  return start_process(argv, env, options).wait();
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace cublasspy::test_support
