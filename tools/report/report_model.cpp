#include "report/report_model.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "report/report_parts.h"
#include "present/lt_algo_config.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

// Whether every trace has the clock pair (clock_realtime_ns, clock_monotonic_ns) that turns its
// CLOCK_MONOTONIC stamps, which only one host's processes share, into wall time.
bool all_have_wall_clock(const std::vector<TraceWalk>& walks) {
  return std::all_of(walks.begin(), walks.end(), [](const TraceWalk& w) {
    const ProcessInfo& p = w.trace->process();
    return !p.get("clock_realtime_ns").empty() && !p.get("clock_monotonic_ns").empty();
  });
}

// Processes in the order their first calls ran, on the wall clock when every trace has the pair.
// Traces of older shims fall back on the start time (one-second resolution), then the first
// call's CLOCK_MONOTONIC stamp.
auto start_order(const TraceWalk& w, bool wall_clock) {
  const ProcessInfo& p = w.trace->process();
  uint64_t first_ns = w.first_start_ns;
  if (wall_clock && first_ns != UINT64_MAX) {
    int64_t wall = std::strtoll(p.get("clock_realtime_ns").c_str(), nullptr, 10);
    int64_t mono = std::strtoll(p.get("clock_monotonic_ns").c_str(), nullptr, 10);
    first_ns = static_cast<uint64_t>(wall + (static_cast<int64_t>(first_ns) - mono));
  }
  return std::make_tuple(wall_clock ? std::string() : p.get("start_time"), first_ns,
                         std::strtoll(p.get("pid").c_str(), nullptr, 10), w.trace->path());
}

}  // namespace

std::vector<const TraceFile*> OpenedTraces::pointers() const {
  std::vector<const TraceFile*> out;
  for (const TraceFile& t : traces) out.push_back(&t);
  return out;
}

OpenedTraces open_traces(const std::vector<std::string>& paths) {
  OpenedTraces out;
  for (const std::string& path : paths) {
    std::string error;
    if (auto trace = TraceFile::open(path, error)) out.traces.push_back(std::move(*trace));
    else out.errors.push_back(error);
  }
  return out;
}

json diagnosis_to_json(const Diagnosis& d) {
  json j;
  j["id"] = d.id;
  j["severity"] = severity_name(d.severity);
  j["summary"] = d.summary;
  j["evidence"] = d.evidence;
  j["advice"] = d.advice;
  j["pid"] = d.pid ? json(*d.pid) : json(nullptr);
  j["call"] = d.call ? json(*d.call) : json(nullptr);
  j["launch"] = d.launch ? json(*d.launch) : json(nullptr);
  if (!d.library_log.empty()) j["library_log"] = {{"file", d.library_log_file}, {"lines", d.library_log}};
  return j;
}

json build_report(const std::vector<const TraceFile*>& traces, const ReportOptions& options) {
  std::vector<TraceWalk> walks;
  for (const TraceFile* t : traces) walks.push_back(walk_trace(*t, options));
  const bool wall_clock = all_have_wall_clock(walks);
  std::stable_sort(walks.begin(), walks.end(), [wall_clock](const TraceWalk& a, const TraceWalk& b) {
    return start_order(a, wall_clock) < start_order(b, wall_clock);
  });
  json report;
  report["traces"] = json::array();
  std::vector<diagnoses::TraceFacts> facts;
  for (TraceWalk& w : walks) {
    report["traces"].push_back(trace_to_json(w, options));
    facts.push_back(std::move(w.facts));
  }
  // Said once, not on every call: the preset algorithms are shown by their bytes alone.
  if (undecoded_lt_algos() > 0) {
    report["notes"] = json::array({"preset cuBLASLt algorithms are shown as bytes only (algo_preset, algo_bytes): no "
                                   "cuBLASLt could be loaded to read them (" +
                                   cublaslt_for_algorithms_error() + ")"});
  }
  report["diagnoses"] = json::array();
  for (const Diagnosis& d : diagnoses::diagnose_facts(facts)) {
    json j = diagnosis_to_json(d);
    // Where the program made the call the diagnosis rests on.
    for (const TraceWalk& w : walks) {
      if (!d.pid || (!d.call && !d.launch) ||
          std::strtoll(w.trace->process().get("pid").c_str(), nullptr, 10) != *d.pid) {
        continue;
      }
      if (d.call) {
        auto found = w.locations.find(*d.call);
        if (found != w.locations.end()) j.update(found->second);
      } else {
        j.update(launch_locations(*w.trace, *d.launch));  // the launch it pins (version 6)
      }
      break;
    }
    report["diagnoses"].push_back(std::move(j));
  }
  return report;
}

}  // namespace cublasspy::tools
