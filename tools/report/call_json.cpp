// One call, one launch and the locations they were made at, as the report's JSON gives them
// (docs/CONTRACT.md's CALL object).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "checks/check_ids.h"
#include "common/cuda_names.h"
#include "report/report_parts.h"
#include "present/call_text.h"
#include "present/lt_algo_config.h"
#include "trace/stack_codec.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

// CUBLASSPY_CHECK findings, from the record's check bits (messages rebuilt offline, exactly as
// the shim words them).
json checks_of(const CallView& call) {
  json out = json::array();
  const format::Record& rec = call.rec();
  if (rec.check_bits == 0 || call.function == nullptr) return out;
  GemmCall g = call.gemm();
  for (int bit = 0; bit < 32; ++bit) {
    if ((rec.check_bits & (1u << bit)) == 0) continue;
    auto id = static_cast<CheckId>(bit);
    const char* name = bit < kCheckCount ? check_id_name(id) : nullptr;
    json finding;
    finding["id"] = name ? std::string(name) : fmt::format("check-{}", bit);
    finding["message"] = name ? check_message(id, g, rec, call.function_name())
                              : fmt::format("check {} (unknown to this reader) flagged the call", bit);
    finding["severity"] = name ? check_severity(id) : "warning";
    // The operand the message's numbers are about (the record keeps them for one check only).
    const CheckDetail detail = unpack_check_detail(rec.check_detail);
    if (name && detail.present && detail.id == id && detail.operand != CheckOperand::kNone &&
        static_cast<int>(detail.operand) < 6) {
      finding["operand"] = check_operand_name(detail.operand);
    }
    out.push_back(std::move(finding));
  }
  return out;
}

// CUBLASSPY_SCAN summaries, per operand present in the call.
json scan_of(const CallView& call) {
  const format::Record& rec = call.rec();
  if ((rec.flags & format::kFlagScanned) == 0) return nullptr;
  GemmCall g = call.gemm();
  static const char* const kNames[4] = {"a", "b", "c", "d"};
  json out = json::object();
  for (int i = 0; i < 4; ++i) {
    if (g.valid && !g.op[i].present && !(i == 3 && g.output_is_c)) continue;
    const format::ScanSummary& s = call.slot.scan[i];
    json one;
    one["nan"] = s.nan_count;
    one["pos_inf"] = s.pos_inf_count;
    one["neg_inf"] = s.neg_inf_count;
    bool any = s.nan_count + s.pos_inf_count + s.neg_inf_count > 0;
    one["first"] = any ? json{{"row", s.first_row}, {"col", s.first_col}, {"batch", s.first_batch}}
                       : json(nullptr);
    one["overflow"] = s.overflow != 0;
    one["max_abs_finite"] = s.max_abs_finite;
    out[kNames[i]] = std::move(one);
  }
  return out;
}

}  // namespace

void add_locations(json& j, const std::vector<SideEntryView>& entries, const char* verb) {
  for (const SideEntryView& e : entries) {
    if (e.kind == static_cast<uint32_t>(format::SideKind::kPythonStack) && !j.contains("python_stack")) {
      const std::optional<PythonStack> stack = decode_python_stack(e.bytes);
      if (!stack) continue;
      json frames = json::array();
      for (const PythonFrame& f : stack->frames) {
        frames.push_back({{"file", f.file}, {"line", f.line}, {"function", f.function}});
      }
      j["python_stack"] = std::move(frames);
      j["location"] = python_stack_text(*stack, verb);
    } else if (e.kind == static_cast<uint32_t>(format::SideKind::kNativeStack)) {
      const std::optional<NativeStack> stack = decode_native_stack(e.bytes);
      if (!stack || stack->frames.empty()) continue;
      if (stack->at_signal) {
        j["fault_pc"] = fmt::format("{:#x}", stack->frames[0].address);
        continue;
      }
      if (j.contains("native_stack")) continue;
      json frames = json::array();
      for (const NativeFrame& f : stack->frames) {
        json frame;
        frame["module"] = f.module.empty() ? json(nullptr) : json(f.module);
        frame["offset"] = f.module.empty() ? json(nullptr) : json(fmt::format("{:#x}", f.offset));
        frame["symbol"] = f.symbol.empty() ? json(nullptr) : json(demangled(f.symbol));
        frame["address"] = fmt::format("{:#x}", f.address);
        frames.push_back(std::move(frame));
      }
      j["native_stack"] = std::move(frames);
      j["native_location"] = native_stack_text(*stack);
    }
  }
}

