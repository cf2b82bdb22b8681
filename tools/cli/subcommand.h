// How a subcommand plugs into the tool: its file (cmd_<name>.cpp) provides one attach function
// that declares the subcommand's options on its CLI11 app and returns the action main() runs
// when the user chose it. main.cpp lists the subcommands in one table.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace cublasspy::tools {

// The action's value is the tool's exit status.
using SubcommandAction = std::function<int()>;
using AttachSubcommand = SubcommandAction (*)(CLI::App& app);

struct Subcommand {
  const char* name;
  const char* summary;
  AttachSubcommand attach;
};

// Exit statuses every subcommand shares.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;  // bad option or value; for `report`, an unreadable trace

// A CLI11 check built on one of config.h's parsers, so `run --scan x` and CUBLASSPY_SCAN=x accept
// exactly the same words. `accepted` lists them for the message.
template <typename T>
CLI::Validator config_validator(bool (*parse)(std::string_view, T&), std::string accepted) {
  return CLI::Validator(
      [parse, accepted](std::string& value) -> std::string {
        T ignored{};
        return parse(value, ignored) ? std::string() : "'" + value + "' is not one of: " + accepted;
      },
      accepted);
}

}  // namespace cublasspy::tools
