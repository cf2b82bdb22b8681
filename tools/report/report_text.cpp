#include "report/report_text.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <fmt/format.h>

#include "present/call_text.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

// ANSI styles; empty strings when colour is off, so the layout code never branches on it.
struct Style {
  const char* bold = "";
  const char* dim = "";
  const char* red = "";
  const char* yellow = "";
  const char* green = "";
  const char* cyan = "";
  const char* reset = "";
  explicit Style(bool on) {
    if (!on) return;
    bold = "\033[1m", dim = "\033[2m", red = "\033[31m", yellow = "\033[33m", green = "\033[32m",
    cyan = "\033[36m", reset = "\033[0m";
  }
};

// The width the wrapped argument lists aim for (the first failure).
constexpr size_t kWrapColumns = 100;

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string basename_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Wraps `pieces` after `indent`, breaking between pieces only.
void append_wrapped(std::string& out, const std::vector<std::string>& pieces, const std::string& indent) {
  std::string line = indent;
  for (const std::string& piece : pieces) {
    if (line.size() > indent.size() && line.size() + 1 + piece.size() > kWrapColumns) {
      out += line + "\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? " " : "") + piece;
  }
  if (line.size() > indent.size()) out += line + "\n";
}

// "#6 cublasGemmEx -> CUBLAS_STATUS_NOT_INITIALIZED (1), tid 812, 2.1 us", arguments below.
// "made at train.py:42 in forward <- ...", and with `native` the native frames (CUBLASSPY_STACKS).
void append_locations(std::string& out, const json& call, const Style& s, const std::string& indent, bool native) {
  if (call.contains("location")) out += fmt::format("{}{}{}{}\n", indent, s.cyan, call["location"].get<std::string>(), s.reset);
  if (native && call.contains("native_location")) {
    out += fmt::format("{}{}native: {}{}\n", indent, s.dim, call["native_location"].get<std::string>(), s.reset);
  }
  if (call.contains("fault_pc")) out += fmt::format("{}faulted at pc {}\n", indent, call["fault_pc"].get<std::string>());
}

void append_call_block(std::string& out, const json& call, const Style& s, const std::string& indent,
                       bool native = false) {
  bool failed = call.value("failed", false) || call.value("crashed", false);
  const char* colour = call["state"] == "in_flight" ? s.yellow : failed ? s.red : s.green;
  std::string details = fmt::format("tid {}", call["tid"].get<uint64_t>());
  if (!call["duration_ns"].is_null()) details += ", " + duration_text(call["duration_ns"].get<uint64_t>());
  if (call.value("nested", false)) details += ", nested";
  out += fmt::format("{}#{} {}{}{} -> {}{}{}  {}{}{}\n", indent, call["seq"].get<uint64_t>(), s.bold,
                     call["function"].get<std::string>(), s.reset, colour, call_outcome_text(call),
                     s.reset, s.dim, details, s.reset);
  append_locations(out, call, s, indent + "    ", native);
  append_wrapped(out, argument_pieces(call["args"]), indent + "    ");
  if (call["scan"].is_object()) {
    // Only the operands where the scan found something: a clean scan adds no line.
    for (auto it = call["scan"].begin(); it != call["scan"].end(); ++it) {
      const json& op = it.value();
      uint64_t nan = op.value("nan", uint64_t{0}), pos = op.value("pos_inf", uint64_t{0}),
               neg = op.value("neg_inf", uint64_t{0});
      bool overflow = op.value("overflow", false);
      if (nan + pos + neg == 0 && !overflow) continue;
      std::string where = op["first"].is_object()
                              ? fmt::format(", first at row {}, col {}, batch {}", op["first"]["row"].get<uint64_t>(),
                                            op["first"]["col"].get<uint64_t>(), op["first"]["batch"].get<uint64_t>())
                              : "";
      out += fmt::format("{}    {}scan {}{}: {} NaN, {} +Inf, {} -Inf{}{}\n", indent, s.yellow, it.key(), s.reset,
                         nan, pos, neg, where, overflow ? " (overflowed its type)" : "");
    }
  }
  for (const json& check : call["checks"]) {
    out += fmt::format("{}    {}check {}{}: {}\n", indent, s.yellow, check.value("id", "?"), s.reset,
                       check.value("message", ""));
  }
}

void append_trace(std::string& out, const json& trace, const TextOptions& o, const Style& s) {
  const json& p = trace["process"];
  out += fmt::format("{}{}{}\n", s.bold, process_title(trace), s.reset);
  std::vector<std::string> argv = p["cmdline"].get<std::vector<std::string>>();
  if (!argv.empty()) {
    std::string cmd = join(argv, " ");
    if (cmd.size() > kWrapColumns) cmd = cmd.substr(0, kWrapColumns - 3) + "...";
    out += fmt::format("  command   {}\n", cmd);
  }
  const json& end = trace["end"];
  bool clean_exit = (end["state"] == "exited" && (end["exit_status"].is_null() || end["exit_status"] == 0) &&
                     end.value("recorded_by", json()) != "launcher") ||
                    end["state"] == "exec";
  const char* end_colour = clean_exit ? "" : s.red;
  out += fmt::format("  ran       {} .. {}{}{}\n", p.value("start_time", "?"), end_colour,
                     ending_text(end), end_colour[0] ? s.reset : "");
  // Which build recorded it: a report from an old or mixed install says so (format version 4).
  if (trace["writer_version"].is_string()) {
    out += fmt::format("  trace     written by cublasspy {}\n", trace["writer_version"].get<std::string>());
  }
  if (p.contains("forked_from")) {
    const json& f = p["forked_from"];
    out += fmt::format("  forked    from process {} after its call #{}{}\n", f["pid"].get<uint64_t>(),
                       f["calls_before_fork"].get<uint64_t>(),
                       f.value("parent_cuda_ready", false) ? " (the parent had initialized CUDA)" : "");
  }
  const json& env = trace["environment"];
  std::vector<std::string> libs;
  for (const json& lib : env["libraries"]) libs.push_back(basename_of(lib.value("path", "")));
  std::string lib_text = libs.empty() ? "no CUDA library loaded" : join(libs, ", ");
  std::string runtime = cuda_version_text(env["cuda_runtime_version"]);
  if (env["cuda_runtime_version"].is_null() && env.value("cuda_runtime_linkage", json()) == "static") {
    runtime = "linked statically into the program (no libcudart.so loaded: its calls are invisible to the shim)";
  }
  out += fmt::format("  CUDA      driver {}, runtime {}; {}\n", cuda_version_text(env["cuda_driver_version"]), runtime,
                     lib_text);

  const json& totals = trace["totals"];
  uint64_t failed = totals["failed"].get<uint64_t>();
  uint64_t in_flight = totals["in_flight"].get<uint64_t>();
  std::vector<std::pair<uint64_t, std::string>> by_function;
  for (auto it = totals["by_function"].begin(); it != totals["by_function"].end(); ++it) {
    by_function.emplace_back(it.value().get<uint64_t>(), it.key());
  }
  std::stable_sort(by_function.begin(), by_function.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> top;
  constexpr size_t kTopFunctions = 6;
  const json unchanged = totals.value("unchanged_by_function", json::object());
  for (size_t i = 0; i < by_function.size() && i < kTopFunctions; ++i) {
    // A setter's calls that changed nothing have no record: say so, or the list looks short.
    const uint64_t same = unchanged.value(by_function[i].second, uint64_t{0});
    top.push_back(same == 0 ? fmt::format("{} {}", by_function[i].second, by_function[i].first)
                            : fmt::format("{} {} ({} unchanged, not listed)", by_function[i].second,
                                          by_function[i].first, same));
  }
  if (by_function.size() > kTopFunctions) top.push_back(fmt::format("{} more", by_function.size() - kTopFunctions));
  out += fmt::format("  calls     {} made, {}{} failed{}, {}{} in flight{}", totals["calls"].get<uint64_t>(),
                     failed ? s.red : "", failed, failed ? s.reset : "", in_flight ? s.yellow : "",
                     in_flight, in_flight ? s.reset : "");
  out += top.empty() ? "\n" : fmt::format("  {}({}){}\n", s.dim, join(top, ", "), s.reset);
  uint64_t dropped = totals.value("dropped_records", uint64_t{0});
  uint64_t torn = totals.value("torn_records", uint64_t{0});
  if (dropped || torn) {
    out += fmt::format("  {}records   {} dropped (ring full of calls in flight), {} unreadable{}\n", s.yellow,
                       dropped, torn, s.reset);
  }
  // What a full side area cost: locations (and GEMM groups) of some calls.
  const uint64_t side_dropped = totals.value("side_dropped", uint64_t{0});
  if (side_dropped != 0) {
    out += fmt::format("  {}locations {} side entr{} (call locations, GEMM groups) did not fit in the {} MiB side area, "
                       "so some calls have no location; set CUBLASSPY_SIDE_MB higher to keep more{}\n",
                       s.yellow, side_dropped, side_dropped == 1 ? "y" : "ies",
                       totals.value("side_bytes", uint64_t{0}) >> 20, s.reset);
  }
  const uint64_t unsited = totals.value("failures_unsited", uint64_t{0});
  if (unsited != 0) {
    out += fmt::format("  {}failures  {} failed call{} came from more places than the failure-site table holds: "
                       "each took a location of its own{}\n",
                       s.yellow, unsited, unsited == 1 ? "" : "s", s.reset);
  }

  // Version 8: CUDA graphs, each with what was captured into it and how often it ran.
  const json graphs = trace.contains("launches") ? trace["launches"].value("graphs", json::array()) : json::array();
  constexpr size_t kGraphsShown = 4;
  for (size_t i = 0; i < graphs.size() && i < kGraphsShown; ++i) {
    const json& g = graphs[i];
    std::vector<std::string> calls;
    for (const json& seq : g["captured_calls"]) calls.push_back(fmt::format("#{}", seq.get<uint64_t>()));
    const uint64_t launches = g["launches"].get<uint64_t>();
    const std::string name = g["graph"].get<uint64_t>() != 0 ? fmt::format("graph {:#x}", g["graph"].get<uint64_t>())
                                                             : fmt::format("capture {}", g["capture_id"].get<uint64_t>());
    out += fmt::format("  {}    {}: {} GEMM{} captured{}, launched {} time{}\n", i == 0 ? "graphs" : "      ", name,
                       calls.size(), calls.size() == 1 ? "" : "s", calls.empty() ? "" : " (" + join(calls, ", ") + ")",
                       launches, launches == 1 ? "" : "s");
  }
  if (graphs.size() > kGraphsShown) out += fmt::format("            ... {} more (--json lists them all)\n", graphs.size() - kGraphsShown);

  if (!trace["first_failure"].is_null()) {
    out += fmt::format("  {}first failure{}\n", s.bold, s.reset);
    append_call_block(out, trace["first_failure"], s, "    ", o.all_calls);
  }
  // Failed loads the program went on without (report_model: "shrugged_off"): a note, not a
  // failure; one line per library asked for, however often the program asked (PyTorch: 5 times).
  if (trace.contains("shrugged_off")) {
    std::vector<std::pair<std::string, std::vector<const json*>>> by_file;
    for (const json& probe : trace["shrugged_off"]) {
      const std::string file = probe["call"]["args"].value("filename", "?");
      auto it = std::find_if(by_file.begin(), by_file.end(), [&](const auto& e) { return e.first == file; });
      if (it == by_file.end()) it = by_file.insert(by_file.end(), {file, {}});
      it->second.push_back(&probe);
    }
    for (const auto& [file, probes] : by_file) {
      std::vector<std::string> seqs;
      for (const json* p : probes) seqs.push_back(fmt::format("#{}", (*p)["call"]["seq"].get<uint64_t>()));
      const json& first = *probes.front();
      out += fmt::format("  note      {} {}(\"{}\") failed ({}); the program went on without it: {}\n",
                         join(seqs, ", "), first["call"]["function"].get<std::string>(), file,
                         first["call"]["args"].value("result", "?"), first["why"].get<std::string>());
    }
  }
  if (!trace["first_async_error"].is_null()) {
    const json& a = trace["first_async_error"];
    out += fmt::format("  {}asynchronous error{} {} ({}) first seen after call #{}\n", s.red, s.reset,
                       a.value("error_name", "?"), a["error"].get<int>(), a["call"].get<uint64_t>());
  }
  const json& flights = trace["in_flight"];
  if (!flights.empty()) {
    out += fmt::format("  {}in flight when the trace ended{}\n", s.bold, s.reset);
    for (size_t i = 0; i < flights.size() && i < o.max_in_flight; ++i) {
      append_call_block(out, flights[i], s, "    ", o.all_calls);
    }
    if (flights.size() > o.max_in_flight) {
      out += fmt::format("    ... {} more (--json lists them all)\n", flights.size() - o.max_in_flight);
    }
  }
}

void append_diagnoses(std::string& out, const json& diagnoses, const TextOptions& o, const Style& s) {
  if (diagnoses.empty()) return;
  std::vector<const json*> ordered;
  for (const json& d : diagnoses) ordered.push_back(&d);
  auto rank = [](const json* d) {
    std::string sev = d->value("severity", "info");
    return sev == "error" ? 0 : sev == "warning" ? 1 : 2;
  };
  std::stable_sort(ordered.begin(), ordered.end(), [&](auto* a, auto* b) { return rank(a) < rank(b); });
  out += fmt::format("{}diagnoses{}\n", s.bold, s.reset);
  for (size_t i = 0; i < ordered.size() && i < o.max_diagnoses; ++i) {
    const json& d = *ordered[i];
    std::string sev = d.value("severity", "info");
    const char* colour = sev == "error" ? s.red : sev == "warning" ? s.yellow : s.cyan;
    std::vector<std::string> where;
    if (!d["pid"].is_null()) where.push_back(fmt::format("pid {}", d["pid"].get<int64_t>()));
    if (!d["call"].is_null()) where.push_back(fmt::format("call #{}", d["call"].get<uint64_t>()));
    if (d.contains("launch") && !d["launch"].is_null()) where.push_back(fmt::format("launch #{}", d["launch"].get<uint64_t>()));
    out += fmt::format("  {}{:<7}{} {}{}{}: {}{}\n", colour, sev, s.reset, s.bold, d.value("id", "?"), s.reset,
                       d.value("summary", ""),
                       where.empty() ? "" : fmt::format(" {}({}){}", s.dim, join(where, ", "), s.reset));
    append_locations(out, d, s, "          ", o.all_calls);
    for (const char* key : {"evidence", "advice"}) {
      std::string text = d.value(key, "");
      if (text.empty()) continue;
      std::vector<std::string> words;
      for (size_t at = 0; at < text.size();) {
        size_t space = text.find(' ', at);
        if (space == std::string::npos) space = text.size();
        if (space > at) words.push_back(text.substr(at, space - at));
        at = space + 1;
      }
      std::string block;
      append_wrapped(block, words, std::string(20, ' '));
      out += fmt::format("          {:<9} {}", std::string(key) + ":", block.substr(20));
    }
  }
  if (ordered.size() > o.max_diagnoses) {
    out += fmt::format("  ... {} more (--json lists them all)\n", ordered.size() - o.max_diagnoses);
  }
}

void append_call_list(std::string& out, const json& trace, const Style& s) {
  const json& calls = trace["calls"];
  const json& p = trace["process"];
  out += fmt::format("{}calls of process {} ({} held of {} made){}\n", s.bold,
                     p["pid"].is_null() ? "?" : std::to_string(p["pid"].get<int64_t>()), calls.size(),
                     trace["totals"]["calls"].get<uint64_t>(), s.reset);
  uint64_t origin = calls.empty() ? 0 : calls.front()["start_ns"].get<uint64_t>();
  for (const json& c : calls) {
    bool failed = c.value("failed", false);
    const char* colour = c["state"] == "in_flight" ? s.yellow : failed ? s.red : "";
    uint64_t start = c["start_ns"].get<uint64_t>();
    std::string duration = c["duration_ns"].is_null() ? "" : "  " + duration_text(c["duration_ns"].get<uint64_t>());
    // Nested calls (cuBLAS calling cuBLASLt) are indented under the call that made them.
    out += fmt::format("  #{:<5} +{:.3f} ms  tid {}  {}{}{} -> {}{}{}{}\n", c["seq"].get<uint64_t>(),
                       static_cast<double>(start - std::min(start, origin)) / 1e6, c["tid"].get<uint64_t>(),
                       c.value("nested", false) ? "  " : "", c["function"].get<std::string>(),
                       call_arguments_text(c), colour, call_outcome_text(c), colour[0] ? s.reset : "",
                       duration);
    append_locations(out, c, s, "           ", true);
  }
}

}  // namespace

std::string cuda_version_text(const json& v) {
  if (v.is_null()) return "unknown";
  int n = v.get<int>();
  if (n == 0) return "0 (none)";
  return fmt::format("{}.{} ({})", n / 1000, n % 1000 / 10, n);
}

// The ending in words. What the process recorded itself is said plainly; what only its
// launcher saw says that no exit handler ran, and for status 127 why that usually is.
std::string ending_text(const json& end) {
  std::string state = end.value("state", "unknown");
  const bool by_launcher = end.value("recorded_by", json()) == "launcher";
  if (state == "exited") {
    if (end["exit_status"].is_null()) return "exited";
    int status = end["exit_status"].get<int>();
    std::string text = fmt::format("exited with status {}", status);
    if (!by_launcher) return text;
    if (status == 127) {
      return text + " without running its exit handlers: the dynamic linker's status for a \"symbol "
                    "lookup error\" or a library it could not load (its message is on stderr)";
    }
    return text + " without running its exit handlers (_exit)";
  }
  if (state == "exec") {
    // Format version 9: neither an exit nor a death; the program goes on as another image.
    const json& exec = end.contains("exec") ? end["exec"] : json();
    if (!exec.is_object() || !exec["target"].is_string()) {
      return "replaced itself by exec (its target was not recorded)";
    }
    return fmt::format("replaced itself by exec of {} ({}, call #{})", exec["target"].get<std::string>(),
                       exec["function"].get<std::string>(), exec["call"].get<uint64_t>());
  }
  if (state == "signaled") {
    std::string text = fmt::format("killed by signal {} ({})", end["signal"].get<int>(), end.value("signal_name", "?"));
    if (!by_launcher) return text;
    return text + (end["signal"] == SIGKILL ? ", seen by cublasspy run (the OOM killer, a time limit or kill -9)"
                                            : ", seen by cublasspy run");
  }
  std::string text = "ended without a recorded exit (SIGKILL, the OOM killer, or still running)";
  if (end.contains("command")) {
    const json& c = end["command"];
    text += fmt::format("; the command cublasspy run started (process {}) ", c["pid"].get<uint64_t>());
    text += c["state"] == "exited" ? fmt::format("exited with status {}", c["exit_status"].get<int>())
                                   : fmt::format("was killed by signal {} ({})", c["signal"].get<int>(),
                                                 c.value("signal_name", "?"));
  }
  return text;
}

std::string process_title(const json& trace) {
  const json& p = trace["process"];
  std::string pid = p["pid"].is_null() ? "?" : std::to_string(p["pid"].get<int64_t>());
  std::string rank = p["rank"].is_null() ? "" : fmt::format(", rank {}", p["rank"].get<int64_t>());
  return fmt::format("process {} on {}{}: {}", pid, p.value("host", "?"), rank, p.value("exe", "?"));
}

std::string call_block_text(const json& call, bool native) {
  std::string out;
  append_call_block(out, call, Style(false), "", native);
  return out;
}

bool use_color(int fd, ColorChoice choice) {
  if (choice != ColorChoice::kAuto) return choice == ColorChoice::kAlways;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return isatty(fd) != 0;
}

std::string duration_text(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  if (ns < 1000000) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1000000000) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string call_arguments_text(const json& call) {
  return "(" + join(argument_pieces(call["args"]), ", ") + ")";
}

std::string call_outcome_text(const json& call) {
  // The document's CALL object says what CallView does (report_model.cpp built it from one):
  // the words are trace/call_text's.
  CallOutcome o;
  o.in_flight = call["state"] == "in_flight";
  if (!o.in_flight) {
    o.status = call["status"].get<int>();
    o.status_name = call["status_name"].get<std::string>();
  }
  if (call.contains("async_status")) {
    o.async_status = call["async_status"].get<int>();
    o.async_status_name = call.value("async_status_name", "?");
    o.async_fault = call.value("async_fault", false);
  }
  o.crashed = call.value("crashed", false);
  o.unresolved = call.value("unresolved", false);
  o.status_is_word = call["library"] == "system";
  o.capture_id = call.value("capture_id", uint64_t{0});
  return outcome_text(o);
}

std::string render_text(const json& report, const TextOptions& options) {
  Style s(options.color);
  std::string out;
  const json& traces = report["traces"];
  for (size_t i = 0; i < traces.size(); ++i) {
    if (i) out += "\n";
    append_trace(out, traces[i], options, s);
  }
  if (!report["diagnoses"].empty()) {
    out += "\n";
    append_diagnoses(out, report["diagnoses"], options, s);
  }
  if (options.all_calls) {
    for (const json& trace : traces) {
      out += "\n";
      append_call_list(out, trace, s);
    }
  }
  if (report.contains("notes")) {
    for (const json& note : report["notes"]) out += "\nnote: " + note.get<std::string>() + "\n";
  }
  return out;
}

}  // namespace cublasspy::tools
