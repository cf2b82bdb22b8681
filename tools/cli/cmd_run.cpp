// `cublasspy run [options] -- COMMAND [ARGS...]`: runs COMMAND under the shim. The options mirror
// the CUBLASSPY_* variables and are checked by the same parsers (config.h). The shim's absolute
// path goes first in LD_PRELOAD, keeping what was there. Exit status: COMMAND's (128+N when it
// died of signal N; 127 when not found). Afterwards COMMAND's wait status goes into every
// trace of the run (launcher_wait.h). cuBLASLt is asked for its log beside the traces
// (cublaslt_log_request.h). When COMMAND ended abnormally, a call failed, or a diagnosis of
// severity error stands, the report's summary goes to stderr. The shim removes the trace of a
// process that exited cleanly (CUBLASSPY_KEEP, `--keep`): the summary covers the traces kept,
// and `run` says where they are, or that none was kept.
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli/child_process.h"
#include "cli/cublaslt_log_request.h"
#include "cli/launcher_wait.h"
#include "settings/config.h"
#include "report/report_model.h"
#include "report/report_text.h"
#include "cli/shim_location.h"
#include "cli/subcommand.h"
#include "cli/trace_discovery.h"

extern char** environ;

namespace cublasspy::tools {
namespace {

struct RunArgs {
  std::string trace_template;
  bool check = false;
  std::string sync;  // "" not given, "1" (--sync), "all" (--sync all)
  std::string scan, dump, stacks, on_error, ring, log, keep;
  std::string summary = "auto";
  std::vector<std::string> command;
};

bool is_shim_entry(const std::string& entry) {
  auto slash = entry.rfind('/');
  return (slash == std::string::npos ? entry : entry.substr(slash + 1)) == "libcublasspy.so";
}

// The shim first, then what LD_PRELOAD held (separated by ':' or ' ', as ld.so accepts). Other
// copies of the shim are dropped: a second copy would find the first's hooks as its "real"
// functions and record every call twice.
std::string preload_value(const std::string& shim, const char* current) {
  std::string out = shim;
  std::string entry;
  auto flush = [&] {
    if (!entry.empty() && !is_shim_entry(entry)) out += ":" + entry;
    entry.clear();
  };
  for (const char* p = current ? current : ""; *p; ++p) {
    if (*p == ':' || *p == ' ') flush();
    else entry += *p;
  }
  flush();
  return out;
}

// The current environment with `name` set to `value` (replacing any earlier value).
void set_variable(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::string prefix = name + "=";
  for (std::string& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0) {
      e = prefix + value;
      return;
    }
  }
  env.push_back(prefix + value);
}

// Whether the command's processes keep every trace: `--keep`, else the inherited CUBLASSPY_KEEP
// (a bad value, which the shim reports, leaves its default, `incident`).
bool keeps_every_trace(const std::string& option) {
  const char* inherited = std::getenv("CUBLASSPY_KEEP");
  KeepMode mode = KeepMode::kIncident;
  (void)parse_keep_mode(!option.empty() ? option : inherited != nullptr ? inherited : "", mode);
  return mode == KeepMode::kAlways;
}

std::string current_directory() {
  char buf[PATH_MAX];
  return getcwd(buf, sizeof buf) ? std::string(buf) : std::string(".");
}

int run_command(const RunArgs& a) {
  auto shim = find_shim();
  if (!shim) {
    std::string looked;
    for (const std::string& c : shim_candidates(executable_directory())) looked += " " + c;
    std::fprintf(stderr, "cublasspy run: cannot find libcublasspy.so next to the tool (looked at%s)\n",
                 looked.c_str());
    return 125;  // like env(1) and timeout(1): the wrapper itself failed
  }

  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  set_variable(env, "LD_PRELOAD", preload_value(*shim, std::getenv("LD_PRELOAD")));

  // The template: -o, else the inherited CUBLASSPY_TRACE, else the shim's default; made
  // absolute so the traces are where `run` looks for them.
  std::string tmpl = a.trace_template;
  if (tmpl.empty()) {
    const char* inherited = std::getenv("CUBLASSPY_TRACE");
    tmpl = inherited && *inherited ? inherited : Config{}.trace_template;
  }
  tmpl = absolute_template(tmpl, current_directory());
  set_variable(env, "CUBLASSPY_TRACE", tmpl);
  if (a.check) set_variable(env, "CUBLASSPY_CHECK", "1");
  if (!a.sync.empty()) set_variable(env, "CUBLASSPY_SYNC", a.sync);
  if (!a.scan.empty()) set_variable(env, "CUBLASSPY_SCAN", a.scan);
  if (!a.dump.empty()) set_variable(env, "CUBLASSPY_DUMP", a.dump);
  if (!a.stacks.empty()) set_variable(env, "CUBLASSPY_STACKS", a.stacks);
  if (!a.on_error.empty()) set_variable(env, "CUBLASSPY_ON_ERROR", a.on_error);
  if (!a.ring.empty()) set_variable(env, "CUBLASSPY_RING", a.ring);
  if (!a.log.empty()) set_variable(env, "CUBLASSPY_LOG", a.log);
  if (!a.keep.empty()) set_variable(env, "CUBLASSPY_KEEP", a.keep);
  const std::string lt_log = request_cublaslt_log(env, tmpl);
  std::string run_id = make_run_id();
  set_variable(env, kRunIdVariable, run_id);

  time_t started = time(nullptr);
  ChildOutcome outcome = run_child(a.command, env);
  if (!outcome.started) {
    if (outcome.exec_errno == ENOENT) {
      std::fprintf(stderr, "cublasspy run: %s: command not found\n", a.command.front().c_str());
    } else {
      std::fprintf(stderr, "cublasspy run: %s: %s\n", a.command.front().c_str(), std::strerror(outcome.exec_errno));
    }
    return outcome.shell_status();
  }

  // Every trace of the run learns how the command ended (the report says so even when the
  // command could not record it: _exit, the loader's symbol lookup error, SIGKILL).
  std::vector<std::string> paths = find_run_traces(tmpl, run_id, started);
  // A trace that cannot take it (damaged, or from an older shim) is left as it is: the report
  // below says what is wrong with a damaged one, and an old one reads as it always did.
  for (const std::string& path : paths) (void)record_launcher_wait(path, outcome.pid, outcome.wait_status);
  OpenedTraces opened = open_traces(paths);
  // The logs of every process of the run that is gone, those whose trace was removed included.
  remove_empty_cublaslt_logs(lt_log, started);
  if (a.summary == "never") return outcome.shell_status();
  for (const std::string& e : opened.errors) std::fprintf(stderr, "cublasspy run: %s\n", e.c_str());

  ReportOptions options;
  nlohmann::ordered_json report = build_report(opened.pointers(), options);
  bool trouble = outcome.signaled || !opened.errors.empty();
  for (const auto& trace : report["traces"]) {
    // An exit that only the launcher saw ran no exit handler: worth showing unless it was 0.
    const auto& end = trace["end"];
    // An image that replaced itself by exec ended normally: the new image is the one that exits.
    const bool ended = end["state"] == "exited" || end["state"] == "exec";
    // A failed load the program went on without is no trouble (report_model: "shrugged_off").
    const uint64_t shrugged = trace.contains("shrugged_off") ? trace["shrugged_off"].size() : 0;
    trouble = trouble || !trace["first_failure"].is_null() ||
              trace["totals"]["failed"].get<uint64_t>() > shrugged || !ended ||
              (end["recorded_by"] == "launcher" && end["exit_status"] != 0);
  }
  for (const auto& d : report["diagnoses"]) trouble = trouble || d["severity"] == "error";

  bool show = a.summary == "always" || (a.summary == "auto" && trouble);
  std::string files;
  for (const TraceFile& t : opened.traces) files += " " + t.path();
  std::string out;
  if (paths.empty()) {
    // Without a trace, `run` cannot tell a clean process from one that made no CUDA call. A
    // command that failed without one is left to say so itself, unless a summary was asked for.
    const bool every_trace_kept = keeps_every_trace(a.keep);
    if (every_trace_kept && show) {
      out = "\ncublasspy run: no trace was written (the command made no intercepted call)\n";
    } else if (!every_trace_kept && (show || outcome.shell_status() == 0)) {
      out = "\ncublasspy run: no trace kept: the run was clean, or made no intercepted call "
            "(--keep always keeps every trace)\n";
    }
  } else if (show) {
    TextOptions text;
    text.color = use_color(STDERR_FILENO, ColorChoice::kAuto);
    out = "\n" + render_text(report, text) + "\nfull report: cublasspy report --all" + files + "\n";
  } else if (!files.empty()) {
    out = "\ncublasspy run: trace" + std::string(opened.traces.size() > 1 ? "s" : "") + " kept:" + files + "\n";
  }
  // Something went wrong: the one file a bug report needs (report, traces, reproducers).
  if (trouble && !files.empty()) {
    out += "bug report:  cublasspy bundle -o cublasspy-bundle-" + std::to_string(outcome.pid) + ".tar.gz" + files + "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stderr);
  return outcome.shell_status();
}

}  // namespace

SubcommandAction attach_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-o,--trace", a->trace_template,
                 "Trace path template: %p pid, %h host, %r rank, %t start time, %% (default "
                 "cublasspy-%p.cbt in the current directory)")
      ->check(CLI::Validator(
          [](std::string& v) { return v.empty() ? std::string("the template must not be empty") : std::string(); },
          ""))
      ->type_name("TEMPLATE");
  app.add_flag("--check", a->check, "Validate the arguments before each call (CUBLASSPY_CHECK=1)");
  // `--sync` alone or `--sync all`; the command comes after "--", so the optional value cannot
  // swallow it.
  app.add_option("--sync", a->sync,
                 "Synchronize before and after each GEMM and pin asynchronous errors to it "
                 "(CUBLASSPY_SYNC=1); `--sync all` also after every kernel launch, copy and memset "
                 "(CUBLASSPY_SYNC=all)")
      ->expected(0, 1)
      ->default_str("1")
      ->check(CLI::IsMember({"", "1", "all"}))
      ->each([a](const std::string& v) { a->sync = v.empty() ? "1" : v; })
      ->type_name("[all]");
  app.add_option("--scan", a->scan, "NaN/Inf scan of GEMM operands (CUBLASSPY_SCAN)")
      ->check(config_validator(&parse_scan_mode, "none, inputs, outputs, all"))
      ->type_name("MODE");
  app.add_option("--dump", a->dump, "Save operands as .npy next to the trace (CUBLASSPY_DUMP)")
      ->check(config_validator(&parse_dump_mode, "none, failing, all"))
      ->type_name("MODE");
  app.add_option("--stacks", a->stacks,
                 "Where the Python and native locations of calls are recorded (CUBLASSPY_STACKS)")
      ->check(config_validator(&parse_stack_mode, "none, failing, all"))
      ->type_name("MODE");
  app.add_option("--on-error", a->on_error, "What to do when a call fails (CUBLASSPY_ON_ERROR)")
      ->check(config_validator(&parse_on_error, "continue, abort, trap"))
      ->type_name("MODE");
  app.add_option("--ring", a->ring, "Call records kept in the flight recorder (CUBLASSPY_RING)")
      ->check(config_validator(&parse_ring, "a whole number from 16 to 4194304"))
      ->type_name("N");
  app.add_option("--log", a->log, "Where the shim's warnings go: stderr, off, or a file (CUBLASSPY_LOG)")
      ->type_name("DEST");
  app.add_option("--keep", a->keep,
                 "Which traces stay after a process exits: incident (a process that exited cleanly "
                 "leaves none; the default), always (CUBLASSPY_KEEP)")
      ->check(config_validator(&parse_keep_mode, "incident, always"))
      ->type_name("WHEN");
  app.add_option("--summary", a->summary,
                 "Print the report's summary on stderr: auto (when something went wrong), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
  // After "--" everything is the command's, options included; without "--" a command that
  // takes options of its own would have them read as run's.
  app.add_option("command", a->command, "The command to run and its arguments, after --")->required();
  return [a] { return run_command(*a); };
}

}  // namespace cublasspy::tools
