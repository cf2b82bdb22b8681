#include "support/tool_tests.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

extern char** environ;

namespace cublasspy::tools::testing {

namespace fs = std::filesystem;

ProcessResult run_process(const std::vector<std::string>& argv, const EnvChanges& env, const std::string& cwd) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
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

  // Output goes to files: no pipe to drain while waiting, and nothing is a terminal.
  TempDir capture;
  std::string out_path = capture / "stdout", err_path = capture / "stderr";
  pid_t pid = fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execvpe(args[0], args.data(), envp.data());
    _exit(127);
  }
  ProcessResult r;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

TempDir::TempDir() {
  std::string base = fs::temp_directory_path().string() + "/cublasspy-tools-test-XXXXXX";
  char* made = mkdtemp(base.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<std::string> TempDir::files(const std::string& suffix) const {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(path_)) {
    std::string name = entry.path().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
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

bool standin_available() { return fs::exists(kStandinDir + "/libcublas.so.13"); }

EnvChanges on_standin() { return {{"LD_LIBRARY_PATH", kStandinDir}}; }

EnvChanges traced_into(const TempDir& dir) {
  return {{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", dir / "trace-%p.cbt"}, {"NO_COLOR", "1"}};
}

std::string trace_simple_gemm(const TempDir& dir, EnvChanges env) {
  EnvChanges all = traced_into(dir);
  for (const auto& [k, v] : env) all[k] = v;
  ProcessResult r = run_process({kSimpleGemm}, all);
  EXPECT_EQ(r.shell_status(), 0) << r.out << r.err;
  std::vector<std::string> traces = dir.files();
  if (traces.size() != 1) {
    ADD_FAILURE() << "expected one trace in " << dir.path() << ", found " << traces.size() << "\n" << r.err;
    return "";
  }
  return traces.front();
}

nlohmann::ordered_json report_json(const std::vector<std::string>& traces, bool all) {
  std::vector<std::string> argv{kTool, "report", "--json"};
  if (all) argv.push_back("--all");
  argv.insert(argv.end(), traces.begin(), traces.end());
  ProcessResult r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  try {
    return nlohmann::ordered_json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "report --json printed no JSON: " << e.what() << "\n" << r.out << r.err;
    return nlohmann::ordered_json::object();
  }
}

std::vector<nlohmann::ordered_json> calls_to(const nlohmann::ordered_json& trace, const std::string& function) {
  std::vector<nlohmann::ordered_json> out;
  if (!trace.contains("calls")) return out;
  for (const auto& c : trace["calls"]) {
    if (c.value("function", "") == function) out.push_back(c);
  }
  return out;
}

}  // namespace cublasspy::tools::testing
