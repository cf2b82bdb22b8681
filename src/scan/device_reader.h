// The one way the scans and dumps read an operand out of device memory: in bounded chunks,
// through the driver's copy (which reports a bad address as an error code), never by
// dereferencing a device pointer on the host.
//
// The driver functions come from the table of src/cuda_driver/driver_api.h, filled by the shim from
// the libcuda the program loaded (interpose/driver_table.h) and by the tests with fakes; nothing
// here knows about the shim's runtime, so the tests link it alone.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_driver/driver_api.h"
#include "gemm/gemm_call.h"

namespace cublasspy {

// Largest host buffer one operand read uses; bigger operands arrive in several chunks.
inline constexpr uint64_t kDefaultChunkBytes = 4ull << 20;

// True when `stream` is being captured into a CUDA graph (or the driver cannot tell), or when a
// blocking stream is, which forbids the legacy stream that the host path copies through: the
// shim must then launch, copy and synchronize nothing, or it would break the program's capture.
bool stream_is_capturing(const DriverApi& api, uint64_t stream);

// True when [ptr, ptr + bytes) lies inside one device allocation (cuMemGetAddressRange).
bool device_range_ok(const DriverApi& api, uint64_t ptr, uint64_t bytes);

// Receives an operand's bytes: `count` elements of batch member `batch`, starting at storage
// element `first` (storage index = col * ld + row).
class MatrixSink {
 public:
  virtual ~MatrixSink() = default;
  // Return false to stop reading (e.g. a write failed).
  virtual bool consume(const void* data, uint64_t first, uint64_t count, uint64_t batch) = 0;
};

// The storage one batch member spans: from element (0, 0) to one past (rows-1, cols-1);
// kExtentOverflow when that does not fit 64 bits (garbage sizes: never a real operand).
inline constexpr uint64_t kExtentOverflow = ~0ull;
uint64_t member_extent_elements(const Matrix& m);

// Reads every batch member of `m` (a pointer-array operand when `pointer_array` is set: the
// array at m.array_ptr is read first) in chunks of at most `chunk_bytes`, and hands them to
// `sink`. Long gaps between columns (ld much larger than rows) are not copied unless
// `whole_extent` asks for every byte of each member's extent (the dumps do). A stride of 0
// with batch > 1 is read once, as member 0. A planar complex operand (m.plane_offset not 0: the
// real parts at m.ptr, the imaginary ones plane_offset bytes away, its stride in real
// sub-elements) reaches `sink` interleaved, as (re, im) pairs. The caller has synchronized the
// stream.
// Returns CUDA_SUCCESS, the driver's error for the first failing copy, or
// CUDA_ERROR_INVALID_VALUE for a shape or type that cannot be read.
CUresult read_matrix(const DriverApi& api, const Matrix& m, int64_t batch, bool pointer_array,
                     uint64_t chunk_bytes, MatrixSink& sink, bool whole_extent = false);

// Reads entries [first, first + count) of a pointer array (device addresses at `array`).
CUresult read_pointer_array(const DriverApi& api, uint64_t array, uint64_t first, uint64_t count,
                            std::vector<uint64_t>& out);

// Pointer arrays are read this many entries at a time (one chunk's worth of addresses).
inline uint64_t pointer_chunk(uint64_t chunk_bytes) {
  return chunk_bytes / 8 ? chunk_bytes / 8 : 1;
}

}  // namespace cublasspy
