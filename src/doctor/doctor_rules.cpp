// The doctor's findings: the machine's facts turned into the report's diagnosis ids, each with
// the evidence the checks saw and the advice the trace rules give (diagnoses/advice.h). Most
// specific first: a missing driver explains missing devices, a container without GPU devices
// explains a missing driver.
#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "common/cuda_names.h"
#include "common/diagnosis_ids.h"
#include "diagnose/advice.h"
#include "diagnose/version_text.h"
#include "doctor/doctor.h"

namespace cublasspy::doctor {
namespace {

using diagnoses::cuda_version_text;
using diagnoses::major_of;

Diagnosis make(const char* id, Severity severity) {
  Diagnosis d;
  d.id = id;
  d.severity = severity;
  return d;  // pid and call stay null: the evidence is the machine
}

std::string join(const std::vector<std::string>& parts, const char* sep = "; ") {
  return fmt::to_string(fmt::join(parts, sep));
}

// What the kernel side shows, for the evidence of the driver and device findings.
std::vector<std::string> kernel_side(const MachineFacts& f) {
  std::vector<std::string> out;
  out.push_back(f.module.loaded ? fmt::format("the nvidia kernel module {} is loaded", f.module.version)
                                : "/proc/driver/nvidia/version does not exist (no nvidia kernel module)");
  if (!f.nodes.any_gpu_node) {
    out.push_back("there is no /dev/nvidia<N> device node");
  } else if (!f.nodes.inaccessible.empty()) {
    std::vector<std::string> modes;
    for (const DeviceNode& n : f.nodes.nodes) {
      if (n.exists && !n.accessible) modes.push_back(fmt::format("{} ({})", n.path, n.mode));
    }
    out.push_back("this user cannot read and write " + join(modes, ", "));
  }
  if (f.container.in_container) out.push_back(fmt::format("this is a container ({})", f.container.evidence));
  return out;
}

const char* kContainerAdvice =
    "This container was started without GPUs. Install the NVIDIA Container Toolkit on the host "
    "and start the container with `docker run --gpus all ...` (Podman: `--device "
    "nvidia.com/gpu=all`; Kubernetes: request `nvidia.com/gpu` in the pod's resources); it mounts "
    "the driver library and /dev/nvidia* into the container. Do not install a driver inside the "
    "image. Inside, `nvidia-smi` must then list the GPUs.";

const char* kHangAdvice =
    "Initializing the driver did not finish: a GPU is stuck or the driver is waiting on one. "
    "`sudo dmesg | grep -i NVRM` shows Xid errors and GPUs that fell off the bus; `nvidia-smi` "
    "may hang the same way. Restart the nvidia-persistenced service or reset the GPU "
    "(`nvidia-smi --gpu-reset -i N`, as root, with no process using it); if that fails, reboot.";

const char* kPermissionAdvice =
    "Give this user access to the GPU device nodes: add it to the group that owns them (`ls -l "
    "/dev/nvidia*`; usually video or render: `sudo usermod -aG video $USER`, then log in again). "
    "In a container, pass the devices in with `--gpus all` rather than chmod inside it.";

void driver_findings(const MachineFacts& f, std::vector<Diagnosis>& out) {
  const DriverProbe& p = f.probe;
  const bool stub = (p.loaded && (p.library_path.find("/stubs/") != std::string::npos || p.init_status == 34)) ||
                    (!p.ran && f.libraries.driver_file.find("/stubs/") != std::string::npos);
  const bool missing = (p.ran && !p.loaded && !p.timed_out && !p.crashed) || (!p.ran && f.libraries.driver_file.empty());
  const bool no_version = p.ran && p.loaded && p.driver_version <= 0 && !stub;
  if (!stub && !missing && !no_version) return;

  Diagnosis d = make(ids::kNoDriver, Severity::kError);
  std::vector<std::string> evidence;
  if (missing) {
    evidence.push_back(p.ran ? "dlopen(\"libcuda.so.1\") failed: " + p.load_error
                             : "no libcuda.so.1 on the library search path");
  } else if (stub) {
    evidence.push_back(fmt::format("the libcuda loaded is the toolkit's stub ({}{})", p.loaded ? p.library_path : f.libraries.driver_file,
                                   p.init_status == 34 ? ", cuInit returned " + status_text("cuInit", 34) : ""));
  } else {
    evidence.push_back(fmt::format("{} loaded but reports no driver version", p.library_path));
  }
  for (const std::string& s : kernel_side(f)) evidence.push_back(s);
  if (!f.libraries.stub_dirs.empty()) evidence.push_back("the stub libcuda is on the search path in " + join(f.libraries.stub_dirs, ", "));
  d.evidence = join(evidence) + ".";
  const bool bare_container = f.container.in_container && !f.nodes.any_gpu_node;
  if (stub) {
    d.summary = "the toolkit's stub libcuda is found instead of the NVIDIA driver";
    d.advice = diagnoses::kStubAdvice;
  } else if (bare_container) {
    d.summary = "no NVIDIA driver: this is a container started without GPU devices";
    d.advice = kContainerAdvice;
  } else {
    d.summary = "no NVIDIA driver: libcuda.so.1 cannot be loaded, so no CUDA program can run";
    d.advice = diagnoses::kInstallDriverAdvice;
  }
  out.push_back(std::move(d));
}

void runtime_findings(const MachineFacts& f, std::vector<Diagnosis>& out) {
  const int driver = f.probe.driver_version;
  if (driver <= 0) return;
  std::vector<std::string> newer;
  int newest = 0;
  for (const LibraryFile& lib : f.libraries.files) {
    if (lib.family != "libcudart") continue;
    int major = major_number(lib.major);
    if (major > major_of(driver)) {
      newer.push_back(fmt::format("{} (CUDA {})", lib.path, major));
      newest = std::max(newest, major);
    }
  }
  if (newer.empty()) return;
  Diagnosis d = make(ids::kDriverTooOld, Severity::kError);
  d.summary = fmt::format("the NVIDIA driver supports CUDA {}, older than the CUDA runtime on the library path",
                          cuda_version_text(driver));
  d.evidence = fmt::format("cuDriverGetVersion says {} (CUDA {}); the search path has {}. Programs that "
                           "load it fail with cudaErrorInsufficientDriver (35).",
                           driver, cuda_version_text(driver), join(newer, ", "));
  d.advice = diagnoses::driver_too_old_advice(std::to_string(newest) + ".x");
  out.push_back(std::move(d));
}

void device_findings(const MachineFacts& f, std::vector<Diagnosis>& out) {
  const DriverProbe& p = f.probe;
  if (p.timed_out) {
    Diagnosis d = make(ids::kDeviceEnumerationFailed, Severity::kError);
    d.summary = "initializing the driver hangs";
    d.evidence = "The probe (dlopen libcuda.so.1, cuInit, cuDeviceGetCount, in a child process) did not "
                 "answer within its time limit. " + join(kernel_side(f)) + ".";
    d.advice = kHangAdvice;
    out.push_back(std::move(d));
    return;
  }
  // Not probed, or no working driver: the device nodes are the machine evidence's to judge
  // (device-nodes-inaccessible, diagnose/machine_state.h).
  if (!p.ran || !p.loaded || p.driver_version <= 0 || p.init_status == 34) return;
  const int status = p.init_status != 0 ? p.init_status : p.count_status;
  const bool no_device = status == 100 || (status == 0 && p.device_count == 0);
  const VisibleDeviceFacts& v = f.visible;
  if (no_device && v.set) {
    Diagnosis d = make(ids::kInvalidVisibleDevices, Severity::kError);
    d.summary = v.entries.empty() ? "CUDA_VISIBLE_DEVICES is set to an empty string, which hides every GPU"
                                  : fmt::format("CUDA_VISIBLE_DEVICES={} names no GPU that exists, so CUDA sees none", v.value);
    std::vector<std::string> e{fmt::format("with CUDA_VISIBLE_DEVICES={} {}", v.value.empty() ? "\"\"" : v.value,
                                           status == 100 ? "cuInit returned " + status_text("cuInit", 100) : "CUDA counts 0 devices")};
    if (p.nvml_count > 0) e.push_back(fmt::format("NVML sees {} GPU{} (valid indices 0..{})", p.nvml_count, p.nvml_count == 1 ? "" : "s", p.nvml_count - 1));
    if (!f.module.gpu_bus_ids.empty()) e.push_back(fmt::format("the kernel drives {} GPU{}", f.module.gpu_bus_ids.size(), f.module.gpu_bus_ids.size() == 1 ? "" : "s"));
    if (!v.malformed.empty()) e.push_back(fmt::format("entries that are neither an index nor a UUID: '{}'", join(v.malformed, "', '")));
    d.evidence = join(e) + ".";
    d.advice = diagnoses::kVisibleDevicesAdvice;
    out.push_back(std::move(d));
    return;
  }
  if (no_device) {
    Diagnosis d = make(ids::kNoDevice, Severity::kError);
    d.summary = f.module.loaded && f.nodes.any_gpu_node ? "the NVIDIA driver library loads but CUDA sees no GPU"
                                                        : "CUDA sees no GPU, and the kernel side of the driver is missing";
    std::vector<std::string> e{status == 100 ? "cuInit returned " + status_text("cuInit", 100) : "cuDeviceGetCount counts 0 devices"};
    for (const std::string& s : kernel_side(f)) e.push_back(s);
    if (f.mig.enabled()) e.push_back("MIG mode is enabled: CUDA sees only MIG instances, and there may be none");
    d.evidence = join(e) + ".";
    d.advice = !f.nodes.inaccessible.empty() ? kPermissionAdvice
               : f.container.in_container && !f.nodes.any_gpu_node ? kContainerAdvice
                                                                   : diagnoses::kNoDeviceAdvice;
    out.push_back(std::move(d));
    return;
  }
  if (status != 0) {
    Diagnosis d = make(ids::kDeviceEnumerationFailed, Severity::kError);
    const char* call = p.init_status != 0 ? "cuInit" : "cuDeviceGetCount";
    d.summary = fmt::format("CUDA cannot enumerate the GPUs: {} returned {}", call, status_text(call, status));
    std::vector<std::string> e{d.summary.substr(d.summary.find(':') + 2)};
    if (status == 2) {
      e.push_back(fmt::format("CUDA_DEVICE_ORDER={}, CUDA_VISIBLE_DEVICES={}", v.device_order.empty() ? "unset" : v.device_order,
                              v.set ? v.value : "unset"));
    }
    for (const std::string& s : kernel_side(f)) e.push_back(s);
    d.evidence = join(e) + ".";
    d.advice = diagnoses::advice_for_enumeration(status);
    out.push_back(std::move(d));
    return;
  }
  // Enumeration works: compare it with what NVML and the kernel see, and with the variables.
  const int physical = p.nvml_count > 0 ? p.nvml_count : static_cast<int>(f.module.gpu_bus_ids.size());
  if (!v.set && physical > p.device_count) {
    Diagnosis d = make(ids::kDeviceEnumerationFailed, Severity::kWarning);
    d.summary = fmt::format("{} GPUs are installed but CUDA initializes only {}", physical, p.device_count);
    d.evidence = fmt::format("{} sees {} GPU{}; cuDeviceGetCount returns {}.", p.nvml_count > 0 ? "NVML" : "The kernel module",
                             physical, physical == 1 ? "" : "s", p.device_count);
    d.advice = diagnoses::kMultiGpuAdvice;
    out.push_back(std::move(d));
  }
  if (v.set && (v.entries.empty() || !v.malformed.empty() ||
                (v.uses_indices && static_cast<int>(v.entries.size()) > p.device_count))) {
    Diagnosis d = make(ids::kInvalidVisibleDevices, Severity::kWarning);
    d.summary = fmt::format("CUDA_VISIBLE_DEVICES lists {} entr{} but CUDA sees {} device{}", v.entries.size(),
                            v.entries.size() == 1 ? "y" : "ies", p.device_count, p.device_count == 1 ? "" : "s");
    d.evidence = fmt::format("CUDA_VISIBLE_DEVICES={}; cuDeviceGetCount returns {}. CUDA stops reading the list at "
                             "the first entry that is not a valid, unused device.",
                             v.value, p.device_count);
    if (!v.malformed.empty()) d.evidence += fmt::format(" Not an index or a UUID: '{}'.", join(v.malformed, "', '"));
    d.advice = diagnoses::kVisibleDevicesAdvice;
    out.push_back(std::move(d));
  }
  if (v.set && v.uses_indices && f.mig.enabled()) {
    Diagnosis d = make(ids::kInvalidVisibleDevices, Severity::kWarning);
    d.summary = "MIG is enabled but CUDA_VISIBLE_DEVICES selects GPUs by index";
    d.evidence = fmt::format("CUDA_VISIBLE_DEVICES={}; MIG mode is enabled, so a process can use one MIG "
                             "instance, chosen by its MIG- UUID.", v.value);
    d.advice = diagnoses::kVisibleDevicesAdvice;
    out.push_back(std::move(d));
  }
}

// The kernel module and the user-space driver library must be the same release.
void mismatch_findings(const MachineFacts& f, std::vector<Diagnosis>& out) {
  if (!f.module.loaded || f.module.version.empty()) return;
  const std::string release = f.probe.loaded ? driver_release_of(f.probe.library_path) : f.libraries.driver_release;
  if (release.empty() || release == f.module.version) return;
  Diagnosis d = make(ids::kDeviceEnumerationFailed, f.probe.init_status > 0 ? Severity::kError : Severity::kWarning);
  d.summary = "the driver library and the kernel module are different releases";
  d.evidence = fmt::format("The kernel module is {}; libcuda.so.1 is release {}{}.", f.module.version, release,
                           f.probe.init_status > 0 ? fmt::format(", and cuInit returned {}", f.probe.init_status) : "");
  d.advice = diagnoses::kMismatchAdvice;
  out.push_back(std::move(d));
}

void library_findings(const MachineFacts& f, std::vector<Diagnosis>& out) {
  std::vector<std::string> problems;
  for (const char* family : {"libcudart", "libcublas", "libcublasLt"}) {
    std::vector<const LibraryFile*> copies;
    for (const LibraryFile& lib : f.libraries.files) {
      if (lib.family == family) copies.push_back(&lib);
    }
    if (copies.size() < 2) continue;
    std::vector<std::string> listed;
    bool majors_differ = false;
    for (const LibraryFile* c : copies) {
      listed.push_back(fmt::format("{} ({})", c->path, c->source));
      majors_differ = majors_differ || c->major != copies.front()->major;
    }
    problems.push_back(fmt::format("{} {} of {} on the library search path: {}; programs load the first",
                                   copies.size(), majors_differ ? "CUDA versions" : "copies", family, join(listed, ", ")));
  }
  // LD_LIBRARY_PATH directories holding another CUDA major than the first libcudart found.
  std::string first_major;
  for (const LibraryFile& lib : f.libraries.files) {
    if (lib.family == "libcudart" || lib.family == "libcublas") {
      first_major = lib.major;
      break;
    }
  }
  static const std::regex kVersioned(R"(cuda-?(\d+)\.(\d+))");
  for (const SearchDirectory& dir : f.libraries.search_path) {
    std::smatch m;
    if (dir.source != std::string("LD_LIBRARY_PATH") || first_major.empty() || !std::regex_search(dir.path, m, kVersioned)) continue;
    if (m[1].str() != first_major) {
      problems.push_back(fmt::format("LD_LIBRARY_PATH lists {} (CUDA {}.{}) while the first CUDA runtime on the "
                                     "search path is CUDA {}", dir.path, m[1].str(), m[2].str(), first_major));
    }
  }
  if (!f.libraries.missing_ld_dirs.empty()) {
    problems.push_back("LD_LIBRARY_PATH lists directories that do not exist: " + join(f.libraries.missing_ld_dirs, ", "));
  }
  if (!f.libraries.stub_dirs.empty() && !(f.probe.loaded && f.probe.init_status == 34)) {
    problems.push_back("the toolkit's stub libcuda is on the search path in " + join(f.libraries.stub_dirs, ", ") +
                       ": a program that loads it instead of the driver fails every call");
  }
  if (problems.empty()) return;
  Diagnosis d = make(ids::kMixedCudaLibraries, Severity::kWarning);
  d.summary = "the library search path holds more than one CUDA";
  d.evidence = join(problems) + ".";
  d.advice = diagnoses::kMixedLibrariesAdvice;
  out.push_back(std::move(d));
}

}  // namespace

std::vector<Diagnosis> diagnose_machine(const MachineFacts& facts) {
  std::vector<Diagnosis> out;
  driver_findings(facts, out);
  runtime_findings(facts, out);
  mismatch_findings(facts, out);
  device_findings(facts, out);
  library_findings(facts, out);
  std::stable_sort(out.begin(), out.end(), [](const Diagnosis& a, const Diagnosis& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return out;
}

}  // namespace cublasspy::doctor
