// The diagnosis engine: gathers each trace's facts once (or takes them gathered, from the
// report's walk), runs every rule over them in the order below (root causes before their
// consequences) and orders the findings.
#include <algorithm>
#include <cstring>

#include "common/diagnosis.h"
#include "diagnose/cublaslt_log.h"
#include "diagnose/rule.h"
#include "diagnose/trace_facts.h"

namespace cublasspy {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "info";
}

namespace diagnoses {
namespace {

// THE rule table, one line per rule. Order matters: a rule may stay silent about a process
// that an earlier rule already explained (execution-failed: what nothing else explains; then
// reported-error: what the program reported of a failure nothing names).
constexpr Rule kRules[] = {
    &rule_no_driver,
    &rule_load_failure,
    &rule_driver_too_old,
    &rule_machine,
    &rule_gpu_hardware,
    &rule_device_enumeration,
    &rule_fork_after_cuda_init,
    &rule_cublas_init,
    &rule_mixed_libraries,
    &rule_no_kernel_image,
    &rule_crashed_in_call,
    &rule_killed_in_call,
    &rule_graph_replay,
    &rule_async_error,
    &rule_checks,
    &rule_scan,
    &rule_out_of_memory,
    &rule_execution_failed,
    &rule_reported_error,
};

bool same_process(const Diagnosis& d, const TraceFacts& facts) { return d.pid == facts.pid; }

}  // namespace

const Diagnosis* RuleContext::found_for(const TraceFacts& facts, std::span<const char* const> ids) const {
  for (const Diagnosis& d : found_) {
    if (!same_process(d, facts)) continue;
    for (const char* id : ids) {
      if (d.id == id) return &d;
    }
  }
  return nullptr;
}

bool RuleContext::failure_explained(const TraceFacts& facts, uint64_t seq) const {
  for (const Diagnosis& d : found_) {
    if (!same_process(d, facts) || !d.call || *d.call != seq) continue;
    const ids::IdInfo* info = ids::find_id(d.id);
    if (info == nullptr || info->kind != ids::IdKind::kScan) return true;
  }
  return false;
}

Diagnosis finding(const char* id, Severity severity, const TraceFacts& facts) {
  Diagnosis d;
  d.id = id;
  d.severity = severity;
  d.pid = facts.pid;
  return d;
}

}  // namespace diagnoses

std::vector<Diagnosis> diagnoses::diagnose_facts(const std::vector<TraceFacts>& facts) {
  std::vector<Diagnosis> found;
  RuleContext ctx(facts, found);
  for (Rule rule : kRules) rule(ctx);
  quote_cublaslt_log(facts, found);  // the library's own words beside the findings they explain
  // Most severe first; stable, so within a severity the causal order of the table survives.
  std::stable_sort(found.begin(), found.end(), [](const Diagnosis& a, const Diagnosis& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return found;
}

std::vector<Diagnosis> diagnose(const std::vector<const TraceFile*>& traces) {
  std::vector<diagnoses::TraceFacts> facts;
  facts.reserve(traces.size());
  for (const TraceFile* t : traces) {
    if (t != nullptr) facts.push_back(diagnoses::gather_facts(*t));
  }
  return diagnoses::diagnose_facts(facts);
}

}  // namespace cublasspy
