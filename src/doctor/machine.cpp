#include "doctor/machine.h"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace cublasspy::doctor {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(sep, start);
    std::string part = text.substr(start, at == std::string::npos ? std::string::npos : at - start);
    if (!part.empty()) out.push_back(part);
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// /etc/ld.so.conf: one directory per line, "include GLOB" lines, '#' comments.
void read_ld_conf(const MachineView& m, const std::string& file, std::vector<std::string>& dirs, int depth) {
  if (depth > 4) return;
  auto text = m.read_file(file);
  if (!text) return;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.rfind("include", 0) == 0) {
      std::string pattern = trim(line.substr(7));
      if (!pattern.empty() && pattern[0] != '/') pattern = fs::path(file).parent_path().string() + "/" + pattern;
      glob_t g{};
      if (glob(m.at(pattern).c_str(), 0, nullptr, &g) == 0) {
        std::vector<std::string> found(g.gl_pathv, g.gl_pathv + g.gl_pathc);
        std::sort(found.begin(), found.end());
        for (const std::string& f : found) {
          // Back from under the root to the machine's own path.
          std::string own = m.root == "/" ? f : f.substr(m.at("/").size() - 1);
          read_ld_conf(m, own, dirs, depth + 1);
        }
      }
      globfree(&g);
      continue;
    }
    for (const std::string& dir : split(line, ' ')) dirs.push_back(dir);
  }
}

}  // namespace

std::string MachineView::at(const std::string& path) const {
  if (root.empty() || root == "/") return path;
  std::string base = root.back() == '/' ? root.substr(0, root.size() - 1) : root;
  return base + path;
}

std::optional<std::string> MachineView::var(const std::string& name) const {
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> MachineView::read_file(const std::string& path, size_t limit) const {
  std::ifstream in(at(path), std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

bool MachineView::exists(const std::string& path) const {
  std::error_code ec;
  return fs::exists(at(path), ec);
}

std::vector<std::string> MachineView::list_dir(const std::string& path) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(at(path), ec)) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

MachineView this_machine() {
  MachineView m;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string::npos) m.env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  m.probe_driver = [] { return probe_driver_in_child(); };
  return m;
}

std::vector<SearchDirectory> library_search_path(const MachineView& m) {
  std::vector<SearchDirectory> out;
  auto add = [&](const std::string& dir, const char* source) {
    if (dir.empty()) return;
    for (const SearchDirectory& d : out) {
      if (d.path == dir) return;
    }
    std::error_code ec;
    out.push_back({dir, source, fs::is_directory(m.at(dir), ec)});
  };
  for (const std::string& dir : split(m.var("LD_LIBRARY_PATH").value_or(""), ':')) add(dir, "LD_LIBRARY_PATH");
  std::vector<std::string> conf;
  read_ld_conf(m, "/etc/ld.so.conf", conf, 0);
  for (const std::string& dir : conf) add(dir, "ld.so.conf");
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    add(dir, "default");
  }
  return out;
}

}  // namespace cublasspy::doctor
