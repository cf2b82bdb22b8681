// Starting the replay runner (bin/cublasspy-replay-runner, a fresh process) with a plan on its
// stdin and collecting its events (one JSON object per line on stdout) and its stderr, within a
// time limit. The runner inherits the environment (LD_LIBRARY_PATH picks the CUDA libraries as
// it would for the program), except that the shim is taken out of LD_PRELOAD: a replay is not
// itself traced.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cublasspy::replay {

// Where the runner is: CUBLASSPY_REPLAY_RUNNER if set, else next to the tool
// (<bin>/cublasspy-replay-runner), else <bin>/../libexec/cublasspy/. The places looked at go to
// `looked` when none exists.
std::optional<std::string> find_runner(std::vector<std::string>* looked = nullptr);

struct RunnerOutcome {
  bool started = false;       // exec succeeded
  std::string start_error;    // why not
  std::vector<nlohmann::json> events;
  std::string stderr_text;    // what the runner and the libraries printed (last 8 KiB)
  bool exited = false;
  int exit_code = -1;
  int signal = 0;             // it died of this signal (a crash in the call, or the timeout's kill)
  bool timed_out = false;
  double wall_s = 0;

  // The first event named `name`, or nullptr.
  const nlohmann::json* event(const std::string& name) const;
};

RunnerOutcome run_runner(const std::string& runner, const std::string& plan_json, double timeout_s);

// The environment for the runner: this one, with libcublasspy.so removed from LD_PRELOAD.
std::vector<std::string> runner_environment();

}  // namespace cublasspy::replay
