// One trace's object in the report: path, process, environment, end, totals, first_failure,
// in_flight, calls (docs/CONTRACT.md).
#include <set>
#include <string>

#include <fmt/format.h>

#include "common/cuda_names.h"
#include "report/report_parts.h"
#include "trace/graph_summary.h"
#include "trace/process_end.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

json optional_int(int64_t value, bool present) { return present ? json(value) : json(nullptr); }

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

}  // namespace cublasspy::tools
