#include "operand_dump.h"

#include <cstdlib>

#include "dump/gemm_dump.h"
#include "hook_table.h"
#include "operand_scan.h"
#include "shim_driver.h"
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
  if (const DriverApi& api = shim_driver(scratch); api.can_copy()) {
    result = dump_gemm(api, *g, request, rt.dump_budget);
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
