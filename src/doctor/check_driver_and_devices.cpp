// What the driver says when asked like a CUDA program asks it (the probe), and how its device
// numbering relates to the one nvidia-smi shows: NVML and the kernel list GPUs in PCI bus order;
// CUDA, unless CUDA_DEVICE_ORDER=PCI_BUS_ID, puts the fastest first. CUDA_VISIBLE_DEVICES indices
// are CUDA's. From the field reports of cudaGetDeviceCount's "out of memory" on multi-GPU hosts
// (device order, an explicit CUDA_VISIBLE_DEVICES, NVML) and of "CUDA unknown error" (is the
// driver there, do the driver and runtime versions fit): docs/DIAGNOSES.md.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "diagnose/version_text.h"
#include "doctor/doctor.h"

namespace cublasspy::doctor {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

CheckResult check_visible_devices(const MachineView& m, VisibleDeviceFacts& out) {
  out.device_order = m.var("CUDA_DEVICE_ORDER").value_or("");
  CheckResult r{"CUDA_VISIBLE_DEVICES", CheckStatus::kInfo, "unset: every GPU is visible"};
  auto value = m.var("CUDA_VISIBLE_DEVICES");
  if (value) {
    out.set = true;
    out.value = *value;
    size_t start = 0;
    while (!trim(*value).empty()) {
      size_t comma = value->find(',', start);
      std::string item = trim(value->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      out.entries.push_back(item);
      bool index = !item.empty() && std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c); });
      bool uuid = item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0;
      out.uses_indices = out.uses_indices || index;
      if (!index && !uuid) out.malformed.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    r.status = out.entries.empty() || !out.malformed.empty() ? CheckStatus::kProblem : CheckStatus::kOk;
    r.detail = out.entries.empty() ? "set to an empty string: no GPU is visible"
                                   : fmt::format("{} ({} entr{})", *value, out.entries.size(), out.entries.size() == 1 ? "y" : "ies");
    if (!out.malformed.empty()) r.detail += fmt::format("; not an index or a GPU-/MIG- UUID: '{}'", fmt::join(out.malformed, "', '"));
  }
  return r;
}

