#include "cli/trace_discovery.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <glob.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace_format.h"
#include "trace/trace_writer.h"

namespace cublasspy::tools {
namespace {

std::string glob_escape(char c) {
  if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') return std::string("\\") + c;
  return std::string(1, c);
}

// The template with each %-field turned into '*' and everything else matched literally.
std::string template_glob(const std::string& tmpl) {
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '%' && i + 1 < tmpl.size()) {
      char k = tmpl[++i];
      if (k == 'p' || k == 'h' || k == 'r' || k == 't') out += '*';
      else if (k == '%') out += '%';
      else out += "%" + glob_escape(k);  // kept as written by the shim (path_template.cpp)
      continue;
    }
    out += glob_escape(tmpl[i]);
  }
  return out;
}


// True when the trace's process section (read raw, so even a damaged file qualifies) records
// the environment entry `needle`.
bool carries(const std::string& path, const std::string& needle) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  std::string head(format::kHeaderBytes + format::kProcessSectionBytes, '\0');
  ssize_t got = 0, n;
  while (got < static_cast<ssize_t>(head.size()) && (n = ::read(fd, head.data() + got, head.size() - got)) > 0) got += n;
  ::close(fd);
  head.resize(static_cast<size_t>(std::max<ssize_t>(got, 0)));
  if (head.size() < sizeof format::kMagic || std::memcmp(head.data(), format::kMagic, sizeof format::kMagic) != 0) {
    return false;
  }
  return head.find(needle) != std::string::npos;
}

}  // namespace

std::string make_run_id() {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch()).count();
  return std::to_string(getpid()) + "-" + std::to_string(ns);
}

std::string absolute_template(const std::string& tmpl, const std::string& cwd) {
  if (!tmpl.empty() && tmpl.front() == '/') return tmpl;
  return cwd + "/" + tmpl;
}

std::vector<std::string> trace_globs(const std::string& tmpl) {
  std::vector<std::string> bases{template_glob(tmpl)};
  // The writer's fallback when the directory cannot be written.
  if (std::string fallback = fallback_trace_path(tmpl); !fallback.empty()) {
    bases.push_back(template_glob(fallback));
  }
  std::vector<std::string> out;
  for (const std::string& b : bases) {
    out.push_back(b);
    out.push_back(b + ".[0-9]*");  // path.1, path.2, ... when the name was taken
  }
  return out;
}

std::vector<std::string> find_run_traces(const std::string& tmpl, const std::string& run_id, time_t not_before) {
  std::set<std::string> found;
  const std::string needle = std::string(kRunIdVariable) + "=" + run_id + '\0';
  for (const std::string& pattern : trace_globs(tmpl)) {
    glob_t g{};
    if (glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string path = g.gl_pathv[i];
        struct stat st;
        // Older files cannot be this run's: skip them without reading (the previous runs'
        // traces of a busy directory). One second of slack for coarse timestamps.
        if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime + 1 < not_before) continue;
        if (carries(path, needle)) found.insert(path);
      }
    }
    globfree(&g);
  }
  return {found.begin(), found.end()};
}

}  // namespace cublasspy::tools
