// CUDA graphs (programs/diag_graph.cpp on the stand-in, which captures and replays as CUDA
// does, with its capture rules enforced): the shim never breaks a capture, whatever it is asked
// to do around GEMMs; it records the capture, the graph and each replay; a fault in a replay
// names the graph and its captured GEMM; a replay on memory freed since the capture is flagged
// before it runs.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/diagnose_helpers.h"
#include "present/call_text.h"
#include "trace/graph_summary.h"

namespace cublasspy::test {
namespace {

TracedRun run_graph(std::map<std::string, std::string> env, std::vector<std::string> args = {},
                    bool preload_shim = true) {
  RunOptions o;
  env.emplace("CUBLASSPY_LOG", "off");  // the outputs are compared with the program's alone
  o.env = std::move(env);
  o.args = std::move(args);
  o.preload_shim = preload_shim;
  return run_traced(program_path("diag_graph"), o);
}

std::vector<Diagnosis> errors_of(const std::vector<Diagnosis>& found) {
  std::vector<Diagnosis> errors;
  for (const Diagnosis& d : found) {
    if (d.severity == Severity::kError) errors.push_back(d);
  }
  return errors;
}

// The one trace's calls of `function`.
std::vector<CallView> calls_named(const TracedRun& run, const std::string& function) {
  std::vector<CallView> out;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (function == c.function_name()) out.push_back(c);
    });
  }
  return out;
}

int launch_entries(const TracedRun& run, const std::string& function) {
  int n = 0;
  for (const TraceFile& t : run.opened) {
    t.for_each_launch([&](const LaunchView& l) { n += function == l.function_name(); });
  }
  return n;
}

TEST(Graphs, CaptureAndReplaysAreUnchangedUnderEveryMode) {
  const TracedRun bare = run_graph({}, {}, /*preload_shim=*/false);
  ASSERT_EQ(bare.exit_code, 0) << bare.output;
  // The capture works on the stand-in, and each launch computes with the A of its time.
  ASSERT_TRUE(contains(bare.output, "capture began 0 gemm 0 ended 0 instantiated 0")) << bare.output;
  ASSERT_TRUE(contains(bare.output, "launch 1 returned 0 synchronized 0 c[0] 4\n")) << bare.output;
  ASSERT_TRUE(contains(bare.output, "launch 3 returned 0 synchronized 0 c[0] 12\n")) << bare.output;

  const std::vector<std::map<std::string, std::string>> modes = {
      {}, {{"CUBLASSPY_SYNC", "1"}}, {{"CUBLASSPY_SYNC", "all"}}, {{"CUBLASSPY_SCAN", "all"}},
      {{"CUBLASSPY_CHECK", "1"}}, {{"CUBLASSPY_DUMP", "all"}}};
  for (const auto& env : modes) {
    const std::string mode = env.empty() ? "defaults" : env.begin()->first + "=" + env.begin()->second;
    SCOPED_TRACE(mode);
    const TracedRun run = run_graph(env);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, bare.output) << "the shim changed the program under " << mode;
    const auto found = run.diagnose();
    EXPECT_TRUE(errors_of(found).empty()) << explain(run, found);

    // The GEMM is marked with its capture, never synchronized (it ran at the launches).
    const std::vector<CallView> gemms = calls_named(run, "cublasSgemm_v2");
    ASSERT_EQ(gemms.size(), 1u);
    EXPECT_NE(gemms[0].slot.capture_id, 0u);
    EXPECT_NE(gemms[0].slot.capture_id, format::kCaptureIdUnknown);
    EXPECT_EQ(gemms[0].rec().flags & format::kFlagSynced, 0u);
    EXPECT_EQ(gemms[0].rec().flags & format::kFlagScanned, 0u);
    // The capture, the instantiation and every launch are in the launch ring.
    EXPECT_EQ(launch_entries(run, "cudaStreamBeginCapture"), 1);
    EXPECT_EQ(launch_entries(run, "cudaStreamEndCapture"), 1);
    EXPECT_EQ(launch_entries(run, "cudaGraphInstantiate"), 1);
    EXPECT_EQ(launch_entries(run, "cudaGraphLaunch"), 3);
    ASSERT_EQ(run.opened.size(), 1u);
    const std::vector<GraphSummary> graphs = graph_summaries(run.opened[0]);
    ASSERT_EQ(graphs.size(), 1u);
    EXPECT_EQ(graphs[0].capture_id, gemms[0].slot.capture_id);
    EXPECT_NE(graphs[0].graph, 0u);
    EXPECT_EQ(graphs[0].execs.size(), 1u);
    EXPECT_EQ(graphs[0].launches, 3u);
    EXPECT_EQ(graphs[0].captured_calls, std::vector<uint64_t>{gemms[0].seq});
    EXPECT_NE(call_line(gemms[0]).find(fmt::format(", captured into a CUDA graph (capture {}): it runs at the graph's launches",
                                               gemms[0].slot.capture_id)),
              std::string::npos)
        << call_line(gemms[0]);
  }
}

