// The machine evidence of a failed set-up call, into the trace's process section: the state of
// the machine (src/machine/machine_evidence.h), the versions and origins of the loaded libcublas,
// libcublasLt and libcudart, and, when cublasCreate fails for memory, the device's free memory.
#pragma once

#include <cstdlib>

#include "runtime.h"
#include "machine/machine_evidence.h"

namespace cublasspy {

// Where the shim's evidence goes (the machine's state, a failed load's library copies): the
// trace's process section, one "key\0value\0" entry each. With the process-section flag held.
class WriterSink final : public EvidenceSink {
 public:
  explicit WriterSink(TraceWriter& w) : w_(w) {}
  void add(const char* key, const char* value) override { w_.append_process_entry(key, value); }
 private:
  TraceWriter& w_;
};

// The process's own environment, as MachineSource::get_var reads it.
inline const char* environment_variable(void*, const char* name) { return std::getenv(name); }

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
