// cublasspy: the command-line tool. Subcommands come from one table below; each lives in its
// own cmd_<name>.cpp. Exit statuses: the subcommand's, or 2 for a usage error (docs/CONTRACT.md).
#include <cstdio>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/subcommand.h"
#include "cublasspy_version.h"

namespace cublasspy::tools {

SubcommandAction attach_run(CLI::App& app);
SubcommandAction attach_report(CLI::App& app);
SubcommandAction attach_replay(CLI::App& app);
SubcommandAction attach_doctor(CLI::App& app);
SubcommandAction attach_bundle(CLI::App& app);

// THE table of subcommands: one line each.
const Subcommand kSubcommands[] = {
    {"run", "Run a command under the shim and summarize what went wrong", &attach_run},
    {"report", "Print what a trace (or several) recorded: text, --json, or --perfetto", &attach_report},
    {"replay", "Re-execute a captured GEMM call in a fresh process and say what its outcome means", &attach_replay},
    {"doctor", "Check this machine's CUDA set-up without running a workload", &attach_doctor},
    {"bundle", "Write one .tar.gz for a bug report: report, traces, reproducers, dumps, doctor", &attach_bundle},
};

}  // namespace cublasspy::tools

int main(int argc, char** argv) {
  using namespace cublasspy::tools;
  CLI::App app("cublasspy: record, explain and replay cuBLAS and CUDA runtime calls", "cublasspy");
  app.set_version_flag("--version", std::string("cublasspy ") + CUBLASSPY_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<std::pair<CLI::App*, SubcommandAction>> actions;
  for (const Subcommand& s : kSubcommands) {
    CLI::App* sub = app.add_subcommand(s.name, s.summary);
    actions.emplace_back(sub, s.attach(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int printed = app.exit(e);  // prints help/version (status 0) or the error (non-zero)
    return printed == 0 ? kExitOk : kExitUsage;
  }
  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    try {
      return action();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cublasspy %s: internal error: %s\n", sub->get_name().c_str(), e.what());
      return 1;
    }
  }
  std::fputs(app.help().c_str(), stderr);
  return kExitUsage;
}
