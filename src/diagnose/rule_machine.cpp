// The machine evidence the shim recorded at the first failed set-up call (machine_state.h):
// the kernel module, the device nodes, nvidia_uvm, Fabric Manager, forward compatibility, the
// memory at cublasCreate and the libcublas/libcublasLt pair. From the trace alone: the same
// findings on any machine that reads it.
#include <cstring>

#include <fmt/format.h>

#include "diagnose/machine_state.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

bool is_create(const CallView& c) { return format::has_trait(c.function, format::Trait::kCreatesHandle); }

}  // namespace

void rule_machine(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const MachineState m = machine_state_from(f.trace->process().entries);
    if (!m.recorded) continue;
    std::optional<SetupFailure> setup, create;
    for (const CallView& c : f.device_calls) {
      if (c.state != format::RecordState::kCompleted || c.rec().status == 0) continue;
      setup = SetupFailure{c.rec().status, fmt::format("{} returned {}", call_name(c), status_text(c)), c.seq, false};
      break;
    }
    for (const CallView& c : f.handle_creates) {
      const int s = c.rec().status;
      if (c.state != format::RecordState::kCompleted || (s != 1 && s != 3) || !is_create(c)) continue;
      create = SetupFailure{s, fmt::format("{} returned {}", call_name(c), status_text(c)), c.seq, true};
      break;
    }
    // The first failing cuBLAS/cuBLASLt call: mixed libraries fail GEMMs, not only set-up.
    const CallView* first_library_failure = nullptr;
    for (const auto& key : f.failure_order) {
      const CallView& c = f.failures.at(key).first;
      if (!is_cublas_call(c) || c.rec().status == 0) continue;
      if (first_library_failure == nullptr || began_before(c, *first_library_failure)) first_library_failure = &c;
    }
    std::optional<SetupFailure> library_call;
    if (const CallView* c = first_library_failure) {
      library_call = SetupFailure{c->rec().status, fmt::format("{} returned {}", call_name(*c), status_text(*c)), c->seq, false};
    }
    // No driver library at all is no-driver's finding, not the module's.
    const bool no_driver = ctx.found_for(f, {ids::kNoDriver}) != nullptr;
    for (Diagnosis& d : machine_findings(m, no_driver ? std::nullopt : setup, create, library_call)) {
      d.pid = f.pid;
      ctx.add(std::move(d));
    }
  }
}

}  // namespace cublasspy::diagnoses
