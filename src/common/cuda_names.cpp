#include "common/cuda_names.h"

#include <algorithm>
#include <iterator>

namespace cublasspy {
namespace {

struct Row {
  NameSet set;
  int64_t value;
  const char* name;
  bool alias;  // another spelling of a value: found by name, never printed
};

// Sorted by set, value, then the printed name before its aliases (the generator's order).
constexpr Row kRows[] = {
#define CUBLASSPY_NAME(set, value, name) {NameSet::set, value, name, false},
#define CUBLASSPY_ALIAS(set, value, name) {NameSet::set, value, name, true},
#include "common/cuda_names.inc"
#undef CUBLASSPY_NAME
#undef CUBLASSPY_ALIAS
};

constexpr bool row_before(const Row& a, const Row& b) {
  if (a.set != b.set) return a.set < b.set;
  if (a.value != b.value) return a.value < b.value;
  return !a.alias && b.alias;
}

// The lookups binary-search the table: it must be in that order, which also pins NameSet's
// order to the generator's, and every value must have a name to print before its aliases.
constexpr bool table_in_order() {
  for (size_t i = 1; i < std::size(kRows); ++i) {
    if (row_before(kRows[i], kRows[i - 1])) return false;
  }
  for (size_t i = 0; i < std::size(kRows); ++i) {
    bool first_of_value = i == 0 || kRows[i - 1].set != kRows[i].set || kRows[i - 1].value != kRows[i].value;
    if (first_of_value && kRows[i].alias) return false;
  }
  return true;
}
static_assert(table_in_order(), "cuda_names.inc is out of order: regenerate it with scripts/gen_cuda_names.py");

constexpr bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

constexpr int64_t kDisallowReducedPrecision = 16;  // CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION

}  // namespace

const char* cuda_name(NameSet set, int64_t value) {
  const Row key{set, value, nullptr, false};
  const Row* it = std::lower_bound(std::begin(kRows), std::end(kRows), key, row_before);
  if (it == std::end(kRows) || it->set != set || it->value != value) return nullptr;
  return it->name;
}

const char* name_set_type(NameSet set) {
  switch (set) {
    case NameSet::kDataType: return "cudaDataType";
    case NameSet::kComputeType: return "cublasComputeType_t";
    case NameSet::kCudaError: return "cudaError_t";
    case NameSet::kCuResult: return "CUresult";
    case NameSet::kCublasStatus: return "cublasStatus_t";
    case NameSet::kGemmAlgo: return "cublasGemmAlgo_t";
    case NameSet::kMathMode: return "cublasMath_t";
    case NameSet::kLtMatmulDescAttribute: return "cublasLtMatmulDescAttributes_t";
    case NameSet::kLtMatrixLayoutAttribute: return "cublasLtMatrixLayoutAttribute_t";
    case NameSet::kLtPreferenceAttribute: return "cublasLtMatmulPreferenceAttributes_t";
    case NameSet::kLtEpilogue: return "cublasLtEpilogue_t";
    case NameSet::kLtOrder: return "cublasLtOrder_t";
    case NameSet::kLtAlgoConfigAttribute: return "cublasLtMatmulAlgoConfigAttributes_t";
    case NameSet::kLtAlgoCapAttribute: return "cublasLtMatmulAlgoCapAttributes_t";
    case NameSet::kLtTransformDescAttribute: return "cublasLtMatrixTransformDescAttributes_t";
    case NameSet::kLtEmulationDescAttribute: return "cublasLtEmulationDescAttributes_t";
    case NameSet::kEmulationStrategy: return "cublasEmulationStrategy_t";
    case NameSet::kEmulationSpecialValues: return "cudaEmulationSpecialValuesSupport";
    case NameSet::kEmulationMantissaControl: return "cudaEmulationMantissaControl";
    case NameSet::kLtMatmulTile: return "cublasLtMatmulTile_t";
    case NameSet::kLtMatmulStages: return "cublasLtMatmulStages_t";
    case NameSet::kLtReductionScheme: return "cublasLtReductionScheme_t";
    case NameSet::kLtInnerShape: return "cublasLtMatmulInnerShape_t";
    case NameSet::kLtClusterShape: return "cublasLtClusterShape_t";
  }
  return "?";
}

const char* compute_type_name(int64_t value) {
  const char* name = cuda_name(NameSet::kComputeType, value);
  return name != nullptr ? name : cuda_name(NameSet::kDataType, value);
}

std::optional<NameSet> status_set_for(std::string_view function) {
  if (starts_with(function, "cublas")) return NameSet::kCublasStatus;
  if (starts_with(function, "cuda")) return NameSet::kCudaError;
  if (starts_with(function, "cu")) return NameSet::kCuResult;
  return std::nullopt;
}

std::optional<NameSet> status_set_of(format::Library library) {
  switch (library) {
    case format::Library::kCublas: case format::Library::kCublasLt: return NameSet::kCublasStatus;
    case format::Library::kCudart: return NameSet::kCudaError;
    case format::Library::kCuda: return NameSet::kCuResult;
    default: return std::nullopt;
  }
}

std::optional<NameSet> lt_attribute_set_for(std::string_view function) {
  if (starts_with(function, "cublasLtMatmulDesc")) return NameSet::kLtMatmulDescAttribute;
  if (starts_with(function, "cublasLtMatrixLayout")) return NameSet::kLtMatrixLayoutAttribute;
  if (starts_with(function, "cublasLtMatmulPreference")) return NameSet::kLtPreferenceAttribute;
  if (starts_with(function, "cublasLtMatmulAlgoConfig")) return NameSet::kLtAlgoConfigAttribute;
  if (starts_with(function, "cublasLtMatmulAlgoCap")) return NameSet::kLtAlgoCapAttribute;
  if (starts_with(function, "cublasLtMatrixTransformDesc")) return NameSet::kLtTransformDescAttribute;
  if (starts_with(function, "cublasLtEmulationDesc")) return NameSet::kLtEmulationDescAttribute;
  return std::nullopt;
}

std::optional<int64_t> cuda_value(NameSet set, std::string_view name) {
  for (const Row& row : kRows) {
    if (row.set == set && name == row.name) return row.value;
  }
  return std::nullopt;
}

std::string name_or_number(NameSet set, int64_t value) {
  const char* name = cuda_name(set, value);
  return name != nullptr ? std::string(name) : std::to_string(value);
}

std::string name_or_unknown(NameSet set, int64_t value) {
  const char* name = cuda_name(set, value);
  return name != nullptr ? std::string(name) : std::string("unknown ") + name_set_type(set);
}

std::string name_and_number(NameSet set, int64_t value) {
  return name_or_unknown(set, value) + " (" + std::to_string(value) + ")";
}

std::string compute_type_text(int64_t value) {
  const char* name = compute_type_name(value);
  return name != nullptr ? std::string(name) : std::to_string(value);
}

std::string status_name(std::string_view function, int64_t status) {
  std::optional<NameSet> set = status_set_for(function);
  return set ? name_or_unknown(*set, status) : std::to_string(status);
}

std::string status_text(std::string_view function, int64_t status) {
  std::optional<NameSet> set = status_set_for(function);
  return set ? name_and_number(*set, status) : std::to_string(status);
}

std::string math_mode_text(int64_t mode) {
  const char* base = cuda_name(NameSet::kMathMode, mode & ~kDisallowReducedPrecision);
  if (base == nullptr) return std::to_string(mode);
  std::string text = base;
  if (mode & kDisallowReducedPrecision) text += std::string("|") + cuda_name(NameSet::kMathMode, kDisallowReducedPrecision);
  return text;
}

}  // namespace cublasspy
