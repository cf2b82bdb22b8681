// The machine evidence (src/machine/machine_evidence.h, the "machine.*" entries of a trace's
// process section, docs/FORMAT.md) read back, and the findings it proves. One piece serves the
// trace rules (rule_machine.cpp: the evidence of the machine the trace was recorded on, wherever
// it is read) and `cublasspy doctor` (the same collector run on the machine it examines).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnosis.h"

namespace cublasspy::diagnoses {

struct MachineState {
  bool recorded = false;             // any machine.* entry
  bool module_version_file = false;  // /proc/driver/nvidia/version exists
  std::string module_version;        // its first line
  bool modules_read = false;         // /proc/modules could be read
  std::vector<std::string> modules;  // nvidia* module names ("nvidia", "nvidia_uvm")
  struct Node {
    std::string path;
    bool exists = false;
    bool may_open = false;
    std::string mode;                // "crw-rw---- uid 0 gid 44"
    bool is_gpu() const;             // /dev/nvidia<N>
    // One every CUDA process opens: /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia<N> (not the
    // MIG capability, NVSwitch, uvm-tools or modeset nodes, which only some need).
    bool essential() const;
  };
  std::vector<Node> nodes;
  bool any_gpu_node = false;         // a /dev/nvidia<N> exists
  std::vector<std::string> nvswitches;
  std::vector<std::string> container;
  std::vector<std::pair<std::string, std::optional<std::string>>> env;  // at the failure
  std::string driver_library;        // the loaded libcuda's real path
  struct Library {
    std::string family;              // "libcublas", "libcublasLt", "libcudart"
    std::string path;
    std::string version;             // "12.4.5", "" when it reports none
    std::string origin;              // "pip-wheel", "conda", "system", "other"
    bool on_ld_library_path = false;
  };
  std::vector<Library> libraries;
  std::optional<uint64_t> free_memory, total_memory;
  bool no_context = false;           // cublasCreate failed with no context current

  bool module_loaded() const;        // the version file, or an "nvidia" line in /proc/modules
  bool has_module(const std::string& name) const;
};

// From the process section's entries (others are ignored; a malformed value is skipped).
MachineState machine_state_from(const std::vector<std::pair<std::string, std::string>>& entries);

// The failure the evidence is asked to explain.
struct SetupFailure {
  int status = 0;                 // the CUDA status (999, 802, 804, 100, ...)
  std::string words;              // "cudaGetDeviceCount (call #1) returned cudaErrorUnknown (999)"
  std::optional<uint64_t> call;
  bool cublas_create = false;     // cublasCreate/cublasLtCreate (status is cuBLAS's)
};

// kernel-module-not-loaded, device-nodes-inaccessible, uvm-not-loaded,
// fabric-manager-not-running, forward-compat-unsupported, out-of-memory-at-init,
// cublas-lt-mismatch (docs/DIAGNOSES.md). `setup` is the first failing CUDA set-up call,
// `create` a failing cublasCreate, `library_call` the first failing cuBLAS/cuBLASLt call of any
// kind (a GEMM's INVALID_VALUE from a mixed libcublasLt); pid is left to the caller.
std::vector<Diagnosis> machine_findings(const MachineState& m, const std::optional<SetupFailure>& setup,
                                        const std::optional<SetupFailure>& create,
                                        const std::optional<SetupFailure>& library_call = std::nullopt);

}  // namespace cublasspy::diagnoses
