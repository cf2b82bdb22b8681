// `cublasspy replay TRACE --call SEQ [options]`: re-executes a captured GEMM call in a fresh
// process (the replay runner, tools/replay/runner) and says what the outcome means: the call
// fails on its own (library, driver, hardware), only with the captured data (the data), or not
// at all (earlier asynchronous work). `--emit-cpp` / `--emit-python` write standalone
// reproducers. docs/REPLAY.md is the user's page.
//
// Exit status: 0 the replayed call succeeds (and --verify agrees); 1 it fails, crashes, hangs or
// computes a wrong result; 2 usage error, unreadable trace, or a call that cannot be replayed
// (not a GEMM, invalid or too large); 3 the replay cannot run here (no runner, no CUDA).
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemm/gemm_call.h"
#include "replay/call_selection.h"
#include "replay/emitters.h"
#include "replay/plan_builder.h"
#include "replay/replay_output.h"
#include "replay/runner_client.h"
#include "replay/verdict.h"
#include "cli/subcommand.h"
#include "common/cuda_names.h"
#include "trace/trace_reader.h"

namespace cublasspy::tools {
namespace {

using namespace cublasspy::replay;

constexpr int kExitCannotRun = 3;

struct ReplayArgs {
  std::string trace;
  std::optional<uint64_t> call;
  bool failing = false;
  std::string data = "random";
  uint64_t seed = 1;
  int64_t repeat = 1;
  bool verify = false;
  uint64_t max_bytes = uint64_t{4} << 30;
  double timeout_s = 300;
  std::string emit_cpp, emit_python;
  bool json = false;
  bool no_run = false;
  bool verbose = false;
  std::string runner;
};

// FILE, or FILE with ".call<seq>" before its extension when several calls are replayed.
std::string output_path(const std::string& path, uint64_t seq, bool several) {
  if (!several) return path;
  auto slash = path.rfind('/');
  auto dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + ".call" + std::to_string(seq);
  return path.substr(0, dot) + ".call" + std::to_string(seq) + path.substr(dot);
}

bool write_text(const std::string& path, const std::string& text, std::string& error) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) error = "cannot write " + path;
  return static_cast<bool>(out);
}

class Replayer {
 public:
  Replayer(const ReplayArgs& a, const TraceFile& trace, std::string runner)
      : a_(a), trace_(trace), runner_(std::move(runner)) {}

  CallReplay replay(const CallView& call, bool several) {
    CallReplay r;
    r.seq = call.seq;
    r.function = call.function_name();
    r.trace_path = trace_.path();
    r.original = original_of(call);
    PlanOptions options;
    options.max_bytes = a_.max_bytes;
    options.seed = a_.seed;
    options.repeat = a_.repeat;
    options.verify = a_.verify;
    options.data = a_.data == "dump" ? DataSource::kDump : DataSource::kRandom;
    PlanResult primary = build_plan(trace_, call, options);
    r.notes = primary.notes;
    r.dumped_operands = primary.dumped_operands;
    if (!primary.plan) {
      r.refusal = primary.refusal;
      if (call.function) {
        const GemmCall g = call.gemm();
        if (g.valid) r.shape = "m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " + std::to_string(g.k);
      }
      return r;
    }
    r.plan = primary.plan;
    r.shape = shape_text(*r.plan);
    r.tolerance_basis = tolerance_basis(tolerance_inputs_for(*r.plan));
    if (!emit(r, several)) return r;
    if (a_.no_run) return r;

    std::optional<ReplayPlan> other;
    if (!primary.dumped_operands.empty() || options.data == DataSource::kDump) {
      PlanOptions flipped = options;
      flipped.data = options.data == DataSource::kDump ? DataSource::kRandom : DataSource::kDump;
      other = build_plan(trace_, call, flipped).plan;
    }
    const ReplayPlan* random_plan = options.data == DataSource::kRandom ? &*r.plan : other ? &*other : nullptr;
    const ReplayPlan* dump_plan = options.data == DataSource::kDump ? &*r.plan : other ? &*other : nullptr;
    // The asked-for data first; the other one only when the verdict needs it.
    if (options.data == DataSource::kRandom) {
      r.random = run(*random_plan, DataSource::kRandom);
      if (r.random->ran && !r.random->failed() && dump_plan) r.dump = run(*dump_plan, DataSource::kDump);
    } else {
      r.dump = run(*dump_plan, DataSource::kDump);
      if (r.dump->ran && r.dump->failed() && random_plan) r.random = run(*random_plan, DataSource::kRandom);
    }
    const std::string command = "cublasspy replay " + trace_.path() + " --call " + std::to_string(call.seq);
    r.verdict = decide(r.original, r.random ? &*r.random : nullptr, r.dump ? &*r.dump : nullptr,
                       !primary.dumped_operands.empty(), command);
    return r;
  }

 private:
  ReplayRun run(const ReplayPlan& plan, DataSource data) {
    ReplayPlan p = plan;
    p.timeout_s = a_.timeout_s;
    RunnerOutcome outcome = run_runner(runner_, nlohmann::json(p).dump(), a_.timeout_s);
    return summarize_run(outcome, data);
  }

