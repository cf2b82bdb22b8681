// The evidence of a launch that failed for want of a kernel image (cudaErrorNoKernelImageForDevice
// and the driver's CUDA_ERROR_NO_BINARY_FOR_GPU, both 209), into the trace's process section
// (docs/FORMAT.md, "Kernel images"): the compute capability of the device the launch ran on, and
// the architectures the object holding the kernel carries (its .nv_fatbin section,
// src/machine/object_fatbins.h), which the diagnosis `no-kernel-image` compares.
//
// Read at the failure, not when the program registers its fatbins (__cudaRegisterFatBinary,
// from library constructors, thousands of times for PyTorch): registration costs nothing, and a
// library is built with one list of architectures, so its section says what its kernel carries.
#pragma once

#include <atomic>

#include "runtime.h"

namespace cublasspy {

// Once per process, after a launch failed with 209: `code` is an address inside the object that
// holds the kernel (its host stub, or the caller of the launch). Takes `process_section_busy`
// and records nothing, to try again at the next such failure, when another thread holds it. Not
// for signal handlers: it reads the object's file and asks the loader and the driver.
void record_kernel_image(Runtime& rt, const void* code, std::atomic<bool>& process_section_busy);

// In a forked child, whose trace is its own: its first such failure records again.
void kernel_image_after_fork();

}  // namespace cublasspy
