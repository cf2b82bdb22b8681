#include "diagnose/load_failure.h"

#include <fmt/format.h>

#include "common/diagnosis_ids.h"

namespace cublasspy::diagnoses {
namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// "libcublasLt.so.12" -> "libcublasLt"; "" when it is no versioned soname.
std::string family_of(const std::string& soname) {
  const size_t so = soname.find(".so.");
  return so == std::string::npos ? "" : soname.substr(0, so);
}

std::string soname_of(const std::string& path) {
  const std::string name = file_name(path);
  const size_t so = name.find(".so.");
  if (so == std::string::npos) return name;
  const size_t major_end = name.find('.', so + 4);
  return major_end == std::string::npos ? name : name.substr(0, major_end);
}

bool is_cuda_soname(const std::string& s) {
  return s.rfind("lib", 0) == 0 && s.find(".so.") != std::string::npos && names_cuda_library(s.c_str());
}

std::string describe(const LibraryCopy& c) {
  return fmt::format("{} (version {}, {})", c.path, c.version.empty() ? "unknown" : c.version, c.origin);
}

// The setting that put a copy where the loader finds it first.
std::string setting_of(const LibraryCopy& c, const std::optional<std::string>& ld_library_path) {
  if (c.via == "LD_LIBRARY_PATH") {
    if (ld_library_path && ld_library_path->find(':') == std::string::npos) return "LD_LIBRARY_PATH=" + *ld_library_path;
    return fmt::format("LD_LIBRARY_PATH (its entry {}{})", directory_of(c.path),
                       ld_library_path ? ", of LD_LIBRARY_PATH=" + *ld_library_path : std::string());
  }
  if (c.via == "ld.so.cache") return "the ld.so cache (a directory of /etc/ld.so.conf or /etc/ld.so.conf.d)";
  if (c.via == "loaded") return "an earlier load (it was already loaded into the process)";
  if (c.via == "default") return "the loader's default directories";
  return c.via;
}

}  // namespace

std::optional<LoadError> parse_load_error(const std::string& text) {
  LoadError e;
  static const std::string kUndefined = ": undefined symbol: ";
  static const std::string kVersion = ": version `";
  if (const size_t at = text.find(kUndefined); at != std::string::npos) {
    e.object = text.substr(0, at);
    // "ImportError: /usr/lib/.../libcublas.so.12": the exception's name before the loader's text.
    if (const size_t colon = e.object.rfind(": "); colon != std::string::npos) e.object = e.object.substr(colon + 2);
    std::string rest = text.substr(at + kUndefined.size());
    const size_t comma = rest.find(", version ");
    e.symbol = rest.substr(0, comma);
    if (comma != std::string::npos) e.provider = rest.substr(comma + 10);
    while (!e.provider.empty() && (e.provider.back() == '\n' || e.provider.back() == ' ')) e.provider.pop_back();
    // Without a version the symbol's library is not named: libcublas's come from libcublasLt.
    if (e.provider.empty() && family_of(soname_of(e.object)) == "libcublas") {
      e.provider = "libcublasLt.so." + soname_of(e.object).substr(std::string("libcublas.so.").size());
    }
  } else if (const size_t v = text.find(kVersion); v != std::string::npos) {
    // "/x/libcublasLt.so.12: version `libcublasLt.so.12' not found (required by /y/libcublas.so.12)"
    e.provider_path = text.substr(0, v);
    if (const size_t colon = e.provider_path.rfind(": "); colon != std::string::npos) {
      e.provider_path = e.provider_path.substr(colon + 2);
    }
    const size_t quote = text.find('\'', v + kVersion.size());
    const size_t by = text.find("(required by ", v);
    if (quote == std::string::npos || by == std::string::npos) return std::nullopt;
    e.provider = text.substr(v + kVersion.size(), quote - v - kVersion.size());
    if (!is_cuda_soname(e.provider)) e.provider = soname_of(e.provider_path);
    const size_t close = text.find(')', by);
    e.object = text.substr(by + 13, close == std::string::npos ? std::string::npos : close - by - 13);
  } else {
    return std::nullopt;
  }
  if (!is_cuda_soname(e.provider) || e.object.empty()) return std::nullopt;
  return e;
}

