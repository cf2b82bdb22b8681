#include "scan/host_scan.h"

#include <cstring>

namespace cublasspy {
namespace {

using scan::ElementFormat;
using scan::FormatBits;

// The element rules for elements [0, n) of a segment, one at a time.
template <ElementFormat F, bool kComplex>
void tally_elements(scan::ScanTally& t, const unsigned char* bytes, uint64_t n, uint64_t first_key) {
  using Bits = typename FormatBits<F>::Bits;
  constexpr uint64_t kParts = kComplex ? 2 : 1;
  for (uint64_t i = 0; i < n; ++i) {
    Bits part[kParts];
    std::memcpy(part, bytes + i * sizeof part, sizeof part);  // operands need not be aligned here
    scan::tally_element<F, kComplex>(t, part[0], part[kParts - 1], first_key + i);
  }
}

// One column segment: `n` elements of one column, contiguous, the first numbered `first_key`.
// The common case, a block of elements all finite, is a mask and a max per part, which the
// compiler vectorizes; a block holding a non-finite value is tallied element by
// element from the block just read (still in L1), so every element is counted exactly once.
template <ElementFormat F, bool kComplex>
void scan_segment(scan::ScanTally& t, const unsigned char* bytes, uint64_t n, uint64_t first_key) {
  using Bits = typename FormatBits<F>::Bits;
  constexpr uint64_t kParts = kComplex ? 2 : 1;
  constexpr uint64_t kBlock = 64;  // elements
  constexpr Bits kMagnitude = static_cast<Bits>(~FormatBits<F>::kSign);
  constexpr Bits kNonfinite = static_cast<Bits>(FormatBits<F>::kNonfiniteFrom);
  uint64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    Bits block[kBlock * kParts];
    std::memcpy(block, bytes + i * kParts * sizeof(Bits), sizeof block);
    // Non-finite patterns have the largest magnitude bits: one max finds both answers.
    Bits largest = 0;
    for (uint64_t j = 0; j < kBlock * kParts; ++j) {
      Bits mag = static_cast<Bits>(block[j] & kMagnitude);
      largest = mag > largest ? mag : largest;
    }
    if (largest < kNonfinite) {
      t.max_magnitude_bits = scan::max_bits(t.max_magnitude_bits, largest);
    } else {
      const auto* bytes_of_block = reinterpret_cast<const unsigned char*>(block);
      tally_elements<F, kComplex>(t, bytes_of_block, kBlock, first_key + i);
    }
  }
  tally_elements<F, kComplex>(t, bytes + i * kParts * sizeof(Bits), n - i, first_key + i);
}

using SegmentFn = void (*)(scan::ScanTally&, const unsigned char*, uint64_t, uint64_t);

template <ElementFormat F>
SegmentFn segment_fn(bool complex) {
  return complex ? &scan_segment<F, true> : &scan_segment<F, false>;
}

SegmentFn segment_fn(ElementKind kind) {
  switch (kind.format) {
    case ElementFormat::kF16: return segment_fn<ElementFormat::kF16>(kind.complex);
    case ElementFormat::kBF16: return segment_fn<ElementFormat::kBF16>(kind.complex);
    case ElementFormat::kF32: return segment_fn<ElementFormat::kF32>(kind.complex);
    case ElementFormat::kF64: return segment_fn<ElementFormat::kF64>(kind.complex);
    case ElementFormat::kE4M3: return segment_fn<ElementFormat::kE4M3>(kind.complex);
    default: return segment_fn<ElementFormat::kE5M2>(kind.complex);
  }
}

uint32_t clamp32(uint64_t v) { return v > 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(v); }

}  // namespace

