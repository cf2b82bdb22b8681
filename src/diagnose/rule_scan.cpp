// The NaN/Inf scan of CUBLASSPY_SCAN (`run --scan`): where non-finite values entered or were
// born. The EXECUTION_FAILED field report's two main causes (docs/DIAGNOSES.md): mixed-precision
// overflow (fp16 beyond 65504) and NaN/Inf from the data pipeline; and "finite inputs, broken
// output" pointing at the call itself or the hardware.
//   non-finite-input   a GEMM input (A, B, or C read because beta != 0) holds NaN or Inf
//   half-overflow      an fp16/bf16 output overflowed to Inf from finite inputs
//   non-finite-output  the output holds NaN/Inf while the inputs were finite (or not scanned)
// One finding per id and process: the first call, and how many calls showed the same.
#include <cmath>

#include <fmt/format.h>

#include "gemm/gemm_call.h"
#include "diagnose/rule.h"
#include "scan/host_scan.h"

namespace cublasspy::diagnoses {
namespace {

constexpr const char* kOperandNames[4] = {"A", "B", "C", "the output"};
constexpr int kA = 0, kB = 1, kC = 2, kD = 3;

const format::ScanSummary& summary(const CallView& c, int operand) { return c.slot.scan[operand]; }
bool scanned(const CallView& c, int operand) { return was_scanned(summary(c, operand)); }
bool nonfinite(const CallView& c, int operand) {
  return scanned(c, operand) && nonfinite_count(summary(c, operand)) != 0;
}
bool inputs_nonfinite(const CallView& c) { return nonfinite(c, kA) || nonfinite(c, kB) || nonfinite(c, kC); }
bool inputs_finite(const CallView& c) {
  return scanned(c, kA) && scanned(c, kB) && !inputs_nonfinite(c);
}

bool is_16bit_float(DataType t) {
  return t == DataType::kR16F || t == DataType::kR16BF || t == DataType::kC16F || t == DataType::kC16BF;
}

DataType output_type(const GemmCall& g) { return g.d().present ? g.d().type : g.c().type; }

// "A holds 1 NaN (first at row 1, column 0)".
std::string operand_text(const CallView& c, int operand) {
  const format::ScanSummary& s = summary(c, operand);
  std::string counts;
  auto add = [&](uint64_t n, const char* what) {
    if (n) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, what);
  };
  add(s.nan_count, "NaN");
  add(s.pos_inf_count, "+Inf");
  add(s.neg_inf_count, "-Inf");
  std::string where = fmt::format("row {}, column {}", s.first_row, s.first_col);
  if (s.first_batch != 0) where += fmt::format(", batch member {}", s.first_batch);
  return fmt::format("{} holds {} (first at {})", kOperandNames[operand], counts, where);
}

std::string magnitude_text(const CallView& c, int operand) {
  return fmt::format("max |{}| = {:.4g}", operand == kD ? "out" : kOperandNames[operand], summary(c, operand).max_abs_finite);
}

// The earlier scanned call whose non-finite output is this call's input, if the trace shows it.
const CallView* producer_of(const TraceFacts& f, const CallView& c, int operand) {
  const GemmCall g = c.gemm();
  if (!g.valid || g.op[operand].ptr == 0) return nullptr;
  const CallView* found = nullptr;
  for (const CallView& earlier : f.scanned_nonfinite) {
    if (!began_before(earlier, c)) break;  // the list is in the order calls began
    const GemmCall e = earlier.gemm();
    const Matrix& out = e.d().present ? e.d() : e.c();
    if (e.valid && out.ptr == g.op[operand].ptr && nonfinite(earlier, kD)) found = &earlier;
  }
  return found;
}

struct FirstAndCount {
  const CallView* first = nullptr;
  uint64_t count = 0;
  void note(const CallView& c) {
    if (first == nullptr) first = &c;
    count++;
  }
};

std::string more_calls(const FirstAndCount& fc, const TraceFacts& f) {
  if (fc.count <= 1 && f.scanned_nonfinite_total <= f.scanned_nonfinite.size()) return "";
  return fmt::format(" {}{} call{} in this process showed the same.",
                     f.scanned_nonfinite_total > f.scanned_nonfinite.size() ? "At least " : "", fc.count,
                     plural(fc.count));
}

const char* kInputAdvice =
    "The NaN/Inf was already in the data this GEMM received. If an earlier call produced it, "
    "the evidence names that call: fix that one first. Otherwise it comes from the data or the "
    "weights: check each batch where it is made (torch.isnan(x).any(), torch.isinf(x).any() in "
    "Dataset.__getitem__ or collate_fn): unreadable images loaded as None or zeros, log(0) = -inf "
    "in audio features, bad padding values; check the parameters after initialization or loading "
    "(torch.isfinite(p).all() for each of model.named_parameters()); repair or drop bad samples "
    "(np.nan_to_num / torch.nan_to_num). torch.autograd.set_detect_anomaly(True) finds NaN made in "
    "the backward pass.";

const char* kHalfAdvice =
    "fp16 holds at most 65504: the sums of products went beyond it and became Inf, which then "
    "spreads as NaN. Keep this layer in fp32 (wrap it in torch.autocast(device_type='cuda', "
    "enabled=False) and call .float() on its inputs), use bf16 instead of fp16 (the range of fp32), "
    "normalize or scale the inputs down, or clamp activations before it "
    "(x.clamp(-60000, 60000)). GradScaler scales only the loss for the backward pass, never the "
    "forward activations.";

const char* kOutputAdvice =
    "Finite inputs gave a non-finite result. Compare the magnitudes in the evidence with the "
    "output type's range (fp32: 3.4e38): products that large mean the inputs need scaling "
    "(normalization, smaller initialization, a lower learning rate). A non-finite alpha or beta "
    "does it too. If the magnitudes are modest, suspect the computation itself: rerun the call "
    "alone (`cublasspy replay TRACE --call N`), compare on another GPU, and check the GPU's "
    "health (`nvidia-smi -q -d TEMPERATURE`, `sudo dmesg | grep -i NVRM` for Xid errors).";

}  // namespace

