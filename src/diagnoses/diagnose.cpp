// The diagnosis engine: runs every rule over the traces and orders the findings. Each rule is a
// small function in its own file of src/diagnoses/ (owned by the diagnosis engineer); this file
// starts with an empty rule list so the tools build and report before the first rule exists.
#include <algorithm>
#include <functional>

#include "diagnosis.h"

namespace cublasspy {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "info";
}

namespace {

using Rule = std::function<void(const std::vector<const TraceFile*>&, std::vector<Diagnosis>&)>;

// The rules, in no particular order (the findings are sorted below). Add one line per rule.
const std::vector<Rule>& rules() {
  static const std::vector<Rule> kRules = {};
  return kRules;
}

}  // namespace

std::vector<Diagnosis> diagnose(const std::vector<const TraceFile*>& traces) {
  std::vector<Diagnosis> found;
  for (const Rule& rule : rules()) rule(traces, found);
  // Most severe first; stable, so the rules' own order (by time) survives within a severity.
  std::stable_sort(found.begin(), found.end(), [](const Diagnosis& a, const Diagnosis& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return found;
}

}  // namespace cublasspy
