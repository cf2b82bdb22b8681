#include "doctor/doctor.h"

#include <algorithm>

#include "common/diagnosis_ids.h"
#include "diagnose/gpu_health.h"
#include "diagnose/machine_state.h"
#include "doctor/vector_sink.h"
#include "machine/machine_evidence.h"

namespace cublasspy::doctor {

const char* check_status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk: return "ok";
    case CheckStatus::kWarning: return "warning";
    case CheckStatus::kProblem: return "problem";
    case CheckStatus::kInfo: return "info";
  }
  return "info";
}

namespace {

const char* view_var(void* context, const char* name) {
  const auto& env = static_cast<const MachineView*>(context)->env;
  auto it = env.find(name);
  return it == env.end() ? nullptr : it->second.c_str();
}

bool has(const std::vector<Diagnosis>& found, const char* id) {
  return std::any_of(found.begin(), found.end(), [&](const Diagnosis& d) { return d.id == id; });
}

// The machine evidence, through the collector the shim records with, read back as the trace
// rules read it (diagnose/machine_state.h).
diagnoses::MachineState collect_evidence(const MachineView& m, MachineFacts& f) {
  MachineSource source;
  source.root = m.root.c_str();
  source.get_var = view_var;
  source.var_context = const_cast<MachineView*>(&m);
  source.driver_library = f.libraries.driver_file.empty() ? nullptr : f.libraries.driver_file.c_str();
  VectorSink sink(f.evidence);
  collect_machine_evidence(source, sink);
  return diagnoses::machine_state_from(f.evidence);
}

// The findings the trace rules draw from that evidence: same ids, same words.
void add_machine_findings(const diagnoses::MachineState& state, DoctorReport& r, bool driver_works) {
  std::optional<diagnoses::SetupFailure> setup;
  const DriverProbe& p = r.facts.probe;
  if (!driver_works && !has(r.diagnoses, ids::kNoDriver)) {
    setup = diagnoses::SetupFailure{p.init_status > 0 ? p.init_status : 0,
                                    p.ran && p.init_status >= 0 ? "The doctor's probe: cuInit returned " + std::to_string(p.init_status)
                                                                : "CUDA was not shown to work here",
                                    std::nullopt, false};
  }
  size_t at = 0;
  for (Diagnosis& d : diagnoses::machine_findings(state, setup, std::nullopt)) {
    if (has(r.diagnoses, d.id.c_str())) continue;
    // Root causes first; the doctor's own findings stay (what the probe saw, with its advice).
    r.diagnoses.insert(r.diagnoses.begin() + static_cast<std::ptrdiff_t>(at++), std::move(d));
  }
}

// The GPUs' health as NVML gives it now (ECC, retired pages, remapped rows): a line, and the
// finding a trace would give at a failure (gpu-hardware-fault), with the same words.
void add_gpu_health(DoctorReport& r) {
  const diagnoses::GpuHealth health = diagnoses::gpu_health_from(r.facts.probe.gpu_health);
  if (health.read != diagnoses::GpuHealth::Read::kRead) return;  // the NVML line says why
  std::optional<Diagnosis> d = diagnoses::gpu_hardware_finding(health, "");
  CheckResult line{"GPU health", CheckStatus::kOk, ""};
  if (d) {
    line.status = d->severity == Severity::kError ? CheckStatus::kProblem : CheckStatus::kWarning;
    line.detail = d->evidence;
    r.diagnoses.push_back(std::move(*d));
    std::stable_sort(r.diagnoses.begin(), r.diagnoses.end(),
                     [](const Diagnosis& a, const Diagnosis& b) { return a.severity < b.severity; });
  } else {
    line.detail = "no uncorrectable ECC error, no page retired or row remapped for one, nothing pending (" +
                  health.devices + ")";
  }
  r.checks.push_back(std::move(line));
}

}  // namespace

DoctorReport run_doctor(const MachineView& m) {
  DoctorReport r;
  MachineFacts& f = r.facts;
  if (m.probe_driver) f.probe = m.probe_driver();
  auto add = [&](CheckResult c) { r.checks.push_back(std::move(c)); };
  auto add_all = [&](std::vector<CheckResult> cs) {
    for (CheckResult& c : cs) r.checks.push_back(std::move(c));
  };
  // In the order a person would check by hand: the library, the kernel, the devices, then
  // what decides which GPUs and which libraries a program gets.
  std::vector<CheckResult> libraries = check_libraries(m, f.libraries);  // the driver line needs the files
  const diagnoses::MachineState state = collect_evidence(m, f);              // needs the driver file
  add_all(check_driver(f.probe, f.libraries));
  add(check_kernel_module(m, state, f.module));
  add(check_device_nodes(state, f.nodes));
  add(check_container(state, f.nodes, f.container));
  add(check_mig(m, f.probe, f.mig));
  add(check_visible_devices(m, f.visible));
  add_all(check_device_order(f.probe, f.module, f.visible));
  add_all(std::move(libraries));
  // A driver that answers with devices proves the kernel side works, whatever /proc and /dev
  // look like here (WSL has neither; a test stand-in neither): those lines are then only notes.
  const bool driver_works = f.probe.loaded && f.probe.driver_version > 0 && f.probe.init_status == 0 && f.probe.device_count > 0;
  if (driver_works) {
    for (CheckResult& c : r.checks) {
      if ((c.name == "kernel module" || c.name == "device nodes" || c.name == "container") &&
          c.status == CheckStatus::kProblem) {
        c.status = CheckStatus::kInfo;
        c.detail += " (the driver works without it here)";
      }
    }
  }
  r.diagnoses = diagnose_machine(f);
  add_machine_findings(state, r, driver_works);
  add_gpu_health(r);
  return r;
}

}  // namespace cublasspy::doctor
