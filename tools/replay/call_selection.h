// Which calls of a trace a replay (or a bug-report bundle) takes, and what each did in the
// program, as the verdicts and the reproducers describe it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/verdict.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {

// The call `seq`, or (no seq) every failing call and every call in flight, in order, with the
// first failure first when the ring no longer holds it. `error` says why a call asked for is
// not there.
std::vector<CallView> select_calls(const TraceFile& trace, std::optional<uint64_t> seq, std::string& error);

// What the program's call did: its status, a crash, an asynchronous fault, a non-finite result.
OriginalCall original_of(const CallView& call);
// "CUBLAS_STATUS_EXECUTION_FAILED (13)", "failed" (a crash, a fault), "success".
std::string original_outcome_text(const OriginalCall& original);

}  // namespace cublasspy::replay
