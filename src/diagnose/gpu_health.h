// The GPU's health as NVML told it (the "machine.nvml", "machine.gpu_event", "machine.ecc",
// "machine.retired_pages" and "machine.remapped_rows" entries of a trace's process section,
// docs/FORMAT.md; src/machine/nvml_reader.h writes them), read back, and the gpu-hardware-fault
// finding it proves. One piece serves the trace rule (rule_gpu_hardware.cpp: the GPU's state at
// the first failure) and `cublasspy doctor` (its state now).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnosis.h"

namespace cublasspy::diagnoses {

struct GpuHealth {
  enum class Read : uint8_t { kNotRecorded, kRead, kUnavailable, kNotRead };
  Read read = Read::kNotRecorded;
  std::string watched;  // "xid+ecc", "xid", "ecc", "none": the events watched before the read
  std::string devices;  // "00000000:01:00.0", or "index 0,index 1"
  std::string why;      // why NVML was not read (kUnavailable, kNotRead)
  struct Event {
    std::string device;
    std::string kind;  // "xid", "ecc-double-bit", "ecc-single-bit", "gpu-lost", "more"
    uint64_t value = 0;  // the Xid; the count left out for "more"
  };
  std::vector<Event> events;
  struct Ecc {
    std::string device;
    std::optional<uint64_t> uncorrected_volatile, uncorrected_aggregate, corrected_volatile, corrected_aggregate;
  };
  std::vector<Ecc> ecc;
  struct RetiredPages {
    std::string device;
    uint64_t single_bit = 0, double_bit = 0;
    std::optional<bool> pending;
  };
  std::vector<RetiredPages> retired;
  struct RemappedRows {
    std::string device;
    uint64_t correctable = 0, uncorrectable = 0;
    bool pending = false, failed = false;
  };
  std::vector<RemappedRows> remapped;
};

// From the process section's entries (others are ignored; a malformed value is skipped).
GpuHealth gpu_health_from(const std::vector<std::pair<std::string, std::string>>& entries);

// gpu-hardware-fault (docs/DIAGNOSES.md) when the state shows a fault of the GPU or its memory:
// an Xid of the hardware's (xid_table.h), the GPU lost, an uncorrectable ECC error, a pending or
// failed retirement or remapping; a warning for the history alone (lifetime counts, retired
// pages). `failure` words the failure it is read beside ("cublasSgemm_v2 (call #5) returned
// ..."), empty for doctor; pid and call are left to the caller.
std::optional<Diagnosis> gpu_hardware_finding(const GpuHealth& health, const std::string& failure);

}  // namespace cublasspy::diagnoses
