// What the driver says about itself and the GPUs, asked the way CUDA programs ask it: load
// libcuda.so.1, cuDriverGetVersion, cuInit, cuDeviceGetCount and each device's PCI address;
// and NVML (libnvidia-ml.so.1, what nvidia-smi uses) for its own count, PCI order, MIG modes and
// the GPUs' health.
//
// The real probe runs in a forked child with a time limit: a driver that hangs in cuInit (as on
// the multi-GPU hosts of docs/DIAGNOSES.md) cannot hang the doctor, and the doctor itself never
// holds a CUDA context. The child inherits this process's environment, so CUDA_VISIBLE_DEVICES and
// CUDA_DEVICE_ORDER apply as they would to the user's program.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cublasspy::doctor {

struct DriverProbe {
  bool ran = false;            // false: no probe (a fake machine without one, or fork failed)
  bool timed_out = false;      // the child did not answer in time (a hang in the driver)
  bool crashed = false;        // the child died of a signal
  bool loaded = false;         // dlopen("libcuda.so.1") worked
  std::string library_path;    // the file that was loaded
  std::string load_error;      // dlerror() when it did not
  int driver_version = -1;     // cuDriverGetVersion; -1 when not read
  int init_status = -1;        // cuInit(0); -1 when not called
  int count_status = -1;       // cuDeviceGetCount
  int device_count = -1;
  std::vector<std::string> cuda_bus_ids;  // "0000:17:00.0", in CUDA's enumeration order
  std::vector<std::string> cuda_names;

  bool nvml_loaded = false;
  std::string nvml_error;
  int nvml_status = -1;        // nvmlInit_v2
  int nvml_count = -1;
  std::vector<std::string> nvml_bus_ids;  // NVML's order (PCI bus order, as nvidia-smi)
  std::vector<int> mig_modes;             // per NVML device: 1 enabled, 0 disabled, -1 unknown
  // The GPUs' health as the shim reads it at a failure (machine/nvml_reader.h: ECC counts,
  // retired pages, remapped rows; no events, which only a watching process sees): the
  // "machine.*" entries a trace would hold. Empty when NVML could not be read.
  std::vector<std::pair<std::string, std::string>> gpu_health;

  std::string to_json() const;
  static DriverProbe from_json(const std::string& text);
};

// Probes in a forked child (seconds: the most it waits).
DriverProbe probe_driver_in_child(int seconds = 20);
// The probe itself, in this process (what the child runs).
DriverProbe probe_driver_here();

}  // namespace cublasspy::doctor
