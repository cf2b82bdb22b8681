// The report as data: traces -> one JSON document, exactly the shape docs/CONTRACT.md ("Report
// JSON") promises, plus extra keys. The text report and the Perfetto export are views of this
// document, so the three never disagree.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnosis.h"
#include "trace/trace_reader.h"

namespace cublasspy::tools {

struct ReportOptions {
  bool all_calls = false;  // --all: list every record still held, in sequence order
};

// The traces of one report, opened in the order given (build_report orders them by process
// start); the ones that could not be read are named in `errors` ("<path>: <problem>", the
// reader's words).
struct OpenedTraces {
  std::vector<TraceFile> traces;
  std::vector<std::string> errors;
  std::vector<const TraceFile*> pointers() const;
};
OpenedTraces open_traces(const std::vector<std::string>& paths);

// One call, as docs/CONTRACT.md's CALL object; with its trace, also the locations the side
// area holds for it (python_stack, native_stack, fault_pc).
nlohmann::ordered_json call_to_json(const CallView& call, const TraceFile* trace = nullptr);
nlohmann::ordered_json diagnosis_to_json(const Diagnosis& diagnosis);

// The whole document: {"traces": [...], "diagnoses": [...]}, the traces in the order their
// processes started. Each trace's ring is walked once: the calls listed, the order and the
// facts the diagnoses (over all the traces together) rest on come from that one walk.
nlohmann::ordered_json build_report(const std::vector<const TraceFile*>& traces, const ReportOptions& options);

}  // namespace cublasspy::tools
