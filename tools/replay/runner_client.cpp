#include "replay/runner_client.h"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>

#include "cli/shim_location.h"
#include "process/child.h"

extern char** environ;

namespace cublasspy::replay {
namespace {

constexpr const char* kRunnerName = "cublasspy-replay-runner";
constexpr size_t kStderrKept = 8192;

bool executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

bool is_shim(const std::string& entry) {
  auto slash = entry.rfind('/');
  return (slash == std::string::npos ? entry : entry.substr(slash + 1)) == "libcublasspy.so";
}

}  // namespace

const nlohmann::json* RunnerOutcome::event(const std::string& name) const {
  for (const nlohmann::json& e : events) {
    if (e.value("event", "") == name) return &e;
  }
  return nullptr;
}

std::optional<std::string> find_runner(std::vector<std::string>* looked) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("CUBLASSPY_REPLAY_RUNNER"); env && *env) candidates.emplace_back(env);
  const std::string dir = tools::executable_directory();
  if (!dir.empty()) {
    candidates.push_back(dir + "/" + kRunnerName);
    candidates.push_back(dir + "/../libexec/cublasspy/" + kRunnerName);
  }
  for (const std::string& c : candidates) {
    char real[PATH_MAX];
    if (realpath(c.c_str(), real) != nullptr && executable(real)) return std::string(real);
  }
  if (looked) *looked = candidates;
  return std::nullopt;
}

std::vector<std::string> runner_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) != 0) {
      env.push_back(entry);
      continue;
    }
    std::string kept, item;
    auto flush = [&] {
      if (!item.empty() && !is_shim(item)) kept += (kept.empty() ? "" : ":") + item;
      item.clear();
    };
    for (char ch : entry.substr(11)) {
      if (ch == ':' || ch == ' ') flush();
      else item += ch;
    }
    flush();
    if (!kept.empty()) env.push_back("LD_PRELOAD=" + kept);
  }
  return env;
}

RunnerOutcome run_runner(const std::string& runner, const std::string& plan_json, double timeout_s) {
  // Same process group as the tool: Ctrl-C at the terminal ends both.
  process::Spawn spawn;
  spawn.argv = {runner};
  spawn.environment = runner_environment();
  spawn.input = plan_json;
  spawn.out.mode = process::Output::Mode::kCapture;
  spawn.err = {process::Output::Mode::kCapture, kStderrKept, /*keep_last=*/true};
  if (timeout_s > 0) {
    spawn.limit = std::chrono::ceil<std::chrono::milliseconds>(std::chrono::duration<double>(timeout_s));
  }
  process::Outcome ran = process::run(spawn);

  RunnerOutcome out;
  out.started = ran.started;
  out.start_error = ran.start_error;
  out.timed_out = ran.timed_out;
  out.wall_s = ran.wall_s;
  out.exited = ran.exited;
  out.exit_code = ran.exit_code;
  out.signal = ran.signal;
  out.stderr_text = std::move(ran.err);
  const std::string& stdout_text = ran.out;

  // Events are the lines that parse as JSON objects with "event"; anything else a library
  // printed on stdout joins stderr's text.
  size_t start = 0;
  while (start < stdout_text.size()) {
    size_t end = stdout_text.find('\n', start);
    if (end == std::string::npos) end = stdout_text.size();
    std::string line = stdout_text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("event")) out.events.push_back(std::move(j));
    else out.stderr_text += line + "\n";
  }
  return out;
}

}  // namespace cublasspy::replay
