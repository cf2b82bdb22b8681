// The machine's side of a CUDA failure, read in one place for the shim (into the trace's
// process section, at the first failure of a set-up call) and for `cublasspy doctor` (on the
// machine it runs on, or on a fake tree in its tests): the kernel module, the device nodes and
// whether this process may open them, the MIG and NVSwitch nodes, container markers, the
// visible-device variables as they are at that moment, and the driver library.
//
// It runs inside other people's processes, at most once per process and never on a later call:
// it reads /proc and /dev with raw system calls into fixed buffers, allocates nothing and takes
// no lock, so it is safe wherever the shim already makes real calls. The entries and their
// meaning are in docs/FORMAT.md ("Machine evidence").
#pragma once

#include <cstddef>
#include <cstdint>

namespace cublasspy {

// Where the entries go: "machine.<what>" keys, text values (never longer than kEvidenceValueMax).
class EvidenceSink {
 public:
  virtual void add(const char* key, const char* value) = 0;
 protected:
  ~EvidenceSink() = default;
};

inline constexpr size_t kEvidenceValueMax = 512;

struct MachineSource {
  // Every file is read under this directory ("/" on a real machine; CUBLASSPY_MACHINE_ROOT, or a
  // test's fake tree). At most 256 bytes.
  const char* root = "/";
  // The visible-device variables are read through this (getenv in the shim; doctor's map).
  const char* (*get_var)(void* context, const char* name) = nullptr;
  void* var_context = nullptr;
  // The driver library as loaded (or as the loader would find it), its real path; may be null.
  const char* driver_library = nullptr;
};

// Adds every entry to `sink`: the machine's state and the library variables (doctor).
void collect_machine_evidence(const MachineSource& source, EvidenceSink& sink);
// The two halves, for the shim, which records the libraries (with the variables that decide
// which directory they came from: LD_LIBRARY_PATH) at any library's first failure, and the
// machine's state (module, nodes, containers, visible devices) at a set-up call's.
void collect_machine_state(const MachineSource& source, EvidenceSink& sink);
void collect_library_variables(const MachineSource& source, EvidenceSink& sink);

// What put a library where it is, by its directory: "pip-wheel" (site-packages/nvidia/...,
// dist-packages/nvidia/...), "conda" (under $CONDA_PREFIX, or a directory whose parent holds
// conda-meta), "system" (/usr, /lib, /lib64, /opt), else "other". A static string;
// `conda_prefix` may be null; conda-meta is looked for under `root`.
const char* library_origin(const char* path, const char* conda_prefix, const char* root);

// Whether `dir` (a directory, no trailing slash) is one of LD_LIBRARY_PATH's entries.
bool is_ld_library_path_entry(const char* dir, size_t dir_len, const char* ld_library_path);

}  // namespace cublasspy
