// The parameter lists of the hooked functions, as text, expanded from src/spec/hook_list.h
// without the CUDA headers (the types are only stringized). The replay uses them to know which
// trace slot feeds which parameter, and the C++ emitter to write a call with exactly the
// header's types. The runner, which is compiled against the headers, has typed call adapters
// from the same list (tools/replay/runner/call_adapters.cpp).
#pragma once

#include <string>
#include <vector>

#include "spec/hook_list.h"
#include "spec/slot_names.h"

namespace cublasspy::replay {

struct ParamSignature {
  std::string type;         // "const float*", "cublasOperation_t", "long long int"
  std::string c_name;       // the header's parameter name: "A", "strideA", "lightHandle"
  std::string report_name;  // the trace's slot name: "a", "stride_a", "handle"
};

struct FunctionSignature {
  std::string name;         // exported symbol: "cublasSgemm_v2"
  std::string return_type;  // "cublasStatus_t", "void" (v1 API)
  std::string library;      // "kCublas", "kCublasLt", "kCudart", "kCuda", "kSystem"
  Family family = Family::kOther;
  std::vector<ParamSignature> params;
};

// The hook list's entry called `name`, or nullptr.
const FunctionSignature* find_signature(const std::string& name);
const std::vector<FunctionSignature>& all_signatures();

// True for the families a replay can re-execute: the GEMMs of cuBLAS (plain, batched, strided,
// grouped, v1, cublasXt) and cublasLtMatmul.
bool is_replayable_family(Family family);

}  // namespace cublasspy::replay
