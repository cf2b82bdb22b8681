// cublasspy-replay-runner: re-executes one captured GEMM call in a fresh process. It reads a
// replay plan (tools/replay/replay_plan.h, JSON) on stdin and answers with events, one JSON
// object per line, on stdout. Started by `cublasspy replay`; it loads the CUDA libraries itself
// (dlopen by soname), so neither it nor the tool links against CUDA.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "replay/runner/event_log.h"
#include "replay/runner/replay_session.h"

int main(int argc, char** argv) {
  using namespace cublasspy::replay;
  if (argc > 1) {
    std::fprintf(stderr, "usage: %s < PLAN.json   (started by `cublasspy replay`)\n", argv[0]);
    return kRunnerBadPlan;
  }
  ReplayPlan plan;
  try {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    plan = nlohmann::json::parse(text).get<ReplayPlan>();
  } catch (const std::exception& e) {
    emit_event({{"event", "error"}, {"stage", "plan"}, {"message", std::string("cannot read the replay plan: ") + e.what()}});
    return kRunnerBadPlan;
  }
  try {
    return run_replay(plan);
  } catch (const std::exception& e) {
    emit_event({{"event", "error"}, {"stage", "internal"}, {"message", e.what()}});
    return kRunnerCannotRun;
  }
}
