#include "hook_signatures.h"

#include <cctype>
#include <string_view>

#include "foreach.h"

namespace cublasspy::replay {
namespace {

// The hook list's parameter triples name their tags (Alpha<ScalarType::kF32>, ...); only the
// type and the name are used here, as text.
#define RS_PARAM(type, name, tag) ParamSignature{#type, #name, report_name(#name)}
#define RS_ENTRY(lib_, ret_, fn_, fail_, family_, ...)                          \
  FunctionSignature{#fn_, #ret_, #lib_, Family::family_,                        \
                    std::vector<ParamSignature>{CBS_MAP_COMMA(RS_PARAM, __VA_ARGS__)}},

std::vector<FunctionSignature> build() {
  return {CUBLASSPY_HOOKS(RS_ENTRY) CUBLASSPY_LEGACY_HOOKS(RS_ENTRY)};
}

#undef RS_ENTRY
#undef RS_PARAM

}  // namespace

std::string report_name(const std::string& n) {
  if (n == "lightHandle") return "handle";
  if (n.size() == 5 && n.substr(1) == "type") {
    return std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(n[0])))) + "_type";
  }
  if (n.size() == 6 && n.substr(1) == "array") {
    return std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(n[0]))));
  }
  std::string out;
  for (size_t i = 0; i < n.size(); ++i) {
    char ch = n[i];
    if (std::isupper(static_cast<unsigned char>(ch))) {
      if (i > 0 && n[i - 1] != '_') out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else {
      out += ch;
    }
  }
  return out;
}

const std::vector<FunctionSignature>& all_signatures() {
  static const std::vector<FunctionSignature> table = build();
  return table;
}

const FunctionSignature* find_signature(const std::string& name) {
  for (const FunctionSignature& s : all_signatures()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool is_replayable_family(Family family) {
  // Every family that computes a GEMM: the trace format keeps that list.
  return format::is_gemm_family(static_cast<uint16_t>(family));
}

}  // namespace cublasspy::replay
