// The GPU's health at the first failure, as NVML tells it (src/machine/nvml_reader.h), into the
// trace's process section: "is it my GPU?" answered beside the failure. Under CUBLASSPY_NVML
// (docs/CONTRACT.md):
//   early (default) - NVML is opened, and an event set registered for the Xid and ECC events of
//                     the device in use, at the first cuBLAS/cuBLASLt handle the program
//                     creates: events are delivered only to a set registered before they happen,
//                     and a handle's creation is the first point where the device is known and
//                     CUDA has just paid far more (a context, the library's kernels) than
//                     nvmlInit adds. Never in a constructor, never at another call.
//   failure         - NVML is opened only at the first failure: counts and pages, no events.
//   off             - never.
// At the first failure (a failed CUDA or cuBLAS call, an asynchronous error found by
// CUBLASSPY_SYNC, a failed launch, copy or wait; not a failed dlopen) the events are drained and
// the counts read, once per process. Without libnvidia-ml.so.1 (looked for as the loader would,
// so that no failed dlopen disturbs the program's dlerror()) one entry says so and nothing
// fails. A forked child does not touch the NVML state it inherited (its event set and handles
// are the parent's): it records why not.
#pragma once

#include <atomic>

#include "runtime.h"

namespace cublasspy {

// After a cuBLAS/cuBLASLt handle was created: open NVML and watch the device in use (early mode),
// once. Later calls cost one relaxed load.
void watch_gpu_health(Runtime& rt);

// At a failure: the GPU's state into the process section, once per process (a later failure
// costs one relaxed load). Tries `process_section_busy` and reads nothing, to try again at the
// next failure, when another thread holds it. Not for signal handlers.
void record_gpu_health(Runtime& rt, std::atomic<bool>& process_section_busy);

// In a forked child.
void gpu_health_after_fork();

}  // namespace cublasspy
