// The scan kernel's fatbin, embedded in the shim at build time (src/scan/CMakeLists.txt). Present only when
// the build found nvcc: CUBLASSPY_SCAN_KERNEL is then defined to 1, otherwise the shim scans on
// the host alone.
#pragma once

#ifndef CUBLASSPY_SCAN_KERNEL
#define CUBLASSPY_SCAN_KERNEL 0
#endif

namespace cublasspy::scan {

#if CUBLASSPY_SCAN_KERNEL
extern const unsigned char kScanFatbin[];
extern const unsigned long kScanFatbinBytes;
#endif

inline constexpr bool kHaveScanKernel = CUBLASSPY_SCAN_KERNEL != 0;

// The embedded image, or nullptr when the build had no nvcc.
constexpr const void* scan_fatbin() {
#if CUBLASSPY_SCAN_KERNEL
  return kScanFatbin;
#else
  return nullptr;
#endif
}

}  // namespace cublasspy::scan
