#include "replay/host_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "replay/element_codec.h"

namespace cublasspy::replay {
namespace {

using cd = std::complex<double>;

// cuBLASLt epilogues the reference knows (cublasLtEpilogue_t values).
constexpr int kEpilogueDefault = 1, kEpilogueRelu = 2, kEpilogueBias = 4, kEpilogueGelu = 32;

bool known_epilogue(int e) {
  return e == kEpilogueDefault || e == kEpilogueRelu || e == kEpilogueBias || e == (kEpilogueRelu | kEpilogueBias) ||
         e == kEpilogueGelu || e == (kEpilogueGelu | kEpilogueBias);
}

double gelu(double x) {  // the tanh approximation cuBLASLt documents
  return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

bool is_nan(cd v) { return std::isnan(v.real()) || std::isnan(v.imag()); }

// The reference value of element (i, j) of member b, and the magnitude bound.
struct Element {
  cd want;
  double bound;
};

// Members whose op(A) and op(B) together have at most this many elements are decoded once into
// dense double arrays laid out for contiguous dot products (about 1 ns per multiply-add instead
// of decoding both elements at every step).
constexpr uint64_t kDenseElements = uint64_t{1} << 24;

// A sample of more elements than this says nothing more about a result.
constexpr uint64_t kMaxSamples = uint64_t{1} << 24;

class Reference {
 public:
  Reference(const ReplayPlan& p, const ReferenceInputs& in) : p_(p), in_(in) {
    alpha_ = cd(p.alpha[0], p.alpha[1]);
    beta_ = cd(p.beta[0], p.beta[1]);
    epilogue_ = p.kind == CallKind::kLtMatmul ? p.lt.epilogue : kEpilogueDefault;
    const uint64_t m = static_cast<uint64_t>(std::max<int64_t>(p.m, 0)), n = static_cast<uint64_t>(std::max<int64_t>(p.n, 0)),
                   k = static_cast<uint64_t>(std::max<int64_t>(p.k, 0));
    dense_ = (m + n) * k <= kDenseElements;
    complex_ = is_complex(static_cast<DataType>(in.a.plan->data_type)) || is_complex(static_cast<DataType>(in.b.plan->data_type));
  }

  // Whether products are cheap (dense member copies) or decoded element by element.
  bool dense() const { return dense_; }

  Element at(int64_t b, int64_t i, int64_t j) const {
    cd sum = 0;
    double magnitude = 0;
    if (alpha_ != cd(0)) product(b, i, j, sum, magnitude);
    cd want = alpha_ * sum;
    double bound = std::abs(alpha_) * magnitude;
    // beta == 0: C is not read (cuBLAS ignores even NaN there).
    if (beta_ != cd(0) && in_.c.plan != nullptr) {
      cd c = in_.c.at(b, i, j);
      want += beta_ * c;
      bound += std::abs(beta_) * std::abs(c);
    }
    if ((epilogue_ & kEpilogueBias) && in_.bias.plan != nullptr) {
      cd bias = in_.bias.at(0, i, 0);
      want += bias;
      bound += std::abs(bias);
    }
    if (epilogue_ & kEpilogueRelu) want = cd(std::max(want.real(), 0.0), 0);
    if (epilogue_ & kEpilogueGelu) want = cd(gelu(want.real()), 0);
    return {want, bound};
  }

 private:
  // op(X)[r, c]: X itself, transposed, or conjugate-transposed.
  static cd op(const HostOperand& x, int trans, int64_t b, int64_t r, int64_t c) {
    if (trans == 0) return x.at(b, r, c);
    cd v = x.at(b, c, r);
    return trans == 2 ? std::conj(v) : v;
  }

  // sum_q op(A)[i, q] op(B)[q, j] and sum_q |op(A)[i, q]| |op(B)[q, j]|.
  void product(int64_t b, int64_t i, int64_t j, cd& sum, double& magnitude) const {
    const int64_t k = p_.k;
    if (!dense_) {
      for (int64_t q = 0; q < k; ++q) {
        cd x = op(in_.a, p_.transa, b, i, q), y = op(in_.b, p_.transb, b, q, j);
        sum += x * y;
        magnitude += std::abs(x) * std::abs(y);
      }
      return;
    }
    load(b);
    if (complex_) {
      const cd* x = &ca_[static_cast<size_t>(i * k)];
      const cd* y = &cb_[static_cast<size_t>(j * k)];
      for (int64_t q = 0; q < k; ++q) {
        sum += x[q] * y[q];
        magnitude += std::abs(x[q]) * std::abs(y[q]);
      }
      return;
    }
    const double* x = &ra_[static_cast<size_t>(i * k)];
    const double* y = &rb_[static_cast<size_t>(j * k)];
    double s = 0;
    for (int64_t q = 0; q < k; ++q) {
      const double t = x[q] * y[q];
      s += t;
      magnitude += std::fabs(t);
    }
    sum = s;
  }

  // Member b's op(A) by rows and op(B) by columns, decoded once.
  void load(int64_t b) const {
    if (loaded_ == b) return;
    const int64_t m = p_.m, n = p_.n, k = p_.k;
    auto fill = [&](auto& a, auto& bm, auto convert) {
      a.resize(static_cast<size_t>(m * k));
      bm.resize(static_cast<size_t>(n * k));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t q = 0; q < k; ++q) a[static_cast<size_t>(i * k + q)] = convert(op(in_.a, p_.transa, b, i, q));
      }
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t q = 0; q < k; ++q) bm[static_cast<size_t>(j * k + q)] = convert(op(in_.b, p_.transb, b, q, j));
      }
    };
    if (complex_) fill(ca_, cb_, [](cd v) { return v; });
    else fill(ra_, rb_, [](cd v) { return v.real(); });
    loaded_ = b;
  }

  const ReplayPlan& p_;
  const ReferenceInputs& in_;
  cd alpha_, beta_;
  int epilogue_;
  bool dense_ = false, complex_ = false;
  mutable int64_t loaded_ = -1;
  mutable std::vector<double> ra_, rb_;
  mutable std::vector<cd> ca_, cb_;
};

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

