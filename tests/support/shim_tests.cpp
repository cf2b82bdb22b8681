#include "support/shim_tests.h"

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

#include <gtest/gtest.h>

extern char** environ;

namespace cublasspy::integration {

namespace fs = std::filesystem;

std::string program(const std::string& name) { return kProgramDir + "/" + name; }

Env operator+(Env a, const Env& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

std::string ProgramResult::describe() const {
  std::ostringstream s;
  if (timed_out) s << "timed out; ";
  if (signal) s << "killed by signal " << signal;
  else s << "exit " << exit_code;
  s << "\n--- stdout\n" << out << "--- stderr\n" << err;
  return s.str();
}

ScratchDir::ScratchDir() {
  std::string base = fs::temp_directory_path().string() + "/cublasspy-integration-XXXXXX";
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

namespace {

bool inherited(const std::string& name) {
  if (name == "LD_PRELOAD" || name == "LD_LIBRARY_PATH") return false;
  for (const char* prefix : {"CUBLASSPY_", "STANDIN_", "CUDA_VISIBLE_DEVICES"}) {
    if (name.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

}  // namespace

RunningProgram start_program(const std::vector<std::string>& argv, const Env& env,
                             const ScratchDir& capture_dir) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string::npos && inherited(entry.substr(0, eq))) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
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
  static int counter = 0;
  std::string tag = std::to_string(getpid()) + "-" + std::to_string(++counter);
  std::string out_path = capture_dir / ("stdout-" + tag + ".txt");
  std::string err_path = capture_dir / ("stderr-" + tag + ".txt");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(capture_dir.path().c_str()) != 0) _exit(126);
    execvpe(args[0], args.data(), envp.data());
    _exit(127);
  }
  return RunningProgram(pid, out_path, err_path);
}

RunningProgram::RunningProgram(pid_t pid, std::string out_path, std::string err_path)
    : pid_(pid), out_path_(std::move(out_path)), err_path_(std::move(err_path)) {}

RunningProgram::RunningProgram(RunningProgram&& o) noexcept
    : pid_(o.pid_), out_path_(std::move(o.out_path_)), err_path_(std::move(o.err_path_)), reaped_(o.reaped_) {
  o.reaped_ = true;
}

RunningProgram::~RunningProgram() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void RunningProgram::kill(int sig) const { ::kill(pid_, sig); }

ProgramResult RunningProgram::wait(std::chrono::milliseconds limit) {
  ProgramResult r;
  r.pid = pid_;
  if (reaped_) return r;
  auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      r.timed_out = true;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reaped_ = true;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(out_path_);
  r.err = read_file(err_path_);
  return r;
}

ProgramResult run_program(const std::vector<std::string>& argv, const Env& env,
                          const ScratchDir& capture_dir, std::chrono::milliseconds limit) {
  return start_program(argv, env, capture_dir).wait(limit);
}

Env traced(const ScratchDir& dir) {
  return {{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", dir / "t-%p.cbt"}, {"TMPDIR", dir.path()}};
}

std::string trace_path(const ScratchDir& dir, pid_t pid) { return dir / ("t-" + std::to_string(pid) + ".cbt"); }

Env on_standin() { return {{"LD_LIBRARY_PATH", kStandinDir}}; }

bool standin_built() { return fs::exists(kStandinDir + "/libcublas.so.13"); }

std::optional<TraceFile> open_trace(const std::string& path) {
  std::string error;
  auto trace = TraceFile::open(path, error);
  if (!trace) ADD_FAILURE() << error;
  return trace;
}

std::vector<CallView> calls_of(const TraceFile& trace, const std::string& function) {
  std::vector<CallView> out;
  trace.for_each_call([&](const CallView& c) {
    if (function.empty() || function == c.function_name()) out.push_back(c);
  });
  return out;
}

int function_id(const TraceFile& trace, const std::string& function) {
  for (uint32_t i = 0; i < trace.function_count(); ++i) {
    if (function == trace.function(static_cast<uint16_t>(i)).name) return static_cast<int>(i);
  }
  return -1;
}

std::string text_arg(const CallView& call, const char* name) {
  if (call.function == nullptr) return "";
  uint16_t count = std::min<uint16_t>(call.function->arg_count, format::kMaxArgs);
  for (uint16_t i = 0; i < count; ++i) {
    if (std::strncmp(call.function->args[i].name, name, format::kArgNameBytes) != 0) continue;
    const char* text = reinterpret_cast<const char*>(&call.rec().args[i]);
    size_t room = (format::kMaxArgs - i) * 8;
    return std::string(text, strnlen(text, room));
  }
  return "";
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

}  // namespace cublasspy::integration
