#include "diagnose/cublaslt_log.h"

#include <fstream>

#include <fmt/format.h>

#include "common/diagnosis_ids.h"
#include "diagnose/trace_facts.h"

namespace cublasspy::diagnoses {
namespace {

// "[x]" at `at`: the text between the brackets, and `at` moved past them.
std::optional<std::string_view> bracketed(std::string_view line, size_t& at) {
  if (at >= line.size() || line[at] != '[') return std::nullopt;
  const size_t close = line.find(']', at + 1);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inside = line.substr(at + 1, close - at - 1);
  at = close + 1;
  return inside;
}

std::string setting(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

bool readable_file(const std::string& path, std::ifstream& in) {
  in.open(path);
  return in.is_open();
}

bool setup_failure(const Diagnosis& d) {
  for (const char* id : ids::kSetupFailureIds) {
    if (d.id == id) return true;
  }
  return false;
}

// The failing cuBLASLt call whose line a finding quotes: its own call; for a finding that says
// why CUDA could not work at all (which names the first call that showed it), the process's first
// failing cuBLASLt call, whose words say how the library met the same cause.
const LtFailure* lt_failure_of(const TraceFacts& f, const Diagnosis& d) {
  if (d.call) {
    if (auto it = f.lt_failures.find(*d.call); it != f.lt_failures.end()) return &it->second;
  }
  return setup_failure(d) && !f.lt_failures.empty() ? &f.lt_failures.begin()->second : nullptr;
}

// How to make cuBLASLt explain itself next time.
constexpr const char* kHowToAsk =
    " cuBLASLt says why it refuses a call when asked: rerun under `cublasspy run`, which asks for its log "
    "beside the trace and quotes it here, or set CUBLASLT_LOG_MASK=5 (errors and hints) and "
    "CUBLASLT_LOG_FILE=cublaslt-%i.log yourself.";

}  // namespace

std::optional<CublasLtLogLine> parse_cublaslt_log_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  size_t at = 0;
  auto time = bracketed(line, at);
  auto library = bracketed(line, at);
  auto pid = bracketed(line, at);
  auto level = bracketed(line, at);
  auto function = bracketed(line, at);
  if (!time || !library || !pid || !level || !function || *library != "cublasLt") return std::nullopt;
  CublasLtLogLine out;
  out.time = *time;
  out.level = *level;
  out.function = *function;
  std::string_view message = line.substr(at);
  if (!message.empty() && message.front() == ' ') message.remove_prefix(1);
  out.message = message;
  out.text = line;
  return out;
}

std::string cublaslt_log_path(std::string_view value, int64_t pid) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '%' && i + 1 < value.size() && value[i + 1] == 'i') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += value[i];
    }
  }
  return out;
}

CublasLtLog read_cublaslt_log(const std::map<std::string, std::string>& env, int64_t pid,
                              const std::string& trace_path) {
  CublasLtLog log;
  const std::string file = setting(env, kCublasLtLogFile);
  const bool asked = !setting(env, kCublasLtLogLevel).empty() || !setting(env, kCublasLtLogMask).empty();
  if (file.empty()) {
    log.state = asked ? CublasLtLog::State::kToStdout : CublasLtLog::State::kNotAsked;
    return log;
  }
  log.path = cublaslt_log_path(file, pid);
  std::ifstream in;
  bool found = readable_file(log.path, in);
  if (!found && log.path.front() != '/') {  // relative to the process's directory, not recorded
    const size_t slash = trace_path.rfind('/');
    const std::string directory = slash == std::string::npos ? std::string() : trace_path.substr(0, slash + 1);
    const std::string beside = directory + log.path;
    if (readable_file(beside, in)) {
      log.path = beside;
      found = true;
    }
  }
  if (!found) {
    log.state = CublasLtLog::State::kUnreadable;
    return log;
  }
  log.state = CublasLtLog::State::kRead;
  for (std::string line; std::getline(in, line);) {
    std::optional<CublasLtLogLine> parsed = parse_cublaslt_log_line(line);
    if (parsed && parsed->level == "Error") log.errors.push_back(std::move(*parsed));
  }
  return log;
}

std::vector<const CublasLtLogLine*> lines_for_failure(const CublasLtLog& log, const std::string& function,
                                                      uint32_t ordinal) {
  uint32_t seen = 0;
  for (const CublasLtLogLine& line : log.errors) {
    if (line.function != function) continue;
    if (seen++ == ordinal) return {&line};
  }
  return {};
}

void quote_cublaslt_log(const std::vector<TraceFacts>& facts, std::vector<Diagnosis>& found) {
  for (const TraceFacts& f : facts) {
    if (!f.pid || f.lt_failures.empty()) continue;
    std::optional<CublasLtLog> log;  // read once a finding needs it
    for (Diagnosis& d : found) {
      if (d.pid != f.pid) continue;
      const LtFailure* failure = lt_failure_of(f, d);
      if (failure == nullptr) continue;
      if (!log) log = read_cublaslt_log(f.env, *f.pid, f.trace->path());
      const bool refusal = d.id == ids::kInvalidValue || d.id == ids::kConfigurationNotSupported;
      std::vector<const CublasLtLogLine*> lines = lines_for_failure(*log, failure->function, failure->ordinal);
      if (!lines.empty()) {
        d.library_log_file = log->path;
        std::string quoted;
        for (const CublasLtLogLine* line : lines) {
          d.library_log.push_back(line->text);
          quoted += (quoted.empty() ? "\"" : " \"") + line->message + "\"";
        }
        d.evidence += fmt::format(" cuBLASLt's log ({}) says: {}", log->path, quoted);
        continue;
      }
      if (!refusal) continue;
      switch (log->state) {
        case CublasLtLog::State::kNotAsked: d.advice += kHowToAsk; break;
        case CublasLtLog::State::kToStdout:
          d.advice += fmt::format(" cuBLASLt was asked for its log ({} or {}) without {}: its lines went to the "
                                  "program's standard output.",
                                  kCublasLtLogLevel, kCublasLtLogMask, kCublasLtLogFile);
          break;
        case CublasLtLog::State::kUnreadable:
          d.evidence += fmt::format(" cuBLASLt's log ({}) cannot be read here.", log->path);
          break;
        case CublasLtLog::State::kRead:
          d.evidence += fmt::format(" cuBLASLt's log ({}) has no error line for {}'s failure #{}.", log->path,
                                    failure->function, failure->ordinal + 1);
          break;
      }
    }
  }
}

}  // namespace cublasspy::diagnoses