void rule_scan(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    FirstAndCount input, half, output;
    for (const CallView& c : f.scanned_nonfinite) {
      if (c.function == nullptr) continue;
      const GemmCall g = c.gemm();
      if (inputs_nonfinite(c)) {
        input.note(c);
      } else if (nonfinite(c, kD) && summary(c, kD).overflow != 0 && is_16bit_float(output_type(g)) &&
                 inputs_finite(c)) {
        half.note(c);
      } else if (nonfinite(c, kD)) {
        output.note(c);
      }
    }

    if (const CallView* c = input.first) {
      Diagnosis d = finding(ids::kNonFiniteInput, Severity::kError, f);
      d.call = c->seq;
      d.summary = fmt::format("{} received NaN/Inf in its inputs", call_name(*c));
      std::string parts;
      for (int op : {kA, kB, kC}) {
        if (!nonfinite(*c, op)) continue;
        parts += (parts.empty() ? "" : "; ") + operand_text(*c, op);
        if (const CallView* p = producer_of(f, *c, op)) {
          parts += fmt::format(", written by the output of {}", call_name(*p));
        }
      }
      d.evidence = fmt::format("{}: {}.", call_with_shape(*f.trace, *c), parts);
      if (nonfinite(*c, kD)) d.evidence += " Its output is non-finite too (a consequence).";
      if (c->rec().status != 0) {
        d.evidence += fmt::format(" The call also returned {}: the two coincide, but cuBLAS does not inspect "
                                  "values, so the NaN/Inf is not why it failed (the failure has its own finding).",
                                  c->status_name());
      }
      d.evidence += more_calls(input, f);
      d.advice = kInputAdvice;
      ctx.add(std::move(d));
    }
    if (const CallView* c = half.first) {
      const GemmCall g = c->gemm();
      Diagnosis d = finding(ids::kHalfOverflow, Severity::kError, f);
      d.call = c->seq;
      const char* type = cuda_name(NameSet::kDataType, static_cast<int>(output_type(g)));
      d.summary = fmt::format("{} overflowed its {} output to Inf from finite inputs", call_name(*c),
                              type ? type : "16-bit");
      d.evidence = fmt::format("{}: {}; the inputs were finite ({}, {}, k={}).", call_with_shape(*f.trace, *c),
                               operand_text(*c, kD), magnitude_text(*c, kA), magnitude_text(*c, kB), g.k);
      d.evidence += more_calls(half, f);
      d.advice = kHalfAdvice;
      ctx.add(std::move(d));
    }
    if (const CallView* c = output.first) {
      const GemmCall g = c->gemm();
      const bool known_finite = inputs_finite(*c);
      Diagnosis d = finding(ids::kNonFiniteOutput, known_finite ? Severity::kError : Severity::kWarning, f);
      d.call = c->seq;
      d.summary = fmt::format("{} produced NaN/Inf{}", call_name(*c), known_finite ? " from finite inputs" : "");
      d.evidence = fmt::format("{}: {}", call_with_shape(*f.trace, *c), operand_text(*c, kD));
      if (known_finite) {
        d.evidence += fmt::format("; the inputs were finite ({}, {}, k={}", magnitude_text(*c, kA), magnitude_text(*c, kB), g.k);
        if (c->rec().flags & format::kFlagAlphaKnown) d.evidence += fmt::format(", alpha={:g}", c->rec().alpha[0]);
        d.evidence += ").";
      } else {
        d.evidence += "; the inputs were not scanned (CUBLASSPY_SCAN=outputs), so whether they "
                      "were finite is unknown: rerun with `--scan all`.";
      }
      d.evidence += more_calls(output, f);
      d.advice = kOutputAdvice;
      ctx.add(std::move(d));
    }
  }
}

}  // namespace cublasspy::diagnoses
