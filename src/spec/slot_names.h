// The name a C parameter gets in the trace's argument slots and in the report (the contract's
// spelling). One function, so the shim that writes the names and the replay that reads them
// back can never disagree.
#pragma once

#include <string>

namespace cublasspy {

// A -> a, Atype -> a_type, strideA -> stride_a, computeType -> compute_type, Aarray -> a,
// lightHandle -> handle.
std::string slot_name(const std::string& c_name);

}  // namespace cublasspy