  bool emit(CallReplay& r, bool several) {
    EmitContext context;
    context.trace_path = trace_.path();
    context.seq = r.seq;
    context.original_outcome = original_outcome_text(r.original);
    context.dumped_operands = r.dumped_operands;
    context.notes = r.notes;
    std::string error;
    if (!a_.emit_cpp.empty()) {
      r.emitted_cpp = output_path(a_.emit_cpp, r.seq, several);
      r.build_command = cpp_build_command(r.emitted_cpp);
      context.cpp_file_name = r.emitted_cpp.substr(r.emitted_cpp.rfind('/') + 1);
      if (!write_text(r.emitted_cpp, emit_cpp(*r.plan, context), error)) {
        r.plan.reset();
        r.refusal = error;
        return false;
      }
    }
    if (!a_.emit_python.empty()) {
      r.emitted_python = output_path(a_.emit_python, r.seq, several);
      if (!write_text(r.emitted_python, emit_python(*r.plan, context), error)) {
        r.plan.reset();
        r.refusal = error;
        return false;
      }
    }
    return true;
  }

  const ReplayArgs& a_;
  const TraceFile& trace_;
  std::string runner_;
};

int replay_command(const ReplayArgs& a) {
  if (!a.call && !a.failing) {
    std::fprintf(stderr, "cublasspy replay: say which call: --call SEQ, or --failing for every failing call\n");
    return kExitUsage;
  }
  std::string error;
  std::optional<TraceFile> trace = TraceFile::open(a.trace, error);
  if (!trace) {
    std::fprintf(stderr, "cublasspy replay: %s\n", error.c_str());
    return kExitUsage;
  }
  std::vector<CallView> calls = select_calls(*trace, a.call, error);
  if (!error.empty()) {
    std::fprintf(stderr, "cublasspy replay: %s\n", error.c_str());
    return kExitUsage;
  }
  std::string runner = a.runner;
  if (runner.empty() && !a.no_run) {
    std::vector<std::string> looked;
    if (auto found = find_runner(&looked)) {
      runner = *found;
    } else {
      std::string where;
      for (const std::string& l : looked) where += " " + l;
      std::fprintf(stderr, "cublasspy replay: cannot find cublasspy-replay-runner (looked at%s)\n", where.c_str());
      return kExitCannotRun;
    }
  }

  Replayer replayer(a, *trace, runner);
  nlohmann::ordered_json doc;
  doc["trace"] = trace->path();
  doc["replays"] = nlohmann::ordered_json::array();
  int status = 0;
  bool any_failed = false, any_cannot = false, any_refused = false;
  if (calls.empty() && !a.json) std::printf("%s: no failing call to replay\n", trace->path().c_str());
  for (size_t i = 0; i < calls.size(); ++i) {
    CallReplay r = replayer.replay(calls[i], calls.size() > 1);
    int s = exit_status(r);
    any_failed = any_failed || s == 1;
    any_cannot = any_cannot || s == kExitCannotRun;
    any_refused = any_refused || s == kExitUsage;
    if (a.json) {
      doc["replays"].push_back(render_json(r));
    } else {
      std::string text = (i ? "\n" : "") + render_text(r, a.verbose);
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
  }
  // --failing skips what is not a GEMM without failing for it; a single call asked for and
  // refused is the caller's error.
  status = any_failed ? 1 : any_cannot ? kExitCannotRun : (any_refused && a.call) ? kExitUsage : 0;
  if (a.json) {
    doc["exit_status"] = status;
    std::string text = doc.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return status;
}

}  // namespace

SubcommandAction attach_replay(CLI::App& app) {
  auto a = std::make_shared<ReplayArgs>();
  app.add_option("trace", a->trace, "The trace (.cbt) that holds the call")->required()->type_name("TRACE");
  app.add_option("--call", a->call, "The call to replay: its sequence number (the report's \"seq\")")->type_name("SEQ");
  app.add_flag("--failing", a->failing, "Replay every failing call of the trace");
  app.add_option("--data", a->data,
                 "Operand values: random (seeded, the default) or dump (the .npy dumps next to the trace); "
                 "the other is tried too when the verdict needs it")
      ->check(CLI::IsMember({"random", "dump"}))
      ->type_name("SOURCE");
  app.add_option("--seed", a->seed, "Seed of the random values (default 1)")->type_name("N");
  app.add_option("--repeat", a->repeat, "Make the call N times, stopping at the first failure (default 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000000}))
      ->type_name("N");
  app.add_flag("--verify", a->verify,
               "Compare the result with a GEMM computed on the host; report the largest error");
  app.add_option("--max-bytes", a->max_bytes,
                 "Refuse replays that would allocate more device memory than this (default 4GiB; "
                 "suffixes K, M, G, with or without iB, count in 1024s)")
      ->transform(CLI::AsSizeValue(false))
      ->type_name("BYTES");
  app.add_option("--timeout", a->timeout_s, "Give up on a replay after this many seconds (default 300)")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  app.add_option("--emit-cpp", a->emit_cpp, "Write a standalone C++ reproducer of the call to FILE")->type_name("FILE");
  app.add_option("--emit-python", a->emit_python, "Write a PyTorch script that runs the same GEMM to FILE")
      ->type_name("FILE");
  app.add_flag("--no-run", a->no_run, "Only write the reproducers (--emit-cpp, --emit-python); do not replay");
  app.add_flag("--json", a->json, "Print one JSON document instead of text");
  app.add_flag("-v,--verbose", a->verbose, "Also show the libraries loaded and what the runner printed");
  app.add_option("--runner", a->runner,
                 "The replay runner to start (default: cublasspy-replay-runner next to the tool, or "
                 "$CUBLASSPY_REPLAY_RUNNER)")
      ->type_name("PATH");
  app.callback([a] {
    if (a->call && a->failing) throw CLI::ValidationError("--call and --failing", "give one of them, not both");
  });
  return [a] { return replay_command(*a); };
}

}  // namespace cublasspy::tools
