// What the kernel side shows: the nvidia module and the GPUs it drives (/proc/driver/nvidia),
// the device nodes a CUDA process opens (/dev/nvidia*), whether this is a container, and MIG.
// From the field reports of "CUDA unknown error" (device-node permissions, containers, MIG, a
// kernel update that left the module behind) and of multi-GPU hosts in containers
// (docs/DIAGNOSES.md). The module, the nodes and the container markers are the machine evidence
// the shim records in a trace (machine/machine_evidence.h, read back by diagnose/machine_state.h):
// one collector, so doctor and the report see the same machine.
#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "doctor/doctor.h"

namespace cublasspy::doctor {
namespace {

std::string field(const std::string& text, const std::string& key) {
  auto at = text.find(key + ":");
  if (at == std::string::npos) return "";
  auto end = text.find('\n', at);
  std::string value = text.substr(at + key.size() + 1, end == std::string::npos ? std::string::npos : end - at - key.size() - 1);
  size_t b = value.find_first_not_of(" \t");
  return b == std::string::npos ? "" : value.substr(b);
}

}  // namespace

CheckResult check_kernel_module(const MachineView& m, const diagnoses::MachineState& state, KernelModuleFacts& out) {
  CheckResult r{"kernel module", CheckStatus::kProblem, ""};
  for (const std::string& bus : m.list_dir("/proc/driver/nvidia/gpus")) {
    out.gpu_bus_ids.push_back(bus);
    auto info = m.read_file("/proc/driver/nvidia/gpus/" + bus + "/information");
    out.gpu_models.push_back(info ? field(*info, "Model") : "");
  }
  if (!state.module_loaded()) {
    r.detail = "/proc/driver/nvidia/version does not exist: the nvidia kernel module is not loaded "
               "(or, in a container or WSL, not visible)";
    return r;
  }
  out.loaded = true;
  static const std::regex kVersion(R"(Kernel Module[^0-9]*([0-9]+\.[0-9]+(\.[0-9]+)?))");
  std::smatch match;
  if (std::regex_search(state.module_version, match, kVersion)) out.version = match[1].str();
  r.status = CheckStatus::kOk;
  r.detail = fmt::format("nvidia {} loaded, {} GPU{} on the PCI bus{}", out.version.empty() ? "(version unread)" : out.version,
                         out.gpu_bus_ids.size(), out.gpu_bus_ids.size() == 1 ? "" : "s",
                         out.gpu_bus_ids.empty() ? "" : ": " + fmt::to_string(fmt::join(out.gpu_bus_ids, ", ")));
  return r;
}

CheckResult check_device_nodes(const diagnoses::MachineState& state, DeviceNodeFacts& out) {
  for (const diagnoses::MachineState::Node& n : state.nodes) {
    if (!n.essential()) continue;
    DeviceNode node;
    node.path = n.path;
    node.exists = n.exists;
    node.char_device = n.exists && !n.mode.empty() && n.mode[0] == 'c';
    node.accessible = n.exists && n.may_open;
    node.mode = n.mode;
    if (n.exists && !n.may_open) out.inaccessible.push_back(n.path);
    out.nodes.push_back(node);
  }
  out.any_gpu_node = state.any_gpu_node;
  CheckResult r{"device nodes", CheckStatus::kOk, ""};
  std::vector<std::string> present, missing;
  for (const DeviceNode& n : out.nodes) (n.exists ? present : missing).push_back(n.path);
  if (!out.any_gpu_node) {
    r.status = CheckStatus::kProblem;
    r.detail = "no /dev/nvidia<N> device node";
    if (!present.empty()) r.detail += fmt::format(" (present: {})", fmt::join(present, ", "));
  } else if (!out.inaccessible.empty()) {
    r.status = CheckStatus::kProblem;
    r.detail = fmt::format("this user cannot read and write {}", fmt::join(out.inaccessible, ", "));
  } else {
    r.detail = fmt::format("{} present and usable", fmt::join(present, ", "));
    if (std::find(missing.begin(), missing.end(), "/dev/nvidiactl") != missing.end()) {
      r.status = CheckStatus::kWarning;
      r.detail += "; /dev/nvidiactl is missing";
    }
  }
  return r;
}

CheckResult check_container(const diagnoses::MachineState& state, const DeviceNodeFacts& nodes, ContainerFacts& out) {
  out.in_container = !state.container.empty();
  out.evidence = fmt::to_string(fmt::join(state.container, ", "));
  CheckResult r{"container", CheckStatus::kInfo, ""};
  if (!out.in_container) {
    r.detail = "not a container";
  } else if (!nodes.any_gpu_node) {
    r.status = CheckStatus::kProblem;
    r.detail = fmt::format("a container ({}) without GPU devices: started without --gpus", out.evidence);
  } else {
    r.detail = fmt::format("a container ({}) with GPU devices", out.evidence);
  }
  return r;
}

bool MigFacts::enabled() const {
  return !gpus_with_instances.empty() || std::find(nvml_modes.begin(), nvml_modes.end(), 1) != nvml_modes.end();
}

CheckResult check_mig(const MachineView& m, const DriverProbe& probe, MigFacts& out) {
  out.nvml_modes = probe.mig_modes;
  for (const std::string& gpu : m.list_dir("/proc/driver/nvidia/capabilities")) {
    if (gpu.rfind("gpu", 0) != 0) continue;
    for (const std::string& entry : m.list_dir("/proc/driver/nvidia/capabilities/" + gpu + "/mig")) {
      if (entry.rfind("gi", 0) == 0) {
        out.gpus_with_instances.push_back(gpu);
        break;
      }
    }
  }
  CheckResult r{"MIG", CheckStatus::kInfo, ""};
  std::vector<std::string> enabled;
  for (size_t i = 0; i < out.nvml_modes.size(); ++i) {
    if (out.nvml_modes[i] == 1) enabled.push_back(fmt::format("GPU {}", i));
  }
  if (!out.enabled()) {
    r.detail = probe.nvml_loaded || !m.list_dir("/proc/driver/nvidia/capabilities").empty()
                   ? "MIG is not enabled"
                   : "unknown (no NVML, no /proc/driver/nvidia/capabilities)";
    return r;
  }
  r.detail = fmt::format("MIG mode is enabled ({}{}{}): CUDA sees MIG instances, not whole GPUs",
                         fmt::join(enabled, ", "), !enabled.empty() && !out.gpus_with_instances.empty() ? "; " : "",
                         out.gpus_with_instances.empty() ? "" : "instances on " + fmt::to_string(fmt::join(out.gpus_with_instances, ", ")));
  return r;
}

}  // namespace cublasspy::doctor
