#include "report/report_model.h"

#include "trace/lt_algo_config.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "checks/check_ids.h"
#include "common/cuda_names.h"
#include "diagnose/trace_facts.h"
#include "trace/call_text.h"
#include "trace/graph_summary.h"
#include "report/shrugged_off.h"
#include "trace/process_end.h"
#include "trace/stack_codec.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

json optional_int(int64_t value, bool present) { return present ? json(value) : json(nullptr); }

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

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

json int_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') return nullptr;
  return v;
}

// Process-section keys the report places itself; any other key a newer shim writes is kept
// under process.other so no information is lost.
bool is_known_process_key(const std::string& key) {
  static const std::set<std::string> kKnown = {"pid", "ppid", "exe", "argv", "host", "rank",
                                                "start_time", "env", "library", "pid_namespace",
                                                "clock_realtime_ns", "clock_monotonic_ns"};
  return kKnown.count(key) != 0;
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

namespace {

// A call's or a launch's Python and native locations (CUBLASSPY_STACKS), from the side area
// entries attached to it; `verb` says what the program did there ("made", "launched").
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

}  // namespace

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

namespace {

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

// The locations of the trace's first failed launch, if it is launch number `launch` (ticket + 1).
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

}  // namespace

namespace {

// What the report takes from a trace's ring: the key it orders processes by, the calls it lists
// and the facts the diagnoses rest on. A ring can hold millions of records: one walk gives all.
struct TraceWalk {
  const TraceFile* trace = nullptr;
  uint64_t first_start_ns = UINT64_MAX;
  json in_flight = json::array();
  json calls = json::array();
  diagnoses::TraceFacts facts;
  // The locations of failing and in-flight calls (CUBLASSPY_STACKS), by seq, for the diagnoses
  // that name those calls; at most kMaxLocations of them.
  std::map<uint64_t, json> locations;
  // An image that replaced itself by exec (format version 9): the exec still in flight, the
  // latest if several threads tried at once. It ended the image; it is not a call cut short.
  json exec = nullptr;
  // For the first failure that matters (shrugged_off.h): the failed loads (the first
  // kKeptLoads) and the first other failure the ring holds, and what the rule reads.
  ShruggedOffLoads shrugged;
  std::vector<CallView> failed_loads;
  std::optional<CallView> first_other_failure;
};
constexpr size_t kKeptLoads = 64;

// The exec that ended an image marked so: a call of the exec family left in flight.
bool ended_the_image(const TraceFile& trace, const CallView& c) {
  return c.in_flight() && c.function != nullptr &&
         c.function->family == static_cast<uint16_t>(format::Family::kExec) &&
         trace.header().end_state == static_cast<uint32_t>(format::EndState::kExecuted);
}
constexpr size_t kMaxLocations = 4096;

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

// One trace: path, process, environment, end, totals, first_failure, in_flight, calls.
json trace_to_json(TraceWalk& walk, const ReportOptions& options) {
  const TraceFile& trace = *walk.trace;
  const format::FileHeader& h = trace.header();
  const ProcessInfo& p = trace.process();
  json t;
  t["path"] = trace.path();
  t["format_version"] = h.format_version;
  t["writer_version"] = trace.writer_version().empty() ? json() : json(std::string(trace.writer_version()));

  json process;
  process["pid"] = int_or_null(p.get("pid"));
  process["ppid"] = int_or_null(p.get("ppid"));
  process["exe"] = p.get("exe");
  process["cmdline"] = p.all("argv");
  process["host"] = p.get("host");
  if (std::string ns = p.get("pid_namespace"); !ns.empty()) process["pid_namespace"] = ns;
  process["rank"] = int_or_null(p.get("rank"));
  process["start_time"] = p.get("start_time");
  json other = json::object();
  for (const auto& [key, value] : p.entries) {
    if (!is_known_process_key(key)) other[key].push_back(value);
  }
  if (!other.empty()) process["other"] = std::move(other);
  if (h.forked_child) {
    process["forked_from"] = {{"pid", h.parent_pid_at_fork},
                              {"calls_before_fork", trace.parent_calls_at_fork()},
                              {"parent_cuda_ready", h.parent_cuda_ready != 0}};
  }
  t["process"] = std::move(process);

  json environment;
  json vars = json::object();
  for (const std::string& entry : p.all("env")) {
    auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  environment["vars"] = std::move(vars);
  json libraries = json::array();
  std::set<std::string> seen;
  for (const std::string& lib : p.all("library")) {
    if (seen.insert(lib).second) libraries.push_back({{"path", lib}});
  }
  // A program linked with the static runtime (nvcc's -cudart static, libcudart_static.a) calls
  // the runtime inside itself, where no preloaded library can see it: cuBLAS is loaded, but no
  // libcudart.so ever is.
  bool shared_runtime = false, cublas_loaded = false;
  for (const std::string& lib : seen) {
    const std::string base = lib.substr(lib.rfind('/') + 1);
    shared_runtime = shared_runtime || base.rfind("libcudart.so", 0) == 0;
    cublas_loaded = cublas_loaded || base.rfind("libcublas.so", 0) == 0 || base.rfind("libcublasLt.so", 0) == 0;
  }
  environment["cuda_runtime_linkage"] = shared_runtime  ? json("shared")
                                        : cublas_loaded ? json("static")
                                                        : json(nullptr);
  environment["libraries"] = std::move(libraries);
  environment["cuda_driver_version"] = optional_int(h.driver_version, h.driver_version >= 0);
  environment["cuda_runtime_version"] = optional_int(h.runtime_version, h.runtime_version >= 0);
  t["environment"] = std::move(environment);

  // How it ended: its own record, else what `cublasspy run` saw (format version 5).
  const ProcessEnd pe = process_end(h);
  auto state_name = [](ProcessEnd::How how) {
    switch (how) {
      case ProcessEnd::How::kExited: return "exited";
      case ProcessEnd::How::kSignaled: return "signaled";
      case ProcessEnd::How::kExecuted: return "exec";
      case ProcessEnd::How::kUnknown: break;
    }
    return "unknown";
  };
  json end;
  end["state"] = state_name(pe.how);
  end["signal"] = optional_int(pe.signal, pe.how == ProcessEnd::How::kSignaled);
  if (pe.how == ProcessEnd::How::kSignaled) end["signal_name"] = signal_text(pe.signal);
  end["exit_status"] = optional_int(pe.exit_status, pe.how == ProcessEnd::How::kExited && pe.exit_status >= 0);
  end["recorded_by"] = pe.how == ProcessEnd::How::kUnknown ? json(nullptr) : json(pe.from_launcher ? "launcher" : "process");
  // Format version 9: the exec the image ended in; its record may be gone (the ring full of
  // calls in flight): then the target is unknown.
  if (pe.how == ProcessEnd::How::kExecuted) {
    end["exec"] = walk.exec.is_null() ? json{{"call", nullptr}, {"function", nullptr}, {"target", nullptr}} : walk.exec;
  }
  if (pe.command_how) {
    json command = {{"pid", pe.command_pid}, {"state", state_name(*pe.command_how)}};
    if (*pe.command_how == ProcessEnd::How::kExited) command["exit_status"] = pe.command_status;
    else command["signal"] = pe.command_status, command["signal_name"] = signal_text(pe.command_status);
    end["command"] = std::move(command);
  }
  t["end"] = std::move(end);

  json in_flight = std::move(walk.in_flight);
  json totals;
  totals["calls"] = trace.total_calls();
  totals["failed"] = trace.total_failed();
  totals["in_flight"] = in_flight.size();
  json by_function = json::object();
  json failed_by_function = json::object();
  // Version 10: handle setters' calls that set what the handle already held: counted in
  // by_function, without a record of their own (the GEMMs' records carry the state).
  json unchanged_by_function = json::object();
  uint64_t unchanged = 0;
  for (uint16_t id = 0; id < trace.function_count(); ++id) {
    format::FunctionCounters c = trace.counters(id);
    if (c.calls != 0) by_function[trace.function(id).name] = c.calls;
    if (c.failed != 0) failed_by_function[trace.function(id).name] = c.failed;
    if (uint64_t n = trace.unchanged(id); n != 0) {
      unchanged_by_function[trace.function(id).name] = n;
      unchanged += n;
    }
  }
  totals["by_function"] = std::move(by_function);
  totals["failed_by_function"] = std::move(failed_by_function);
  totals["unchanged"] = unchanged;
  totals["unchanged_by_function"] = std::move(unchanged_by_function);
  totals["records_held"] = trace.records_held();
  totals["ring_capacity"] = h.ring_capacity;
  totals["dropped_records"] = h.dropped_records;
  totals["torn_records"] = trace.torn_records();
  // Version 4: side entries (locations, groups) the full side area could not take; version 9:
  // failed calls the full failure-site table could not count by site.
  totals["side_dropped"] = h.side_dropped;
  totals["side_bytes"] = h.side_bytes;
  totals["failures_unsited"] = h.failures_unsited;
  t["totals"] = std::move(totals);

  // Version 9: where the failed calls came from, each site with its count and its first call.
  json sites = json::array();
  // In the order their first failures were made (the table's own order is its hash's).
  std::vector<FailureSiteView> by_first = trace.failure_sites();
  std::stable_sort(by_first.begin(), by_first.end(), [](const FailureSiteView& a, const FailureSiteView& b) {
    if (a.first.has_value() != b.first.has_value()) return a.first.has_value();
    return a.first && began_before(*a.first, *b.first);
  });
  for (const FailureSiteView& site : by_first) {
    json e;
    e["function"] = site.function_name();
    e["status"] = site.status;
    e["count"] = site.count;
    e["return_address"] = fmt::format("{:#x}", site.return_address);
    if (site.python_line >= 0) e["python_line"] = site.python_line;
    e["first_call"] = site.first ? json(site.first->seq) : json(nullptr);
    if (site.first) {
      e["status_name"] = site.first->status_name();
      json where = call_to_json(*site.first, &trace);
      for (const char* key : {"location", "native_location"}) {
        if (where.contains(key)) e[key] = where[key];
      }
    }
    sites.push_back(std::move(e));
  }
  t["failure_sites"] = std::move(sites);

  // Version 4: the GPU work launched outside the GEMMs, per kernel (the kernel table's totals).
  if (h.launch_capacity != 0) {
    json launches;
    launches["total"] = trace.total_launches();
    launches["ring_capacity"] = h.launch_capacity;
    json kernels = json::array();
    for (const KernelTotal& k : trace.kernel_totals()) {
      json e;
      e["name"] = k.name;
      e["function"] = k.function ? json(k.function->name) : json(nullptr);
      e["launches"] = k.launches;
      kernels.push_back(std::move(e));
    }
    launches["kernels"] = std::move(kernels);
    // Version 8: the CUDA graphs, each with the GEMMs captured into it and its launches.
    json graphs = json::array();
    for (const GraphSummary& g : graph_summaries(trace)) {
      graphs.push_back({{"graph", g.graph}, {"capture_id", g.capture_id}, {"execs", g.execs},
                        {"launches", g.launches}, {"captured_calls", g.captured_calls}});
    }
    if (!graphs.empty()) launches["graphs"] = std::move(graphs);
    if (h.stale_replay_launch != 0) {
      launches["stale_replay"] = {{"launch", h.stale_replay_launch}, {"call", h.stale_replay_gemm},
                                  {"address", h.stale_replay_address},
                                  {"operand", captured_operand_name(h.stale_replay_role)},
                                  {"launches_found", h.stale_replays}};
    }
    if (auto l = trace.first_launch_error()) launches["first_error"] = launch_to_json(*l, trace);
    // Version 6: the first launch that failed, with its locations (as a failing call has them).
    if (const std::optional<uint64_t> first = trace.first_failed_launch()) {
      json e = json{{"launch", *first + 1}};  // the ring may no longer hold the entry itself
      if (const std::optional<LaunchView> l = trace.launch_at(*first)) e = launch_to_json(*l, trace);
      else add_locations(e, trace.launch_side_entries(*first), "launched");
      launches["first_failed"] = std::move(e);
    }
    t["launches"] = std::move(launches);
  }

  // The first failure that matters: a failed load the program went on without is a note
  // ("shrugged_off"), not the headline (shrugged_off.h). The header keeps the first failure
  // even when the ring has moved on; past a shrugged-off one, the ring's next is the headline.
  json shrugged = json::array();
  std::set<uint64_t> shrugged_seqs;
  auto shrugged_off = [&](const CallView& c) {
    const std::optional<std::string> why = walk.shrugged.why(c, pe);
    if (why && shrugged_seqs.insert(c.seq).second) {
      shrugged.push_back({{"call", call_to_json(c, &trace)}, {"why", *why}});
    }
    return why.has_value();
  };
  for (const CallView& c : walk.failed_loads) shrugged_off(c);
  std::optional<CallView> headline = trace.first_failure();
  if (headline && shrugged_off(*headline)) {
    headline.reset();
    for (const CallView& c : walk.failed_loads) {
      if (shrugged_seqs.count(c.seq) == 0) {
        headline = c;
        break;
      }
    }
    const std::optional<CallView>& other = walk.first_other_failure;
    if (other && (!headline || began_before(*other, *headline))) headline = other;
  }
  t["first_failure"] = headline ? call_to_json(*headline, &trace) : json(nullptr);
  if (!shrugged.empty()) t["shrugged_off"] = std::move(shrugged);
  t["first_async_error"] =
      h.first_async_seq != 0
          ? json{{"call", h.first_async_seq}, {"error", h.first_async_error},
                 {"error_name", name_or_unknown(NameSet::kCudaError, h.first_async_error)}}
          : json(nullptr);
  t["in_flight"] = std::move(in_flight);
  t["calls"] = std::move(walk.calls);
  t["calls_listed"] = options.all_calls;
  return t;
}

}  // namespace

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