const unsigned char* HostOperand::member_base(int64_t member) const {
  const uint64_t elem = static_cast<uint64_t>(element_bytes(static_cast<DataType>(plan->data_type)));
  if (plan->pointer_array) return bytes + static_cast<uint64_t>(member) * plan->extent_elements() * elem;
  return bytes + static_cast<uint64_t>(member) * static_cast<uint64_t>(std::max<int64_t>(plan->stride, 0)) * elem;
}

std::complex<double> HostOperand::at(int64_t member, int64_t r, int64_t c) const {
  const DataType t = static_cast<DataType>(plan->data_type);
  const unsigned char* p = member_base(member) + plan->offset(r, c) * static_cast<uint64_t>(element_bytes(t));
  return {decode_part(t, p, 0), element_parts(t) == 2 ? decode_part(t, p, 1) : 0.0};
}

Comparison compare_with_reference(const ReplayPlan& plan, const ReferenceInputs& in, const HostOperand& d_before,
                                  const HostOperand& d_after, uint64_t budget, ReferenceCache* cache) {
  Comparison cmp;
  cmp.tolerance = plan.tolerance;
  if (plan.quantized) {
    cmp.available = false;
    cmp.unavailable = "the host reference does not model cublasUint8gemmBias's biases and shifts";
    return cmp;
  }
  if (plan.kind == CallKind::kLtMatmul && !known_epilogue(plan.lt.epilogue)) {
    cmp.available = false;
    cmp.unavailable = "the host reference does not model cuBLASLt epilogue " + std::to_string(plan.lt.epilogue);
    return cmp;
  }
  if (in.a.plan == nullptr || in.b.plan == nullptr || d_after.plan == nullptr || in.a.plan->null ||
      in.b.plan->null || d_after.plan->null) {
    cmp.available = false;
    cmp.unavailable = "an operand is a null pointer";
    return cmp;
  }
  const Reference ref(plan, in);
  const int64_t m = std::max<int64_t>(plan.m, 0), n = std::max<int64_t>(plan.n, 0), batch = std::max<int64_t>(plan.batch, 0);
  cmp.total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n) * static_cast<uint64_t>(batch);
  const uint64_t per_element = static_cast<uint64_t>(std::max<int64_t>(plan.k, 1));

  auto check = [&](int64_t b, int64_t i, int64_t j, const cd& want, double bound) {
    cd got = d_after.at(b, i, j);
    ++cmp.checked;
    double abs_error = std::abs(got - want);
    double error;
    if (is_nan(want) || is_nan(got)) {
      error = is_nan(want) && is_nan(got) ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(std::abs(want)) || std::isinf(std::abs(got))) {
      error = got == want ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      error = bound > 0 ? abs_error / bound : (abs_error > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    }
    if (error > cmp.tolerance) ++cmp.mismatches;
    if (std::isfinite(abs_error)) cmp.max_abs_error = std::max(cmp.max_abs_error, abs_error);
    if (cmp.checked == 1 || error > cmp.max_error) {
      cmp.max_error = error;
      cmp.worst_member = b, cmp.worst_row = i, cmp.worst_col = j;
      cmp.worst_got = got, cmp.worst_want = want;
    }
  };

  if (cache != nullptr && cache->filled) {
    cmp.sampled = cache->sampled;
    for (const ReferenceCache::Entry& e : cache->entries) check(e.member, e.row, e.col, e.want, e.bound);
  } else if (cmp.total > 0) {
    // Every element, or when that costs more than the budget, a deterministic sample (first
    // and last included).
    // Decoding element by element costs about 16 times a dense multiply-add.
    if (!ref.dense()) budget /= 16;
    cmp.sampled = cmp.total * per_element > budget;
    const uint64_t count = cmp.sampled ? std::max<uint64_t>(budget / per_element, 2) : cmp.total;
    const bool keep = cache != nullptr && count * sizeof(ReferenceCache::Entry) <= (uint64_t{256} << 20);
    std::vector<ReferenceCache::Entry> kept;
    auto visit = [&](int64_t b, int64_t i, int64_t j) {
      Element e = ref.at(b, i, j);
      if (keep) kept.push_back({b, i, j, e.want, e.bound});
      check(b, i, j, e.want, e.bound);
    };
    if (!cmp.sampled) {
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t i = 0; i < m; ++i) visit(b, i, j);
        }
      }
    } else {
      // Sorted, so the members are visited in order (each decoded once).
      std::vector<uint64_t> picks = {0, cmp.total - 1};
      uint64_t state = plan.seed;
      for (uint64_t s = 2; s < std::min<uint64_t>(count, kMaxSamples); ++s) picks.push_back(splitmix(state) % cmp.total);
      std::sort(picks.begin(), picks.end());
      for (uint64_t idx : picks) {
        int64_t i = static_cast<int64_t>(idx % static_cast<uint64_t>(m));
        int64_t j = static_cast<int64_t>((idx / static_cast<uint64_t>(m)) % static_cast<uint64_t>(n));
        int64_t b = static_cast<int64_t>(idx / (static_cast<uint64_t>(m) * static_cast<uint64_t>(n)));
        visit(b, i, j);
      }
    }
    if (keep) {
      cache->entries = std::move(kept);
      cache->sampled = cmp.sampled;
      cache->filled = true;
    }
  }

  // Writes outside the result: every element of the output's buffer that no member's m x n
  // result covers must hold what it held before the call.
  if (d_before.plan != nullptr && d_before.bytes != nullptr) {
    const OperandPlan& o = *d_after.plan;
    const uint64_t elem = static_cast<uint64_t>(element_bytes(static_cast<DataType>(o.data_type)));
    const int64_t regions = o.pointer_array ? batch : 1;
    const uint64_t extent = o.extent_elements();
    for (int64_t r = 0; r < regions; ++r) {
      std::vector<bool> covered(extent, false);
      const int64_t first = o.pointer_array ? r : 0, last = o.pointer_array ? r : batch - 1;
      for (int64_t b = first; b <= last; ++b) {
        uint64_t base = o.pointer_array ? 0 : static_cast<uint64_t>(b) * static_cast<uint64_t>(std::max<int64_t>(o.stride, 0));
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t i = 0; i < m; ++i) {
            uint64_t at = base + o.offset(i, j);
            if (at < extent) covered[at] = true;
          }
        }
      }
      const unsigned char* before = d_before.member_base(first);
      const unsigned char* after = d_after.member_base(first);
      for (uint64_t e = 0; e < extent; ++e) {
        if (!covered[e] && std::memcmp(before + e * elem, after + e * elem, elem) != 0) ++cmp.outside_writes;
      }
    }
  }
  cmp.passed = cmp.mismatches == 0 && cmp.outside_writes == 0;
  return cmp;
}

}  // namespace cublasspy::replay
