// The machine evidence of a failed set-up call, into the trace's process section: the state of
// the machine (src/trace/machine_evidence.h), the versions and origins of the loaded libcublas,
// libcublasLt and libcudart, and, when cublasCreate fails for memory, the device's free memory.
#pragma once

#include "runtime.h"

namespace cublasspy {

// After call `id` failed with `status`. A set-up call (cuInit, cudaGetDeviceCount,
// cudaSetDevice, cublasCreate, cublasLtCreate) records the machine's state and the libraries;
// any other failing call the libraries (their versions, directories and origins) only. Each
// once per process; a later failure costs two relaxed loads, a call that succeeds nothing.
// Takes `process_section_busy` (the flag the library refresh also takes) and records nothing,
// to try again at the next failure, when another thread holds it. Not for signal handlers: it
// reads files and asks the loader (see machine_record.cpp for why that cannot deadlock).
void record_machine_evidence(Runtime& rt, uint16_t id, int status, bool setup_call,
                             std::atomic<bool>& process_section_busy);

// In a forked child, whose trace is its own: its first failures record again.
void machine_evidence_after_fork();

}  // namespace cublasspy
