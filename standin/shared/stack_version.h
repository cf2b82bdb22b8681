// Which CUDA stack this build of the stand-in imitates. The stand-in is always compiled against
// the CUDA 13 headers of /usr/local/cuda, but built twice (CMakeLists.txt, standin_stack()):
// STANDIN_CUDA_MAJOR 13 gives libcudart.so.13 and friends, 12 gives libcudart.so.12 and friends
// for programs built against CUDA 12 (Debian's PyTorch 2.6). Every version the stand-in reports
// or compares comes from here, never from the headers' CUDA_VERSION / CUDART_VERSION /
// CUBLAS_VERSION macros, which always say 13.
#pragma once

#include <cublas_api.h>

#ifndef STANDIN_CUDA_MAJOR
#error "STANDIN_CUDA_MAJOR must be set by the build (12 or 13)"
#endif

namespace standin {

#if STANDIN_CUDA_MAJOR == 13
constexpr int kCudaVersion = CUDART_VERSION;  // the runtime and the ABI it asks the driver for
constexpr int kDriverVersion = 13000;         // what the stand-in driver reports by default
constexpr int kCublasMajor = CUBLAS_VER_MAJOR;
constexpr int kCublasMinor = CUBLAS_VER_MINOR;
constexpr int kCublasPatch = CUBLAS_VER_PATCH;
#elif STANDIN_CUDA_MAJOR == 12
// The stack Debian trixie's PyTorch 2.6 runs on: libcudart12 12.4.127, libcublas12 12.4.5.8,
// libcuda1 550.163.01 (a 12.4 driver).
constexpr int kCudaVersion = 12040;
constexpr int kDriverVersion = 12040;
constexpr int kCublasMajor = 12;
constexpr int kCublasMinor = 4;
constexpr int kCublasPatch = 5;
#else
#error "unsupported STANDIN_CUDA_MAJOR"
#endif

// cublasGetVersion / cublasLtGetVersion: the formula of cublas_api.h's CUBLAS_VERSION.
constexpr int kCublasVersion = kCublasMajor * 10000 + kCublasMinor * 100 + kCublasPatch;

}  // namespace standin
