// The parts of the report model (report_model.h), shared by the files that build them:
// call_json.cpp (a call, a launch, the locations they were made at), trace_walk.cpp (what one
// walk of a trace's ring gathers) and trace_json.cpp (a trace's object); report_model.cpp
// orders the traces and adds the diagnoses.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnose/trace_facts.h"
#include "report/report_model.h"
#include "report/shrugged_off.h"
#include "trace/trace_reader.h"

namespace cublasspy::tools {

// A call's or a launch's Python and native locations (CUBLASSPY_STACKS), from the side area
// entries attached to it; `verb` says what the program did there ("made", "launched").
void add_locations(nlohmann::ordered_json& j, const std::vector<SideEntryView>& entries, const char* verb);
// A launch-ring entry as the report's JSON gives it.
nlohmann::ordered_json launch_to_json(const LaunchView& l, const TraceFile& trace);
// The locations of the trace's first failed launch, if it is launch number `launch` (ticket + 1).
nlohmann::ordered_json launch_locations(const TraceFile& trace, uint64_t launch);

// What the report takes from a trace's ring: the key it orders processes by, the calls it lists
// and the facts the diagnoses rest on. A ring can hold millions of records: one walk gives all.
struct TraceWalk {
  const TraceFile* trace = nullptr;
  uint64_t first_start_ns = UINT64_MAX;
  nlohmann::ordered_json in_flight = nlohmann::ordered_json::array();
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  diagnoses::TraceFacts facts;
  // The locations of failing and in-flight calls (CUBLASSPY_STACKS), by seq, for the diagnoses
  // that name those calls; at most kMaxLocations of them.
  std::map<uint64_t, nlohmann::ordered_json> locations;
  // An image that replaced itself by exec (format version 9): the exec still in flight, the
  // latest if several threads tried at once. It ended the image; it is not a call cut short.
  nlohmann::ordered_json exec = nullptr;
  // For the first failure that matters (shrugged_off.h): the failed loads (the first
  // kKeptLoads) and the first other failure the ring holds, and what the rule reads.
  ShruggedOffLoads shrugged;
  std::vector<CallView> failed_loads;
  std::optional<CallView> first_other_failure;
};
TraceWalk walk_trace(const TraceFile& trace, const ReportOptions& options);

// One trace: path, process, environment, end, totals, first_failure, in_flight, calls.
nlohmann::ordered_json trace_to_json(TraceWalk& walk, const ReportOptions& options);

}  // namespace cublasspy::tools
