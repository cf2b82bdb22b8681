#include "live_dump.h"

#include <cstdlib>

#include "dump/gemm_dump.h"
#include "hook_table.h"
#include "live_scan.h"
#include "driver_table.h"
#include "shim_log.h"

namespace cublasspy {

void dump_operands(Runtime& rt, CallContext& ctx, bool failed_or_flagged) {
  const DumpMode mode = rt.config.dump;
  if (mode == DumpMode::kNone || (mode == DumpMode::kFailing && !failed_or_flagged)) return;
  format::Record& rec = ctx.rec;
  const GemmCall* g = device_gemm(ctx);
  if (g == nullptr) return;
  if (rt.trace_path.empty()) {
    log_warning_once("dump-no-trace-file",
                     "CUBLASSPY_DUMP: the trace is not a file, so there is nowhere to put dumps");
    return;
  }
  GemmDumpRequest request;
  request.seq = format::word_seq(rec.word);
  request.prefix = rt.trace_path + ".call" + std::to_string(request.seq);
  request.function = function_table()[rec.function_id].name;
  request.stream = rec.stream;
  request.failed = failed_or_flagged;

  ThreadState& ts = thread_state();
  ts.internal++;  // the shim's own driver calls: never recorded
  GemmDumpResult result;
  DriverApi scratch;
  if (const DriverApi& api = driver_table(scratch); api.can_copy()) {
    if (ctx.groups != nullptr && ctx.groups->read) {
      // A grouped GEMM: each group's operands, the first group's under the call's own prefix
      // (as before groups were recorded), group i's (from 1) under <prefix>.group<i>.
      const std::string prefix = request.prefix;
      int64_t first_problem = 0;
      for (uint32_t i = 0; i < ctx.groups->header.recorded; ++i) {
        const format::GemmGroup& group = ctx.groups->groups[i];
        request.prefix = i == 0 ? prefix : prefix + ".group" + std::to_string(i);
        GemmDumpResult part = dump_gemm(api, group_call(*g, group, first_problem), request, rt.dump_budget);
        first_problem += group.size;
        result.written += part.written;
        result.over_budget += part.over_budget;
        result.failed += part.failed;
        result.skipped_capture = result.skipped_capture || part.skipped_capture;
        if (result.error.empty()) result.error = part.error;
      }
    } else {
      result = dump_gemm(api, *g, request, rt.dump_budget);
    }
  } else {
    log_warning_once("dump-no-driver", "CUBLASSPY_DUMP: libcuda's copy functions were not found in "
                                       "the process; operands are not saved");
  }
  ts.internal--;
  if (result.over_budget > 0) {
    log_warning_once("dump-budget", "CUBLASSPY_DUMP: the dump budget (CUBLASSPY_DUMP_MAX_MB) is "
                                    "used up; further operands are not saved");
  }
  if (result.skipped_capture) {
    log_warning_once("dump-capture", "CUBLASSPY_DUMP: GEMMs made while their stream is captured "
                                     "into a CUDA graph are not dumped");
  }
  if (result.failed > 0) {
    log_warning_once("dump-failed", "CUBLASSPY_DUMP: an operand could not be saved: " + result.error);
  }
}

}  // namespace cublasspy
