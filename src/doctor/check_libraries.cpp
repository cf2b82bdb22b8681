// The CUDA libraries a program would find: every libcudart / libcublas / libcublasLt / libcuda
// on the loader's search path (LD_LIBRARY_PATH, ld.so.conf, the defaults), which CUDA major
// each one is, and where LD_LIBRARY_PATH brings in another version, names a directory that no
// longer exists, or puts the toolkit's stub driver first: the "CUDA unknown error" report's stale
// LD_LIBRARY_PATH hijacking the load (found with ldd / strace) and the NOT_INITIALIZED report's
// conda cudatoolkit next to the system CUDA (docs/DIAGNOSES.md).
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "doctor/doctor.h"

namespace cublasspy::doctor {
namespace {

namespace fs = std::filesystem;

// "libcublas.so.13.1.0.3" -> family "libcublas", major "13"; unversioned names are skipped:
// they are the toolkit's link-time symlinks, not what a program loads (except the stub).
bool classify(const std::string& name, LibraryFile& out) {
  static const char* const kFamilies[] = {"libcublasLt", "libcublas", "libcudart", "libcuda"};
  for (const char* family : kFamilies) {
    const std::string prefix = std::string(family) + ".so.";
    if (name.rfind(prefix, 0) != 0) continue;
    out.family = family;
    std::string rest = name.substr(prefix.size());
    out.major = rest.substr(0, rest.find('.'));
    return !out.major.empty() && std::isdigit(static_cast<unsigned char>(out.major[0]));
  }
  return false;
}

std::string canonical(const MachineView& m, const std::string& path) {
  std::error_code ec;
  fs::path c = fs::canonical(m.at(path), ec);
  return ec ? path : c.string();
}

// libcuda.so.1 links to libcuda.so.<release>: "535.104.05" (or "" for a plain name).
std::string release_of(const std::string& real_path) {
  std::string name = fs::path(real_path).filename().string();
  const std::string prefix = "libcuda.so.";
  if (name.rfind(prefix, 0) != 0) return "";
  std::string release = name.substr(prefix.size());
  return release == "1" ? "" : release;
}

}  // namespace

int major_number(const std::string& major) {
  if (major.empty() || major.size() > 4) return 0;
  int n = 0;
  for (char c : major) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::string driver_release_of(const std::string& path) {
  std::error_code ec;
  fs::path c = fs::canonical(path, ec);
  return release_of(ec ? path : c.string());
}

std::vector<CheckResult> check_libraries(const MachineView& m, LibraryFacts& out) {
  out.search_path = library_search_path(m);
  std::vector<std::string> seen_files;  // canonical paths already listed
  for (const SearchDirectory& dir : out.search_path) {
    if (!dir.exists) {
      if (dir.source == std::string("LD_LIBRARY_PATH")) out.missing_ld_dirs.push_back(dir.path);
      continue;
    }
    for (const std::string& name : m.list_dir(dir.path)) {
      const std::string path = dir.path + "/" + name;
      if (name == "libcuda.so" && (dir.path.find("/stubs") != std::string::npos)) {
        out.stub_dirs.push_back(dir.path);
        continue;
      }
      LibraryFile file;
      if (!classify(name, file)) continue;
      const std::string real = canonical(m, path);
      if (std::find(seen_files.begin(), seen_files.end(), real) != seen_files.end()) continue;
      seen_files.push_back(real);
      file.path = path;
      file.source = dir.source;
      if (file.family == "libcuda" && out.driver_file.empty() && name == "libcuda.so.1") {
        out.driver_file = path;
        out.driver_release = release_of(real);
      }
      if (file.family == "libcuda" && real.find("/stubs/") != std::string::npos &&
          std::find(out.stub_dirs.begin(), out.stub_dirs.end(), dir.path) == out.stub_dirs.end()) {
        out.stub_dirs.push_back(dir.path);
      }
      out.files.push_back(file);
    }
  }

  std::vector<CheckResult> lines;
  CheckResult ld{"LD_LIBRARY_PATH", CheckStatus::kOk, ""};
  auto value = m.var("LD_LIBRARY_PATH");
  if (!value || value->empty()) {
    ld.status = CheckStatus::kInfo;
    ld.detail = "unset";
  } else {
    ld.detail = *value;
    if (!out.missing_ld_dirs.empty()) {
      ld.status = CheckStatus::kWarning;
      ld.detail += fmt::format(" (missing: {})", fmt::join(out.missing_ld_dirs, ", "));
    }
  }
  if (!out.stub_dirs.empty()) {
    ld.status = CheckStatus::kProblem;
    ld.detail += fmt::format("; the toolkit's stub libcuda is on the search path in {}", fmt::join(out.stub_dirs, ", "));
  }
  lines.push_back(ld);

  for (const char* family : {"libcudart", "libcublas", "libcublasLt"}) {
    std::vector<const LibraryFile*> copies;
    for (const LibraryFile& f : out.files) {
      if (f.family == family) copies.push_back(&f);
    }
    CheckResult r{family, CheckStatus::kOk, ""};
    if (copies.empty()) {
      r.status = CheckStatus::kInfo;
      r.detail = "none on the library search path (programs that ship their own still work)";
    } else {
      std::vector<std::string> listed;
      bool majors_differ = false;
      for (const LibraryFile* c : copies) {
        listed.push_back(fmt::format("{} ({})", c->path, c->source));
        majors_differ = majors_differ || c->major != copies.front()->major;
      }
      r.detail = fmt::to_string(fmt::join(listed, ", "));
      if (copies.size() > 1) {
        r.status = CheckStatus::kWarning;
        r.detail = fmt::format("{} copies{}: {}; a program gets the first unless it carries its own path",
                               copies.size(), majors_differ ? " of different CUDA versions" : "", r.detail);
      }
    }
    lines.push_back(r);
  }
  return lines;
}

}  // namespace cublasspy::doctor
