#include "doctor/doctor.h"

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
  add_all(check_driver(f.probe, f.libraries));
  add(check_kernel_module(m, f.module));
  add(check_device_nodes(m, f.nodes));
  add(check_container(m, f.nodes, f.container));
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
  return r;
}

}  // namespace cublasspy::doctor
