// What a replay means. The runner's events become a ReplayRun per data source (random values,
// the captured dumps); the runs and the program's own outcome become one verdict:
//
//   reproduced-random          the program's call failed, and so does the replay with random
//                              data: the call itself fails (library, driver or hardware; or the
//                              library rejecting the arguments, which the status says)
//   reproduced-captured-data   fails only with the captured operands: suspect the data
//   not-reproduced             succeeds on its own: suspect earlier asynchronous work or the
//                              program's memory; rerun under --sync (and --check)
//   wrong-result               the call succeeds but --verify finds its result wrong
//   fails-on-replay            the program's call succeeded, the replay's fails
//   succeeds                   the program's call succeeded and so does the replay
//   cannot-run                 the replay could not set up (libraries, handle, memory)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "replay/plan_builder.h"
#include "replay/runner_client.h"

namespace cublasspy::replay {

struct ReplayRun {
  DataSource data = DataSource::kRandom;
  bool ran = false;                 // the runner got as far as calling the entry point
  std::string setup_stage;          // !ran: load, resolve, handle, memory, descriptors, plan, start, crash, timeout
  std::string setup_message;
  std::optional<int> setup_status;  // the failing step's cuBLAS status
  std::optional<int> setup_cuda_error;
  nlohmann::json loaded;            // libraries and versions ("loaded" event), null if not reached
  int status = 0;                   // of the failing run, else of the first
  int sync_error = 0;               // cudaError_t found by synchronizing after the call
  bool call_failed = false;
  bool wrong_result = false;        // --verify: beyond the tolerance, or writes outside the result
  bool crashed = false;             // died of `signal` during the calls
  int signal = 0;
  bool timed_out = false;           // did not return within --timeout
  uint64_t nonfinite_output = 0;    // NaN/Inf elements in the first run's result
  int64_t runs = 0, requested = 0;
  std::optional<int64_t> failed_run;
  nlohmann::json verify;            // the verify event (the failing one, else the first), or null
  nlohmann::json time_ns;           // {min, median, max, total}, or null
  std::string stderr_text;

  bool failed() const { return call_failed || wrong_result || crashed || timed_out; }
};

ReplayRun summarize_run(const RunnerOutcome& outcome, DataSource data);

// The call as the program made it.
struct OriginalCall {
  std::string function;
  bool in_flight = false;  // never returned: crashed or killed in the call
  bool crashed = false;
  int status = 0;
  int async_status = 0;
  uint64_t nonfinite_output = 0;  // a scan found NaN/Inf in the result (inputs finite or not)
  bool failed() const { return in_flight || crashed || status != 0 || async_status != 0 || nonfinite_output != 0; }
};

struct Verdict {
  std::string id;
  std::string summary;
  std::string advice;
  int exit_status = 0;  // 0 the replayed call succeeds, 1 it fails or is wrong, 3 cannot run
};

// `random`/`dump`: the runs made (either may be absent). `dumps_exist`: the trace has usable
// dumps of this call. `command`: how to run this replay again, for the advice.
Verdict decide(const OriginalCall& original, const ReplayRun* random, const ReplayRun* dump, bool dumps_exist,
               const std::string& command);

}  // namespace cublasspy::replay
