// `--verify`: the replayed call's result against a GEMM computed on the host in double
// (complex double) precision from the very inputs the device got.
//
// The error of each element is measured against the magnitudes that went into it:
//   error = |got - want| / (|alpha| * sum_p |op(A)_ip| |op(B)_pj| + |beta| |C_ij| + |bias_i|)
// which is what floating-point rounding bounds (a dot product of k terms loses accuracy relative
// to the sum of the terms' magnitudes, not to the possibly tiny result). The tolerance comes
// from the output and compute types (tolerance.h). NaN where the reference is finite, or a
// finite value where it is NaN, always fails.
//
// The output's extent outside the m x n result of each member (the rows between m and ld, the
// gaps between strided members) must keep its values: a write there is reported too.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "replay/replay_plan.h"

namespace cublasspy::replay {

// One operand's host bytes, laid out as on the device: the whole strided extent, or for
// pointer arrays each member's extent one after the other.
struct HostOperand {
  const OperandPlan* plan = nullptr;
  const unsigned char* bytes = nullptr;

  std::complex<double> at(int64_t member, int64_t r, int64_t c) const;
  const unsigned char* member_base(int64_t member) const;
};

struct Comparison {
  bool available = true;      // false: this call cannot be verified (why in `unavailable`)
  std::string unavailable;
  bool passed = false;
  double tolerance = 0;
  double max_error = 0;       // relative to the magnitudes, as above
  double max_abs_error = 0;
  int64_t worst_member = 0, worst_row = 0, worst_col = 0;
  std::complex<double> worst_got, worst_want;
  uint64_t mismatches = 0;    // elements beyond the tolerance
  uint64_t checked = 0;       // elements compared
  uint64_t total = 0;         // elements of the result
  bool sampled = false;       // checked < total: the reference was too costly for all
  uint64_t outside_writes = 0;  // elements outside the result that changed
};

struct ReferenceInputs {
  HostOperand a, b, c, bias;  // c: the values before the call (bias may be absent)
};

// The reference values of the elements a comparison checks, kept from one comparison to the
// next: a verified stress loop (--repeat with --verify) checks every run against the same inputs.
// Kept only while small (256 MiB); beyond that each comparison recomputes them.
struct ReferenceCache {
  struct Entry {
    int64_t member, row, col;
    std::complex<double> want;
    double bound;
  };
  std::vector<Entry> entries;
  bool filled = false;
  bool sampled = false;
};

// Compares `d_after` (the output after the call; for cuBLAS that is C) with the reference.
// `d_before` is the output's buffer before the call, for the outside-writes check.
// `budget` bounds the multiply-adds spent: beyond it, elements are sampled.
Comparison compare_with_reference(const ReplayPlan& plan, const ReferenceInputs& in,
                                  const HostOperand& d_before, const HostOperand& d_after,
                                  uint64_t budget = uint64_t{1} << 31, ReferenceCache* cache = nullptr);

}  // namespace cublasspy::replay
