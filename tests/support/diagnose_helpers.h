// Small helpers shared by the diagnosis tests: what a run saw, for failure messages, and the
// function a finding's call names (read back from the run's own trace).
#pragma once

#include <string>
#include <vector>

#include "support/traced_run.h"

namespace cublasspy::test {

// The program's output, the traces and every finding, printed when an assertion fails.
std::string explain(const TracedRun& run, const std::vector<Diagnosis>& found);

// The function name of call `seq` of process `pid` in the run's traces ("" when not held).
std::string function_of_call(const TracedRun& run, int64_t pid, uint64_t seq);

// The one finding with `id`; fails the test (and returns an empty one) when there is none.
const Diagnosis& the_finding(const std::vector<Diagnosis>& found, const std::string& id);

bool contains(const std::string& text, const std::string& part);

}  // namespace cublasspy::test
