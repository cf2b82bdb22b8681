#include "report/report_model.h"

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
#include "trace/gemm_call.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;
using format::ArgKind;

namespace {

json optional_int(int64_t value, bool present) { return present ? json(value) : json(nullptr); }

double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// The enum a numeric argument's value belongs to, when CUDA names its values.
std::optional<NameSet> named_set(const ArgView& arg, const char* function) {
  switch (arg.kind) {
    case ArgKind::kGemmAlgo: return NameSet::kGemmAlgo;
    case ArgKind::kOrder: return NameSet::kLtOrder;
    case ArgKind::kEpilogue: return NameSet::kLtEpilogue;
    case ArgKind::kLtAttribute: return lt_attribute_set_for(function);
    case ArgKind::kCudaError: return status_set_for(function) == NameSet::kCuResult ? NameSet::kCuResult : NameSet::kCudaError;
    default: return std::nullopt;
  }
}

// `<arg>_name` beside a numeric argument CUDA names ("algo": 99, "algo_name":
// "CUBLAS_GEMM_DEFAULT_TENSOR_OP"); null when the value is unset or no toolkit names it.
json arg_name(const ArgView& arg, const char* function) {
  std::optional<NameSet> set = named_set(arg, function);
  if (!set || arg.raw == format::kArgUnset) return nullptr;
  const char* name = cuda_name(*set, static_cast<int32_t>(arg.raw));
  return name != nullptr ? json(name) : json(nullptr);
}

// One argument slot in the form its kind calls for.
json arg_value(const ArgView& arg, const format::Record& rec, size_t slot_index) {
  uint64_t v = arg.raw;
  // Values the shim could not know or the call did not write (cudaGetDeviceCount's count on
  // failure, a cuBLASLt attribute never set) are null. A double's bits are its own: there this
  // pattern is -0.0.
  if (v == format::kArgUnset && arg.kind != ArgKind::kDouble) return nullptr;
  switch (arg.kind) {
    case ArgKind::kInt: return static_cast<int64_t>(v);
    case ArgKind::kUInt: return v;
    case ArgKind::kPointer: return hex_address(v);
    case ArgKind::kOperation: return operation_name(static_cast<int>(v));
    case ArgKind::kLegacyChar: return std::string(1, static_cast<char>(v));
    case ArgKind::kDataType: return name_or_number(NameSet::kDataType, static_cast<int>(v));
    case ArgKind::kComputeType: return compute_type_text(static_cast<int>(v));
    case ArgKind::kGemmAlgo: return static_cast<int64_t>(static_cast<int32_t>(v));
    case ArgKind::kPointerMode: return pointer_mode_name(static_cast<int>(v));
    case ArgKind::kMathMode: return math_mode_text(static_cast<int>(v));
    case ArgKind::kStatusOut:
      // A handle written back by cublasCreate is an address; other out-values are counts.
      if (std::strcmp(arg.name, "handle") == 0) return hex_address(v);
      return static_cast<int64_t>(v);
    case ArgKind::kText: {
      const char* begin = reinterpret_cast<const char*>(&rec.args[slot_index]);
      size_t room = (format::kMaxArgs - slot_index) * sizeof(uint64_t);
      return std::string(begin, strnlen(begin, room));
    }
    case ArgKind::kCudaError: return static_cast<int64_t>(static_cast<int32_t>(v));
    case ArgKind::kDouble: return as_double(v);
    case ArgKind::kLtAttribute: case ArgKind::kOrder: case ArgKind::kEpilogue:
      return static_cast<int64_t>(v);
    case ArgKind::kNone:
    default: return v;
  }
}

// alpha/beta as numbers: a real value, [re, im] for complex types, null when only the device
// pointer is known (pointer mode device). JSON has no NaN or Inf: such a value is null too, and
// scalar_text() gives `<key>_text` ("nan", "inf") to say which.
json scalar_value(bool known, const double value[2], bool complex) {
  if (!known) return nullptr;
  auto number = [](double d) { return std::isfinite(d) ? json(d) : json(nullptr); };
  if (complex) return json::array({number(value[0]), number(value[1])});
  return number(value[0]);
}

json scalar_text(bool known, const double value[2], bool complex) {
  if (!known || (std::isfinite(value[0]) && (!complex || std::isfinite(value[1])))) return nullptr;
  return complex ? fmt::format("({}, {})", value[0], value[1]) : fmt::format("{}", value[0]);
}

// The GEMM family's handle state and scalars, named as the contract names them.
void add_gemm_args(const CallView& call, json& args) {
  const format::Record& rec = call.rec();
  GemmCall g = gemm_from_record(*call.function, rec);
  // Entry points without type arguments (cublasSgemm_v2...) imply their operand types.
  static const char* const kTypeKeys[] = {"a_type", "b_type", "c_type"};
  for (int i = 0; i < 3; ++i) {
    if (!args.contains(kTypeKeys[i]) && g.valid && g.op[i].present) {
      if (const char* name = cuda_name(NameSet::kDataType, static_cast<int>(g.op[i].type))) args[kTypeKeys[i]] = name;
    }
  }
  DataType out_type = g.valid ? (g.d().present ? g.d().type : g.c().type) : DataType::kUnknown;
  bool complex = is_complex(out_type);
  for (const char* key : {"alpha", "beta"}) {
    bool is_alpha = key[0] == 'a';
    if (args.contains(key) && args[key].is_string()) args[std::string(key) + "_ptr"] = args[key];
    bool known = rec.flags & (is_alpha ? format::kFlagAlphaKnown : format::kFlagBetaKnown);
    const double* value = is_alpha ? rec.alpha : rec.beta;
    args[key] = scalar_value(known, value, complex);
    json text = scalar_text(known, value, complex);
    if (!text.is_null()) args[std::string(key) + "_text"] = std::move(text);
  }
  if (!args.contains("pointer_mode")) {
    args["pointer_mode"] = rec.pointer_mode < 0 ? json(nullptr) : json(pointer_mode_name(rec.pointer_mode));
  }
  if (!args.contains("math_mode")) {
    args["math_mode"] = rec.math_mode < 0 ? json(nullptr) : json(math_mode_text(rec.math_mode));
  }
  if (!args.contains("stream")) args["stream"] = hex_address(rec.stream);
}

// CUBLASSPY_CHECK findings, from the record's check bits (messages rebuilt offline, exactly as
// the shim words them).
json checks_of(const CallView& call) {
  json out = json::array();
  const format::Record& rec = call.rec();
  if (rec.check_bits == 0 || call.function == nullptr) return out;
  GemmCall g = gemm_from_record(*call.function, rec);
  for (int bit = 0; bit < 32; ++bit) {
    if ((rec.check_bits & (1u << bit)) == 0) continue;
    auto id = static_cast<CheckId>(bit);
    const char* name = bit < kCheckCount ? check_id_name(id) : nullptr;
    json finding;
    finding["id"] = name ? std::string(name) : fmt::format("check-{}", bit);
    finding["message"] = name ? check_message(id, g, rec)
                              : fmt::format("check {} (unknown to this reader) flagged the call", bit);
    finding["severity"] = name ? check_severity(id) : "warning";
    out.push_back(std::move(finding));
  }
  return out;
}

// CUBLASSPY_SCAN summaries, per operand present in the call.
json scan_of(const CallView& call) {
  const format::Record& rec = call.rec();
  if ((rec.flags & format::kFlagScanned) == 0) return nullptr;
  GemmCall g = gemm_from_record(*call.function, rec);
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

std::string hex_address(uint64_t value) { return fmt::format("{:#x}", value); }

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

json call_to_json(const CallView& call) {
  const format::Record& rec = call.rec();
  json j;
  j["seq"] = call.seq;
  j["tid"] = rec.tid;
  j["function"] = call.function_name();
  bool done = !call.in_flight();
  j["state"] = done ? "completed" : "in_flight";
  j["status"] = done ? json(rec.status) : json(nullptr);
  j["status_name"] = done ? json(status_name(call.function_name(), rec.status)) : json(nullptr);
  j["start_ns"] = rec.start_ns;
  j["duration_ns"] = done ? json(rec.duration_ns) : json(nullptr);
  j["nested"] = (rec.flags & format::kFlagNested) != 0;

  json args = json::object();
  std::vector<ArgView> views = call.args();
  for (size_t i = 0; i < views.size(); ++i) {
    // Unnamed slots are room for a text argument's bytes, not arguments of their own.
    if (views[i].name[0] == '\0') continue;
    args[views[i].name] = arg_value(views[i], rec, i);
    if (named_set(views[i], call.function_name())) {
      args[std::string(views[i].name) + "_name"] = arg_name(views[i], call.function_name());
    }
  }
  // The GEMM family: the handle state (alpha, beta, pointer mode, math mode, stream) too.
  if (call.function != nullptr && format::is_gemm_family(call.function->family)) add_gemm_args(call, args);
  j["args"] = std::move(args);
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
    j["async_pinned"] = (rec.flags & format::kFlagAsyncPinned) != 0;
  }
  if (rec.check_bits != 0) j["check_bits"] = rec.check_bits;
  return j;
}

namespace {

// What the report takes from a trace's ring: the key it orders processes by, the calls it lists
// and the facts the diagnoses rest on. A ring can hold millions of records: one walk gives all.
struct TraceWalk {
  const TraceFile* trace = nullptr;
  uint64_t first_start_ns = UINT64_MAX;
  json in_flight = json::array();
  json calls = json::array();
  diagnoses::TraceFacts facts;
};

TraceWalk walk_trace(const TraceFile& trace, const ReportOptions& options) {
  TraceWalk w;
  w.trace = &trace;
  diagnoses::FactsGatherer facts(trace);
  trace.for_each_call([&](const CallView& c) {
    w.first_start_ns = std::min(w.first_start_ns, c.rec().start_ns);
    if (c.in_flight() || options.all_calls) {
      json j = call_to_json(c);
      if (c.in_flight()) w.in_flight.push_back(j);
      if (options.all_calls) w.calls.push_back(std::move(j));
    }
    facts.add(c);
  });
  w.facts = facts.finish();
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
  environment["libraries"] = std::move(libraries);
  environment["cuda_driver_version"] = optional_int(h.driver_version, h.driver_version >= 0);
  environment["cuda_runtime_version"] = optional_int(h.runtime_version, h.runtime_version >= 0);
  t["environment"] = std::move(environment);

  json end;
  auto state = static_cast<format::EndState>(h.end_state);
  end["state"] = state == format::EndState::kExited     ? "exited"
                 : state == format::EndState::kSignaled ? "signaled"
                                                        : "unknown";
  end["signal"] = optional_int(h.end_signal, state == format::EndState::kSignaled);
  if (state == format::EndState::kSignaled) end["signal_name"] = signal_text(h.end_signal);
  end["exit_status"] = optional_int(h.exit_status, state == format::EndState::kExited && h.exit_status >= 0);
  t["end"] = std::move(end);

  json in_flight = std::move(walk.in_flight);
  json totals;
  totals["calls"] = trace.total_calls();
  totals["failed"] = trace.total_failed();
  totals["in_flight"] = in_flight.size();
  json by_function = json::object();
  json failed_by_function = json::object();
  for (uint16_t id = 0; id < trace.function_count(); ++id) {
    format::FunctionCounters c = trace.counters(id);
    if (c.calls != 0) by_function[trace.function(id).name] = c.calls;
    if (c.failed != 0) failed_by_function[trace.function(id).name] = c.failed;
  }
  totals["by_function"] = std::move(by_function);
  totals["failed_by_function"] = std::move(failed_by_function);
  totals["records_held"] = trace.records_held();
  totals["ring_capacity"] = h.ring_capacity;
  totals["dropped_records"] = h.dropped_records;
  totals["torn_records"] = trace.torn_records();
  t["totals"] = std::move(totals);

  auto first = trace.first_failure();
  t["first_failure"] = first ? call_to_json(*first) : json(nullptr);
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
  report["diagnoses"] = json::array();
  for (const Diagnosis& d : diagnoses::diagnose_facts(facts)) report["diagnoses"].push_back(diagnosis_to_json(d));
  return report;
}

}  // namespace cublasspy::tools
