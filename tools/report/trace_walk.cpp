// One walk of a trace's ring (report_parts.h, TraceWalk): the calls the report lists, the
// locations the diagnoses name, the facts they rest on. A ring can hold millions of records.
#include "report/report_parts.h"

#include <algorithm>

#include "present/lt_algo_config.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

// The failed loads a walk keeps for the first failure that matters.
constexpr size_t kKeptLoads = 64;

// The exec that ended an image marked so: a call of the exec family left in flight.
bool ended_the_image(const TraceFile& trace, const CallView& c) {
  return c.in_flight() && c.function != nullptr &&
         c.function->family == static_cast<uint16_t>(format::Family::kExec) &&
         trace.header().end_state == static_cast<uint32_t>(format::EndState::kExecuted);
}
constexpr size_t kMaxLocations = 4096;

}  // namespace

TraceWalk walk_trace(const TraceFile& trace, const ReportOptions& options) {
  TraceWalk w;
  w.trace = &trace;
  // Preset algorithms are decoded by the cuBLASLt whose encoding their bytes are in.
  prefer_cublaslt_of(trace);
  diagnoses::FactsGatherer facts(trace);
  trace.for_each_call([&](const CallView& c) {
    w.first_start_ns = std::min(w.first_start_ns, c.rec().start_ns);
    // And the failure codes the program asked the text of: where it reported them (format 9).
    const bool reported =
        c.function != nullptr && c.function->family == static_cast<uint16_t>(format::Family::kErrorText);
    // Entries of its own only: a failure that repeated its site's first shares the first's
    // (taken from the site below), and a diagnosis names the first, never a repeat. A storm of
    // repeats would otherwise fill kMaxLocations before the sites' firsts had their turn.
    if (c.slot.side_head != 0 && (c.failed() || c.in_flight() || reported) && w.locations.size() < kMaxLocations) {
      json where = call_to_json(c, &trace);
      json kept = json::object();
      for (const char* key : {"location", "native_location", "fault_pc"}) {
        if (where.contains(key)) kept[key] = where[key];
      }
      if (!kept.empty()) w.locations[c.seq] = std::move(kept);
    }
    if (ended_the_image(trace, c)) {
      w.exec = {{"call", c.seq}, {"function", c.function_name()},
                {"target", c.text_arg(format::ArgRole::kExecTarget)}};
    }
    if (c.in_flight() || options.all_calls) {
      json j = call_to_json(c, &trace);
      if (c.in_flight() && !ended_the_image(trace, c)) w.in_flight.push_back(j);
      if (options.all_calls) w.calls.push_back(std::move(j));
    }
    facts.add(c);
    w.shrugged.add(c);
    if (is_failed_load(c)) {
      if (w.failed_loads.size() < kKeptLoads) w.failed_loads.push_back(c);
    } else if (c.failed() && !w.first_other_failure) {
      w.first_other_failure = c;
    }
  });
  w.facts = facts.finish();
  // Version 9: each failure site's first call, kept beside the ring with its locations (the
  // ring may hold it no longer). Whatever the ring's calls took: the sites are few (the
  // writer's table holds 128), and the diagnoses name their first calls.
  for (const FailureSiteView& site : trace.failure_sites()) {
    if (!site.first || w.locations.count(site.first->seq) != 0) continue;
    json where = call_to_json(*site.first, &trace);
    json kept = json::object();
    for (const char* key : {"location", "native_location"}) {
      if (where.contains(key)) kept[key] = where[key];
    }
    if (!kept.empty()) w.locations[site.first->seq] = std::move(kept);
  }
  return w;
}

}  // namespace cublasspy::tools