std::optional<Diagnosis> load_failure_finding(const std::string& what, const std::string& text,
                                              const std::vector<LibraryCopy>& copies,
                                              const std::optional<std::string>& ld_library_path) {
  const std::optional<LoadError> e = parse_load_error(text);
  if (!e) return std::nullopt;
  std::vector<const LibraryCopy*> providers;
  const LibraryCopy* object = nullptr;
  for (const LibraryCopy& c : copies) {
    if (c.soname == e->provider) providers.push_back(&c);
    if (object == nullptr && c.soname == soname_of(e->object) && directory_of(c.path) == directory_of(e->object)) object = &c;
  }
  // The copy the loader took: the one the error names, else the first in the loader's order.
  const LibraryCopy* taken = providers.empty() ? nullptr : providers.front();
  for (const LibraryCopy* c : providers) {
    if (!e->provider_path.empty() && c->path == e->provider_path) taken = c;
  }
  // The library's own: the copy beside it, else another release's copy further down the path.
  const LibraryCopy* own = nullptr;
  for (const LibraryCopy* c : providers) {
    if (c != taken && directory_of(c->path) == directory_of(e->object)) own = c;
  }
  const bool lt = family_of(soname_of(e->object)) == "libcublas" && family_of(e->provider) == "libcublasLt";

  Diagnosis d;
  d.id = lt ? ids::kCublasLtMismatch : ids::kMixedCudaLibraries;
  d.severity = Severity::kError;
  const std::string needs = e->symbol.empty() ? fmt::format("the symbol version {}", e->provider)
                                              : fmt::format("{} (version {})", e->symbol, e->provider);
  const std::string object_name = file_name(e->object);
  if (taken != nullptr && own != nullptr) {
    d.summary = fmt::format("{} could not load: the {} found first ({}, in {}) is another copy{} and lacks {}",
                            object_name, e->provider, taken->version.empty() ? "version unknown" : taken->version,
                            directory_of(taken->path),
                            !taken->version.empty() && !own->version.empty() && taken->version != own->version
                                ? fmt::format(" than its own {}", own->version)
                                : std::string(),
                            e->symbol.empty() ? e->provider : e->symbol);
  } else {
    d.summary = fmt::format("{} could not load: the {} the loader found lacks {}", object_name, e->provider,
                            e->symbol.empty() ? e->provider : e->symbol);
  }
  d.evidence = fmt::format("{}: {}.", what, text);
  if (object != nullptr) d.evidence += fmt::format(" {} is {}.", object_name, describe(*object));
  if (taken != nullptr) {
    d.evidence += fmt::format(" The loader takes {} from {}, put first by {}; it lacks {}.", e->provider, describe(*taken),
                              setting_of(*taken, ld_library_path), needs);
  }
  if (own != nullptr) {
    d.evidence += fmt::format(" The {} beside {} is {}, found through {}.", e->provider, object_name, describe(*own),
                              setting_of(*own, ld_library_path));
  } else if (providers.size() > 1) {
    d.evidence += " Other copies:";
    for (const LibraryCopy* c : providers) {
      if (c != taken) d.evidence += " " + describe(*c) + " (" + c->via + ")";
    }
    d.evidence += ".";
  }
  const std::string odd_dir = taken != nullptr ? directory_of(taken->path) : std::string("the odd directory");
  if (taken != nullptr && taken->via == "LD_LIBRARY_PATH") {
    d.advice = fmt::format("{} loads {} by name, so the first one on the loader's path wins: take {} out of "
                           "LD_LIBRARY_PATH (check with `LD_LIBRARY_PATH= python -c 'import torch'`), or put "
                           "the same release of {} there. ",
                           object_name, e->provider, odd_dir, family_of(soname_of(e->object)));
  } else {
    d.advice = fmt::format("{} loads {} by name, so the first one on the loader's path wins: remove or replace "
                           "the copy in {}, or install one release of both. ",
                           object_name, e->provider, odd_dir);
  }
  d.advice += "Keep one CUDA source (pip's nvidia-* wheels, conda, or the system's), with libcublas and "
              "libcublasLt of one release (`pip install nvidia-cublas-cu12==<the version torch was built "
              "with>`); `ldd " + e->object + "` shows which copy it takes.";
  return d;
}

}  // namespace cublasspy::diagnoses
