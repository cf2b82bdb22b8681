// async-error: the stand-in's GEMM "faults on the device" (a sticky 700) and returns success;
// without --sync the error surfaces at the next synchronization, with --sync the shim pins it
// to the GEMM.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "support/diagnose_helpers.h"
#include "support/process.h"
#include "trace/stack_codec.h"

namespace cublasspy::test {
namespace {

using test_support::ProcessResult;
using test_support::run_process;

TracedRun faulting_gemm(bool sync) {
  std::map<std::string, std::string> env{{"STANDIN_ASYNC_ERROR", "cublasSgemm_v2:1:700"}};
  if (sync) env["CUBLASSPY_SYNC"] = "1";
  return run_workload(env, {"--gemms", "2"});
}

TEST(AsyncError, NotPinnedAdvisesSync) {
  TracedRun run = faulting_gemm(false);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  ASSERT_TRUE(d.call && d.pid) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cudaStreamSynchronize");
  EXPECT_TRUE(contains(d.summary, "cudaErrorIllegalAddress (700)")) << d.summary;
  // The suspect: the GEMM launched since the last clean synchronization.
  EXPECT_TRUE(contains(d.evidence, "cublasSgemm_v2 (m=4 n=3 k=2")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "sticky")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "--sync")) << d.advice;
  // The second GEMM's EXECUTION_FAILED and the second sync's 700 are the sticky error.
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(AsyncError, PinnedToTheGemmWithSync) {
  TracedRun run = faulting_gemm(true);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  ASSERT_TRUE(d.call && d.pid) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  EXPECT_TRUE(contains(d.evidence, "CUBLASSPY_SYNC")) << d.evidence;
  EXPECT_FALSE(contains(d.advice, "rerun with `cublasspy run --sync")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "--check")) << d.advice;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

// The field's case on the stand-in: a cudaMemsetAsync "faults" (it stands for a kernel of the
// program's own), then a correct cublasSgemm reports the sticky error.
TracedRun faulting_memset_then_gemm(const char* sync) {
  std::map<std::string, std::string> env{{"STANDIN_ASYNC_ERROR", "cudaMemsetAsync:1:700"}};
  if (sync != nullptr) env["CUBLASSPY_SYNC"] = sync;
  return run_workload(env, {"--memset-first", "--gemms", "2"});
}

TEST(AsyncError, PendingBeforeTheGemmIsNotBlamedOnIt) {
  TracedRun run = faulting_memset_then_gemm("1");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  ASSERT_TRUE(d.call && d.pid) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  EXPECT_TRUE(contains(d.summary, "already pending before cublasSgemm_v2")) << d.summary;
  EXPECT_TRUE(contains(d.summary, "the GEMM did not cause it")) << d.summary;
  EXPECT_TRUE(contains(d.summary, "cudaErrorIllegalAddress (700)")) << d.summary;
  // The suspect, from the launch ring: the memset made since the last clean synchronization
  // (the cudaMemcpy that filled C), with its size. The only one: it is the culprit, with no
  // rerun to pin it down.
  EXPECT_TRUE(contains(d.evidence, "Only one launch was made since the last clean synchronization after call #"))
      << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "so it is the culprit: cudaMemsetAsync (48 bytes, stream 0x")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "That launch is the culprit")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "--sync")) << d.advice;
  // The GEMM's failure is the sticky error's consequence, not a finding of its own.
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
  for (const Diagnosis& other : found) EXPECT_FALSE(contains(other.advice, "run --sync --")) << other.advice;
}

TEST(AsyncError, SyncAllPinsTheFaultingLaunch) {
  TracedRun run = faulting_memset_then_gemm("all");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "the GPU work launched by cudaMemsetAsync failed with cudaErrorIllegalAddress (700)"))
      << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "CUBLASSPY_SYNC=all")) << d.evidence;
  EXPECT_FALSE(contains(d.advice, "rerun with `cublasspy run --sync")) << d.advice;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

