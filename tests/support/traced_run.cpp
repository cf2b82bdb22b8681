#include "support/traced_run.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "process/child.h"

extern char** environ;

namespace cublasspy::test {
namespace {

namespace fs = std::filesystem;

// Variables that would change what a run does: only the test decides them.
bool inherited(const std::string& entry) {
  for (const char* prefix : {"CUBLASSPY_", "STANDIN_", "CUDA_", "LD_PRELOAD=", "LD_LIBRARY_PATH=", "NVIDIA_", "PYTORCH_"}) {
    if (entry.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

std::string make_directory() {
  std::string templ = (fs::temp_directory_path() / "cbs-diag-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) return "";
  return templ;
}

// Removes the run's directory when the last copy of the run is gone (CBS_KEEP_TRACES=1 keeps it).
struct DirectoryRemover {
  std::string dir;
  ~DirectoryRemover() {
    std::error_code ec;
    if (!dir.empty() && std::getenv("CBS_KEEP_TRACES") == nullptr) fs::remove_all(dir, ec);
  }
};

std::vector<std::string> traces_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".cbt") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string shim_path() { return CBS_TEST_SHIM; }
std::string standin_dir() { return CBS_TEST_STANDIN_DIR; }
std::string program_path(const std::string& name) { return std::string(CBS_TEST_PROGRAMS_DIR) + "/" + name; }
std::string cuda_libdir() { return CBS_TEST_CUDA_LIBDIR; }

std::vector<const TraceFile*> TracedRun::pointers() const {
  std::vector<const TraceFile*> out;
  for (const TraceFile& t : opened) out.push_back(&t);
  return out;
}

std::vector<Diagnosis> TracedRun::diagnose() const { return cublasspy::diagnose(pointers()); }

TracedRun run_traced(const std::string& program, const RunOptions& o) {
  TracedRun run;
  run.dir = make_directory();
  run.cleanup = std::shared_ptr<DirectoryRemover>(new DirectoryRemover{run.dir});  // no temporary to destroy
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    if (inherited(*e)) env.emplace_back(*e);
  }
  env.push_back("CUBLASSPY_TRACE=" + run.dir + "/t-%p.cbt");
  env.push_back("CUBLASSPY_LOG=off");
  // The tests read the traces of clean runs too; a test of the keep policy sets its own.
  if (!o.env.count("CUBLASSPY_KEEP")) env.push_back("CUBLASSPY_KEEP=always");
  if (o.preload_shim) env.push_back("LD_PRELOAD=" + shim_path());
  if (!o.machine_root.empty()) {
    env.push_back("CUBLASSPY_MACHINE_ROOT=" + o.machine_root);
  } else if (o.stack == Stack::kStandin && !o.env.count("CUBLASSPY_MACHINE_ROOT")) {
    env.push_back("CUBLASSPY_MACHINE_ROOT=" + write_healthy_machine(run.dir + "/machine"));
  }
  std::string library_path = o.stack == Stack::kStandin ? standin_dir() : "";
  for (const auto& [k, v] : o.env) {
    if (k == "LD_LIBRARY_PATH") {
      library_path = library_path.empty() ? v : v + ":" + library_path;
      continue;
    }
    env.push_back(k + "=" + v);
  }
  if (!library_path.empty()) env.push_back("LD_LIBRARY_PATH=" + library_path);

  std::vector<std::string> argv_text{program};
  argv_text.insert(argv_text.end(), o.args.begin(), o.args.end());
  std::vector<char*> argv, envp;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  const std::string output_file = run.dir + "/output.txt";
  pid_t pid = fork();
  if (pid == 0) {
    int fd = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    if (chdir(run.dir.c_str()) != 0) _exit(126);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  run.pid = pid;
  if (o.while_running) o.while_running(pid, run.dir);

  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  if (process::wait_for_end(pid, deadline, pid, &status)) run.output += "[test: killed after the time limit]\n";
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  // Children of the program (forked workers) may still be writing: give them a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  std::ifstream out(output_file);
  std::stringstream text;
  text << out.rdbuf();
  run.output += text.str();
  run.traces = traces_in(run.dir);
  for (const std::string& path : run.traces) {
    std::string error;
    if (auto t = TraceFile::open(path, error)) {
      run.opened.push_back(std::move(*t));
    } else {
      run.errors.push_back(error);
    }
  }
  return run;
}

std::vector<const Diagnosis*> with_id(const std::vector<Diagnosis>& found, const std::string& id) {
  std::vector<const Diagnosis*> out;
  for (const Diagnosis& d : found) {
    if (d.id == id) out.push_back(&d);
  }
  return out;
}

bool has_id(const std::vector<Diagnosis>& found, const std::string& id) { return !with_id(found, id).empty(); }

std::string ids_of(const std::vector<Diagnosis>& found) {
  std::string out;
  for (const Diagnosis& d : found) out += (out.empty() ? "" : ", ") + d.id;
  return out.empty() ? "(none)" : out;
}

bool driver_installed() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;
  dlclose(lib);
  return true;
}

bool wait_for_trace(const std::string& dir, const std::function<bool(const TraceFile&)>& predicate, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    for (const std::string& path : traces_in(dir)) {
      std::string error;
      if (auto t = TraceFile::open(path, error); t && predicate(*t)) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string write_healthy_machine(const std::string& root) {
  // The stand-in's healthy machine (standin/healthy-machine), copied: tests add to it.
  namespace fs = std::filesystem;
  fs::create_directories(root);
  fs::copy(CUBLASSPY_HEALTHY_MACHINE, root, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) ::chmod(e.path().c_str(), 0666);
  }
  return root;
}

TracedRun run_workload(std::map<std::string, std::string> env, std::vector<std::string> args) {
  RunOptions o;
  o.env = std::move(env);
  o.args = std::move(args);
  return run_traced(program_path("diag_workload"), o);
}

}  // namespace cublasspy::test
