// What an Xid means: the numbers the NVIDIA driver logs for GPU errors (NVIDIA's "Xid Errors"
// catalogue, docs.nvidia.com/deploy/xid-errors), for the ones the field meets most. One table,
// read by the GPU-health finding (gpu_health.h) for the report and `cublasspy doctor`.
#pragma once

#include <cstdint>

namespace cublasspy::diagnoses {

enum class XidCause : uint8_t {
  kProgram,   // usually the program's own fault (an illegal address, an assert): not the GPU's
  kHardware,  // the GPU, its memory, its link or its firmware: the node needs attention
};

struct XidInfo {
  uint64_t xid;
  XidCause cause;
  const char* meaning;  // "the GPU has fallen off the bus"
  const char* advice;   // what to do about this one
};

// The entry for `xid`; nullptr for one the table does not hold.
const XidInfo* xid_info(uint64_t xid);

}  // namespace cublasspy::diagnoses