// The memset is the only launch before the error surfaced, and the GEMM after it returned a
// failure (it launched nothing): the memset is the culprit, without a rerun under --sync.
TEST(AsyncError, FaultingMemsetWithoutSyncSurfacesAtTheGemm) {
  TracedRun run = faulting_memset_then_gemm(nullptr);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.evidence, "so it is the culprit: cudaMemsetAsync (48 bytes")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "cublasSgemm_v2 (m=4 n=3 k=2 lda=4 ldb=2 ldc=4) returned a failure")) << d.evidence;
  EXPECT_FALSE(contains(d.advice, "--sync")) << d.advice;
  EXPECT_FALSE(contains(d.summary, "did not cause it")) << d.summary;
}

TEST(AsyncError, SuspectFlaggedByTheChecksIsNamed) {
  // alpha/beta on the host with pointer mode DEVICE: the stand-in's kernel faults on them.
  RunOptions o;
  o.env["CUBLASSPY_CHECK"] = "1";
  o.args = {"--device-scalars"};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.evidence, "flagged by CUBLASSPY_CHECK: pointer-mode-mismatch")) << explain(run, found);
  EXPECT_TRUE(has_id(found, "pointer-mode-mismatch")) << explain(run, found);
}

TEST(AsyncError, HealthyRunInSyncModeIsFine) {
  RunOptions o;
  o.env["CUBLASSPY_SYNC"] = "1";
  o.args = {"--gemms", "2"};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "async-error")) << explain(run, found);
  EXPECT_TRUE(found.empty()) << explain(run, found);
}

// A scripted faulting kernel launch (diag_kernel_fault, built by nvcc): an indexing kernel of
// the program's own "faults" on the stand-in, then a correct cublasSgemm runs on its stream.
constexpr const char* kGatherRows = "gather_rows(float const*, int const*, float*, int)";
// The summary of the finding when --sync all pins the faulting gather_rows launch.
const std::string kGatherRowsPinned =
    std::string("the GPU work launched by ") + kGatherRows + " failed with cudaErrorIllegalAddress (700)";

TracedRun faulting_kernel(const std::string& fault, const char* sync, std::vector<std::string> args = {}) {
  RunOptions o;
  o.env["STANDIN_ASYNC_ERROR"] = fault;
  if (sync != nullptr) o.env["CUBLASSPY_SYNC"] = sync;
  o.args = std::move(args);
  const std::string program = program_path("diag_kernel_fault");
  EXPECT_TRUE(std::ifstream(program).good()) << program << " was not built: it needs nvcc (CUBLASSPY_NVCC)";
  return run_traced(program, o);
}

// The only launch since the last clean synchronization: the culprit, named as such.
TEST(AsyncError, FaultingKernelWithoutSyncIsNamedTheCulprit) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:700", nullptr);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "cudaErrorIllegalAddress (700)")) << explain(run, found);
  EXPECT_FALSE(contains(d.summary, "did not cause it")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "Only one launch was made before it since the last clean synchronization, so it "
                                   "is the culprit: " + std::string(kGatherRows) +
                                       " (cudaLaunchKernel, grid 1x1x1, block 32x1x1"))
      << explain(run, found);
  EXPECT_FALSE(contains(d.evidence, "one of the")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "That launch is the culprit")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "--sync")) << d.advice;
  // A kernel of the program's own: the advice of any launch, not a PyTorch kernel's cause.
  EXPECT_TRUE(contains(d.advice, "Check the indices and sizes that work is given")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "PyTorch's kernel")) << d.advice;
}

// Two launches before it (gather_rows, then scale_rows, which faults): either can have faulted,
// and the advice says how to pin it down.
TEST(AsyncError, TwoSuspectLaunchesStillAdviseSyncAll) {
  TracedRun run = faulting_kernel("cudaLaunchKernelExC_ptsz:1:700", nullptr, {"--per-thread-launch"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.evidence, "one of the 2 launches made before it")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, kGatherRows)) << d.evidence;
  EXPECT_FALSE(contains(d.evidence, "culprit")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "--sync all")) << explain(run, found);
  EXPECT_FALSE(contains(d.advice, "is the culprit")) << d.advice;
}

