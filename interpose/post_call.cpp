#include "post_call.h"

#include <atomic>

#include "checks/check_ids.h"
#include "common/cuda_errors.h"
#include "live_checks.h"
#include "spec/hook_list.h"
#include "live_dump.h"
#include "live_scan.h"
#include "hook_table.h"
#include "load_failure_record.h"
#include "kernel_image_record.h"
#include "machine_record.h"
#include "memory_record.h"
#include "driver_table.h"
#include "gpu_health.h"
#include "machine/process_info.h"

namespace cublasspy {
namespace {

// Driver and runtime versions, read once they can be read without side effects: from
// libraries the program itself has loaded, by functions that initialize nothing.
void read_versions(Runtime& rt) {
  format::FileHeader* h = rt.writer.header();
  int v = 0;
  if (h->driver_version < 0) {
    DriverApi scratch;
    const auto get_version = driver_table(scratch).driver_get_version;
    if (get_version != nullptr && get_version(&v) == CUDA_SUCCESS) h->driver_version = v;
  }
  if (h->runtime_version < 0) {
    RuntimeApi scratch;
    const auto get_version = shim_runtime(scratch).runtime_get_version;
    if (get_version != nullptr && get_version(&v) == cudaSuccess) h->runtime_version = v;
  }
}

// process_section_busy() (post_call.h).
constinit std::atomic<bool> g_process_section_busy{false};

// Libraries loaded since the trace opened (cuBLAS loading cuBLASLt, cudart loading libcuda).
void refresh_libraries(Runtime& rt) {
  std::atomic<bool>& busy = g_process_section_busy;
  bool expected = false;
  if (!busy.compare_exchange_strong(expected, true)) return;  // another thread is at it
  for (const std::string& lib : loaded_cuda_libraries()) {
    bool seen = false;
    for (const std::string& k : rt.libraries_recorded) seen = seen || k == lib;
    if (!seen) {
      rt.libraries_recorded.push_back(lib);
      rt.writer.append_process_entry("library", lib);
    }
  }
  busy.store(false);
}

void note_first_async_error(Runtime& rt, uint64_t seq, int code) {
  format::FileHeader* h = rt.writer.header();
  uint64_t none = 0;
  if (std::atomic_ref<uint64_t>(h->first_async_seq).compare_exchange_strong(none, seq)) {
    h->first_async_error = code;
  }
}


// The set-up calls whose first failure records the machine's state (docs/FORMAT.md): those of
// is_setup_call, a device made current, a handle created.
bool is_evidence_call(uint16_t id) {
  return hook_has_trait(id, Trait::kSetupCall | Trait::kSelectsDevice | Trait::kCreatesHandle);
}

}  // namespace

namespace {

// CUBLASSPY_SYNC, before a GEMM: wait for its stream first. An error it reports was left by
// work launched earlier (the driver's sticky error, which the wait returns without clearing
// it): the GEMM did not cause it, and the record says so instead of pinning it on the GEMM.
// The driver's cuStreamSynchronize serves programs with a shared or a static runtime alike
// (streams are the same objects) and returns a sticky error without clearing it.
void check_pending_error(Runtime& rt, CallContext& ctx) {
  const StreamWait w = shim_wait_for_stream(ctx.rec.stream);
  // Only an error of earlier device work is pending: a wait that fails for want of a context or
  // an initialized driver (NOT_INITIALIZED, INVALID_CONTEXT) says nothing about earlier work.
  if (!w.waited() || !is_asynchronous_cuda_error(w.status)) return;
  slot_of(ctx).pending_error = w.status;
  note_first_async_error(rt, format::word_seq(ctx.rec.word), w.status);
}

}  // namespace

void before_real_call(Runtime& rt, CallContext& ctx) {
  if (rt.config.check) run_checks(rt, ctx);
  if (rt.config.sync && format::is_gemm_family(static_cast<uint16_t>(hook_family(ctx.rec.function_id)))) {
    check_pending_error(rt, ctx);
  }
}

void after_scalars_read(Runtime& rt, CallContext& ctx) {
  // Grouped GEMMs are checked once their groups are read (late): before, nothing describes them.
  if (rt.config.check && ctx.groups != nullptr) run_group_checks(rt, ctx);
  // The checks ran before beta could be read. Known to be 0 now, it may clear C of what they
  // flagged (a cuBLASLt call with a separate D reads no C then): check again with the view
  // built anew. Only a flagged call with beta 0 pays for this.
  const bool beta_zero = (ctx.rec.flags & format::kFlagBetaKnown) != 0 && ctx.rec.beta[0] == 0.0 &&
                         ctx.rec.beta[1] == 0.0;
  if (rt.config.check && ctx.groups == nullptr && ctx.rec.check_bits != 0 && beta_zero) {
    ctx.gemm.reset();
    ctx.rec.check_bits = 0;
    ctx.rec.check_detail[0] = ctx.rec.check_detail[1] = 0;
    run_checks(rt, ctx);
  }
  if (rt.config.scan != ScanMode::kNone) scan_operands(rt, ctx, /*before_call=*/true);
}

PostCallOutcome after_real_call(Runtime& rt, CallContext& ctx, bool failed) {
  PostCallOutcome outcome;
  uint16_t id = ctx.rec.function_id;
  uint16_t family = static_cast<uint16_t>(hook_family(id));
  uint64_t seq = format::word_seq(ctx.rec.word);
  ThreadState& ts = thread_state();
  // A call that found an error pending is not synchronized again: the error is not its own.
  if (rt.config.sync && !failed && format::is_gemm_family(family) && slot_of(ctx).pending_error == 0) {
    const StreamWait w = shim_wait_for_stream(ctx.rec.stream);
    if (w.waited()) ctx.rec.flags |= format::kFlagSynced;
    // The wait's status as it is; only an asynchronous fault is the GEMM's work failing.
    ctx.rec.async_status = w.waited() ? w.status : 0;
    if (w.waited() && is_asynchronous_cuda_error(w.status)) {
      ctx.rec.flags |= format::kFlagAsyncPinned;
      outcome.async_failure = true;
      note_first_async_error(rt, seq, w.status);
    }
  }
  // A failing call's own status as the first asynchronous error, for runtime and driver calls
  // (the libraries whose statuses are cudaError_t / CUresult codes).
  if (failed && is_asynchronous_cuda_error(ctx.rec.status) &&
      (hook_library(id) == Library::kCudart || hook_library(id) == Library::kCuda)) {
    note_first_async_error(rt, seq, ctx.rec.status);
  }
  // A misalignment warning alone does not trigger CUBLASSPY_ON_ERROR.
  outcome.finding = outcome.finding || check_bits_have_error(ctx.rec.check_bits);
  if (rt.config.scan != ScanMode::kNone) {
    // The scan waits for the stream itself: no separate synchronization before it.
    if (!failed && !outcome.async_failure) scan_operands(rt, ctx, /*before_call=*/false);
    outcome.finding = outcome.finding || scan_found_nonfinite(ctx);
  }
  if (rt.config.dump != DumpMode::kNone) {
    dump_operands(rt, ctx, failed || outcome.async_failure || outcome.finding);
  }
  if (is_setup_call(id)) {
    note_libraries_changed();  // the program has its driver by now, however it loaded it
    ts.internal++;
    read_versions(rt);
    refresh_libraries(rt);
    ts.internal--;
    if (!failed) rt.cuda_ready.store(true, std::memory_order_relaxed);
  }
  if (!failed && hook_has_trait(id, Trait::kCreatesHandle)) watch_gpu_health(rt);
  if (failed) [[unlikely]] {
    const bool setup = is_evidence_call(id);
    if (setup || hook_library(id) == Library::kCublas || hook_library(id) == Library::kCublasLt) {
      record_machine_evidence(rt, id, ctx.rec.status, setup, g_process_section_busy);
    }
    if (hook_has_trait(id, Trait::kAllocatesDevice) || hook_library(id) == Library::kCublas ||
        hook_library(id) == Library::kCublasLt) {
      record_memory_at_failure(rt, id, seq, ctx.caller, g_process_section_busy);
    }
  }
  // A CUDA library's failure (not a failed dlopen, which says nothing of the GPU).
  const bool cuda_library = hook_library(id) == Library::kCublas || hook_library(id) == Library::kCublasLt ||
                            hook_library(id) == Library::kCudart || hook_library(id) == Library::kCuda;
  if ((failed || outcome.async_failure) && cuda_library) [[unlikely]] record_gpu_health(rt, g_process_section_busy);
  return outcome;
}

std::atomic<bool>& process_section_busy() { return g_process_section_busy; }

void process_section_after_fork() {
  g_process_section_busy.store(false);
  machine_evidence_after_fork();
  kernel_image_after_fork();
  memory_at_failure_after_fork();
  load_failures_after_fork();
  gpu_health_after_fork();
}

}  // namespace cublasspy
