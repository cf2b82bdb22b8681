// `cublasspy doctor`: the field reports' manual checklists (docs/DIAGNOSES.md: nvidia-smi,
// ls -l /dev/nvidia*, ldconfig, echo $LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES, containers, MIG)
// done by a program, without running a workload. Each check reads one part of the machine into
// facts and prints one line; the doctor's rules (doctor_rules.cpp) turn the facts into the
// report's diagnoses: same ids, same shape (pid and call are null: the evidence is the machine,
// not a trace).
#pragma once

#include <string>
#include <vector>

#include "common/diagnosis.h"
#include "diagnose/machine_state.h"
#include "doctor/driver_probe.h"
#include "doctor/machine.h"

namespace cublasspy::doctor {

enum class CheckStatus { kOk, kWarning, kProblem, kInfo };
const char* check_status_name(CheckStatus s);  // "ok", "warning", "problem", "info"

// One line of the checklist.
struct CheckResult {
  std::string name;    // "driver library", "kernel module", ...
  CheckStatus status = CheckStatus::kInfo;
  std::string detail;  // what was seen
};

// ---- facts, one struct per check ----

struct KernelModuleFacts {
  bool loaded = false;          // /proc/driver/nvidia/version exists
  std::string version;          // "535.104.05"
  std::vector<std::string> gpu_bus_ids;  // /proc/driver/nvidia/gpus/<bus id>
  std::vector<std::string> gpu_models;
};

struct DeviceNode {
  std::string path;
  bool exists = false;
  bool char_device = false;
  bool accessible = false;  // this process may open it for reading and writing
  std::string mode;         // "crw-rw-rw- uid 0 gid 44"
};

struct DeviceNodeFacts {
  std::vector<DeviceNode> nodes;  // /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia<N> (the essential ones)
  bool any_gpu_node = false;      // at least one /dev/nvidia<N>
  std::vector<std::string> inaccessible;
};

struct ContainerFacts {
  bool in_container = false;
  std::string evidence;  // the markers: "/.dockerenv", "/proc/1/cgroup mentions kubepods"
};

struct MigFacts {
  std::vector<int> nvml_modes;             // per GPU, from NVML
  std::vector<std::string> gpus_with_instances;  // from /proc/driver/nvidia/capabilities
  bool enabled() const;
};

struct LibraryFile {
  std::string path;
  std::string family;  // "libcudart", "libcublas", "libcublasLt", "libcuda"
  std::string major;   // from the file name: "13"; "" when it has none
  std::string source;  // the search directory's source ("LD_LIBRARY_PATH", ...)
};

// A file name's CUDA major ("13") as a number; 0 when it is not one (never throws).
int major_number(const std::string& major);

struct LibraryFacts {
  std::vector<SearchDirectory> search_path;
  std::vector<LibraryFile> files;               // every CUDA library file on the search path
  std::vector<std::string> missing_ld_dirs;     // LD_LIBRARY_PATH entries that do not exist
  std::vector<std::string> stub_dirs;           // directories holding the toolkit's stub libcuda
  std::string driver_file;                      // the first libcuda.so.1 on the search path
  std::string driver_release;                   // its target's release ("535.104.05"), "" if none
};

struct VisibleDeviceFacts {
  bool set = false;
  std::string value;
  std::vector<std::string> entries;
  std::vector<std::string> malformed;
  bool uses_indices = false;
  std::string device_order;  // CUDA_DEVICE_ORDER, "" when unset
};

struct MachineFacts {
  KernelModuleFacts module;
  DeviceNodeFacts nodes;
  ContainerFacts container;
  MigFacts mig;
  LibraryFacts libraries;
  VisibleDeviceFacts visible;
  DriverProbe probe;
  // The machine evidence (machine/machine_evidence.h), as a trace would hold it.
  std::vector<std::pair<std::string, std::string>> evidence;
};

// ---- the checks: each fills its facts and returns its checklist line(s) ----
// The kernel module, the device nodes and the container come from the machine evidence (the
// collector the shim records with, read back as the trace rules read it).
CheckResult check_kernel_module(const MachineView& m, const diagnoses::MachineState& state, KernelModuleFacts& out);
CheckResult check_device_nodes(const diagnoses::MachineState& state, DeviceNodeFacts& out);
CheckResult check_container(const diagnoses::MachineState& state, const DeviceNodeFacts& nodes, ContainerFacts& out);
CheckResult check_mig(const MachineView& m, const DriverProbe& probe, MigFacts& out);
std::vector<CheckResult> check_libraries(const MachineView& m, LibraryFacts& out);
// The driver release a libcuda path resolves to ("535.104.05"), "" when its name has none.
std::string driver_release_of(const std::string& path);
CheckResult check_visible_devices(const MachineView& m, VisibleDeviceFacts& out);
std::vector<CheckResult> check_driver(const DriverProbe& probe, const LibraryFacts& libraries);
std::vector<CheckResult> check_device_order(const DriverProbe& probe, const KernelModuleFacts& module,
                                            const VisibleDeviceFacts& visible);

// ---- the rules: facts -> the report's diagnoses ----
std::vector<Diagnosis> diagnose_machine(const MachineFacts& facts);

struct DoctorReport {
  std::vector<CheckResult> checks;
  std::vector<Diagnosis> diagnoses;  // most severe first
  MachineFacts facts;
};

DoctorReport run_doctor(const MachineView& machine);

}  // namespace cublasspy::doctor
