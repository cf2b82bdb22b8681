#include "bundle/doctor_here.h"

#include <fmt/format.h>

#include "doctor/doctor.h"
#include "doctor/doctor_json.h"
#include "machine/process_info.h"
#include "report/report_model.h"

namespace cublasspy::tools::bundle {

bool made_here(const std::vector<const TraceFile*>& traces, std::string& why_not) {
  const std::string host = host_name();
  const std::string ns = pid_namespace();
  for (const TraceFile* t : traces) {
    const std::string their_host = t->process().get("host");
    const std::string their_ns = t->process().get("pid_namespace");
    if (their_host != host) {
      why_not = fmt::format("{} was written on host {}, this is {}", t->path(), their_host.empty() ? "?" : their_host, host);
      return false;
    }
    if (their_ns.empty() || their_ns != ns) {
      why_not = fmt::format("{} was written in another pid namespace (a container) than this one", t->path());
      return false;
    }
  }
  return !traces.empty();
}

nlohmann::ordered_json doctor_document() {
  doctor::MachineView machine = doctor::this_machine();
  constexpr int kProbeSeconds = 20;  // `doctor`'s default --probe-timeout
  machine.probe_driver = [] { return doctor::probe_driver_in_child(kProbeSeconds); };
  return doctor::doctor_json(doctor::run_doctor(machine), &diagnosis_to_json);
}

}  // namespace cublasspy::tools::bundle