// The faulting kernel carries the name of PyTorch's embedding lookup: the advice names the
// operation and its usual cause (an index at or above num_embeddings), not a GEMM's operands.
TEST(AsyncError, AKnownPyTorchKernelIsNamedWithItsUsualCause) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:710", nullptr, {"--pytorch-kernel"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "cudaErrorAssert (710)")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "so it is the culprit: void at::native::indexSelectSmallIndex<float, int>"))
      << d.evidence;
  EXPECT_TRUE(contains(d.advice, "indexSelectSmallIndex is PyTorch's kernel for an embedding lookup or index_select"))
      << d.advice;
  EXPECT_TRUE(contains(d.advice, "num_embeddings") && contains(d.advice, "resize_token_embeddings")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "lda")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "--sync")) << d.advice;
}

TEST(AsyncError, SyncAllPinsAKnownPyTorchKernelWithItsUsualCause) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:710", "all", {"--pytorch-kernel"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "the GPU work launched by void at::native::indexSelectSmallIndex<float, int>"))
      << explain(run, found);
  EXPECT_TRUE(contains(d.advice, "indexSelectSmallIndex is PyTorch's kernel for an embedding lookup")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "num_embeddings")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "lda")) << d.advice;
}

TEST(AsyncError, FaultingKernelFoundPendingUnderSync) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:700", "1");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  ASSERT_TRUE(d.call && d.pid) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  EXPECT_TRUE(contains(d.summary, "already pending before cublasSgemm_v2")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "Only one launch was made since the last clean synchronization")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, kGatherRows)) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "That launch is the culprit")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "--sync")) << d.advice;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(AsyncError, SyncAllPinsTheFaultingKernel) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:700", "all");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, kGatherRowsPinned)) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "CUBLASSPY_SYNC=all")) << d.evidence;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
  // The pinned launch is a failing call: it carries its native location (format version 6), and
  // the diagnosis names the launch, so the report can say where it was made.
  ASSERT_TRUE(d.launch) << explain(run, found);
  ASSERT_EQ(run.opened.size(), 1u);
  const TraceFile& t = run.opened[0];
  ASSERT_EQ(t.first_failed_launch(), *d.launch - 1) << explain(run, found);
  std::optional<NativeStack> native;
  bool python = false;
  for (const SideEntryView& e : t.launch_side_entries(*d.launch - 1)) {
    if (e.kind == static_cast<uint32_t>(format::SideKind::kPythonStack)) python = true;
    if (e.kind == static_cast<uint32_t>(format::SideKind::kNativeStack)) native = decode_native_stack(e.bytes);
  }
  EXPECT_FALSE(python);  // no CPython in this process
  ASSERT_TRUE(native && !native->frames.empty()) << "no native location on the pinned launch";
  EXPECT_EQ(native->frames[0].symbol, "_Z16launch_on_streamPKvPPvP11CUstream_st") << native_stack_text(*native);
  EXPECT_TRUE(contains(native_stack_text(*native), "launch_on_stream <- main")) << native_stack_text(*native);
  // The report's text shows it under the diagnosis, with --all.
  const ProcessResult text = run_process({CBS_TEST_CLI, "report", "--all", run.traces.front()});
  EXPECT_TRUE(contains(text.out, fmt::format("launch #{}", *d.launch))) << text.out;
  EXPECT_TRUE(contains(text.out, "native: launch_on_stream <- main")) << text.out;
}

