// The machine evidence of a failed set-up call, into the trace's process section: the state of
// the machine (src/trace/machine_evidence.h), the versions and origins of the loaded libcublas,
// libcublasLt and libcudart, and, when cublasCreate fails for memory, the device's free memory.
#pragma once

#include "runtime.h"

namespace cublasspy {

// After a set-up call (cuInit, cudaGetDeviceCount, cudaSetDevice, cublasCreate, cublasLtCreate)
// failed with `status`. Records once per process; every later call costs one relaxed load.
// Takes `process_section_busy` (the flag the library refresh also takes) and records nothing,
// to try again at the next failure, when another thread holds it.
void record_machine_evidence(Runtime& rt, uint16_t id, int status, std::atomic<bool>& process_section_busy);

}  // namespace cublasspy
