// `cublasspy report [--json] [--all] [--perfetto FILE] [--cublaslt PATH] TRACE...`: what the traces recorded, as
// text (default) or one JSON document. Several traces (one per process or rank) make one
// report. Exit 0 when every trace was read; 2 when one is missing, truncated, corrupt or of an
// unknown version (the reader's message names the file and the problem).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unistd.h>

#include <fmt/format.h>

#include "report/perfetto_export.h"
#include "report/report_model.h"
#include "present/lt_algo_config.h"
#include "report/report_text.h"
#include "report/trace_paths.h"
#include "cli/subcommand.h"

namespace cublasspy::tools {
namespace {

struct ReportArgs {
  bool json = false;
  bool all = false;
  std::string perfetto;
  std::string color = "auto";
  std::string cublaslt;
  std::vector<std::string> traces;
};

bool write_file(const std::string& path, const std::string& text, std::string& error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) error = fmt::format("cannot write {}", path);
  return static_cast<bool>(out);
}

int run_report(const ReportArgs& a) {
  std::vector<std::string> errors;
  std::vector<std::string> paths = expand_directories(a.traces, errors);
  OpenedTraces opened = open_traces(paths);
  errors.insert(errors.end(), opened.errors.begin(), opened.errors.end());
  for (const std::string& e : errors) std::fprintf(stderr, "cublasspy report: %s\n", e.c_str());
  if (opened.traces.empty()) return kExitUsage;

  if (!a.cublaslt.empty()) use_only_cublaslt_for_algorithms(a.cublaslt);
  // Perfetto needs every call; the printed report lists them only with --all.
  ReportOptions options;
  options.all_calls = a.all || !a.perfetto.empty();
  nlohmann::ordered_json report = build_report(opened.pointers(), options);
  if (!errors.empty()) {
    for (const std::string& e : errors) report["unreadable"].push_back(e);
  }

  int status = errors.empty() ? kExitOk : kExitUsage;
  if (!a.perfetto.empty()) {
    std::string error;
    // Paths and recorded text need not be UTF-8: invalid bytes become U+FFFD, never an error.
    std::string text = perfetto_trace(report).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    if (!write_file(a.perfetto, text + "\n", error)) {
      std::fprintf(stderr, "cublasspy report: %s\n", error.c_str());
      status = 1;
    }
  }
  if (!a.all) {
    for (auto& trace : report["traces"]) {
      trace["calls"] = nlohmann::ordered_json::array();
      trace["calls_listed"] = false;
    }
  }
  if (a.json) {
    std::string text = report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
  } else {
    TextOptions text;
    text.all_calls = a.all;
    text.color = use_color(STDOUT_FILENO, a.color == "always"  ? ColorChoice::kAlways
                                          : a.color == "never" ? ColorChoice::kNever
                                                               : ColorChoice::kAuto);
    std::string out = render_text(report, text);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return status;
}

}  // namespace

SubcommandAction attach_report(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  app.add_flag("--json", a->json, "Print one JSON document (docs/CONTRACT.md, \"Report JSON\")");
  app.add_flag("--all", a->all, "List every call still held in the traces, in order");
  app.add_option("--perfetto", a->perfetto,
                 "Also write the calls to FILE as Chrome trace-event JSON (ui.perfetto.dev)")
      ->type_name("FILE");
  app.add_option("--color", a->color, "Colour the text report: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
  app.add_option("--cublaslt", a->cublaslt,
                 "The libcublasLt that reads preset cuBLASLt algorithms (default: the one each traced process "
                 "loaded, else libcublasLt.so.13 or .12 as the loader finds them)")
      ->type_name("PATH");
  app.add_option("TRACE", a->traces, "Trace files (.cbt), one per process or rank, or directories of them")
      ->required();
  app.footer(
      "Exit status: 0 when every trace was read, 2 when one is missing, truncated, corrupt or of\n"
      "an unknown version.");
  return [a] { return run_report(*a); };
}

}  // namespace cublasspy::tools
