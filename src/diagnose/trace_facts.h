// What the diagnosis rules read from one trace, gathered in a single pass over its records. A
// ring can hold millions of records; the rules need a few dozen of them (device enumeration,
// library loads, handle creation, failures, findings, the calls in flight), so those are copied
// out once and each rule reasons over them instead of walking the ring again.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_names.h"  // the rules name statuses and types through it
#include "common/diagnosis.h"
#include "trace/trace_reader.h"

namespace cublasspy::diagnoses {

// One dlopen the shim recorded: what was asked for and what came of it.
struct LibraryLoad {
  uint64_t seq = 0;
  std::string requested;  // the filename argument ("libcuda.so.1", "/opt/x/libcublas.so.13")
  int flags = 0;
  bool ok = false;
  std::string result;     // the path loaded, or dlerror()'s text
  bool probe() const;     // RTLD_NOLOAD: a question "is it loaded?", not an attempt to load
};

// Failing calls that share a function and a status: one finding, not one per call.
struct FailureGroup {
  CallView first;
  uint64_t count = 0;
};

// A failing cuBLASLt call: its function, and which of that function's failures it was (0: the
// first), which is the line of cuBLASLt's log that explains it (cublaslt_log.h).
struct LtFailure {
  std::string function;
  uint32_t ordinal = 0;
};

// The work launched before a call since the last clean wait, on every stream (a kernel's fault
// is the context's, and poisons the work of every stream after it).
struct LaunchesBefore {
  uint64_t seq = 0;                // the call; 0: none
  std::vector<LaunchView> recent;  // the last few
  uint64_t total = 0;
  // Whether a kernel is among the last few (not copies and memsets alone): what faults with a
  // device-side assert.
  bool any_kernel() const;
};

struct TraceFacts {
  const TraceFile* trace = nullptr;
  std::optional<int64_t> pid;
  std::string exe;
  std::map<std::string, std::string> env;  // the recorded environment (first value of a name)
  std::vector<std::string> libraries;      // CUDA libraries the process had loaded, unique

  std::vector<LibraryLoad> loads;          // every dlopen record, in order
  std::vector<CallView> device_calls;      // cudaGetDeviceCount, cuInit, cuDeviceGetCount, cudaSetDevice
  std::vector<CallView> handle_creates;    // cublasCreate_v2, cublasLtCreate (all outcomes)
  std::vector<CallView> in_flight;
  std::vector<CallView> failed_memory;     // cudaMalloc failures (memory trouble evidence)
  std::vector<CallView> async_pinned;      // synchronized after the call and found an error
  std::vector<CallView> checked;           // calls with check findings (first 64)
  std::vector<CallView> scanned_nonfinite; // scanned calls with NaN/Inf somewhere (first 64)
  std::vector<CallView> reported_errors;   // the failure codes the program asked the text of (first 64)
  uint64_t checked_total = 0;
  uint64_t scanned_nonfinite_total = 0;
  uint64_t scanned_total = 0;

  // Failing calls (not dlopen) by (function, status); `failure_order` keeps first-seen order.
  std::map<std::pair<std::string, int>, FailureGroup> failures;
  std::vector<std::pair<std::string, int>> failure_order;
  uint64_t failed_total = 0;
  std::map<uint64_t, LtFailure> lt_failures;          // by seq, the first kKeepLtFailures
  std::map<std::string, uint32_t> lt_failure_counts;  // failing cuBLASLt calls by function
  uint64_t successful_work = 0;            // GEMMs that returned success
  bool any_cuda_call = false;              // anything but dlopen
  uint64_t last_activity_ns = 0;           // the latest start (or end) of any record

  // The asynchronous error the trace recorded first (header), the call it surfaced at, and
  // the device work launched since the last clean synchronization before it (the suspects).
  std::optional<CallView> async_surfaced_at;
  std::vector<CallView> async_suspects;
  uint64_t async_suspects_total = 0;

  // CUBLASSPY_SYNC: the first GEMM whose stream reported an error before the call ran
  // (RecordSlot::pending_error), and the device work launched since the last clean
  // synchronization before it: the GEMM did not cause the error, one of these did.
  std::optional<CallView> pending_at;
  std::vector<CallView> pending_suspects;
  uint64_t pending_suspects_total = 0;
  std::optional<CallView> pending_clean_sync;  // that synchronization, when recorded
  // The launch ring's part (format version 4): the launches made between that synchronization
  // and the GEMM (the last few, and how many), and the first launch found with an asynchronous
  // error (pinned by CUBLASSPY_SYNC=all, or surfacing in a copy).
  std::vector<LaunchView> pending_launches;
  uint64_t pending_launches_total = 0;
  // No launch since the last clean wait was on the GEMM's stream (or the legacy default
  // stream): pending_launches are those of the other streams (a sticky error is the context's).
  bool pending_launches_other_streams = false;
  // A clean wait or query in the launch ring that bounds pending_launches, later than
  // pending_clean_sync.
  std::optional<LaunchView> pending_clean_wait;
  std::optional<LaunchView> launch_error;
  // Where the error surfaced first (in the launch ring, launch_error's own status: a copy, a
  // wait, a query; or at async_surfaced_at): the launches before it since the last clean wait,
  // chosen as for pending_launches.
  std::vector<LaunchView> surfaced_launches;
  uint64_t surfaced_launches_total = 0;
  bool surfaced_launches_other_streams = false;
  // Where it surfaced first in the launch ring: the GEMMs made since the last clean
  // synchronization before it, suspects beside surfaced_launches (chosen as async_suspects are).
  std::vector<CallView> surfaced_calls;
  uint64_t surfaced_calls_total = 0;

