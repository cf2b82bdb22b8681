#include "replay/hook_signatures.h"

#include <cctype>
#include <string_view>

#include "spec/foreach.h"

namespace cublasspy::replay {
namespace {

// The hook list's parameter triples name their tags (Alpha<ScalarType::kF32>, ...); only the
// type and the name are used here, as text.
#define RS_PARAM(type, name, tag) ParamSignature{#type, #name, slot_name(#name)}
#define RS_ENTRY(lib_, ret_, fn_, fail_, family_, traits_, ...)                          \
  FunctionSignature{#fn_, #ret_, #lib_, Family::family_,                        \
                    std::vector<ParamSignature>{CBS_MAP_COMMA(RS_PARAM, __VA_ARGS__)}},

std::vector<FunctionSignature> build() {
  return {CUBLASSPY_HOOKS(RS_ENTRY) CUBLASSPY_LEGACY_HOOKS(RS_ENTRY)};
}

#undef RS_ENTRY
#undef RS_PARAM

}  // namespace

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
