#include "cli/cublaslt_log_request.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "diagnose/cublaslt_log.h"

namespace cublasspy::tools {
namespace {

bool set_in(const std::vector<std::string>& env, const std::string& name) {
  const std::string prefix = name + "=";
  for (const std::string& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

}  // namespace

std::string request_cublaslt_log(std::vector<std::string>& env, const std::string& trace_template) {
  using namespace diagnoses;
  for (const char* name : {kCublasLtLogLevel, kCublasLtLogMask, kCublasLtLogFile}) {
    if (set_in(env, name)) return {};
  }
  const size_t slash = trace_template.rfind('/');
  if (slash == std::string::npos) return {};
  const std::string directory = trace_template.substr(0, slash + 1);
  if (directory.find('%') != std::string::npos) return {};
  const std::string file = directory + kRunLogName;
  env.push_back(std::string(kCublasLtLogMask) + "=" + kRunLogMask);
  env.push_back(std::string(kCublasLtLogFile) + "=" + file);
  return file;
}

void remove_empty_cublaslt_logs(const std::string& log_template, const std::vector<long long>& pids) {
  if (log_template.empty()) return;
  for (long long pid : pids) {
    const std::string path = diagnoses::cublaslt_log_path(log_template, pid);
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) unlink(path.c_str());
  }
}

}  // namespace cublasspy::tools