std::optional<ElementKind> element_kind_of(DataType type) {
  switch (type) {
    case DataType::kR16F: return ElementKind{ElementFormat::kF16, false};
    case DataType::kC16F: return ElementKind{ElementFormat::kF16, true};
    case DataType::kR16BF: return ElementKind{ElementFormat::kBF16, false};
    case DataType::kC16BF: return ElementKind{ElementFormat::kBF16, true};
    case DataType::kR32F: return ElementKind{ElementFormat::kF32, false};
    case DataType::kC32F: return ElementKind{ElementFormat::kF32, true};
    case DataType::kR64F: return ElementKind{ElementFormat::kF64, false};
    case DataType::kC64F: return ElementKind{ElementFormat::kF64, true};
    case DataType::kR8F_E4M3: return ElementKind{ElementFormat::kE4M3, false};
    case DataType::kR8F_E5M2: return ElementKind{ElementFormat::kE5M2, false};
    default: return std::nullopt;
  }
}

format::ScanSummary unscanned_summary() {
  format::ScanSummary s{};
  s.max_abs_finite = -1.0;
  return s;
}

format::ScanSummary summarize(const scan::ScanTally& tally, ElementKind kind, uint64_t rows,
                              uint64_t cols) {
  format::ScanSummary s{};
  s.nan_count = tally.nan_count;
  s.pos_inf_count = tally.pos_inf_count;
  s.neg_inf_count = tally.neg_inf_count;
  if (tally.first_key_inverted != 0 && rows != 0 && cols != 0) {
    uint64_t key = ~tally.first_key_inverted;
    s.first_row = clamp32(key % rows);
    s.first_col = clamp32((key / rows) % cols);
    s.first_batch = clamp32(key / rows / cols);
  }
  bool sixteen_bit = kind.format == ElementFormat::kF16 || kind.format == ElementFormat::kBF16;
  s.overflow = sixteen_bit && (s.pos_inf_count + s.neg_inf_count) != 0 ? 1u : 0u;
  s.max_abs_finite = scan::decode_magnitude(kind.format, tally.max_magnitude_bits);
  return s;
}

HostScanner::HostScanner(ElementKind kind, uint64_t rows, uint64_t cols, uint64_t ld)
    : kind_(kind), rows_(rows), cols_(cols), ld_(ld < rows ? rows : ld) {}

void HostScanner::add_span(const void* span, uint64_t first, uint64_t count, uint64_t batch) {
  if (rows_ == 0 || cols_ == 0 || count == 0) return;
  SegmentFn fn = segment_fn(kind_);
  const auto* bytes = static_cast<const unsigned char*>(span);
  const uint64_t element_bytes = static_cast<uint64_t>(kind_.bytes());
  uint64_t index = first;
  const uint64_t end = first + count;
  while (index < end) {
    uint64_t col = index / ld_;
    uint64_t row = index % ld_;
    if (col >= cols_) break;  // past the last column: nothing of the matrix is left
    uint64_t column_end = col * ld_ + ld_;  // storage index where the next column starts
    if (row < rows_) {
      uint64_t n = rows_ - row;
      if (index + n > end) n = end - index;
      fn(tally_, bytes + (index - first) * element_bytes, n, (batch * cols_ + col) * rows_ + row);
    }
    index = column_end < end ? column_end : end;
  }
}

format::ScanSummary scan_matrix_host(const void* data, DataType type, int64_t rows, int64_t cols,
                                     int64_t ld, int64_t batch, int64_t stride_elems) {
  std::optional<ElementKind> kind = element_kind_of(type);
  if (!kind || rows < 0 || cols < 0 || batch < 0 || ld < rows || stride_elems < 0) {
    return unscanned_summary();
  }
  HostScanner scanner(*kind, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols),
                      static_cast<uint64_t>(ld));
  if (rows == 0 || cols == 0 || batch == 0) return scanner.summary();
  if (stride_elems == 0) batch = 1;  // a broadcast matrix is one matrix
  const uint64_t extent = static_cast<uint64_t>((cols - 1) * ld + rows);
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (int64_t b = 0; b < batch; ++b) {
    const unsigned char* member = bytes + static_cast<uint64_t>(b) *
                                              static_cast<uint64_t>(stride_elems) * kind->bytes();
    scanner.add_span(member, 0, extent, static_cast<uint64_t>(b));
  }
  return scanner.summary();
}

}  // namespace cublasspy
