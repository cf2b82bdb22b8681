#include "support/diagnose_helpers.h"

#include <gtest/gtest.h>

namespace cublasspy::test {

std::string explain(const TracedRun& run, const std::vector<Diagnosis>& found) {
  std::string out = "program output:\n" + run.output + "traces:";
  for (const std::string& t : run.traces) out += " " + t;
  for (const std::string& e : run.errors) out += "\n  unreadable: " + e;
  out += "\nfindings:\n";
  for (const Diagnosis& d : found) {
    out += "  [" + std::string(severity_name(d.severity)) + "] " + d.id + " (pid " +
           (d.pid ? std::to_string(*d.pid) : "null") + ", call " + (d.call ? std::to_string(*d.call) : "null") +
           "): " + d.summary + "\n    evidence: " + d.evidence + "\n    advice: " + d.advice + "\n";
  }
  return out;
}

std::string function_of_call(const TracedRun& run, int64_t pid, uint64_t seq) {
  for (const TraceFile& t : run.opened) {
    if (t.process().get("pid") != std::to_string(pid)) continue;
    std::string name;
    t.for_each_call([&](const CallView& c) {
      if (c.seq == seq) name = c.function_name();
    });
    return name;
  }
  return "";
}

const Diagnosis& the_finding(const std::vector<Diagnosis>& found, const std::string& id) {
  static const Diagnosis kNone;
  auto matches = with_id(found, id);
  EXPECT_EQ(matches.size(), 1u) << "findings with id " << id;
  return matches.empty() ? kNone : *matches.front();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace cublasspy::test
