#include "diagnose/machine_state.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "common/diagnosis_ids.h"
#include "diagnose/memory_at_failure.h"

namespace cublasspy::diagnoses {
namespace {

constexpr int kUnknown = 999;            // cudaErrorUnknown == CUDA_ERROR_UNKNOWN
constexpr int kSystemNotReady = 802;     // cudaErrorSystemNotReady == CUDA_ERROR_SYSTEM_NOT_READY
constexpr int kCompatNotSupported = 804; // cudaErrorCompatNotSupportedOnDevice == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

std::optional<uint64_t> number(const std::string& s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// "major.minor" of "12.4.5".
std::string major_minor(const std::string& v) {
  size_t dot = v.find('.');
  if (dot == std::string::npos) return v;
  size_t second = v.find('.', dot + 1);
  return v.substr(0, second);
}

std::string mib(uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

Diagnosis make(const char* id, Severity s) {
  Diagnosis d;
  d.id = id;
  d.severity = s;
  return d;
}

std::string driver_text(const MachineState& m) {
  return m.driver_library.empty() ? "no driver library was loaded" : "the driver library loaded was " + m.driver_library;
}

std::string nodes_text(const MachineState& m) {
  std::vector<std::string> parts;
  for (const auto& n : m.nodes) {
    parts.push_back(n.exists ? fmt::format("{} {} {}", n.path, n.mode, n.may_open ? "(may open)" : "(may NOT open)")
                             : n.path + " missing");
  }
  return fmt::to_string(fmt::join(parts, "; "));
}

std::string modules_text(const MachineState& m) {
  if (!m.modules_read) return "/proc/modules could not be read";
  return m.modules.empty() ? "/proc/modules lists no nvidia module"
                           : "/proc/modules lists " + fmt::to_string(fmt::join(m.modules, ", "));
}

// The NVSwitches as the module lists them and as device nodes.
std::string nvswitch_text(const MachineState& m) {
  std::vector<std::string> seen = m.nvswitches;
  for (const auto& n : m.nodes) {
    if (n.exists && n.path.rfind("/dev/nvidia-nvswitch", 0) == 0) seen.push_back(n.path);
  }
  std::sort(seen.begin(), seen.end());  // recorded in the directories' order, which is arbitrary
  return seen.empty() ? "No NVSwitch was seen (/proc/driver/nvidia-nvswitch, /dev/nvidia-nvswitch*)."
                      : fmt::format("NVSwitches: {}.", fmt::join(seen, ", "));
}

std::string driver_and_module_text(const std::string& lead, const MachineState& m) {
  std::string out = lead;
  if (!m.module_version.empty()) out += " Kernel module: " + m.module_version + ".";
  return out;
}

// A status with one cause on the machine: the finding it proves, and when.
struct StatusFinding {
  int status;
  const char* id;
  bool (*applies)(const MachineState&);
  const char* summary;
  std::string (*evidence)(const MachineState&);
  const char* advice;
};

const StatusFinding kStatusFindings[] = {
    {kUnknown, ids::kUvmNotLoaded,
     [](const MachineState& m) { return m.modules_read && !m.has_module("nvidia_uvm"); },
     "the nvidia_uvm kernel module is not loaded (often after a suspend), so CUDA fails with 999",
     [](const MachineState& m) { return modules_text(m) + "; nvidia_uvm is not among them."; },
     "Reload it: `sudo modprobe nvidia_uvm`; after a suspend and resume, `sudo rmmod "
     "nvidia_uvm && sudo modprobe nvidia_uvm` (stop the processes using the GPU first). To "
     "keep it from happening, load it at boot (`nvidia_uvm` in /etc/modules-load.d) and "
     "enable the driver's suspend services (nvidia-suspend, nvidia-resume)."},
    {kSystemNotReady, ids::kFabricManagerNotRunning, [](const MachineState&) { return true; },
     "CUDA reports the system not ready (802): on NVSwitch machines, Fabric Manager is not running",
     [](const MachineState& m) { return driver_and_module_text(nvswitch_text(m), m); },
     "Start NVIDIA Fabric Manager: `sudo systemctl enable --now nvidia-fabricmanager`, and "
     "check `systemctl status nvidia-fabricmanager`. Its version must be the driver's exactly "
     "(`nvidia-smi` and `nv-fabricmanager --version`); install the matching package."},
    {kCompatNotSupported, ids::kForwardCompatUnsupported, [](const MachineState&) { return true; },
     "CUDA's forward-compatibility driver library does not support this GPU (804)",
     [](const MachineState& m) { return driver_and_module_text(driver_text(m) + ".", m); },
     "The forward-compatibility libcuda (the cuda-compat package, /usr/local/cuda/compat) "
     "works only on data-center GPUs. Take its directory out of LD_LIBRARY_PATH and "
     "/etc/ld.so.conf.d so the driver's own libcuda.so.1 loads, or upgrade the driver to "
     "one that supports the program's CUDA version."},
};

// CUDA_VISIBLE_DEVICES (or, in a container, NVIDIA_VISIBLE_DEVICES) names a MIG instance, but
// the capability nodes CUDA must open for it (/dev/nvidia-caps/nvidia-cap<N>) are missing or
// this process may not open them: a container given the GPU but not the MIG capabilities, or a
// user outside the caps' group.
std::optional<Diagnosis> mig_capability_finding(const MachineState& m) {
  std::string visible;
  for (const auto& [name, value] : m.env) {
    if ((name == "CUDA_VISIBLE_DEVICES" || name == "NVIDIA_VISIBLE_DEVICES") && value &&
        value->find("MIG-") != std::string::npos && visible.empty()) {
      visible = name + "=" + *value;
    }
  }
  if (visible.empty()) return std::nullopt;
  std::vector<std::string> caps, denied;
  for (const auto& n : m.nodes) {
    if (n.path.rfind("/dev/nvidia-caps/", 0) != 0 || !n.exists) continue;
    caps.push_back(n.path);
    if (!n.may_open) denied.push_back(fmt::format("{} ({})", n.path, n.mode));
  }
  if (!caps.empty() && denied.empty()) return std::nullopt;
  Diagnosis d = make(ids::kDeviceNodesInaccessible, Severity::kError);
  d.summary = caps.empty() ? "a MIG instance is selected but there are no MIG capability nodes"
                           : "a MIG instance is selected but this process may not open its capability nodes";
  d.evidence = fmt::format("{}; {}.", visible,
                           caps.empty() ? "/dev/nvidia-caps holds no nvidia-cap node" : "may NOT open " + fmt::to_string(fmt::join(denied, ", ")));
  if (!m.container.empty()) d.evidence += fmt::format(" This is a container ({}).", fmt::join(m.container, ", "));
  d.advice = "A MIG instance is opened through /dev/nvidia-caps/nvidia-cap<N> as well as the GPU's node. "
             "In a container, let the NVIDIA Container Toolkit pass the instance in (`docker run --gpus "
             "'\"device=MIG-...\"'`, or NVIDIA_VISIBLE_DEVICES=MIG-... with the nvidia runtime) instead of "
             "listing /dev nodes by hand. On the host, `sudo nvidia-modprobe -f "
             "/proc/driver/nvidia/capabilities/gpu0/mig/gi<G>/ci<C>/access` creates the nodes; their group "
             "must include this user. `nvidia-smi -L` lists the MIG UUIDs.";
  return d;
}

}  // namespace

bool MachineState::Node::is_gpu() const {
  const std::string name = path.rfind("/dev/", 0) == 0 ? path.substr(5) : path;
  return name.size() > 6 && name.rfind("nvidia", 0) == 0 && name.find_first_not_of("0123456789", 6) == std::string::npos;
}

bool MachineState::Node::essential() const { return path == "/dev/nvidiactl" || path == "/dev/nvidia-uvm" || is_gpu(); }

bool MachineState::has_module(const std::string& name) const {
  for (const std::string& mod : modules) {
    if (mod == name) return true;
  }
  return false;
}

bool MachineState::module_loaded() const { return module_version_file || has_module("nvidia"); }

MachineState machine_state_from(const std::vector<std::pair<std::string, std::string>>& entries) {
  MachineState m;
  for (const auto& [key, value] : entries) {
    if (key.rfind("machine.", 0) != 0) continue;
    m.recorded = true;
    const std::string what = key.substr(8);
    if (what == "nvidia_version") {
      m.module_version_file = !value.empty();
      m.module_version = value;
    } else if (what == "proc_modules") {
      m.modules_read = value == "read";
    } else if (what == "module") {
      m.modules.push_back(value.substr(0, value.find(' ')));
    } else if (what == "node") {
      MachineState::Node n;
      size_t space = value.find(' ');
      n.path = value.substr(0, space);
      std::string rest = space == std::string::npos ? "" : value.substr(space + 1);
      n.exists = rest != "missing";
      if (n.exists) {
        size_t last = rest.rfind(' ');
        n.may_open = last != std::string::npos && rest.substr(last + 1) == "open";
        n.mode = last == std::string::npos ? rest : rest.substr(0, last);
      }
      m.any_gpu_node = m.any_gpu_node || (n.is_gpu() && n.exists);
      m.nodes.push_back(std::move(n));
    } else if (what == "nvswitch") {
      m.nvswitches.push_back(value);
    } else if (what == "container") {
      m.container.push_back(value);
    } else if (what == "env") {
      size_t eq = value.find('=');
      if (eq == std::string::npos) {
        m.env.emplace_back(value, std::nullopt);
      } else {
        m.env.emplace_back(value.substr(0, eq), value.substr(eq + 1));
      }
    } else if (what == "driver_library") {
      m.driver_library = value;
    } else if (what == "library") {
      std::vector<std::string> f = split(value, '\t');
      if (f.size() != 5) continue;
      m.libraries.push_back({f[0], f[1], f[2], f[3], f[4] == "LD_LIBRARY_PATH"});
    } else if (what == "memory") {
      if (value == "no context") {
        m.no_context = true;
        continue;
      }
      std::vector<std::string> f = split(value, ' ');
      if (f.size() != 4 || f[0] != "free" || f[2] != "total") continue;
      auto free_bytes = number(f[1]), total_bytes = number(f[3]);
      if (free_bytes && total_bytes) {
        m.free_memory = free_bytes;
        m.total_memory = total_bytes;
      }
    }
  }
  return m;
}

std::vector<Diagnosis> machine_findings(const MachineState& m, const std::optional<SetupFailure>& setup,
                                        const std::optional<SetupFailure>& create,
                                        const std::optional<SetupFailure>& library_call) {
  std::vector<Diagnosis> out;
  if (!m.recorded) return out;
  const std::string seen = setup ? setup->words + ". " : "";
  auto at_setup = [&](Diagnosis& d) {
    if (setup) d.call = setup->call;
  };

  if (setup && !m.module_loaded()) {
    Diagnosis d = make(ids::kKernelModuleNotLoaded, Severity::kError);
    d.summary = "the NVIDIA kernel module is not loaded, so the driver cannot work";
    d.evidence = fmt::format("{}/proc/driver/nvidia/version does not exist; {}; {}.", seen, modules_text(m), driver_text(m));
    if (!m.container.empty()) d.evidence += fmt::format(" This is a container ({}).", fmt::join(m.container, ", "));
    d.advice = "Load it: `sudo modprobe nvidia` (then `nvidia-smi` must list the GPUs). If that fails, "
               "`sudo dmesg | grep -i -e NVRM -e nvidia` says why: after a kernel update the module "
               "must be rebuilt for the new kernel (`dkms status`, reinstall the driver), and with "
               "Secure Boot it must be signed. In a container the module is the host's: load it on "
               "the host.";
    at_setup(d);
    out.push_back(std::move(d));
    return out;  // nothing below can work without it
  }

  if (setup) {
    std::vector<std::string> denied;
    for (const auto& n : m.nodes) {
      if (n.exists && !n.may_open && n.essential()) {
        denied.push_back(fmt::format("{} ({})", n.path, n.mode));
      }
    }
    if (!denied.empty() || !m.any_gpu_node) {
      Diagnosis d = make(ids::kDeviceNodesInaccessible, Severity::kError);
      d.summary = denied.empty() ? "the nvidia kernel module is loaded but there is no /dev/nvidia<N> device node"
                                 : "this process may not open the NVIDIA device nodes";
      d.evidence = fmt::format("{}{}.", seen, nodes_text(m));
      if (!m.container.empty()) d.evidence += fmt::format(" This is a container ({}).", fmt::join(m.container, ", "));
      d.advice = !m.container.empty() && !m.any_gpu_node
                     ? "This container has no GPU devices: start it with the NVIDIA Container Toolkit "
                       "(`docker run --gpus all ...`, or a GPU resource in Kubernetes)."
                     : "Give this user read and write access to /dev/nvidia*: add it to the group that "
                       "owns them (often `video` or `render`: `sudo usermod -aG video $USER`, then log "
                       "in again), or fix the modes (`nvidia-modprobe` creates the nodes with the "
                       "driver's permissions). A missing node is created by `sudo nvidia-modprobe -u -c=0`.";
      at_setup(d);
      out.push_back(std::move(d));
    }
    // A MIG instance's own nodes, once the GPU's are open to this process.
    if (auto mig = denied.empty() && m.any_gpu_node ? mig_capability_finding(m) : std::nullopt) {
      mig->evidence = seen + mig->evidence;
      at_setup(*mig);
      out.push_back(std::move(*mig));
    }
  }

  // Each of these statuses has one known cause on the machine, and one finding.
  for (const StatusFinding& f : kStatusFindings) {
    if (!setup || setup->status != f.status || !f.applies(m)) continue;
    Diagnosis d = make(f.id, Severity::kError);
    d.summary = f.summary;
    d.evidence = seen + f.evidence(m);
    d.advice = f.advice;
    at_setup(d);
    out.push_back(std::move(d));
  }

  if (create && m.free_memory && m.total_memory && nearly_full(*m.free_memory, *m.total_memory)) {
    Diagnosis d = make(ids::kOutOfMemoryAtInit, Severity::kError);
    d.summary = fmt::format("cuBLAS could not initialize because the GPU is nearly full ({} free of {})",
                            mib(*m.free_memory), mib(*m.total_memory));
    d.evidence = fmt::format("{}. When it failed, the device had {} free of {}.", create->words,
                             mib(*m.free_memory), mib(*m.total_memory));
    d.advice = "Another process or this program's framework holds the memory. `nvidia-smi` lists "
               "the processes on the GPU. JAX preallocates 75% of it: set "
               "XLA_PYTHON_CLIENT_PREALLOCATE=false (or XLA_PYTHON_CLIENT_MEM_FRACTION); TensorFlow "
               "takes all of it unless allow_growth is on (TF_FORCE_GPU_ALLOW_GROWTH=true, or "
               "tf.config.experimental.set_memory_growth). Create the cuBLAS handle before large "
               "allocations, or free memory first.";
    d.call = create->call;
    out.push_back(std::move(d));
  }

  const MachineState::Library* cublas = nullptr;
  const MachineState::Library* lt = nullptr;
  for (const auto& lib : m.libraries) {
    if (lib.family == "libcublas" && cublas == nullptr) cublas = &lib;
    if (lib.family == "libcublasLt" && lt == nullptr) lt = &lib;
  }
  if (cublas != nullptr && lt != nullptr) {
    const bool other_dir = dir_of(cublas->path) != dir_of(lt->path);
    const bool other_version = !cublas->version.empty() && !lt->version.empty() &&
                               major_minor(cublas->version) != major_minor(lt->version);
    if (other_dir || other_version) {
      Diagnosis d = make(ids::kCublasLtMismatch, other_version ? Severity::kError : Severity::kWarning);
      d.summary = other_version ? fmt::format("libcublas {} runs with libcublasLt {}: the two must be the same release",
                                              cublas->version, lt->version)
                                : "libcublas and libcublasLt were loaded from different directories";
      auto describe = [](const MachineState::Library& l) {
        return fmt::format("{} {} (version {}, {}{})", l.family, l.path, l.version.empty() ? "unknown" : l.version,
                           l.origin, l.on_ld_library_path ? ", its directory is on LD_LIBRARY_PATH" : "");
      };
      d.evidence = fmt::format("{}; {}.", describe(*cublas), describe(*lt));
      const MachineState::Library* odd = lt->on_ld_library_path && !cublas->on_ld_library_path   ? lt
                                         : cublas->on_ld_library_path && !lt->on_ld_library_path ? cublas
                                                                                                 : nullptr;
      std::string search_path;
      for (const auto& [name, value] : m.env) {
        if (name == "LD_LIBRARY_PATH" && value) search_path = ":" + *value + ":";
      }
      auto position = [&](const MachineState::Library& l) {
        size_t at = search_path.find(":" + dir_of(l.path) + ":");
        if (at == std::string::npos) at = search_path.find(":" + dir_of(l.path) + "/:");
        return at;
      };
      if (odd == nullptr && cublas->on_ld_library_path && lt->on_ld_library_path && position(*lt) != position(*cublas)) {
        odd = position(*lt) < position(*cublas) ? lt : cublas;
        d.evidence += fmt::format(" LD_LIBRARY_PATH lists {} before {}, so {} came from there.", dir_of(odd->path),
                                  dir_of((odd == lt ? cublas : lt)->path), odd->family);
      } else if (odd != nullptr) {
        d.evidence += fmt::format(" LD_LIBRARY_PATH put {} first.", dir_of(odd->path));
      } else if (cublas->origin != lt->origin) {
        d.evidence += fmt::format(" One comes from {}, the other from {}.", cublas->origin, lt->origin);
      }
      // The failure it explains: a set-up call, or (on a working GPU) the first failing
      // cuBLAS/cuBLASLt call after a successful create.
      const std::optional<SetupFailure>& failure = create ? create : setup ? setup : library_call;
      if (failure) {
        d.evidence += " " + failure->words + ".";
        d.call = failure->call;
      }
      d.advice = "libcublas loads libcublasLt by name, so whatever comes first on the loader's path "
                 "wins. Take the odd directory out of LD_LIBRARY_PATH (a pip wheel's "
                 "site-packages/nvidia/cublas/lib holds both), or install one CUDA release of both "
                 "(`pip install nvidia-cublas-cu12==<the torch wheel's version>`). `cublasspy doctor "
                 "--python` lists what `import torch` maps.";
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace cublasspy::diagnoses
