// The fault plan: which call of which function fails, lies, crashes or hangs, read from the
// environment on first use (see README.md for the syntax):
//
//   STANDIN_FAIL=fn:N:status[;...]      STANDIN_WRONG_RESULT=fn:N[;...]
//   STANDIN_ASYNC_ERROR=fn:N:code[;...] STANDIN_CRASH=fn:N[:SIGNAME][;...]
//   STANDIN_HANG=fn:N[;...]             STANDIN_FAIL_SHAPE=m,n,k:status[;...]
//   STANDIN_DELAYED_ERROR=fn:N:code[;...]
//
// STANDIN_ASYNC_ERROR and STANDIN_DELAYED_ERROR both make the call succeed and its work fault
// with `code`. The first makes the error sticky at once (the call's own error check after it
// sees it); the second leaves it pending until the next call that checks the device, as a GPU's
// kernel faults after its launch has returned (the model: sticky_error.cpp).
//
// N counts the calls of fn from 1, across all threads (atomics); `*` matches every call. The
// plan is immutable once read, so the common case (no plan) costs one load and a compare.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "blas_handles.h"
#include "standin_private.h"

namespace {

enum class Kind { Fail, WrongResult, AsyncError, DelayedError, Crash, Hang };

struct Rule {
  Kind kind;
  std::string fn;
  uint64_t nth = 0;  // 0: every call
  int value = 0;     // status (Fail), code (AsyncError, DelayedError) or signal number (Crash)
  mutable std::atomic<uint64_t> calls{0};
};

struct ShapeRule {
  int64_t m, n, k;
  int status;
};

struct Plan {
  std::deque<Rule> rules;  // deque: Rule holds an atomic and must not move
  std::vector<ShapeRule> shapes;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

bool to_int64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

bool parse_nth(const std::string& s, uint64_t* out) {
  if (s == "*") {
    *out = 0;
    return true;
  }
  int64_t v = 0;
  if (!to_int64(s, &v) || v < 1) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

int parse_signal(const std::string& s) {
  std::string name = s;
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  struct { const char* name; int number; } const table[] = {
      {"SEGV", SIGSEGV}, {"ABRT", SIGABRT}, {"BUS", SIGBUS}, {"FPE", SIGFPE}, {"ILL", SIGILL},
      {"KILL", SIGKILL}, {"TERM", SIGTERM}, {"TRAP", SIGTRAP}, {"INT", SIGINT},
  };
  for (const auto& e : table)
    if (name == e.name) return e.number;
  int64_t number = 0;
  if (to_int64(s, &number) && number > 0 && number < 65) return static_cast<int>(number);
  return 0;
}

void warn(const char* var, const std::string& entry) {
  std::fprintf(stderr, "standin: ignoring malformed %s entry '%s'\n", var, entry.c_str());
}

// Reads one fn:N[:value] variable. `value_kind`: 0 none, 1 required number, 2 optional signal.
void read_rules(Plan* plan, const char* var, Kind kind, int value_kind) {
  const char* env = std::getenv(var);
  if (env == nullptr || *env == '\0') return;
  for (const std::string& entry : split(env, ';')) {
    if (entry.empty()) continue;
    std::vector<std::string> f = split(entry, ':');
    uint64_t nth = 0;
    int64_t value = 0;
    bool ok = f.size() >= 2 && !f[0].empty() && parse_nth(f[1], &nth);
    if (ok && value_kind == 0) ok = f.size() == 2;
    if (ok && value_kind == 1) ok = f.size() == 3 && to_int64(f[2], &value);
    if (ok && value_kind == 2) {
      value = SIGSEGV;
      if (f.size() == 3) value = parse_signal(f[2]);
      ok = f.size() <= 3 && value != 0;
    }
    if (!ok) {
      warn(var, entry);
      continue;
    }
    Rule& r = plan->rules.emplace_back();
    r.kind = kind;
    r.fn = f[0];
    r.nth = nth;
    r.value = static_cast<int>(value);
  }
}

void read_shapes(Plan* plan) {
  const char* env = std::getenv("STANDIN_FAIL_SHAPE");
  if (env == nullptr || *env == '\0') return;
  for (const std::string& entry : split(env, ';')) {
    if (entry.empty()) continue;
    std::vector<std::string> f = split(entry, ':');
    std::vector<std::string> dims = f.size() == 2 ? split(f[0], ',') : std::vector<std::string>{};
    ShapeRule s{};
    int64_t status = 0;
    if (dims.size() != 3 || !to_int64(dims[0], &s.m) || !to_int64(dims[1], &s.n) ||
        !to_int64(dims[2], &s.k) || !to_int64(f[1], &status)) {
      warn("STANDIN_FAIL_SHAPE", entry);
      continue;
    }
    s.status = static_cast<int>(status);
    plan->shapes.push_back(s);
  }
}

const Plan& plan() {
  static const Plan* const p = [] {
    auto* plan = new Plan;  // process lifetime: calls may still arrive during static destruction
    read_rules(plan, "STANDIN_FAIL", Kind::Fail, 1);
    read_rules(plan, "STANDIN_WRONG_RESULT", Kind::WrongResult, 0);
    read_rules(plan, "STANDIN_ASYNC_ERROR", Kind::AsyncError, 1);
    read_rules(plan, "STANDIN_DELAYED_ERROR", Kind::DelayedError, 1);
    read_rules(plan, "STANDIN_CRASH", Kind::Crash, 2);
    read_rules(plan, "STANDIN_HANG", Kind::Hang, 0);
    read_shapes(plan);
    return plan;
  }();
  return *p;
}

[[noreturn]] void crash(int sig) {
  if (sig == SIGSEGV) standin::segfault_now();  // a genuine invalid access, not a raise()
  if (sig == SIGABRT) std::abort();
  std::raise(sig);
  std::_Exit(128 + sig);  // a signal the process ignores or handles and returns from
}

[[noreturn]] void hang() {
  for (;;) pause();
}

}  // namespace

extern "C" {

STANDIN_EXPORT standin_fault_action standin_enter(const char* fn) {
  standin_fault_action action{};
  const Plan& p = plan();
  if (p.rules.empty()) return action;
  for (const Rule& r : p.rules) {
    if (r.fn != fn) continue;
    const uint64_t call = r.calls.fetch_add(1, std::memory_order_relaxed) + 1;
    if (r.nth != 0 && call != r.nth) continue;
    switch (r.kind) {
      case Kind::Fail:
        if (!action.fail) {
          action.fail = 1;
          action.status = r.value;
        }
        break;
      case Kind::WrongResult: action.corrupt = 1; break;
      case Kind::AsyncError:
      case Kind::DelayedError:
        if (!action.async_error) {
          action.async_error = r.value;
          action.delayed = r.kind == Kind::DelayedError;
        }
        break;
      case Kind::Crash: crash(r.value);
      case Kind::Hang: hang();
    }
  }
  return action;
}

STANDIN_EXPORT int standin_shape_fault(int64_t m, int64_t n, int64_t k) {
  for (const ShapeRule& s : plan().shapes)
    if (s.m == m && s.n == n && s.k == k) return s.status;
  return 0;
}

}  // extern "C"