// Without sync the first failed launch is the wait where the error surfaced, with the line that
// waited; a launch that did not fail (the faulting kernel's own returned success) has none.
TEST(AsyncError, TheWaitWhereItSurfacedHasItsLocation) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:700", nullptr, {"--no-gemm"});
  ASSERT_EQ(run.opened.size(), 1u) << run.output;
  const TraceFile& t = run.opened[0];
  const std::optional<uint64_t> first = t.first_failed_launch();
  ASSERT_TRUE(first) << run.output;
  const std::optional<LaunchView> l = t.launch_at(*first);
  ASSERT_TRUE(l) << run.output;
  EXPECT_STREQ(l->function_name(), "cudaDeviceSynchronize");
  bool native = false;
  for (const SideEntryView& e : t.launch_side_entries(*first)) {
    native = native || e.kind == static_cast<uint32_t>(format::SideKind::kNativeStack);
  }
  EXPECT_TRUE(native);
  EXPECT_TRUE(t.launch_side_entries(*first - 1).empty());
}

// <<<...>>> as nvcc 13 compiles it: the host stub launches through the runtime's
// __cudaLaunchKernel with the kernel's handle, which the launch recorder names and pins the same.
TEST(AsyncError, SyncAllPinsAKernelLaunchedByChevrons) {
  TracedRun run = faulting_kernel("__cudaLaunchKernel:1:700", "all", {"--chevrons"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, kGatherRowsPinned)) << explain(run, found);
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

// A kernel on another stream, never waited for, is no suspect of an error found pending on the
// GEMMs' stream: the launches named are those of that stream.
TEST(AsyncError, SuspectsAreTheLaunchesOfTheGemmsStream) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:2:700", "1", {"--other-stream"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.evidence, "Only one launch was made since") && contains(d.evidence, kGatherRows))
      << explain(run, found);
  EXPECT_FALSE(contains(d.evidence, "scale_rows")) << d.evidence;
}

// No GEMM: the error surfaces at cudaDeviceSynchronize (then cudaGetLastError), where NVIDIA's
// samples check it. It is recorded there, in the launch ring, and diagnosed.
TEST(AsyncError, SurfacingAtDeviceSynchronizeIsRecordedThere) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:700", nullptr, {"--no-gemm"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "(cudaErrorIllegalAddress (700)) surfaced at cudaDeviceSynchronize"))
      << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "cudaDeviceSynchronize (launch #2) returned cudaErrorIllegalAddress (700)"))
      << d.evidence;
  EXPECT_TRUE(contains(d.evidence, kGatherRows)) << d.evidence;
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  std::vector<std::string> surfaced;
  run.opened[0].for_each_launch([&](const LaunchView& l) {
    if (l.entry.status != 0) surfaced.push_back(std::string(l.function_name()) + " " + std::to_string(l.entry.status));
  });
  EXPECT_EQ(surfaced, (std::vector<std::string>{"cudaDeviceSynchronize 700", "cudaGetLastError 700"}))
      << explain(run, found);
}

// The driver's waits reached through cuGetProcAddress are recorded like the PLT's; the one
// whose answer depends on the version asked (cuCtxSynchronize_v2(CUcontext) for 13.0) is left
// to the driver, so the program's call with its context argument still works.
TEST(AsyncError, DriverWaitsThroughTheProcAddressResolver) {
  TracedRun run = faulting_kernel("", nullptr, {"--driver-waits", "--no-gemm"});
  auto found = run.diagnose();
  EXPECT_TRUE(contains(run.output, "cuStreamSynchronize 0\n")) << explain(run, found);
  EXPECT_TRUE(contains(run.output, "cuCtxSynchronize_v2 0\n")) << explain(run, found);
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  std::vector<std::string> waits;
  run.opened[0].for_each_launch([&](const LaunchView& l) {
    if (l.function != nullptr && static_cast<format::Family>(l.function->family) == format::Family::kSync) {
      waits.push_back(std::string(l.function_name()) + " " + std::to_string(l.entry.status));
    }
  });
  EXPECT_EQ(waits, (std::vector<std::string>{"cuStreamSynchronize 0", "cudaDeviceSynchronize 0", "cudaGetLastError 209"}))
      << explain(run, found);
}

