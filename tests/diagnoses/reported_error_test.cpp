// reported-error: a program reports a CUDA or cuBLAS error by asking for its text; the shim
// records that question, with where it was asked, so a failure at a call the shim does not hook
// still gets a finding (programs/diag_reported.cpp on the stand-in, which fails the calls
// STANDIN_FAIL names). A failure the shim recorded and another finding explains is not said
// twice; asking for the text of success records nothing.
#include <algorithm>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TracedRun run_reported(const std::string& mode, std::map<std::string, std::string> env = {}) {
  RunOptions o;
  o.env = std::move(env);
  o.args = {mode};
  return run_traced(program_path("diag_reported"), o);
}

std::vector<CallView> calls_named(const TracedRun& run, const std::string& function) {
  std::vector<CallView> out;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (function == c.function_name()) out.push_back(c);
    });
  }
  return out;
}

TEST(ReportedError, AFailureAtAnUnhookedCallIsFoundWhereTheProgramReportedIt) {
  TracedRun run = run_reported("event", {{"STANDIN_FAIL", "cudaEventRecord:1:801"}});
  ASSERT_EQ(run.exit_code, 1) << run.output;
  ASSERT_TRUE(contains(run.output, "cudaEventRecord failed: operation not supported")) << run.output;
  // Both questions are recorded with the code; one finding for it.
  const std::vector<CallView> texts = calls_named(run, "cudaGetErrorString");
  ASSERT_EQ(texts.size(), 1u) << run.output;
  EXPECT_EQ(texts[0].arg(format::ArgRole::kReportedStatus), 801u);
  const std::vector<CallView> names = calls_named(run, "cudaGetErrorName");
  ASSERT_EQ(names.size(), 1u);
  auto found = run.diagnose();
  ASSERT_EQ(with_id(found, "reported-error").size(), 1u) << explain(run, found);
  const Diagnosis& d = the_finding(found, "reported-error");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.summary, "the program reported cudaErrorNotSupported (801) at report_cuda_error") << explain(run, found);
  ASSERT_TRUE(d.call && d.pid);
  // The first of the two questions (the compiler picks which argument it evaluates first).
  EXPECT_EQ(*d.call, std::min(texts[0].seq, names[0].seq));
  EXPECT_TRUE(contains(d.evidence, "does not hook")) << d.evidence;
}

TEST(ReportedError, AnErrorTheProgramHandledBeforeExitingZeroIsAWarning) {
  TracedRun run = run_reported("handled", {{"STANDIN_FAIL", "cudaEventRecord:1:801"}});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "reported-error");
  EXPECT_EQ(d.severity, Severity::kWarning) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "exited with status 0: it handled the error")) << d.evidence;
}

TEST(ReportedError, AFailedCaptureIsTiedToItsLaunchEntry) {
  TracedRun run = run_reported("capture", {{"STANDIN_FAIL", "cudaStreamBeginCapture:1:801"}});
  ASSERT_EQ(run.exit_code, 1) << run.output;
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "reported-error");
  EXPECT_TRUE(contains(d.summary, "cudaErrorNotSupported (801) at report_cuda_error")) << explain(run, found);
  EXPECT_TRUE(d.launch.has_value()) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "The call that returned it: cudaStreamBeginCapture")) << d.evidence;
}

TEST(ReportedError, ARecordedFailureAnotherFindingNamesIsNotSaidTwice) {
  TracedRun run = run_reported("attribute", {{"STANDIN_FAIL", "cudaFuncSetAttribute:1:209"}});
  ASSERT_EQ(run.exit_code, 1) << run.output;
  // The kernel-attribute call is recorded now, with its failure.
  const std::vector<CallView> sets = calls_named(run, "cudaFuncSetAttribute");
  ASSERT_EQ(sets.size(), 1u) << run.output;
  EXPECT_TRUE(sets[0].failed());
  EXPECT_EQ(sets[0].rec().status, 209);
  auto found = run.diagnose();
  bool named = false;
  for (const Diagnosis& d : found) named = named || (d.call && *d.call == sets[0].seq);
  EXPECT_TRUE(named) << explain(run, found);
  EXPECT_FALSE(has_id(found, "reported-error")) << explain(run, found);
  EXPECT_EQ(calls_named(run, "cudaGetErrorString").size(), 1u) << "still recorded, tied to the failure";
}

TEST(ReportedError, ACublasStatusNoRecordedCallReturnedIsReported) {
  TracedRun run = run_reported("cublas");
  ASSERT_EQ(run.exit_code, 1) << run.output;
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "reported-error");
  EXPECT_EQ(d.summary, "the program reported CUBLAS_STATUS_EXECUTION_FAILED (13) at report_cublas_error")
      << explain(run, found);
}

TEST(ReportedError, AskingForTheTextOfSuccessRecordsNothing) {
  TracedRun run = run_reported("success");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ASSERT_TRUE(contains(run.output, "no error / cudaSuccess / ")) << run.output;
  EXPECT_TRUE(calls_named(run, "cudaGetErrorString").empty());
  EXPECT_TRUE(calls_named(run, "cudaGetErrorName").empty());
  EXPECT_TRUE(calls_named(run, "cublasGetStatusString").empty());
  EXPECT_FALSE(calls_named(run, "cudaMalloc").empty()) << "the run was traced";
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "reported-error")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
