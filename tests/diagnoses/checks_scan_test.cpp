// The findings of CUBLASSPY_CHECK=1 and CUBLASSPY_SCAN, from runs that pass a bad lda, alias
// the output, hand in NaN, overflow fp32 and fp16. A run where the shim recorded no check bits
// (or no scan) at all although the mode was on fails first, with its own message: the checks
// or the scans stopped running, which is a different failure from a wrong diagnosis.
#include <cstring>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

bool any_call(const TracedRun& run, const std::function<bool(const format::Record&)>& predicate) {
  bool found = false;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) { found = found || predicate(c.rec()); });
  }
  return found;
}

bool shim_checks(const TracedRun& run) {
  return any_call(run, [](const format::Record& r) { return r.check_bits != 0; });
}
bool shim_scans(const TracedRun& run) {
  return any_call(run, [](const format::Record& r) { return (r.flags & format::kFlagScanned) != 0; });
}

TracedRun checked(std::vector<std::string> args) { return run_workload({{"CUBLASSPY_CHECK", "1"}}, std::move(args)); }

TracedRun scanned(std::vector<std::string> args, const char* mode = "all") {
  return run_workload({{"CUBLASSPY_SCAN", mode}}, std::move(args));
}

#define ASSERT_RECORDED(cond, what) \
  ASSERT_TRUE(cond) << "the shim recorded no " what " in this run although the mode was on"

TEST(Checks, InvalidLeadingDimension) {
  TracedRun run = checked({"--bad-lda"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-leading-dimension");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "lda=3")) << explain(run, found);
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  // The call's INVALID_VALUE is explained by the check, not a finding of its own.
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(Checks, SizeOverflowThroughA32BitEntryPointNamesThe64BitForm) {
  // Real cuBLAS refuses (INVALID_VALUE) or faults on such a call; the stand-in is told to refuse.
  TracedRun run = run_workload({{"CUBLASSPY_CHECK", "1"}, {"STANDIN_FAIL", "cublasSgemm_v2:1:7"}}, {"--huge-lda"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "size-overflow");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "A spans 2147483651 elements")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "cublasSgemm_v2_64")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "_64")) << d.advice;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
}

TEST(Checks, OutputAliasesInput) {
  TracedRun run = checked({"--alias"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  EXPECT_TRUE(has_id(found, "output-aliases-input")) << explain(run, found);
}

TEST(Checks, MisalignedOperandIsAWarning) {
  TracedRun run = checked({"--misaligned-a"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "misaligned-operand");
  EXPECT_EQ(d.severity, Severity::kWarning) << explain(run, found);
}

TEST(Checks, HostPointerOperand) {
  TracedRun run = checked({"--host-a"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "host-pointer-operand");
  EXPECT_TRUE(contains(d.advice, "cudaMemcpy")) << explain(run, found);
}

TEST(Checks, OperandOutOfBounds) {
  TracedRun run = checked({"--small-a"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "operand-out-of-bounds");
  EXPECT_EQ(d.severity, Severity::kError) << explain(run, found);
  // The evidence names the operand whose sizes it gives.
  EXPECT_TRUE(contains(d.evidence, "A (0x")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "while the allocation at")) << explain(run, found);
}

TEST(Checks, DeviceMismatch) {
  RunOptions o;
  o.env["CUBLASSPY_CHECK"] = "1";
  o.env["STANDIN_DEVICE_COUNT"] = "2";
  o.args = {"--a-on-device-1"};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  EXPECT_TRUE(has_id(found, "device-mismatch")) << explain(run, found);
}

TEST(Checks, PointerModeMismatch) {
  TracedRun run = checked({"--device-scalars"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "pointer-mode-mismatch");
  EXPECT_TRUE(contains(d.advice, "cublasSetPointerMode")) << explain(run, found);
}

TEST(Checks, InvalidStride) {
  TracedRun run = checked({"--gemms", "0", "--bad-stride"});
  ASSERT_RECORDED(shim_checks(run), "CUBLASSPY_CHECK findings");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-stride");
  ASSERT_TRUE(d.call && d.pid) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemmStridedBatched");
}

TEST(Checks, CleanCallHasNoCheckFinding) {
  TracedRun run = checked({});
  auto found = run.diagnose();
  EXPECT_FALSE(shim_checks(run)) << "a clean call must not be flagged";
  EXPECT_TRUE(found.empty()) << explain(run, found);
}

TEST(Scan, NaNInput) {
  TracedRun run = scanned({"--nan-a"});
  ASSERT_RECORDED(shim_scans(run), "scan summaries");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "non-finite-input");
  EXPECT_TRUE(contains(d.evidence, "A holds 1 NaN (first at row 1, column 0)")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "non-finite-output")) << "the output is a consequence";
  EXPECT_TRUE(contains(d.advice, "Dataset")) << d.advice;
}

// cuBLAS does not inspect values: a GEMM that fails on NaN inputs keeps its own finding and
// checklist beside non-finite-input, and each says that the two coincide.
TEST(Scan, NaNBesideAFailureReportsBoth) {
  TracedRun run = run_workload({{"CUBLASSPY_SCAN", "inputs"}, {"STANDIN_FAIL", "cublasSgemm_v2:1:13"}}, {"--nan-a"});
  ASSERT_RECORDED(shim_scans(run), "scan summaries");
  auto found = run.diagnose();
  const Diagnosis& nan = the_finding(found, "non-finite-input");
  EXPECT_TRUE(contains(nan.evidence, "A holds 1 NaN")) << explain(run, found);
  EXPECT_TRUE(contains(nan.evidence, "also returned CUBLAS_STATUS_EXECUTION_FAILED")) << nan.evidence;
  const Diagnosis& failed = the_finding(found, "execution-failed");
  ASSERT_TRUE(failed.call && nan.call);
  EXPECT_EQ(*failed.call, *nan.call) << explain(run, found);
  EXPECT_TRUE(contains(failed.evidence, "held NaN/Inf")) << failed.evidence;
  EXPECT_TRUE(contains(failed.evidence, "does not inspect")) << failed.evidence;
  EXPECT_TRUE(contains(failed.advice, "Xid")) << "the failure's own checklist: " << failed.advice;
  EXPECT_FALSE(has_id(found, "reported-error")) << explain(run, found);
}

TEST(Scan, Fp32OverflowFromFiniteInputs) {
  TracedRun run = scanned({"--fp32-overflow"});
  ASSERT_RECORDED(shim_scans(run), "scan summaries");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "non-finite-output");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "inputs were finite")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "non-finite-input")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "half-overflow")) << "fp32 is not a 16-bit type";
}

TEST(Scan, HalfOverflow) {
  TracedRun run = scanned({"--gemms", "0", "--half-overflow"});
  ASSERT_RECORDED(shim_scans(run), "scan summaries");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "half-overflow");
  EXPECT_TRUE(contains(d.summary, "CUDA_R_16F")) << explain(run, found);
  EXPECT_TRUE(contains(d.advice, "65504")) << d.advice;
  EXPECT_FALSE(has_id(found, "non-finite-output")) << explain(run, found);
}

TEST(Scan, FiniteRunHasNoScanFinding) {
  TracedRun run = scanned({});
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