// Another thread's GEMM, on a stream of its own, while a global-mode capture is underway: the
// shim waits for that stream under --sync, which must not count as an unsafe call against the
// capture (CUDA would invalidate it).
TEST(Graphs, AnotherThreadsWaitsLeaveAGlobalCaptureAlone) {
  const TracedRun bare = run_graph({}, {"--worker"}, /*preload_shim=*/false);
  ASSERT_TRUE(contains(bare.output, "worker gemm 0\n")) << bare.output;
  ASSERT_TRUE(contains(bare.output, "ended 0 instantiated 0")) << bare.output;
  for (const char* sync : {"1", "all"}) {
    const TracedRun run = run_graph({{"CUBLASSPY_SYNC", sync}}, {"--worker"});
    EXPECT_EQ(run.output, bare.output) << "CUBLASSPY_SYNC=" << sync;
    const std::vector<CallView> gemms = calls_named(run, "cublasSgemm_v2");
    ASSERT_EQ(gemms.size(), 2u);
    // The worker's GEMM was not captured, and its stream was waited for.
    int synced = 0;
    for (const CallView& g : gemms) synced += (g.rec().flags & format::kFlagSynced) != 0;
    EXPECT_EQ(synced, 1) << "CUBLASSPY_SYNC=" << sync;
  }
}

TEST(Graphs, AFaultInAReplayNamesTheGraphAndItsCapturedGemm) {
  const TracedRun run = run_graph({{"STANDIN_ASYNC_ERROR", "cudaGraphLaunch:2:700"}, {"CUBLASSPY_SYNC", "all"}});
  const auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "CUDA graph 0x")) << d.summary;
  EXPECT_TRUE(contains(d.summary, "(its launch 2) failed with cudaErrorIllegalAddress (700)")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "captured into it: #")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "cublasSgemm_v2 (m=4 n=3 k=2")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "captured")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "lda/ldb")) << d.advice;
  ASSERT_TRUE(d.launch && d.pid);
}

TEST(Graphs, AReplayOnMemoryFreedSinceTheCaptureIsFlaggedBeforeItRuns) {
  const TracedRun run = run_graph({{"CUBLASSPY_CHECK", "1"}}, {"--free-b", "--launches", "2"});
  ASSERT_TRUE(contains(run.output, "freed b 0")) << run.output;
  const auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "graph-replay-freed-memory");
  const std::vector<CallView> gemms = calls_named(run, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), 1u);
  ASSERT_TRUE(d.call && d.launch);
  EXPECT_EQ(*d.call, gemms[0].seq);
  EXPECT_TRUE(contains(d.summary, "CUDA graph 0x")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, fmt::format("its B at {:#x}", *gemms[0].arg(format::ArgRole::kB)))) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "2 graph launches were found so")) << d.evidence;
  // Without --check nothing looks before the launch: no such finding (the fault comes later).
  const TracedRun unchecked = run_graph({}, {"--free-b", "--launches", "2"});
  EXPECT_FALSE(has_id(unchecked.diagnose(), "graph-replay-freed-memory"));
}

}  // namespace
}  // namespace cublasspy::test
