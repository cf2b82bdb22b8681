#include "replay/hook_signatures.h"

#include <cctype>
#include <string_view>

#include "spec/foreach.h"

namespace cublasspy::replay {
namespace {

// The hook list as one constant table of text: a function's row (family >= 0), then its
// parameters' rows. The hook list's parameter triples name their tags (Alpha<ScalarType::kF32>,
// ...); only the type and the name are used here. A table of constants, not an initializer of
// strings and vectors: that one took the compiler 40 s at -O2.
struct Row {
  const char* text;     // the function's name, or the parameter's type
  const char* name;     // the return type, or the parameter's name
  const char* library;  // the function's library; nullptr on a parameter's row
  int family;           // the function's Family; -1 on a parameter's row
};

#define RS_PARAM(type, name, tag) Row{#type, #name, nullptr, -1}
#define RS_ENTRY(lib_, ret_, fn_, fail_, family_, traits_, ...) \
  Row{#fn_, #ret_, #lib_, static_cast<int>(Family::family_)} CBS_MAP_AFTER_COMMA(RS_PARAM, __VA_ARGS__),

constexpr Row kRows[] = {CUBLASSPY_HOOKS(RS_ENTRY) CUBLASSPY_LEGACY_HOOKS(RS_ENTRY)};

#undef RS_ENTRY
#undef RS_PARAM

std::vector<FunctionSignature> build() {
  std::vector<FunctionSignature> table;
  for (const Row& row : kRows) {
    if (row.family >= 0) {
      table.push_back({row.text, row.name, row.library, static_cast<Family>(row.family), {}});
    } else {
      table.back().params.push_back({row.text, row.name, slot_name(row.name)});
    }
  }
  return table;
}

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
