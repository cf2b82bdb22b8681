// How a diagnosis rule plugs in: a function that reads the facts of every trace and adds the
// findings it can prove. Rules run in the order of the table in diagnose.cpp (root causes
// first), so a later rule can ask whether an earlier one already explained a process.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "common/diagnosis.h"
#include "common/diagnosis_ids.h"
#include "diagnose/trace_facts.h"

namespace cublasspy::diagnoses {

class RuleContext {
 public:
  RuleContext(const std::vector<TraceFacts>& traces, std::vector<Diagnosis>& found)
      : traces_(traces), found_(found) {}

  const std::vector<TraceFacts>& traces() const { return traces_; }
  void add(Diagnosis d) { found_.push_back(std::move(d)); }
  // The first finding so far for the process of `facts` whose id is one of `ids` (constants of
  // common/diagnosis_ids.h, or one of its lists such as ids::kSetupFailureIds).
  const Diagnosis* found_for(const TraceFacts& facts, std::span<const char* const> ids) const;
  const Diagnosis* found_for(const TraceFacts& facts, std::initializer_list<const char*> ids) const {
    return found_for(facts, std::span<const char* const>(ids.begin(), ids.size()));
  }
  // True when a finding so far names this call of this process as the cause of its failure:
  // any finding but a scan's.
  // NaN/Inf in a call's operands is a fact of its data, never why it returned an error (cuBLAS
  // does not inspect values), so a failing call a scan names still gets its own finding.
  bool failure_explained(const TraceFacts& facts, uint64_t seq) const;

 private:
  const std::vector<TraceFacts>& traces_;
  std::vector<Diagnosis>& found_;
};

using Rule = void (*)(RuleContext&);

// A finding about one process, ready for its summary, evidence and advice. `id` is one of
// common/diagnosis_ids.h's constants.
Diagnosis finding(const char* id, Severity severity, const TraceFacts& facts);

// The rules, one per file (or per closely related group).
void rule_no_driver(RuleContext& ctx);               // no-driver
void rule_load_failure(RuleContext& ctx);            // cublas-lt-mismatch, mixed-cuda-libraries
                                                     // of a failed load (load_failure.h)
void rule_driver_too_old(RuleContext& ctx);          // driver-too-old
void rule_machine(RuleContext& ctx);                 // the machine evidence's ids (machine_state.h)
void rule_gpu_hardware(RuleContext& ctx);            // gpu-hardware-fault (gpu_health.h)
void rule_device_enumeration(RuleContext& ctx);      // invalid-visible-devices, no-device,
                                                     // device-enumeration-failed
void rule_fork_after_cuda_init(RuleContext& ctx);    // fork-after-cuda-init
void rule_cublas_init(RuleContext& ctx);             // cublas-init-failed
void rule_mixed_libraries(RuleContext& ctx);         // mixed-cuda-libraries
void rule_no_kernel_image(RuleContext& ctx);         // no-kernel-image
void rule_crashed_in_call(RuleContext& ctx);         // crashed-in-call
void rule_killed_in_call(RuleContext& ctx);          // killed-in-call
void rule_graph_replay(RuleContext& ctx);            // graph-replay-freed-memory
void rule_async_error(RuleContext& ctx);             // async-error
void rule_checks(RuleContext& ctx);                  // the CUBLASSPY_CHECK ids
void rule_scan(RuleContext& ctx);                    // non-finite-input, non-finite-output,
                                                     // half-overflow
void rule_out_of_memory(RuleContext& ctx);           // device-out-of-memory
void rule_execution_failed(RuleContext& ctx);        // execution-failed (the rest)
void rule_reported_error(RuleContext& ctx);          // reported-error (last: what the program
                                                     // reported that nothing names)

}  // namespace cublasspy::diagnoses
