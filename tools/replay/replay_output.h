// What `cublasspy replay` found for one call, and how it is shown: text for people (what was
// replayed, what happened with each data source, the verdict and what to do), or JSON (--json)
// for scripts and tests. docs/REPLAY.md describes both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "replay/plan_builder.h"
#include "replay/verdict.h"

namespace cublasspy::replay {

struct CallReplay {
  uint64_t seq = 0;
  std::string function;
  std::string trace_path;
  OriginalCall original;
  std::string shape;                  // "m 64, n 32, k 16, N/T, CUDA_R_32F" (empty if unknown)
  std::optional<ReplayPlan> plan;
  std::string refusal;                // no plan: why
  std::vector<std::string> notes;
  std::vector<std::string> dumped_operands;
  std::optional<ReplayRun> random, dump;
  std::optional<Verdict> verdict;
  std::string emitted_cpp, emitted_python, build_command;
  std::string tolerance_basis;
};

// Exit status of one call's replay: 2 refused, else the verdict's.
int exit_status(const CallReplay& r);

std::string render_text(const CallReplay& r, bool verbose);
nlohmann::ordered_json render_json(const CallReplay& r);

// "12.3 us", "4.56 ms"
std::string duration_text(int64_t ns);

// One line describing the GEMM a plan replays.
std::string shape_text(const ReplayPlan& plan);

}  // namespace cublasspy::replay
