// The stand-in's cuBLAS and cuBLASLt handles, shared by both libraries because cuBLASLt must
// accept a cuBLAS handle cast to cublasLtHandle_t (PyTorch does exactly that).
//
// A handle is a pointer to one of these structs, tagged by a magic word in its first 8 bytes.
// Validation mirrors real cuBLAS: a null handle is CUBLAS_STATUS_NOT_INITIALIZED; any other
// pointer is dereferenced without a guard, so a garbage handle crashes with SIGSEGV as it does
// on a GPU machine. A readable pointer whose magic is wrong (a destroyed handle, a pointer to
// something else) also ends in SIGSEGV, deliberately, since real cuBLAS would follow the garbage
// it reads there.
#pragma once

#include <cublas_api.h>
#include <cublasLt.h>

#include <csignal>
#include <cstdint>

#include "standin_private.h"

namespace standin {

// Each CUDA major's stack tags its handles with magic words of its own (the 13 stack's are
// "SnCUBLAS" and "nCBLASLt"; the 12 stack's differ in their top byte): a handle made by the
// other major's library, which a process holding both can pass to the wrong one, is not this
// library's and crashes as another build's handle would in real cuBLAS.
constexpr uint64_t kMajorTag = STANDIN_CUDA_MAJOR == 13 ? 0 : uint64_t{STANDIN_CUDA_MAJOR} << 56;
constexpr uint64_t kCublasMagic = 0x53414c4255436e53ull ^ kMajorTag;
constexpr uint64_t kCublasLtMagic = 0x744c53414c42436eull ^ kMajorTag;
constexpr uint64_t kDeadMagic = 0xdeaddeaddeaddeadull;      // written by Destroy

struct CublasHandle {
  uint64_t magic = kCublasMagic;
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  cublasAtomicsMode_t atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  size_t library_workspace_bytes = 0;  // STANDIN_CUBLAS_WORKSPACE, read when the handle is created
  void* library_workspace = nullptr;    // allocated by the library itself (ensure_library_workspace)
};

struct CublasLtHandle {
  uint64_t magic = kCublasLtMagic;
  int device = 0;
};

// Dereferences an address that is never mapped: a real SIGSEGV, with a real faulting address,
// as a crash inside cuBLAS would produce. The volatile keeps the compiler from reasoning about it.
[[noreturn]] inline void segfault_now() {
  static volatile uintptr_t bad_address = 0x10;
  *reinterpret_cast<volatile int*>(bad_address) = 0;
  std::raise(SIGSEGV);  // not reached unless page 0 is mapped
  __builtin_trap();
}

// Reads the magic word through the raw pointer (a garbage pointer faults right here). memcpy,
// because garbage need not be aligned; the value is used, so the load always happens.
inline uint64_t read_magic(const void* handle) {
  uint64_t magic;
  __builtin_memcpy(&magic, handle, sizeof magic);
  return magic;
}

// A valid handle also makes its device's context current on the calling thread, if none is
// (standin_bind_device_context), as real cuBLAS does.
inline CublasHandle* checked_cublas_handle(cublasHandle_t h) {
  if (read_magic(h) != kCublasMagic) segfault_now();
  auto* handle = reinterpret_cast<CublasHandle*>(h);
  standin_bind_device_context(handle->device);
  return handle;
}

// For cuBLASLt: either kind of handle; returns the device it belongs to.
inline int checked_lt_handle_device(cublasLtHandle_t h) {
  const uint64_t magic = read_magic(h);
  int device = 0;
  if (magic == kCublasLtMagic) device = reinterpret_cast<CublasLtHandle*>(h)->device;
  else if (magic == kCublasMagic) device = reinterpret_cast<CublasHandle*>(h)->device;
  else segfault_now();
  standin_bind_device_context(device);
  return device;
}

}  // namespace standin
