// Facts about CUDA error codes that both the shim and the report need.
#pragma once

namespace cublasspy {

// cudaError_t / CUresult codes of errors that happen on the device, after the call that
// launched the work has returned: they surface at the next synchronization, on whatever call
// makes it (illegal address, launch failure, misaligned address, assert, ...).
inline bool is_asynchronous_cuda_error(int code) {
  switch (code) {
    case 700: case 701: case 702: case 710: case 714: case 715: case 716: case 717: case 718:
    case 719: case 720:
      return true;
    default:
      return false;
  }
}

}  // namespace cublasspy
