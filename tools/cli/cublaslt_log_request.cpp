#include "cli/cublaslt_log_request.h"

#include <glob.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

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

void remove_empty_cublaslt_logs(const std::string& log_template, time_t not_before) {
  // request_cublaslt_log's template: a directory without %, then the name with one %i.
  const size_t at = log_template.find("%i");
  if (log_template.empty() || at == std::string::npos) return;
  glob_t found{};
  if (glob(std::string(log_template).replace(at, 2, "*").c_str(), 0, nullptr, &found) != 0) return;
  const std::string prefix = log_template.substr(0, at), suffix = log_template.substr(at + 2);
  for (size_t i = 0; i < found.gl_pathc; ++i) {
    const std::string path = found.gl_pathv[i];
    const std::string digits = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0 || st.st_mtime < not_before) continue;
    // A process still running may yet write its log.
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;
    unlink(path.c_str());
  }
  globfree(&found);
}

}  // namespace cublasspy::tools
