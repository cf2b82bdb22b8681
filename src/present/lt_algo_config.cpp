#include "present/lt_algo_config.h"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "common/cuda_names.h"
#include "trace/trace_reader.h"

namespace cublasspy {
namespace {

// cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t*, attr, void*, size_t, size_t*),
// spelled without the CUDA headers: the reader builds without a toolkit. The algorithm is
// 64 bytes (cublasLt.h: uint64_t data[8]); the statuses are cublasStatus_t (0: success).
using GetAttribute = int (*)(const void* algo, int attr, void* buf, size_t size, size_t* written);

// cublasLtMatmulAlgoConfigAttributes_t (cublasLt.h), stable since CUDA 11.
enum : int {
  kId = 0, kTileId = 1, kSplitkNum = 2, kReductionScheme = 3, kCtaSwizzling = 4, kCustomOption = 5,
  kStagesId = 6, kInnerShapeId = 7, kClusterShapeId = 8,
};

struct Library {
  void* handle = nullptr;
  GetAttribute get = nullptr;
  std::string error;
};

struct State {
  bool enabled = false;
  std::string preferred;
  std::string only;  // the user's choice: the one library asked, no fallback
  std::map<std::string, Library> opened;  // by the name it was opened as
  std::string used;                       // the one the last decode asked
  std::string error;
  uint64_t undecoded = 0;  // algorithms no library could read
};

State& state() {
  static State s;
  return s;
}

Library& open_library(const std::string& name) {
  auto [it, fresh] = state().opened.try_emplace(name);
  Library& lib = it->second;
  if (!fresh) return lib;
  lib.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib.handle == nullptr) {
    const char* e = dlerror();
    lib.error = e != nullptr ? e : "dlopen failed";
    return lib;
  }
  lib.get = reinterpret_cast<GetAttribute>(dlsym(lib.handle, "cublasLtMatmulAlgoConfigGetAttribute"));
  if (lib.get == nullptr) lib.error = name + " has no cublasLtMatmulAlgoConfigGetAttribute";
  return lib;
}

// The preferred library, else the default sonames; nullptr (and state().error) when none loads.
const Library* library() {
  State& s = state();
  std::string errors;
  const std::vector<std::string> candidates =
      s.only.empty() ? std::vector<std::string>{s.preferred, "libcublasLt.so.13", "libcublasLt.so.12"}
                     : std::vector<std::string>{s.only};
  for (const std::string& name : candidates) {
    if (name.empty()) continue;
    const Library& lib = open_library(name);
    if (lib.get != nullptr) {
      s.used = name;
      s.error.clear();
      return &lib;
    }
    errors += (errors.empty() ? "" : "; ") + lib.error;
  }
  s.used.clear();
  s.error = errors;
  return nullptr;
}

// One attribute, whatever its width (uint16_t shapes, uint32_t ids, int32_t split-K): the
// library says the width when asked with size 0; a library that does not is asked at 4, 2, 8.
std::optional<int64_t> attribute(const Library& lib, const void* algo, int attr, bool is_signed) {
  size_t widths[4] = {0, 4, 2, 8};
  size_t count = 4;
  size_t written = 0;
  unsigned char probe[8];
  if (lib.get(algo, attr, probe, 0, &written) == 0 && written > 0 && written <= 8) {
    widths[0] = written;
    count = 1;
  } else {
    for (size_t i = 0; i + 1 < 4; ++i) widths[i] = widths[i + 1];
    count = 3;
  }
  for (size_t i = 0; i < count; ++i) {
    unsigned char buf[8] = {};
    written = 0;
    if (lib.get(algo, attr, buf, widths[i], &written) != 0) continue;
    switch (widths[i]) {
      case 2: { uint16_t v; std::memcpy(&v, buf, 2); return is_signed ? int64_t{static_cast<int16_t>(v)} : int64_t{v}; }
      case 4: { uint32_t v; std::memcpy(&v, buf, 4); return is_signed ? int64_t{static_cast<int32_t>(v)} : int64_t{v}; }
      case 8: { int64_t v; std::memcpy(&v, buf, 8); return v; }
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

// Whose library decoded: the user's, the traced program's own, or this machine's in its stead.
std::string decoded_by() {
  const State& s = state();
  if (!s.only.empty()) return s.used + " (named with --cublaslt)";
  if (!s.preferred.empty() && s.used == s.preferred) return s.used + " (the traced program's)";
  return s.used + " (this machine's; " +
         (s.preferred.empty() ? std::string("the trace names no libcublasLt of the traced program")
                              : "the traced program's " + s.preferred + " could not be loaded") +
         ")";
}

// The attributes whose values no cuBLASLt gives: an enum no toolkit names (every release's
// names are in cuda_names.inc), an id or a split count outside the ints cuBLASLt hands out.
std::vector<const char*> out_of_range(const LtAlgoConfig& c) {
  std::vector<const char*> out;
  auto named = [&](const char* what, const std::optional<int64_t>& v, NameSet set) {
    if (v && cuda_name(set, *v) == nullptr) out.push_back(what);
  };
  if (c.id && (*c.id < 0 || *c.id > 0xffff)) out.push_back("id");
  named("tile", c.tile, NameSet::kLtMatmulTile);
  named("stages", c.stages, NameSet::kLtMatmulStages);
  if (c.splitk_num && (*c.splitk_num < 0 || *c.splitk_num > 0xffff)) out.push_back("splitk_num");
  named("reduction_scheme", c.reduction_scheme, NameSet::kLtReductionScheme);
  named("inner_shape", c.inner_shape, NameSet::kLtInnerShape);
  named("cluster_shape", c.cluster_shape, NameSet::kLtClusterShape);
  return out;
}

}  // namespace

void prefer_cublaslt_for_algorithms(const std::string& path) {
  state().enabled = true;
  state().preferred = path;
}

void use_only_cublaslt_for_algorithms(const std::string& path) {
  state().enabled = true;
  state().only = path;
}

void prefer_cublaslt_of(const TraceFile& trace) {
  std::string found;
  for (const std::string& lib : trace.process().all("library")) {
    if (lib.substr(lib.rfind('/') + 1).rfind("libcublasLt.so", 0) == 0) found = lib;
  }
  prefer_cublaslt_for_algorithms(found);
}

std::optional<LtAlgoConfig> decode_lt_algo(const uint64_t (&bytes)[8]) {
  if (!state().enabled) return std::nullopt;
  const Library* lib = library();
  if (lib == nullptr) {
    state().undecoded++;
    return std::nullopt;
  }
  uint64_t algo[8];  // the library reads a copy: the record stays as it was
  std::memcpy(algo, bytes, sizeof algo);
  LtAlgoConfig c;
  c.id = attribute(*lib, algo, kId, true);
  c.tile = attribute(*lib, algo, kTileId, false);
  c.stages = attribute(*lib, algo, kStagesId, false);
  c.splitk_num = attribute(*lib, algo, kSplitkNum, true);
  c.reduction_scheme = attribute(*lib, algo, kReductionScheme, false);
  c.cta_swizzling = attribute(*lib, algo, kCtaSwizzling, false);
  c.custom_option = attribute(*lib, algo, kCustomOption, false);
  c.inner_shape = attribute(*lib, algo, kInnerShapeId, false);
  c.cluster_shape = attribute(*lib, algo, kClusterShapeId, false);
  if (!c.id && !c.tile && !c.stages && !c.splitk_num) return std::nullopt;
  c.decoded_by = decoded_by();
  if (const std::vector<const char*> wrong = out_of_range(c); !wrong.empty()) {
    LtAlgoConfig refused;
    refused.decoded_by = c.decoded_by;
    refused.refused = fmt::format("{} reads {} outside cuBLASLt's ranges: the bytes are not in its layout (another "
                                  "library's algorithm), so no value is shown",
                                  state().used, fmt::join(wrong, ", "));
    return refused;
  }
  return c;
}

std::string cublaslt_for_algorithms_error() { return state().error; }
std::string cublaslt_for_algorithms_path() { return state().used; }
uint64_t undecoded_lt_algos() { return state().undecoded; }

}  // namespace cublasspy