  // The launches made before the first handle create that failed, and before the first GEMM
  // that returned EXECUTION_FAILED, since the last clean wait: a kernel that faulted among them
  // explains the failure (cublasCreate cannot allocate on the poisoned context; the next GEMM's
  // kernel cannot run).
  LaunchesBefore before_failed_create;
  LaunchesBefore before_failed_gemm;

  const format::FileHeader& header() const { return trace->header(); }
  // The earliest failing call (not a library load), nullptr when none failed.
  const CallView* first_failed_call() const;
  std::optional<std::string> env_value(const std::string& name) const;
  // The value a recorded variable had, or "unset".
  std::string env_text(const std::string& name) const;
  bool sync_mode() const;  // CUBLASSPY_SYNC was on
  bool sync_all() const;   // CUBLASSPY_SYNC=all: also synchronized after each recorded launch
};

// A wait that returned success: every launch made before it on the streams it covers finished
// cleanly. `stream` is the stream waited for; `all` a wait for the whole device (or the legacy
// default stream, whose work waits for every blocking stream's: docs/DIAGNOSES.md).
struct CleanWait {
  uint64_t start_ns = 0;
  uint64_t stream = 0;
  bool all = false;
};

// Gathers a trace's facts one record at a time, in the order for_each_call visits them, so a
// reader that walks the ring for its own ends (the report) feeds the rules from the same walk.
class FactsGatherer {
 public:
  explicit FactsGatherer(const TraceFile& trace);
  void add(const CallView& call);
  TraceFacts finish();

 private:
  TraceFacts f_;
  std::deque<CallView> since_sync_;  // device work launched since the last clean sync point
  uint64_t since_sync_total_ = 0;
  std::optional<CallView> last_clean_sync_;
  std::vector<CleanWait> clean_waits_;  // every clean wait of the call records, in visit order
  // The start of the launch-ring entry the error surfaced at first (FileHeader::first_launch_error
  // with a status of its own), until the suspects at that point are taken into surfaced_calls.
  std::optional<uint64_t> ring_surfaced_ns_;
  void take_surfaced_calls();
};

// A walk of its own.
TraceFacts gather_facts(const TraceFile& trace);

// The findings over facts already gathered, one per trace (diagnose() gathers them itself).
std::vector<Diagnosis> diagnose_facts(const std::vector<TraceFacts>& facts);

// ---- wording shared by the rules ----

// "cudaGetDeviceCount (call #1)".
std::string call_name(const CallView& call);
// "cudaErrorInsufficientDriver (35)", "CUBLAS_STATUS_NOT_INITIALIZED (1)", "CUDA_ERROR_NO_DEVICE
// (100)": the status in the enum of the call's API (common/cuda_names.h).
std::string status_text(const CallView& call, int status);
std::string status_text(const CallView& call);
// A GEMM's shape for a human: "m=4 n=3 k=2 lda=4 ldb=2 ldc=4"; "" when the call is no GEMM.
std::string gemm_shape_text(const TraceFile& trace, const CallView& call);
// "#12 cublasSgemm_v2 (m=4 n=3 k=2, ...)" for evidence lines that name a call of device work.
std::string call_with_shape(const TraceFile& trace, const CallView& call);
// A launch-ring entry for a human: "at::native::fill_kernel<float> (cudaLaunchKernel, grid
// 4x1x1, block 256x1x1, stream 0x0, launch #12)", "cudaMemsetAsync (48 bytes, stream 0x5581...,
// launch #3)", a graph's launch or a wait.
std::string launch_text(const LaunchView& l);
// The kernel a launch ran ("at::native::indexSelectSmallIndex<...>"), else its function.
std::string launch_name(const LaunchView& l);
// " Since the last clean synchronization, 1 launch put work on the device before it: a (...)."
// ("" when none).
std::string launches_before_text(const LaunchesBefore& before);
// The file name of a path ("/usr/lib/libcuda.so.1" -> "libcuda.so.1").
std::string base_name(const std::string& path);
// "" for 1, "s" otherwise.
inline const char* plural(uint64_t n) { return n == 1 ? "" : "s"; }

// The call's family (format::Family, from the trace's function table).
format::Family family_of(const CallView& call);
bool launches_device_work(const CallView& call);  // a GEMM of some form
// Drops from suspects (and from their total) the calls that began at or before `cleared_ns`,
// the start of a clean wait that came after them.
void drop_cleared(std::vector<CallView>& suspects, uint64_t& total, uint64_t cleared_ns);
bool is_cublas_call(const CallView& call);        // of cuBLAS or cuBLASLt (the table's library)

}  // namespace cublasspy::diagnoses
