// mixed-cuda-libraries: one process with two CUDA versions or two copies of a CUDA library, or
// loading them from another directory than LD_LIBRARY_PATH points at. From the field reports
// (docs/DIAGNOSES.md): conda's cudatoolkit next to the system CUDA, a cu121 wheel on an 11.8
// system, LD_LIBRARY_PATH hijacking the load (stale or wrong CUDA directories).
//
// Evidence: the CUDA libraries the process had loaded (the trace's library list and the paths
// its dlopen calls returned), loads that failed on a missing symbol or symbol version (two
// builds that do not fit together), and LD_LIBRARY_PATH. Files are compared on this machine
// only when the trace was made here.
#include <filesystem>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "machine/process_info.h"
#include "diagnose/advice.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

namespace fs = std::filesystem;

// "libcublas.so.13.1.0.3" -> {"libcublas", "13"}; "libcublasLt.so" -> {"libcublasLt", ""}.
struct LibraryName {
  std::string family;
  std::string major;
};

std::optional<LibraryName> cuda_library_name(const std::string& path) {
  static const char* const kFamilies[] = {"libcublasLt", "libcublas", "libcudart", "libcuda", "libnvidia-ml"};
  const std::string name = base_name(path);
  for (const char* family : kFamilies) {
    const std::string prefix = std::string(family) + ".so";
    if (name.rfind(prefix, 0) != 0) continue;
    LibraryName n{family, ""};
    if (name.size() > prefix.size() + 1 && name[prefix.size()] == '.') {
      std::string rest = name.substr(prefix.size() + 1);
      n.major = rest.substr(0, rest.find('.'));
    }
    return n;
  }
  return std::nullopt;
}

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

// Each CUDA library the process had loaded, with the call that loaded it when a dlopen did.
struct Loaded {
  std::string path;
  LibraryName name;
  std::optional<uint64_t> seq;
};

std::vector<Loaded> loaded_libraries(const TraceFacts& f, bool compare_files) {
  std::vector<Loaded> out;
  auto add = [&](const std::string& path, std::optional<uint64_t> seq) {
    if (path.empty() || path[0] != '/') return;
    auto name = cuda_library_name(path);
    if (!name) return;
    for (Loaded& l : out) {
      if (l.path == path || (compare_files && same_file(l.path, path))) {
        if (!l.seq) l.seq = seq;
        return;
      }
    }
    out.push_back({path, *name, seq});
  };
  for (const std::string& lib : f.libraries) add(lib, std::nullopt);
  for (const LibraryLoad& load : f.loads) {
    // A probe (RTLD_NOLOAD) finds a library already there: it names the path, not who loaded it.
    if (load.ok) add(load.result, load.probe() ? std::nullopt : std::optional<uint64_t>(load.seq));
  }
  return out;
}

// A load that failed because the library wants symbols another copy does not have.
bool symbol_mismatch(const LibraryLoad& load) {
  if (load.ok || load.probe() || !cuda_library_name(load.requested)) return false;
  return load.result.find("undefined symbol") != std::string::npos ||
         load.result.find("version `") != std::string::npos;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t colon = list.find(':', start);
    std::string dir = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) out.push_back(dir);
    if (colon == std::string::npos) return out;
    start = colon + 1;
  }
}

// "/usr/local/cuda-11.8/lib64" -> "11.8".
std::string cuda_version_in_path(const std::string& dir) {
  static const std::regex kVersioned(R"(cuda-?(\d+)\.(\d+))");
  std::smatch m;
  if (std::regex_search(dir, m, kVersioned)) return m[1].str() + "." + m[2].str();
  return "";
}

}  // namespace

void rule_mixed_libraries(RuleContext& ctx) {
  const std::string here = host_name();
  for (const TraceFacts& f : ctx.traces()) {
    const bool made_here = f.trace->process().get("host") == here;
    const std::vector<Loaded> loaded = loaded_libraries(f, made_here);
    std::vector<std::string> problems;
    Severity severity = Severity::kWarning;
    std::optional<uint64_t> call;

    // Two copies or two majors of one library.
    std::map<std::string, std::vector<const Loaded*>> by_family;
    for (const Loaded& l : loaded) by_family[l.name.family].push_back(&l);
    for (const auto& [family, copies] : by_family) {
      if (copies.size() < 2) continue;
      bool majors_differ = false;
      std::string listed;
      for (const Loaded* l : copies) {
        majors_differ = majors_differ || (l->name.major != copies.front()->name.major);
        listed += (listed.empty() ? "" : ", ") + l->path +
                  (l->seq ? fmt::format(" (dlopen, call #{})", *l->seq) : std::string());
        if (l->seq && !call) call = l->seq;
      }
      problems.push_back(fmt::format("{} {} of {} are loaded: {}.", copies.size(),
                                     majors_differ ? "different versions" : "copies", family, listed));
      severity = Severity::kError;
    }

    // Loads that failed on symbols: builds of different versions.
    for (const LibraryLoad& load : f.loads) {
      if (!symbol_mismatch(load)) continue;
      problems.push_back(fmt::format("dlopen(\"{}\") (call #{}) failed: {}: it was built for another "
                                     "version of the CUDA libraries already loaded.",
                                     load.requested, load.seq, load.result));
      severity = Severity::kError;
      if (!call) call = load.seq;
    }

    // LD_LIBRARY_PATH: a directory that holds the library the process loaded from elsewhere,
    // or that names another CUDA version than the one loaded.
    const std::vector<std::string> dirs = split_path_list(f.env_value("LD_LIBRARY_PATH").value_or(""));
    std::string loaded_version;
    for (const Loaded& l : loaded) {
      if ((l.name.family == "libcudart" || l.name.family == "libcublas") && !l.name.major.empty()) loaded_version = l.name.major;
      if (!made_here || l.name.family == "libcuda") continue;  // the driver is not a toolkit library
      for (const std::string& dir : dirs) {
        const std::string candidate = dir + "/" + base_name(l.path);
        std::error_code ec;
        if (!fs::exists(candidate, ec)) continue;
        if (!same_file(candidate, l.path) && directory_of(l.path) != dir) {
          problems.push_back(fmt::format("{} was loaded from {} although LD_LIBRARY_PATH lists {} "
                                         "first, which holds another {} (an RPATH, a full path or an "
                                         "earlier load took precedence).",
                                         base_name(l.path), directory_of(l.path), dir, base_name(l.path)));
        }
        break;
      }
    }
    if (!loaded_version.empty()) {
      for (const std::string& dir : dirs) {
        std::string v = cuda_version_in_path(dir);
        if (!v.empty() && v.substr(0, v.find('.')) != loaded_version) {
          problems.push_back(fmt::format("LD_LIBRARY_PATH lists {} (CUDA {}) while the process loaded "
                                         "CUDA {} libraries.", dir, v, loaded_version));
        }
      }
    }
    if (problems.empty()) continue;

    Diagnosis d = finding(ids::kMixedCudaLibraries, severity, f);
    d.call = call;
    d.summary = severity == Severity::kError
                    ? "the process loaded CUDA libraries of different versions or builds"
                    : "LD_LIBRARY_PATH points at other CUDA libraries than the process loaded";
    for (const std::string& p : problems) d.evidence += (d.evidence.empty() ? "" : " ") + p;
    d.advice = kMixedLibrariesAdvice;
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