// A program built with --default-stream per-thread waits through the _ptsz forms: the
// runtime's stream query and synchronization, and the driver's synchronization handed out by
// cuGetProcAddress for the per-thread flag. Each is recorded, and the error is diagnosed where
// it surfaced first.
TEST(AsyncError, PerThreadDefaultStreamWaitsAreRecorded) {
  TracedRun run = faulting_kernel("cudaLaunchKernel:1:700", nullptr, {"--per-thread-waits"});
  auto found = run.diagnose();
  EXPECT_TRUE(contains(run.output, "cuStreamSynchronize_ptsz 700\n")) << explain(run, found);
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "(cudaErrorIllegalAddress (700)) surfaced at cudaStreamQuery_ptsz"))
      << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, kGatherRows)) << d.evidence;
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  std::vector<std::string> surfaced;
  run.opened[0].for_each_launch([&](const LaunchView& l) {
    if (l.entry.status != 0) surfaced.push_back(std::string(l.function_name()) + " " + std::to_string(l.entry.status));
  });
  EXPECT_EQ(surfaced, (std::vector<std::string>{"cudaStreamQuery_ptsz 700", "cuStreamSynchronize_ptsz 700"}))
      << explain(run, found);
  std::vector<std::string> waits;
  run.opened[0].for_each_call([&](const CallView& c) {
    if (std::string(c.function_name()) == "cudaStreamSynchronize_ptsz") waits.push_back(std::to_string(c.rec().status));
  });
  EXPECT_EQ(waits, (std::vector<std::string>{"700"})) << explain(run, found);
}

// The kernel launches of a program built with --default-stream per-thread: recorded by name with
// their geometry, and the faulting one pinned under --sync all.
TEST(AsyncError, SyncAllPinsAPerThreadLaunch) {
  TracedRun run = faulting_kernel("cudaLaunchKernel_ptsz:1:700", "all", {"--per-thread-launch"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, kGatherRowsPinned)) << explain(run, found);
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  std::vector<std::string> kernels;
  run.opened[0].for_each_launch([&](const LaunchView& l) {
    if (l.entry.grid[0] != 0) {
      kernels.push_back(fmt::format("{} {}x{} {}", l.function_name(), l.entry.grid[0], l.entry.block[0],
                                    l.entry.status));
    }
  });
  EXPECT_EQ(kernels, (std::vector<std::string>{"cudaLaunchKernel_ptsz 1x32 0", "cudaLaunchKernelExC_ptsz 2x16 700"}))
      << explain(run, found);
}

// diag_per_thread, built as with --default-stream per-thread: every copy, memset and query it
// makes is a _ptds/_ptsz form, runtime and driver, at the PLT and through cuGetProcAddress.
TracedRun per_thread_program(const char* fault, std::vector<std::string> args = {}) {
  RunOptions o;
  if (fault != nullptr) o.env["STANDIN_ASYNC_ERROR"] = fault;
  o.args = std::move(args);
  return run_traced(program_path("diag_per_thread"), o);
}

// "function bytes status" of each launch-ring entry, in launch order.
std::vector<std::string> launch_list(const TraceFile& t) {
  std::vector<std::string> out;
  t.for_each_launch([&](const LaunchView& l) {
    out.push_back(fmt::format("{} {} {}", l.function_name(), l.entry.bytes, l.entry.status));
  });
  return out;
}

