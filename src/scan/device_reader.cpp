#include "scan/device_reader.h"

#include <algorithm>
#include <cstring>

#include "cuda_driver/stream_wait.h"

namespace cublasspy {
namespace {

// Columns further apart than this are copied one by one instead of with the gap between them.
constexpr uint64_t kGapCopyLimitBytes = 64 * 1024;

// One operand's read: where its bytes go, and how a storage element is found. A planar complex
// operand (cuBLASLt's CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) keeps the real parts as one real
// matrix at its pointer and the imaginary parts `plane` bytes away: storage element e is at
// e * item/2 in each plane. Its two planes are copied separately and interleaved here, so every
// sink gets (re, im) pairs, as from an interleaved complex operand.
struct Reader {
  const DriverApi& api;
  uint64_t item;   // bytes of one element (both parts of a complex one)
  int64_t plane;   // 0, or the planar operand's imaginary plane offset in bytes
  std::vector<unsigned char>& buffer;
  MatrixSink& sink;
  std::vector<unsigned char> parts{};  // planar: one chunk of each plane

  // Bytes from one storage element to the next in device memory.
  uint64_t step() const { return plane == 0 ? item : item / 2; }

  CUresult copy(uint64_t base, uint64_t first, uint64_t n) {
    if (plane == 0) return api.memcpy_dtoh(buffer.data(), base + first * item, n * item);
    const uint64_t half = item / 2;
    parts.resize(2 * n * half);
    CUresult r = api.memcpy_dtoh(parts.data(), base + first * half, n * half);
    if (r == CUDA_SUCCESS) {
      r = api.memcpy_dtoh(parts.data() + n * half, base + static_cast<uint64_t>(plane) + first * half, n * half);
    }
    if (r != CUDA_SUCCESS) return r;
    for (uint64_t i = 0; i < n; ++i) {
      std::memcpy(buffer.data() + i * item, parts.data() + i * half, half);
      std::memcpy(buffer.data() + i * item + half, parts.data() + (n + i) * half, half);
    }
    return CUDA_SUCCESS;
  }

  // Copies storage elements [first, first + count) of the member at `base` in chunks.
  CUresult range(uint64_t base, uint64_t first, uint64_t count, uint64_t batch) {
    const uint64_t chunk_elems = std::max<uint64_t>(1, buffer.size() / item);
    while (count > 0) {
      uint64_t n = std::min(count, chunk_elems);
      if (CUresult r = copy(base, first, n); r != CUDA_SUCCESS) return r;
      if (!sink.consume(buffer.data(), first, n, batch)) return CUDA_ERROR_UNKNOWN;
      first += n;
      count -= n;
    }
    return CUDA_SUCCESS;
  }

  CUresult member(const Matrix& m, uint64_t base, uint64_t batch, bool whole_extent) {
    const uint64_t rows = static_cast<uint64_t>(m.rows), cols = static_cast<uint64_t>(m.cols);
    const uint64_t ld = static_cast<uint64_t>(m.ld);
    if (whole_extent || (ld - rows) * step() <= kGapCopyLimitBytes) {
      return range(base, 0, member_extent_elements(m), batch);
    }
    for (uint64_t col = 0; col < cols; ++col) {
      CUresult r = range(base, col * ld, rows, batch);
      if (r != CUDA_SUCCESS) return r;
    }
    return CUDA_SUCCESS;
  }
};

}  // namespace

bool stream_is_capturing(const DriverApi& api, uint64_t stream) {
  if (api.stream_is_capturing == nullptr) return false;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = api.stream_is_capturing(reinterpret_cast<CUstream>(stream), &status);
  if (r != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE) return true;
  // The host path's copies go through the legacy stream, which a capture of any blocking
  // stream forbids touching.
  return stream != 0 && capture_forbids_waiting(api, 0);
}

bool device_range_ok(const DriverApi& api, uint64_t ptr, uint64_t bytes) {
  if (api.mem_get_address_range == nullptr || ptr == 0) return false;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (api.mem_get_address_range(&base, &size, static_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS) {
    return false;
  }
  return ptr >= base && ptr - base <= size && bytes <= size - (ptr - base);
}

uint64_t member_extent_elements(const Matrix& m) {
  if (m.rows <= 0 || m.cols <= 0 || m.ld < 0) return 0;
  const auto cols = static_cast<uint64_t>(m.cols), ld = static_cast<uint64_t>(m.ld);
  uint64_t extent = 0;
  if (__builtin_mul_overflow(cols - 1, ld, &extent) ||
      __builtin_add_overflow(extent, static_cast<uint64_t>(m.rows), &extent)) {
    return kExtentOverflow;
  }
  return extent;
}

CUresult read_pointer_array(const DriverApi& api, uint64_t array, uint64_t first, uint64_t count,
                            std::vector<uint64_t>& out) {
  out.resize(count);
  if (count == 0) return CUDA_SUCCESS;
  return api.memcpy_dtoh(out.data(), array + first * sizeof(uint64_t), count * sizeof(uint64_t));
}

CUresult read_matrix(const DriverApi& api, const Matrix& m, int64_t batch, bool pointer_array,
                     uint64_t chunk_bytes, MatrixSink& sink, bool whole_extent) {
  const uint64_t item = static_cast<uint64_t>(element_bytes(m.type));
  if (!api.can_copy() || item == 0 || m.rows < 0 || m.cols < 0 || m.ld < m.rows ||
      batch < 0 || m.stride < 0 || (m.planar() && !is_complex(m.type))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (m.rows == 0 || m.cols == 0 || batch == 0) return CUDA_SUCCESS;
  std::vector<unsigned char> buffer(
      std::max(item, std::min(chunk_bytes, member_extent_elements(m) * item)));
  Reader reader{api, item, m.plane_offset, buffer, sink};
  if (pointer_array) {
    if (m.array_ptr == 0) return CUDA_ERROR_INVALID_VALUE;
    const uint64_t step = pointer_chunk(chunk_bytes);
    std::vector<uint64_t> pointers;
    for (uint64_t first = 0; first < static_cast<uint64_t>(batch); first += step) {
      uint64_t n = std::min<uint64_t>(step, static_cast<uint64_t>(batch) - first);
      CUresult r = read_pointer_array(api, m.array_ptr, first, n, pointers);
      if (r != CUDA_SUCCESS) return r;
      for (uint64_t i = 0; i < n; ++i) {
        if (pointers[i] == 0) return CUDA_ERROR_INVALID_VALUE;
        r = reader.member(m, pointers[i], first + i, whole_extent);
        if (r != CUDA_SUCCESS) return r;
      }
    }
    return CUDA_SUCCESS;
  }
  if (m.ptr == 0) return CUDA_ERROR_INVALID_VALUE;
  const int64_t members = m.stride == 0 ? 1 : batch;
  for (int64_t b = 0; b < members; ++b) {
    // (A planar operand's stride counts real sub-elements, cublasLt.h: one step each.)
    uint64_t base = m.ptr + static_cast<uint64_t>(b) * static_cast<uint64_t>(m.stride) * reader.step();
    CUresult r = reader.member(m, base, static_cast<uint64_t>(b), whole_extent);
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

}  // namespace cublasspy
