// One replay, start to end, in the runner: load the libraries, create the handle with the
// captured state, lay out the operands, rebuild cuBLASLt descriptors, call the entry point
// `repeat` times (synchronizing after each call and timing call + synchronization), verify
// against the host reference when asked, and report each step as an event (event_log.h).
#pragma once

#include "replay/replay_plan.h"

namespace cublasspy::replay {

// Exit statuses of the runner; the events carry the details.
inline constexpr int kRunnerOk = 0;           // the replay ran (whatever the call returned)
inline constexpr int kRunnerBadPlan = 2;      // the plan could not be read
inline constexpr int kRunnerCannotRun = 3;    // libraries, handle, memory or descriptors failed

int run_replay(const ReplayPlan& plan);

}  // namespace cublasspy::replay
