#include "report/perfetto_export.h"

#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "report/report_text.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

// Chrome's trace viewer names a few fixed colours; "terrible" is its red.
constexpr const char* kFailureColour = "terrible";

// Timestamps are microseconds in the format; the trace's clock is CLOCK_MONOTONIC, shared by
// every process of one host, so the processes of a multi-rank job line up.
double micros(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

json slice_args(const json& call) {
  json args;
  args["seq"] = call["seq"];
  args["status"] = call["status"];
  args["status_name"] = call["status_name"];
  for (auto it = call["args"].begin(); it != call["args"].end(); ++it) args[it.key()] = it.value();
  if (!call["checks"].empty()) args["checks"] = call["checks"];
  if (!call["scan"].is_null()) args["scan"] = call["scan"];
  if (call.contains("async_status_name")) args["async_status_name"] = call["async_status_name"];
  return args;
}

}  // namespace

json perfetto_trace(const json& report) {
  json events = json::array();
  int64_t next_anonymous_pid = 1000000000;  // traces whose process section lacks a pid
  // pid -> seq -> (tid, start), to place the diagnoses.
  std::map<int64_t, std::map<uint64_t, std::pair<uint64_t, uint64_t>>> call_at;

  for (const json& trace : report["traces"]) {
    const json& p = trace["process"];
    int64_t pid = p["pid"].is_null() ? next_anonymous_pid++ : p["pid"].get<int64_t>();
    std::string exe = p.value("exe", "?");
    auto slash = exe.rfind('/');
    std::string name = fmt::format("{} (pid {}{})", slash == std::string::npos ? exe : exe.substr(slash + 1), pid,
                                   p["rank"].is_null() ? "" : fmt::format(", rank {}", p["rank"].get<int64_t>()));
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
    if (!p["rank"].is_null()) {
      events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid},
                        {"args", {{"sort_index", p["rank"]}}}});
    }
    std::set<uint64_t> threads;
    for (const json& call : trace["calls"]) {
      uint64_t tid = call["tid"].get<uint64_t>();
      if (threads.insert(tid).second) {
        std::string thread = static_cast<int64_t>(tid) == pid ? fmt::format("main thread {}", tid)
                                                              : fmt::format("thread {}", tid);
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid},
                          {"args", {{"name", thread}}}});
      }
      uint64_t start = call["start_ns"].get<uint64_t>();
      call_at[pid][call["seq"].get<uint64_t>()] = {tid, start};
      std::string function = call["function"].get<std::string>();
      const std::string library = call.value("library", "");
      const char* category = library == "cublas" || library == "cublasLt" ? "cublas" : "cuda";
      json slice = {{"name", function}, {"cat", category},
                    {"pid", pid}, {"tid", tid}, {"ts", micros(start)}};
      bool failed = call.value("failed", false) || call.value("crashed", false);
      if (call["state"] == "in_flight") {
        // A "B" without its "E": the viewer draws a slice that did not end.
        slice["ph"] = "B";
      } else if (call["duration_ns"].is_null()) {
        // Completed without a measured duration (a handle setter, stamped once): an instant.
        slice["ph"] = "i";
        slice["s"] = "t";
      } else {
        slice["ph"] = "X";
        slice["dur"] = micros(call["duration_ns"].get<uint64_t>());
      }
      if (failed) slice["cname"] = kFailureColour;
      slice["args"] = slice_args(call);
      events.push_back(std::move(slice));
      if (failed || call["state"] == "in_flight") {
        std::string what = call["state"] == "in_flight" ? "in flight when the trace ended"
                                                        : call_outcome_text(call);
        events.push_back({{"ph", "i"}, {"s", "t"}, {"name", fmt::format("{}: {}", function, what)},
                          {"cat", "failure"}, {"pid", pid}, {"tid", tid}, {"ts", micros(start)},
                          {"cname", kFailureColour}, {"args", {{"seq", call["seq"]}}}});
      }
    }
  }

  // Diagnoses that name a call appear as markers on that call's thread.
  for (const json& d : report["diagnoses"]) {
    if (d["pid"].is_null() || d["call"].is_null()) continue;
    auto proc = call_at.find(d["pid"].get<int64_t>());
    if (proc == call_at.end()) continue;
    auto at = proc->second.find(d["call"].get<uint64_t>());
    if (at == proc->second.end()) continue;
    events.push_back({{"ph", "i"}, {"s", "t"}, {"name", fmt::format("diagnosis {}", d.value("id", "?"))},
                      {"cat", "diagnosis"}, {"pid", proc->first}, {"tid", at->second.first},
                      {"ts", micros(at->second.second)},
                      {"args", {{"severity", d["severity"]}, {"summary", d["summary"]},
                                {"advice", d["advice"]}}}});
  }
  return json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

}  // namespace cublasspy::tools