std::vector<std::string> per_thread_launches(int status, const char* resolved_htod = "cuMemcpyHtoDAsync_v2_ptsz",
                                             const char* resolved_memset = "cuMemsetD32Async_ptsz",
                                             const char* resolved_query = "cuStreamQuery_ptsz") {
  const std::string s = std::to_string(status);
  return {"cudaMemsetAsync_ptsz 48 0",  // the faulting one returns success; its error is sticky
          "cudaMemcpyAsync_ptsz 40 " + s,
          "cudaStreamQuery_ptsz 0 " + s,
          "cuMemsetD8Async_ptsz 8 " + s,
          "cuMemsetD16Async_ptsz 16 " + s,
          "cuMemsetD32Async_ptsz 32 " + s,
          "cuMemcpyAsync_ptsz 24 " + s,
          "cuMemcpyHtoDAsync_v2_ptsz 20 " + s,
          "cuMemcpyDtoHAsync_v2_ptsz 12 " + s,
          "cuMemcpyDtoDAsync_v2_ptsz 4 " + s,
          "cuStreamQuery_ptsz 0 " + s,
          std::string(resolved_htod) + " 36 " + s,
          std::string(resolved_memset) + " 8 " + s,
          std::string(resolved_query) + " 0 " + s};
}

std::vector<std::string> call_statuses(const TraceFile& t, const char* name) {
  std::vector<std::string> out;
  t.for_each_call([&](const CallView& c) {
    if (std::string(c.function_name()) == name) out.push_back(std::to_string(c.rec().status));
  });
  return out;
}

TEST(PerThreadDefaultStream, EveryCopyMemsetAndQueryIsRecorded) {
  TracedRun run = per_thread_program(nullptr);
  ASSERT_EQ(run.opened.size(), 1u) << run.output;
  EXPECT_EQ(launch_list(run.opened[0]), per_thread_launches(0)) << run.output;
  EXPECT_EQ(call_statuses(run.opened[0], "cudaMemcpy_ptds"), (std::vector<std::string>{"0", "0"})) << run.output;
  EXPECT_FALSE(contains(run.output, "cuGetProcAddress")) << run.output;  // every look-up found its function
  EXPECT_TRUE(run.diagnose().empty()) << explain(run, run.diagnose());
}

// Asked for with the legacy-stream flag, the resolver answers the plain forms: the versioned
// cuMemcpyHtoDAsync_v2 for "cuMemcpyHtoDAsync" is wrapped as the PLT's is.
TEST(PerThreadDefaultStream, LegacyLookupsGetThePlainForms) {
  TracedRun run = per_thread_program(nullptr, {"--legacy-lookups"});
  ASSERT_EQ(run.opened.size(), 1u) << run.output;
  EXPECT_EQ(launch_list(run.opened[0]),
            per_thread_launches(0, "cuMemcpyHtoDAsync_v2", "cuMemsetD32Async", "cuStreamQuery"))
      << run.output;
}

// The memset "faults": the error surfaces at the next copy and is recorded there, and at every
// call after it (the sticky error), each where it surfaced.
TEST(PerThreadDefaultStream, AnAsynchronousErrorIsRecordedWhereItSurfaced) {
  TracedRun run = per_thread_program("cudaMemsetAsync_ptsz:1:700");
  ASSERT_EQ(run.opened.size(), 1u) << run.output;
  const TraceFile& t = run.opened[0];
  EXPECT_EQ(launch_list(t), per_thread_launches(700)) << run.output;
  EXPECT_EQ(call_statuses(t, "cudaMemcpy_ptds"), (std::vector<std::string>{"0", "700"})) << run.output;
  const std::optional<LaunchView> first = t.first_launch_error();
  ASSERT_TRUE(first) << run.output;
  EXPECT_STREQ(first->function_name(), "cudaMemcpyAsync_ptsz");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "async-error");
  EXPECT_TRUE(contains(d.summary, "(cudaErrorIllegalAddress (700)) surfaced at cudaMemcpyAsync_ptsz"))
      << explain(run, found);
  // The suspect: the memset made since the clean cudaMemcpy_ptds of the same default stream.
  EXPECT_TRUE(contains(d.evidence, "cudaMemsetAsync_ptsz (48 bytes")) << d.evidence;
}

}  // namespace
}  // namespace cublasspy::test
