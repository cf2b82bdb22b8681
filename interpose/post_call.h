// Extra work around the real call, by setting: argument checks before it (CUBLASSPY_CHECK),
// synchronization and scans after it (CUBLASSPY_SYNC, CUBLASSPY_SCAN), and the bookkeeping the
// report needs (driver/runtime versions, libraries loaded). Kept out of intercept.h so the
// common path stays a couple of predictable branches.
#pragma once

#include "call_context.h"
#include "hook_table.h"
#include "runtime.h"

namespace cublasspy {

struct PostCallOutcome {
  bool async_failure = false;  // CUBLASSPY_SYNC found an asynchronous error: the call failed
  bool finding = false;        // a check or scan flagged the call (CUBLASSPY_ON_ERROR applies)
};

// The set-up calls, whose outcome the report needs (versions, libraries, the device ready):
// Trait::kSetupCall in the hook list. Programs with the static runtime are seen only at the
// driver: cuInit, cuDeviceGetCount.
constexpr bool is_setup_call(uint16_t id) { return hook_has_trait(id, Trait::kSetupCall); }

void before_real_call(Runtime& rt, CallContext& ctx);
void after_scalars_read(Runtime& rt, CallContext& ctx);
PostCallOutcome after_real_call(Runtime& rt, CallContext& ctx, bool failed);

// Taken by whoever appends to the process section (TraceWriter::append_process_entry): tried
// with a compare-and-swap, never waited for.
std::atomic<bool>& process_section_busy();

// In a forked child (one thread, its own trace to come): a process-section append another
// thread of the parent was making never finishes here, and the child's first failures record
// their own machine evidence.
void process_section_after_fork();

}  // namespace cublasspy
