// `cublasspy doctor --json` in the bundle, only when the bundle is made on the machine that made
// the traces: the same host name and the same pid namespace (the test trace_reader.cpp's
// writer_gone makes before it trusts a recorded pid). Elsewhere the doctor would describe the
// wrong machine.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/trace_reader.h"

namespace cublasspy::tools::bundle {

// Whether every trace was written on this machine; `why_not` names the first that was not.
bool made_here(const std::vector<const TraceFile*>& traces, std::string& why_not);

// The doctor's checks and findings, as `doctor --json` prints them.
nlohmann::ordered_json doctor_document();

}  // namespace cublasspy::tools::bundle