json call_to_json(const CallView& call, const TraceFile* trace) {
  const format::Record& rec = call.rec();
  json j;
  j["seq"] = call.seq;
  j["tid"] = rec.tid;
  j["function"] = call.function_name();
  j["library"] = library_name(call.library());
  bool done = !call.in_flight();
  j["state"] = done ? "completed" : "in_flight";
  j["status"] = done ? json(rec.status) : json(nullptr);
  j["status_name"] = done ? json(call.status_name()) : json(nullptr);
  j["start_ns"] = rec.start_ns;
  // A handle setter is stamped once: no duration was measured.
  const bool timed = done && (rec.flags & format::kFlagStampedOnce) == 0;
  j["duration_ns"] = timed ? json(rec.duration_ns) : json(nullptr);
  j["nested"] = (rec.flags & format::kFlagNested) != 0;

  j["args"] = call_arguments(call);
  if (trace != nullptr) {
    if (auto groups = gemm_groups_of(*trace, call)) add_gemm_groups(*groups, j["args"]);
  }
  j["checks"] = checks_of(call);
  j["scan"] = scan_of(call);

  // Extras: what else the record says.
  j["failed"] = call.failed();
  if (rec.depth != 0) j["depth"] = rec.depth;
  if (rec.flags & format::kFlagCrashed) j["crashed"] = true;
  if (rec.flags & format::kFlagSynced) j["synced"] = true;
  if (rec.flags & format::kFlagUnresolved) j["unresolved"] = true;
  if (rec.async_status != 0) {
    j["async_status"] = rec.async_status;
    j["async_status_name"] = name_or_unknown(NameSet::kCudaError, rec.async_status);
    j["async_pinned"] = (rec.flags & format::kFlagAsyncPinned) != 0 && call.async_fault();
    j["async_fault"] = call.async_fault();
  }
  if (call.slot.capture_id != 0) j["capture_id"] = call.slot.capture_id;  // made during a graph capture
  // Format 10: the handle's workspace at a cuBLAS GEMM (unchanged setters no longer record it).
  if (rec.flags & format::kFlagWorkspaceKnown) {
    j["workspace"] = call.slot.workspace;
    j["workspace_bytes"] = call.slot.workspace_bytes;
  }
  if (rec.flags & format::kFlagUnchangedSetter) j["unchanged_setter"] = true;
  if (call.slot.pending_error != 0) {  // CUBLASSPY_SYNC found it pending before the call
    j["pending_error"] = call.slot.pending_error;
    j["pending_error_name"] = name_or_unknown(NameSet::kCudaError, call.slot.pending_error);
  }
  if (rec.check_bits != 0) j["check_bits"] = rec.check_bits;
  if (trace != nullptr && call.has_side_link()) {
    const std::vector<SideEntryView> entries = trace->side_entries(call);
    add_locations(j, entries, "made");
    // A failure that repeated its site's first has that first's locations: say whose they are.
    for (const SideEntryView& e : entries) {
      if (e.seq != call.seq) j["location_from_call"] = e.seq;
    }
  }
  return j;
}

// A launch-ring entry as the report's JSON gives it: "launched at" where it is the trace's first
// failed launch and has its locations (a wait or a query: "made at").
json launch_to_json(const LaunchView& l, const TraceFile& trace) {
  json e;
  e["launch"] = l.ticket + 1;
  e["function"] = l.function_name();
  e["kernel"] = l.kernel;
  e["stream"] = l.entry.stream;
  e["status"] = l.entry.status;
  e["async_status"] = l.entry.async_status;
  const bool wait = l.function != nullptr && static_cast<format::Family>(l.function->family) == format::Family::kSync;
  add_locations(e, trace.launch_side_entries(l.ticket), wait ? "made" : "launched");
  return e;
}

json launch_locations(const TraceFile& trace, uint64_t launch) {
  json kept = json::object();
  const std::optional<uint64_t> first = trace.first_failed_launch();
  if (!first || *first + 1 != launch) return kept;
  const std::optional<LaunchView> view = trace.launch_at(*first);
  json where = view ? launch_to_json(*view, trace) : json::object();
  if (!view) add_locations(where, trace.launch_side_entries(*first), "launched");
  for (const char* key : {"location", "native_location"}) {
    if (where.contains(key)) kept[key] = where[key];
  }
  return kept;
}

}  // namespace cublasspy::tools
