// A call failed thousands of times from one place (a probe in a loop): each site's first
// failure keeps its location beside the ring, the later ones count and refer to it, the side
// area does not fill, and the finding counts every failure, not the records the ring still holds.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"
#include "support/tool_tests.h"
#include "trace/stack_codec.h"

namespace cublasspy::test {
namespace {

constexpr int kRepeats = 5000;

TracedRun run_storm() {
  RunOptions o;
  o.env = {{"STANDIN_FAIL", "cublasSgemm_v2:*:13"}, {"CUBLASSPY_RING", "256"}};
  o.args = {std::to_string(kRepeats)};
  return run_traced(program_path("diag_failure_storm"), o);
}

// The innermost frame of the native location among `entries`, or "".
std::string innermost_function(const std::vector<SideEntryView>& entries) {
  for (const SideEntryView& e : entries) {
    if (e.kind != static_cast<uint32_t>(format::SideKind::kNativeStack)) continue;
    std::optional<NativeStack> s = decode_native_stack(e.bytes);
    if (s && !s->frames.empty()) return s->frames[0].symbol;
  }
  return "";
}

TEST(FailureSites, EachSiteKeepsItsFirstFailureAndCountsTheRest) {
  TracedRun run = run_storm();
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ASSERT_TRUE(contains(run.output, "failed 5000 of 5000, then 13")) << run.output;
  ASSERT_EQ(run.opened.size(), 1u) << run.output;
  const TraceFile& t = run.opened[0];

  std::vector<FailureSiteView> sites = t.failure_sites();
  sites.erase(std::remove_if(sites.begin(), sites.end(),
                             [](const FailureSiteView& s) { return std::strcmp(s.function_name(), "cublasSgemm_v2") != 0; }),
              sites.end());
  ASSERT_EQ(sites.size(), 2u);
  std::sort(sites.begin(), sites.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
  EXPECT_EQ(sites[0].count, static_cast<uint64_t>(kRepeats));
  EXPECT_EQ(sites[1].count, 1u);
  for (const FailureSiteView& s : sites) {
    EXPECT_EQ(s.status, 13);
    ASSERT_TRUE(s.first) << "the site's first failure was not kept";
    EXPECT_EQ(s.first->rec().status, 13);
  }
  // Their locations, though the ring (256 records) was overwritten many times since.
  EXPECT_EQ(innermost_function(t.side_entries(*sites[0].first)), "probe_in_a_loop");
  EXPECT_EQ(innermost_function(t.side_entries(*sites[1].first)), "multiply_once_more");
  // Two locations taken, not one per failure: nothing dropped.
  EXPECT_EQ(t.header().side_dropped, 0u);
  EXPECT_LE(t.header().side_entries, 8u) << "locations were taken again for repeated failures";
  EXPECT_EQ(t.header().failures_unsited, 0u);

  // A repeated failure the ring still holds shares its site's first location.
  uint64_t repeats_held = 0, located = 0;
  t.for_each_call([&](const CallView& c) {
    if (std::strcmp(c.function_name(), "cublasSgemm_v2") != 0 || !c.failed() || c.seq == sites[0].first->seq ||
        c.seq == sites[1].first->seq) {
      return;
    }
    ++repeats_held;
    if (innermost_function(t.side_entries(c)) == "probe_in_a_loop") ++located;
  });
  EXPECT_GT(repeats_held, 100u);
  EXPECT_EQ(located, repeats_held);
}

TEST(FailureSites, TheFindingCountsEveryFailureAndNamesTheFirst) {
  TracedRun run = run_storm();
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "execution-failed");
  EXPECT_TRUE(contains(d.summary, "(5001 calls)")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "5001 calls of cublasSgemm_v2 failed the same way")) << d.evidence;
  ASSERT_TRUE(d.call);
  ASSERT_EQ(run.opened.size(), 1u);
  std::optional<CallView> first = run.opened[0].first_failure();
  ASSERT_TRUE(first);
  EXPECT_EQ(*d.call, first->seq) << "the finding names a later failure than the first";

  // The report's JSON gives the finding the first failure's location, and lists both sites.
  const auto report = tools::testing::report_json(run.traces);
  const auto& diagnoses = report["diagnoses"];
  auto it = std::find_if(diagnoses.begin(), diagnoses.end(), [](const auto& j) { return j["id"] == "execution-failed"; });
  ASSERT_NE(it, diagnoses.end()) << report.dump(1);
  ASSERT_TRUE(it->contains("native_location")) << it->dump(1);
  EXPECT_TRUE(contains((*it)["native_location"].dump(), "probe_in_a_loop")) << it->dump(1);
  const auto& sites = report["traces"][0]["failure_sites"];
  uint64_t total = 0;
  for (const auto& s : sites) {
    if (s["function"] == "cublasSgemm_v2") total += s["count"].get<uint64_t>();
  }
  EXPECT_EQ(total, static_cast<uint64_t>(kRepeats + 1)) << sites.dump(1);
}

}  // namespace
}  // namespace cublasspy::test
