// From a trace record to a replay plan (replay_plan.h): which entry point, which arguments, the
// handle's state, every operand's layout and where its values come from. Nothing in a trace is
// trusted: sizes, leading dimensions, strides and batch counts are checked, extents computed
// without overflow, and the whole allocation bounded by --max-bytes, before a runner is started.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/replay_plan.h"
#include "replay/tolerance.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {

enum class DataSource { kRandom, kDump };

struct PlanOptions {
  uint64_t max_bytes = uint64_t{4} << 30;  // device memory the replay may allocate
  uint64_t seed = 1;
  int64_t repeat = 1;
  bool verify = false;
  DataSource data = DataSource::kRandom;
};

struct PlanResult {
  std::optional<ReplayPlan> plan;
  // Set when there is no plan: one or two sentences saying why, for the user.
  std::string refusal;
  // What the replay does differently from the program, and why (unknown scalars, the algo
  // cuBLASLt picks, the groups a grouped call had, dumps not used ...).
  std::vector<std::string> notes;
  // Operands with a usable .npy dump next to the trace (data source kDump uses them).
  std::vector<std::string> dumped_operands;
};

// The workspace size set with cublasSetWorkspace_v2 (the handle call with a workspace size) on `handle` before call `seq`, if the
// trace still holds that call.
std::optional<uint64_t> workspace_before(const TraceFile& trace, uint64_t handle, uint64_t seq);

PlanResult build_plan(const TraceFile& trace, const CallView& call, const PlanOptions& options);

// What the tolerance of a plan's --verify rests on (tolerance.h).
ToleranceInputs tolerance_inputs_for(const ReplayPlan& plan);

// "1.5 GiB", "96 KiB", "12 B".
std::string byte_text(uint64_t bytes);

}  // namespace cublasspy::replay
