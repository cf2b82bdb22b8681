// Correct programs shaped like NVIDIA's CUDALibrarySamples GEMMs (programs/diag_samples.cpp),
// run under CUBLASSPY_CHECK=1, CUBLASSPY_SCAN=all and CUBLASSPY_DUMP=all: no finding, scans
// that saw the matrices (not the pointer arrays that lead to them), dumps of the matrices.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <cublas_api.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TracedRun run_sample(const std::string& mode) {
  RunOptions o;
  o.env = {{"CUBLASSPY_CHECK", "1"}, {"CUBLASSPY_SCAN", "all"}, {"CUBLASSPY_DUMP", "all"}};
  o.args = {mode};
  return run_traced(program_path("diag_samples"), o);
}

// The one call of `function` in the run's traces.
CallView the_call(const TracedRun& run, const std::string& function) {
  std::vector<CallView> found;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (function == c.function_name()) found.push_back(c);
    });
  }
  EXPECT_EQ(found.size(), 1u) << "calls of " << function;
  return found.empty() ? CallView{} : found.front();
}

// The dump's JSON for one operand of call `seq` ("" when absent).
nlohmann::json dump_meta(const TracedRun& run, uint64_t seq, char operand) {
  for (const std::string& trace : run.traces) {
    std::ifstream in(trace + ".call" + std::to_string(seq) + "." + operand + ".json");
    if (in) return nlohmann::json::parse(in);
  }
  return {};
}

void expect_clean(const TracedRun& run, const std::string& function) {
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
  const CallView call = the_call(run, function);
  EXPECT_EQ(call.rec().check_bits, 0u) << call.text();
  ASSERT_TRUE(call.rec().flags & format::kFlagScanned) << "the call was not scanned: " << call.text();
  for (int op = 0; op < 4; ++op) {
    const format::ScanSummary& s = call.slot.scan[op];
    EXPECT_EQ(s.nan_count + s.pos_inf_count + s.neg_inf_count, 0u) << "operand " << op << ": " << call.text();
  }
}

TEST(Samples, GroupedFp32ScansTheMatricesNotThePointerArrays) {
  TracedRun run = run_sample("--grouped-fp32");
  expect_clean(run, "cublasSgemmGroupedBatched");
  const CallView call = the_call(run, "cublasSgemmGroupedBatched");
  // The first group (2 problems of 2x2): A's largest element there is 8. Read as a matrix, the
  // pointer array would give the bits of an address.
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 8.0) << call.text();
  const nlohmann::json a = dump_meta(run, call.seq, 'a');
  ASSERT_FALSE(a.is_null()) << "no dump of A";
  EXPECT_EQ(a["pointer_array"], true) << a.dump();
  EXPECT_EQ(a["batch"], 2) << a.dump();
  EXPECT_EQ(a["rows"], 2) << a.dump();
}

TEST(Samples, GroupedFp16AllOnesHasNoFinding) {
  TracedRun run = run_sample("--grouped-fp16");
  expect_clean(run, "cublasGemmGroupedBatchedEx");
  const CallView call = the_call(run, "cublasGemmGroupedBatchedEx");
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 1.0) << call.text();
  EXPECT_EQ(call.slot.scan[1].max_abs_finite, 1.0) << call.text();
}

TEST(Samples, LtPointerArrayBatchHasNoFinding) {
  TracedRun run = run_sample("--lt-pointer-array");
  expect_clean(run, "cublasLtMatmul");
  const CallView call = the_call(run, "cublasLtMatmul");
  EXPECT_EQ(call.arg(format::ArgRole::kBatchMode), std::optional<uint64_t>(1)) << call.text();
  EXPECT_TRUE(call.gemm().pointer_arrays) << call.text();
  // Member 1's A is all 2.0: the scan went through the array to both members.
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 2.0) << call.text();
  const nlohmann::json a = dump_meta(run, call.seq, 'a');
  ASSERT_FALSE(a.is_null()) << "no dump of A";
  EXPECT_EQ(a["pointer_array"], true) << a.dump();
  EXPECT_EQ(a["batch"], 2) << a.dump();
}

TEST(Samples, LtPlanarComplexIsNotOutOfBounds) {
  TracedRun run = run_sample("--lt-planar");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CallView call = the_call(run, "cublasLtMatmul");
  // The stand-in refuses planar complex; the check must not hide that behind a false finding.
  EXPECT_EQ(call.rec().status, CUBLAS_STATUS_NOT_SUPPORTED) << call.text();
  EXPECT_EQ(call.rec().check_bits, 0u) << call.text();
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "operand-out-of-bounds")) << explain(run, found);
  for (int op = 0; op < 4; ++op) EXPECT_EQ(call.slot.plane_offset[op], -32) << "operand " << op;
  EXPECT_EQ(call.gemm().op[0].plane_offset, -32);
  EXPECT_TRUE(contains(call.text(), "plane_offset_a=-32")) << call.text();
}

}  // namespace
}  // namespace cublasspy::test
