// What the kernel side shows: the nvidia module and the GPUs it drives (/proc/driver/nvidia),
// the device nodes a CUDA process opens (/dev/nvidia*), whether this is a container, and MIG.
// From the field reports of "CUDA unknown error" (device-node permissions, containers, MIG, a
// kernel update that left the module behind) and of multi-GPU hosts in containers
// (docs/DIAGNOSES.md).
#include <sys/stat.h>

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

bool is_gpu_node(const std::string& name) {
  return name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
         std::all_of(name.begin() + 6, name.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string mode_text(const struct stat& st) {
  std::string bits = S_ISCHR(st.st_mode) ? "c" : S_ISDIR(st.st_mode) ? "d" : "-";
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i) bits += (st.st_mode & (0400 >> i)) ? rwx[i] : '-';
  return fmt::format("{} uid {} gid {}", bits, st.st_uid, st.st_gid);
}

}  // namespace

CheckResult check_kernel_module(const MachineView& m, KernelModuleFacts& out) {
  CheckResult r{"kernel module", CheckStatus::kProblem, ""};
  auto version = m.read_file("/proc/driver/nvidia/version");
  for (const std::string& bus : m.list_dir("/proc/driver/nvidia/gpus")) {
    out.gpu_bus_ids.push_back(bus);
    auto info = m.read_file("/proc/driver/nvidia/gpus/" + bus + "/information");
    out.gpu_models.push_back(info ? field(*info, "Model") : "");
  }
  if (!version) {
    r.detail = "/proc/driver/nvidia/version does not exist: the nvidia kernel module is not loaded "
               "(or, in a container or WSL, not visible)";
    return r;
  }
  out.loaded = true;
  static const std::regex kVersion(R"(Kernel Module[^0-9]*([0-9]+\.[0-9]+(\.[0-9]+)?))");
  std::smatch match;
  if (std::regex_search(*version, match, kVersion)) out.version = match[1].str();
  r.status = CheckStatus::kOk;
  r.detail = fmt::format("nvidia {} loaded, {} GPU{} on the PCI bus{}", out.version.empty() ? "(version unread)" : out.version,
                         out.gpu_bus_ids.size(), out.gpu_bus_ids.size() == 1 ? "" : "s",
                         out.gpu_bus_ids.empty() ? "" : ": " + fmt::to_string(fmt::join(out.gpu_bus_ids, ", ")));
  return r;
}

CheckResult check_device_nodes(const MachineView& m, DeviceNodeFacts& out) {
  std::vector<std::string> names = {"nvidiactl", "nvidia-uvm"};
  for (const std::string& name : m.list_dir("/dev")) {
    if (is_gpu_node(name)) names.push_back(name);
  }
  for (const std::string& name : names) {
    DeviceNode node;
    node.path = "/dev/" + name;
    struct stat st;
    node.exists = ::stat(m.at(node.path).c_str(), &st) == 0;
    if (node.exists) {
      node.char_device = S_ISCHR(st.st_mode);
      node.accessible = m.may_read_write(node.path);
      node.mode = mode_text(st);
      if (!node.accessible) out.inaccessible.push_back(node.path);
    }
    out.any_gpu_node = out.any_gpu_node || (node.exists && is_gpu_node(name));
    out.nodes.push_back(node);
  }
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

CheckResult check_container(const MachineView& m, const DeviceNodeFacts& nodes, ContainerFacts& out) {
  std::vector<std::string> signs;
  if (m.exists("/.dockerenv")) signs.push_back("/.dockerenv exists");
  if (m.exists("/run/.containerenv")) signs.push_back("/run/.containerenv exists");
  if (auto cgroup = m.read_file("/proc/1/cgroup")) {
    for (const char* word : {"docker", "kubepods", "containerd", "libpod", "lxc"}) {
      if (cgroup->find(word) != std::string::npos) {
        signs.push_back(fmt::format("/proc/1/cgroup mentions {}", word));
        break;
      }
    }
  }
  if (auto c = m.var("container"); c && !c->empty()) signs.push_back("container=" + *c);
  if (m.var("KUBERNETES_SERVICE_HOST")) signs.push_back("KUBERNETES_SERVICE_HOST is set");
  out.in_container = !signs.empty();
  out.evidence = fmt::to_string(fmt::join(signs, ", "));
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
