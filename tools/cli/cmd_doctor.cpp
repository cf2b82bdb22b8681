// `cublasspy doctor [--json]`: checks this machine's CUDA set-up without running a workload
// (src/doctor/): the driver library and its version, the kernel module, the device nodes, NVML
// against CUDA, CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER, the CUDA libraries on the search
// path, MIG, containers. The findings are the report's diagnoses (same ids, same JSON shape).
// Exit status: 0 when no finding is an error, 1 when one is, 2 for a usage error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "diagnose/load_failure.h"
#include "diagnose/machine_state.h"
#include "doctor/doctor.h"
#include "doctor/doctor_json.h"
#include "doctor/python_env.h"
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
  std::string python;  // --python [PYTHON]: "" when not asked
};

// "12.4" of a CUDA version number (12040).
std::string cuda_text(int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, v % 1000 / 10) : "unknown"; }

// The system toolkit's version, from /usr/local/cuda/version.json ("cuda": {"version": ...}).
std::string toolkit_version() {
  std::FILE* f = std::fopen("/usr/local/cuda/version.json", "r");
  if (f == nullptr) return "";
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("cuda") || !j["cuda"].is_object()) return "";
  return j["cuda"].value("version", std::string());
}

std::string major_of_text(const std::string& v) { return v.substr(0, v.find('.')); }

// Why `import torch` failed, when a copy of a CUDA library explains it: the copies of the
// sonames its error names, found on this machine's loader path as the shim finds them in a
// traced process (load_failure.h, the report's words).
std::optional<Diagnosis> import_failure_cause(const std::string& error) {
  ResolutionSource source;
  const char* ld_library_path = std::getenv("LD_LIBRARY_PATH");
  if (ld_library_path != nullptr) source.ld_library_path = ld_library_path;
  if (const char* v = std::getenv("CONDA_PREFIX")) source.conda_prefix = v;
  source.beside = cuda_library_directories_in(error);
  std::vector<LibraryCopy> copies;
  for (const std::string& soname : cuda_sonames_in(error)) {
    for (LibraryCopy& c : resolve_soname(soname, source)) copies.push_back(std::move(c));
  }
  return diagnoses::load_failure_finding("import torch failed", error, copies,
                                         ld_library_path != nullptr ? std::optional(source.ld_library_path) : std::nullopt);
}

// The version table of the field reports: torch's CUDA against the driver's and the toolkit's,
// and the libraries `import torch` mapped. Their libcublas/libcublasLt pair is judged by the
// trace rules' cublas-lt-mismatch.
void add_python_checks(const DoctorArgs& a, doctor::DoctorReport& r) {
  doctor::PythonEnv py = doctor::probe_python(a.python, a.probe_timeout);
  using doctor::CheckResult;
  using doctor::CheckStatus;
  if (!py.error.empty()) {
    r.checks.push_back({"python", CheckStatus::kProblem, a.python + ": " + py.error});
    return;
  }
  r.checks.push_back({"python", CheckStatus::kInfo, a.python + " " + py.python_version});
  if (py.torch_version.empty()) {
    std::optional<Diagnosis> cause = import_failure_cause(py.torch_error);
    r.checks.push_back({"torch", cause ? CheckStatus::kProblem : CheckStatus::kWarning,
                        "import torch failed: " + py.torch_error +
                            (cause ? fmt::format(" ({}: {})", cause->id, cause->summary) : std::string())});
    // The copy that stops the import explains more than anything else doctor finds: first.
    if (cause) r.diagnoses.insert(r.diagnoses.begin(), std::move(*cause));
  } else {
    r.checks.push_back({"torch", CheckStatus::kInfo,
                        fmt::format("torch {}, built for CUDA {}", py.torch_version, py.torch_cuda.empty() ? "none (CPU)" : py.torch_cuda)});
    // The GPUs it has code for (no-kernel-image, docs/DIAGNOSES.md): a GPU newer than these
    // runs torch's kernels only through a compute_XY PTX entry.
    if (!py.torch_cuda.empty()) {
      r.checks.push_back({"torch architectures", CheckStatus::kInfo,
                          py.torch_arch_list.empty() ? std::string("none reported")
                                                     : fmt::format("{}", fmt::join(py.torch_arch_list, " "))});
    }
  }
  std::vector<std::pair<std::string, std::string>> entries;
  for (const doctor::PythonLibrary& lib : py.libraries) {
    r.checks.push_back({"mapped by torch", CheckStatus::kInfo,
                        fmt::format("{} ({})", lib.path, lib.version.empty() ? "version not reported" : "version " + lib.version)});
    const std::string name = lib.path.substr(lib.path.rfind('/') + 1);
    const char* family = name.rfind("libcublasLt.so", 0) == 0 ? "libcublasLt" : name.rfind("libcublas.so", 0) == 0 ? "libcublas" : nullptr;
    if (family != nullptr) entries.emplace_back("machine.library", fmt::format("{}\t{}\t{}\tother\t-", family, lib.path, lib.version));
  }
  for (const auto& [name, version] : py.wheels) r.checks.push_back({"pip wheel", CheckStatus::kInfo, name + " " + version});
  const int driver = r.facts.probe.driver_version;
  const std::string toolkit = toolkit_version();
  if (!py.torch_cuda.empty()) {
    CheckResult c{"versions", CheckStatus::kOk, ""};
    c.detail = fmt::format("torch CUDA {}, driver supports CUDA {}, system toolkit {}", py.torch_cuda, cuda_text(driver),
                           toolkit.empty() ? "none" : toolkit);
    if (driver > 0 && std::stoi(major_of_text(py.torch_cuda)) > driver / 1000) {
      c.status = CheckStatus::kProblem;
      c.detail += ": the driver is older than torch's CUDA";
    } else if (!toolkit.empty() && major_of_text(toolkit) != major_of_text(py.torch_cuda)) {
      c.status = CheckStatus::kWarning;
      c.detail += ": the toolkit's major differs (extensions built with its nvcc will not match torch)";
    }
    r.checks.push_back(std::move(c));
  }
  for (Diagnosis& d : diagnoses::machine_findings(diagnoses::machine_state_from(entries), std::nullopt, std::nullopt)) {
    r.diagnoses.insert(r.diagnoses.begin(), std::move(d));
  }
}

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
  if (!a.python.empty()) add_python_checks(a, report);
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
  app.add_option("--python", a->python,
                 "Also run PYTHON (default python3, in a child killed after --probe-timeout): torch's "
                 "versions, the CUDA libraries import torch maps, the nvidia-* wheels")
      ->expected(0, 1)
      ->default_str("python3")
      ->type_name("PYTHON");
  app.footer(
      "Checks the driver library and its version, the kernel module, /dev/nvidia*, NVML against\n"
      "CUDA, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, the CUDA libraries on the search path,\n"
      "MIG and containers, without running a workload (the driver is asked in a child process).\n"
      "Exit status: 0 when nothing is wrong, 1 when a finding is an error, 2 for a bad option.");
  return [a] { return run_doctor_command(*a); };
}

}  // namespace cublasspy::tools
