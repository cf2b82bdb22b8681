// `cublasspy doctor [--json]`: checks this machine's CUDA set-up without running a workload
// (src/doctor/): the driver library and its version, the kernel module, the device nodes, NVML
// against CUDA, CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER, the CUDA libraries on the search
// path, MIG, containers. The findings are the report's diagnoses (same ids, same JSON shape).
// Exit status: 0 when no finding is an error, 1 when one is, 2 for a usage error.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "doctor/doctor.h"
#include "doctor/doctor_json.h"
#include "report/report_model.h"
#include "report/report_text.h"
#include "cli/subcommand.h"

namespace cublasspy::tools {
namespace {

using json = nlohmann::ordered_json;

struct DoctorArgs {
  bool json = false;
  std::string color = "auto";
  int probe_timeout = 20;
};

std::string doctor_text(const doctor::DoctorReport& r, bool color) {
  const char* reset = color ? "\033[0m" : "";
  std::string out = fmt::format("{}cublasspy doctor{}\n", color ? "\033[1m" : "", reset);
  for (const doctor::CheckResult& c : r.checks) {
    const char* mark = "  ";
    const char* colour = "";
    switch (c.status) {
      case doctor::CheckStatus::kOk: mark = "ok"; colour = color ? "\033[32m" : ""; break;
      case doctor::CheckStatus::kWarning: mark = "!!"; colour = color ? "\033[33m" : ""; break;
      case doctor::CheckStatus::kProblem: mark = "XX"; colour = color ? "\033[31m" : ""; break;
      case doctor::CheckStatus::kInfo: mark = "--"; break;
    }
    out += fmt::format("  {}{}{} {:<22} {}\n", colour, mark, reset, c.name, c.detail);
  }
  if (r.diagnoses.empty()) {
    out += "\nno problem found\n";
    return out;
  }
  // The diagnoses print exactly as in `cublasspy report`.
  json doc;
  doc["traces"] = json::array();
  doc["diagnoses"] = json::array();
  for (const Diagnosis& d : r.diagnoses) doc["diagnoses"].push_back(diagnosis_to_json(d));
  TextOptions options;
  options.color = color;
  options.max_diagnoses = r.diagnoses.size();
  return out + render_text(doc, options);
}

int run_doctor_command(const DoctorArgs& a) {
  doctor::MachineView machine = doctor::this_machine();
  const int seconds = a.probe_timeout;
  machine.probe_driver = [seconds] { return doctor::probe_driver_in_child(seconds); };
  doctor::DoctorReport report = doctor::run_doctor(machine);
  if (a.json) {
    std::string text = doctor::doctor_json(report, &diagnosis_to_json).dump(2, ' ', false, json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
  } else {
    bool color = use_color(STDOUT_FILENO, a.color == "always"  ? ColorChoice::kAlways
                                          : a.color == "never" ? ColorChoice::kNever
                                                               : ColorChoice::kAuto);
    std::string text = doctor_text(report, color);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  for (const Diagnosis& d : report.diagnoses) {
    if (d.severity == Severity::kError) return 1;
  }
  return kExitOk;
}

}  // namespace

SubcommandAction attach_doctor(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  app.add_flag("--json", a->json, "Print one JSON document: the checks and the diagnoses");
  app.add_option("--color", a->color, "Colour the text: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
  app.add_option("--probe-timeout", a->probe_timeout,
                 "Seconds to wait for the driver to answer before calling it hung (default 20)")
      ->check(CLI::Range(1, 600))
      ->type_name("SECONDS");
  app.footer(
      "Checks the driver library and its version, the kernel module, /dev/nvidia*, NVML against\n"
      "CUDA, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, the CUDA libraries on the search path,\n"
      "MIG and containers, without running a workload (the driver is asked in a child process).\n"
      "Exit status: 0 when nothing is wrong, 1 when a finding is an error, 2 for a bad option.");
  return [a] { return run_doctor_command(*a); };
}

}  // namespace cublasspy::tools
