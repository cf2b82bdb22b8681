#include "live_scan.h"

#include "common/cuda_names.h"
#include "gemm_view.h"
#include "scan/gemm_scan.h"
#include "scan/host_scan.h"
#include "scan/scan_fatbin.h"
#include "driver_table.h"
#include "shim_log.h"

namespace cublasspy {
namespace {

// The kernels of every context, from the fatbin embedded at build time (none without nvcc).
constinit KernelCache g_kernels{scan::scan_fatbin()};

KernelCache* kernel_cache() {
  if constexpr (scan::kHaveScanKernel) return &g_kernels;
  return nullptr;
}

bool known_zero(const format::Record& rec, uint32_t known_flag, const double value[2]) {
  return (rec.flags & known_flag) != 0 && value[0] == 0.0 && value[1] == 0.0;
}

void report(const GemmScanResult& r) {
  if (r.skipped_capture) {
    log_warning_once("scan-capture",
                     "CUBLASSPY_SCAN: GEMMs made while their stream is captured into a CUDA graph "
                     "are not scanned (a scan would break the capture)");
  }
  if (r.host_operands > 0 && r.kernel_reason != nullptr && r.kernel_error != CUDA_ERROR_NOT_READY) {
    std::string why = r.kernel_reason;
    if (r.kernel_error != CUDA_SUCCESS) why += ": " + name_and_number(NameSet::kCuResult, r.kernel_error);
    log_warning_once("scan-host-path", "CUBLASSPY_SCAN: the GPU scan kernel cannot be used (" + why +
                                           "); operands are copied to the host and scanned there, "
                                           "which is slower");
  }
  if (r.failed_operands > 0) {
    std::string why = r.copy_error != CUDA_SUCCESS ? name_and_number(NameSet::kCuResult, r.copy_error)
                      : r.kernel_reason != nullptr   ? std::string(r.kernel_reason)
                                                     : std::string("invalid shape");
    log_warning_once("scan-unreadable", "CUBLASSPY_SCAN: an operand could not be read (" + why +
                                            "); it is reported as not scanned");
  }
}

// Adds the summary of one group's operand to the call's: counts add up, the maximum is the
// largest, the first non-finite element is the first group's that has one (its batch counted
// from the call's first problem). `fresh`: `into` holds nothing of this phase yet.
void merge_summary(format::ScanSummary& into, const format::ScanSummary& part, bool fresh, int64_t first_problem) {
  if (!was_scanned(part)) return;
  if (fresh || !was_scanned(into)) {
    into = part;
    if (nonfinite_count(part) != 0) into.first_batch += static_cast<uint32_t>(first_problem);
    return;
  }
  if (nonfinite_count(into) == 0 && nonfinite_count(part) != 0) {
    into.first_row = part.first_row;
    into.first_col = part.first_col;
    into.first_batch = part.first_batch + static_cast<uint32_t>(first_problem);
  }
  into.nan_count += part.nan_count;
  into.pos_inf_count += part.pos_inf_count;
  into.neg_inf_count += part.neg_inf_count;
  into.overflow = into.overflow || part.overflow;
  if (part.max_abs_finite > into.max_abs_finite) into.max_abs_finite = part.max_abs_finite;
}

bool known_zero(const format::GemmGroup& group, uint32_t known_flag, double value) {
  return (group.flags & known_flag) != 0 && value == 0.0;
}

// A grouped GEMM: each group is scanned as a call of its own (its shape, its members, its
// alpha and beta: a group whose beta is 0 does not read C), into summaries merged per operand.
GemmScanResult scan_groups(const DriverApi& api, const GemmCall& first, const GroupArgs& groups,
                           const GemmScanRequest& request, format::ScanSummary summaries[4]) {
  GemmScanResult total;
  bool kept[4];  // scanned by the earlier phase: kept as it is, never scanned twice
  for (int o = 0; o < 4; ++o) kept[o] = request.summaries_ready && was_scanned(summaries[o]);
  bool merged[4] = {false, false, false, false};
  int64_t first_problem = 0;
  for (uint32_t i = 0; i < groups.header.recorded; ++i) {
    const format::GemmGroup& group = groups.groups[i];
    const GemmCall call = group_call(first, group, first_problem);
    format::ScanSummary part[4];
    for (int o = 0; o < 4; ++o) part[o] = kept[o] ? summaries[o] : unscanned_summary();
    GemmScanRequest r = request;
    r.summaries_ready = true;
    r.alpha_zero = known_zero(group, format::kGroupAlphaKnown, group.alpha);
    r.beta_zero = known_zero(group, format::kGroupBetaKnown, group.beta);
    const GemmScanResult result = scan_gemm(api, kernel_cache(), call, r, part);
    report(result);
    if (result.skipped_capture) return result;
    first_problem += group.size;
    if (!result.scanned) continue;
    if (!total.scanned && !request.summaries_ready) {
      for (int o = 0; o < 4; ++o) summaries[o] = unscanned_summary();
    }
    total.scanned = true;
    for (int o = 0; o < 4; ++o) {
      if (kept[o] || !was_scanned(part[o])) continue;
      merge_summary(summaries[o], part[o], !merged[o], first_problem - group.size);
      merged[o] = true;
    }
    total.finding = total.finding || result.finding;
  }
  return total;
}

}  // namespace

const GemmCall* device_gemm(CallContext& ctx) {
  if ((ctx.rec.flags & format::kFlagNested) != 0) return nullptr;
  const GemmCall* g = gemm_view(ctx);
  // cublasXt GEMMs take host memory: nothing to scan on a device.
  return g != nullptr && !g->host_operands ? g : nullptr;
}

bool scan_found_nonfinite(const CallContext& ctx) {
  if ((ctx.rec.flags & format::kFlagScanned) == 0 || ctx.scan == nullptr) return false;
  for (int i = 0; i < 4; ++i) {
    if (was_scanned(ctx.scan[i]) && nonfinite_count(ctx.scan[i]) != 0) return true;
  }
  return false;
}

bool scan_operands(Runtime& rt, CallContext& ctx, bool before_call) {
  format::Record& rec = ctx.rec;
  if (rt.config.scan == ScanMode::kNone || ctx.scan == nullptr) return false;
  const GemmCall* g = device_gemm(ctx);
  if (g == nullptr) return false;

  GemmScanRequest request;
  request.before_call = before_call;
  request.mode = rt.config.scan;
  request.stream = rec.stream;
  request.alpha_zero = known_zero(rec, format::kFlagAlphaKnown, rec.alpha);
  request.beta_zero = known_zero(rec, format::kFlagBetaKnown, rec.beta);
  request.summaries_ready = (rec.flags & format::kFlagScanned) != 0;

  ThreadState& ts = thread_state();
  ts.internal++;  // the driver calls below are the shim's own: never recorded
  GemmScanResult result;
  DriverApi scratch;
  const DriverApi& api = driver_table(scratch);
  if (api.can_copy()) {
    if (ctx.groups != nullptr && ctx.groups->read) {
      result = scan_groups(api, *g, *ctx.groups, request, ctx.scan);
    } else {
      result = scan_gemm(api, kernel_cache(), *g, request, ctx.scan);
      report(result);
    }
  } else {
    log_warning_once("scan-no-driver",
                     "CUBLASSPY_SCAN: libcuda's copy functions were not found in the process; "
                     "operands are not scanned");
  }
  ts.internal--;
  if (result.scanned) rec.flags |= format::kFlagScanned;
  return result.finding;
}

}  // namespace cublasspy
