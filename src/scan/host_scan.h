// The host-side scan: the same element rules as the GPU kernel (element_rules.h), run over an
// operand's bytes in host memory. Used where no kernel can run (no nvcc at build time, a driver
// that cannot load the kernel, the CPU stand-in), after the shim copied the operand out.
//
// Operands are column-major: element (row, col) of batch member b is at
// data + (b * stride + col * ld + row) * element_bytes. Complex elements are (re, im) pairs.
#pragma once

#include <cstdint>
#include <optional>

#include "element_rules.h"
#include "gemm/gemm_call.h"
#include "trace/trace_format.h"

namespace cublasspy {

// What a data type's elements are made of, for the element rules.
struct ElementKind {
  scan::ElementFormat format;
  bool complex;
  int bytes() const { return scan::format_bytes(format) * (complex ? 2 : 1); }
};

// nullopt for types that cannot hold NaN or Inf (integers) and unknown types: not scanned.
std::optional<ElementKind> element_kind_of(DataType type);

// A summary that says "this operand was not scanned" (max_abs_finite < 0; every count 0). A
// scanned operand always has max_abs_finite >= 0.
format::ScanSummary unscanned_summary();
inline bool was_scanned(const format::ScanSummary& s) { return s.max_abs_finite >= 0; }
inline uint64_t nonfinite_count(const format::ScanSummary& s) {
  return s.nan_count + s.pos_inf_count + s.neg_inf_count;
}

// The summary of a finished tally (either path) of a rows x cols operand: counts, the first
// non-finite element's row/column/batch (clamped to 32 bits), the largest finite magnitude, and
// `overflow` = 1 when a 16-bit float operand (fp16, bf16, or their complex forms) holds an
// infinity. Whether that infinity is a true overflow (finite inputs) is the caller's to decide.
format::ScanSummary summarize(const scan::ScanTally& tally, ElementKind kind, uint64_t rows,
                              uint64_t cols);

// Tallies an operand that arrives in pieces (the shim copies big operands in bounded chunks).
class HostScanner {
 public:
  HostScanner(ElementKind kind, uint64_t rows, uint64_t cols, uint64_t ld);

  // `span` holds `count` consecutive elements of batch member `batch`, starting at element
  // `first` of the member's storage (storage index = col * ld + row). Elements in the gap
  // between `rows` and `ld` are skipped; each element must be added once.
  void add_span(const void* span, uint64_t first, uint64_t count, uint64_t batch);

  const scan::ScanTally& tally() const { return tally_; }
  format::ScanSummary summary() const { return summarize(tally_, kind_, rows_, cols_); }

 private:
  ElementKind kind_;
  uint64_t rows_, cols_, ld_;
  scan::ScanTally tally_{};
};

// Scans a whole operand held in host memory: `batch` members `stride_elems` elements apart
// (stride 0 with batch > 1 is one matrix broadcast to every member: scanned once, as batch 0).
// Returns unscanned_summary() for a type that is not scanned or a shape that is not valid
// (negative sizes, ld < rows).
format::ScanSummary scan_matrix_host(const void* data, DataType type, int64_t rows, int64_t cols,
                                     int64_t ld, int64_t batch, int64_t stride_elems);

}  // namespace cublasspy