std::vector<CheckResult> check_driver(const DriverProbe& p, const LibraryFacts& libraries) {
  std::vector<CheckResult> lines;
  CheckResult lib{"driver library", CheckStatus::kOk, ""};
  if (!p.ran) {
    lib.status = CheckStatus::kInfo;
    lib.detail = libraries.driver_file.empty() ? "not probed; no libcuda.so.1 on the library search path"
                                               : "not probed; found " + libraries.driver_file;
    if (libraries.driver_file.empty()) lib.status = CheckStatus::kProblem;
  } else if (p.timed_out || p.crashed) {
    lib.status = CheckStatus::kProblem;
    lib.detail = p.timed_out ? "loading and initializing the driver did not finish (it hangs)"
                             : "loading and initializing the driver crashed the probe";
  } else if (!p.loaded) {
    lib.status = CheckStatus::kProblem;
    lib.detail = "dlopen(\"libcuda.so.1\") failed: " + p.load_error;
  } else {
    lib.detail = p.library_path.empty() ? "libcuda.so.1 loaded" : p.library_path;
    if (p.driver_version > 0) {
      lib.detail += fmt::format(", driver API {} (CUDA {})", p.driver_version, diagnoses::cuda_version_text(p.driver_version));
    } else {
      lib.status = CheckStatus::kProblem;
      lib.detail += ", but it reports no driver version";
    }
  }
  lines.push_back(lib);

  if (p.ran && p.loaded) {
    CheckResult dev{"CUDA devices", CheckStatus::kOk, ""};
    if (p.init_status != 0) {
      dev.status = CheckStatus::kProblem;
      dev.detail = fmt::format("cuInit(0) returned {}", p.init_status);
    } else if (p.count_status != 0) {
      dev.status = CheckStatus::kProblem;
      dev.detail = fmt::format("cuDeviceGetCount returned {}", p.count_status);
    } else {
      dev.status = p.device_count > 0 ? CheckStatus::kOk : CheckStatus::kProblem;
      std::vector<std::string> listed;
      for (size_t i = 0; i < p.cuda_bus_ids.size(); ++i) {
        listed.push_back(fmt::format("{}: {}{}", i, i < p.cuda_names.size() ? p.cuda_names[i] : "",
                                     p.cuda_bus_ids[i].empty() ? "" : " at " + p.cuda_bus_ids[i]));
      }
      dev.detail = fmt::format("{} device{}{}", p.device_count, p.device_count == 1 ? "" : "s",
                               listed.empty() ? "" : " (" + fmt::to_string(fmt::join(listed, "; ")) + ")");
    }
    lines.push_back(dev);
  }

  CheckResult nvml{"NVML", CheckStatus::kInfo, ""};
  if (!p.ran) {
    nvml.detail = "not probed";
  } else if (!p.nvml_loaded) {
    nvml.detail = "libnvidia-ml.so.1 not loadable (nvidia-smi would not work either): " + p.nvml_error;
  } else if (p.nvml_status != 0) {
    nvml.status = CheckStatus::kWarning;
    nvml.detail = fmt::format("nvmlInit returned {}", p.nvml_status);
  } else {
    nvml.status = CheckStatus::kOk;
    nvml.detail = fmt::format("{} GPU{}{}", p.nvml_count, p.nvml_count == 1 ? "" : "s",
                              p.nvml_bus_ids.empty() ? "" : " in PCI order: " + fmt::to_string(fmt::join(p.nvml_bus_ids, ", ")));
  }
  lines.push_back(nvml);

  // The CUDA runtimes on the search path against the driver's CUDA version.
  if (p.driver_version > 0) {
    CheckResult rt{"runtime vs driver", CheckStatus::kOk, ""};
    std::vector<std::string> newer;
    for (const LibraryFile& f : libraries.files) {
      if (f.family == "libcudart" && major_number(f.major) > diagnoses::major_of(p.driver_version)) newer.push_back(f.path);
    }
    if (newer.empty()) {
      rt.detail = fmt::format("the driver supports CUDA {}; no newer libcudart on the search path",
                              diagnoses::cuda_version_text(p.driver_version));
    } else {
      rt.status = CheckStatus::kProblem;
      rt.detail = fmt::format("the driver supports CUDA {} but {} needs a newer one",
                              diagnoses::cuda_version_text(p.driver_version), fmt::join(newer, ", "));
    }
    lines.push_back(rt);
  }
  return lines;
}

std::vector<CheckResult> check_device_order(const DriverProbe& p, const KernelModuleFacts& module,
                                            const VisibleDeviceFacts& visible) {
  std::vector<CheckResult> lines;
  CheckResult order{"device order", CheckStatus::kInfo, ""};
  order.detail = fmt::format("CUDA_DEVICE_ORDER={}", visible.device_order.empty() ? "unset (FASTEST_FIRST)" : visible.device_order);
  if (!visible.device_order.empty() && visible.device_order != "FASTEST_FIRST" && visible.device_order != "PCI_BUS_ID") {
    order.status = CheckStatus::kProblem;
    order.detail += " is not FASTEST_FIRST or PCI_BUS_ID";
  }
  // PCI order as NVML (or the kernel) lists it, against CUDA's enumeration.
  std::vector<std::string> pci = !p.nvml_bus_ids.empty() ? p.nvml_bus_ids : module.gpu_bus_ids;
  std::sort(pci.begin(), pci.end());
  const bool all_cuda_ids = !p.cuda_bus_ids.empty() &&
                            std::none_of(p.cuda_bus_ids.begin(), p.cuda_bus_ids.end(), [](const std::string& s) { return s.empty(); });
  if (all_cuda_ids && !visible.set && p.cuda_bus_ids.size() == pci.size()) {
    if (p.cuda_bus_ids != pci) {
      order.status = CheckStatus::kWarning;
      order.detail += fmt::format("; CUDA numbers the GPUs {} but nvidia-smi numbers them {}: CUDA "
                                  "device i is not nvidia-smi's GPU i",
                                  fmt::join(p.cuda_bus_ids, ", "), fmt::join(pci, ", "));
    } else {
      order.detail += "; CUDA's numbering matches nvidia-smi's";
    }
  }
  lines.push_back(order);
  return lines;
}

}  // namespace cublasspy::doctor
