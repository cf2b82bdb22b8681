// One call in words: its arguments as the report's JSON shows them ("args": name -> value, each
// slot read as its kind says, a GEMM's scalars, implied types and handle state added), the
// same as name=value pieces, and its outcome. The report (tools/report), replay, the rules and
// call_line() all print calls through these, so a call reads the same everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/gemm_groups.h"
#include "trace/trace_reader.h"

namespace cublasspy {

// The report JSON's "args" object of one call (docs/CONTRACT.md, CALL), in the order of the
// function table's slots, the GEMM family's additions last.
nlohmann::ordered_json call_arguments(const CallView& call);

// A grouped GEMM's groups into its "args": "groups" (one object per recorded group: m, n, k,
// lda, ldb, ldc, transa, transb, alpha, beta, size), "problem_count", and "groups_omitted" when
// the call had more groups than the trace keeps (format::kMaxRecordedGroups).
void add_gemm_groups(const GemmGroups& groups, nlohmann::ordered_json& args);

// "m=4", "alpha=1.5", "alpha=@0x7f..." (a scalar known only by its device address): the pieces
// of an "args" object, in its order. alpha_ptr and alpha_text are shown through alpha.
std::vector<std::string> argument_pieces(const nlohmann::ordered_json& args);

// What became of a call, as much as the outcome line needs.
struct CallOutcome {
  bool in_flight = false;
  int status = 0;
  std::string status_name;
  int async_status = 0;  // what CUBLASSPY_SYNC's wait after the call returned, 0 if none
  bool async_fault = false;  // that is an asynchronous error: the call's work faulted
  std::string async_status_name;
  bool crashed = false;     // a fatal signal arrived during the call
  bool unresolved = false;  // the real function was not found
  bool status_is_word = false;  // dlopen's "loaded" / "failed": a number would add nothing
  uint64_t capture_id = 0;  // made during a CUDA graph capture (RecordSlot::capture_id)
};
CallOutcome outcome_of(const CallView& call);
// "CUBLAS_STATUS_NOT_INITIALIZED (1)", "in flight", "cudaSuccess (0), then asynchronous
// cudaErrorIllegalAddress (700)", ", crashed (...)", ", real function not found", ", captured
// into a CUDA graph (capture 3): it runs at the graph's launches".
std::string outcome_text(const CallOutcome& outcome);

// The call on one line, as the report lists it: "cublasSgemm_v2(handle=0x55d0..., transa=N,
// ..., ldc=4) -> CUBLAS_STATUS_NOT_INITIALIZED (1)".
std::string call_line(const CallView& call);

// "0x7f3a..." (the contract's spelling of addresses).
std::string hex_address(uint64_t value);

}  // namespace cublasspy
