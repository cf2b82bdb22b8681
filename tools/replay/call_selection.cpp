#include "replay/call_selection.h"

#include "common/cuda_names.h"

namespace cublasspy::replay {

std::vector<CallView> select_calls(const TraceFile& trace, std::optional<uint64_t> seq, std::string& error) {
  std::vector<CallView> calls;
  uint64_t first = 0, last = 0;
  trace.for_each_call([&](const CallView& c) {
    if (first == 0) first = c.seq;
    last = c.seq;
    if (seq ? c.seq == *seq : (c.failed() || c.in_flight())) calls.push_back(c);
  });
  if (auto ff = trace.first_failure()) {
    bool held = false;
    for (const CallView& c : calls) held = held || c.seq == ff->seq;
    if (!held && (seq ? ff->seq == *seq : true)) calls.insert(calls.begin(), *ff);
  }
  if (seq && calls.empty()) {
    error = trace.path() + ": call " + std::to_string(*seq) + " is not in the trace" +
            (first ? " (it holds calls " + std::to_string(first) + " to " + std::to_string(last) + ")" : " (it holds no call)");
  }
  return calls;
}

OriginalCall original_of(const CallView& c) {
  OriginalCall o;
  o.function = c.function_name();
  o.in_flight = c.in_flight();
  o.crashed = (c.rec().flags & format::kFlagCrashed) != 0;
  o.status = c.in_flight() ? 0 : c.rec().status;
  o.async_status = c.async_fault() ? c.rec().async_status : 0;
  if (c.rec().flags & format::kFlagScanned) {
    const format::ScanSummary& d = c.slot.scan[3];  // the output
    if (d.max_abs_finite != -1) o.nonfinite_output = d.nan_count + d.pos_inf_count + d.neg_inf_count;
  }
  return o;
}

std::string original_outcome_text(const OriginalCall& o) {
  if (!o.failed()) return "success";
  return o.status ? name_and_number(NameSet::kCublasStatus, o.status) : "failed";
}

}  // namespace cublasspy::replay
