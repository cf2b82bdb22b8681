// `report --perfetto FILE`: Chrome trace-event JSON with a process track per traced process, a
// thread track per thread, one slice per call carrying its arguments, and failures marked.
#include <set>

#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

using json = nlohmann::ordered_json;

TEST(Perfetto, OneSlicePerCallFailuresMarked) {
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir);
  ASSERT_FALSE(trace.empty());
  std::string out = dir / "calls.json";
  ProcessResult r = run_process({kTool, "report", "--perfetto", out, trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("process "), std::string::npos);  // the text report still printed

  json report = report_json({trace});
  const json& t = report["traces"][0];
  int64_t pid = t["process"]["pid"];
  json doc = json::parse(read_file(out));
  ASSERT_TRUE(doc["traceEvents"].is_array());

  bool named = false;
  std::set<uint64_t> threads;
  std::map<uint64_t, json> slices;  // by seq
  size_t failure_markers = 0;
  for (const json& e : doc["traceEvents"]) {
    EXPECT_EQ(e["pid"], pid);
    if (e["ph"] == "M" && e["name"] == "process_name") named = true;
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["tid"].get<uint64_t>());
    // A call's slice: "X" with its duration, or an instant for a handle setter, which has none.
    const bool call_instant = e["ph"] == "i" && (e["cat"] == "cublas" || e["cat"] == "cuda");
    if (e["ph"] == "X" || call_instant) slices[e["args"]["seq"].get<uint64_t>()] = e;
    if (e["ph"] == "i" && e["cat"] == "failure") ++failure_markers;
  }
  EXPECT_TRUE(named);
  EXPECT_EQ(slices.size(), t["calls"].size());
  size_t failed = 0;
  for (const json& c : t["calls"]) {
    ASSERT_TRUE(slices.count(c["seq"])) << c.dump();
    const json& s = slices[c["seq"].get<uint64_t>()];
    EXPECT_EQ(s["name"], c["function"]);
    EXPECT_EQ(s["tid"], c["tid"]);
    EXPECT_TRUE(threads.count(c["tid"].get<uint64_t>()));
    EXPECT_DOUBLE_EQ(s["ts"].get<double>(), c["start_ns"].get<double>() / 1000.0);
    if (c["duration_ns"].is_null()) {
      EXPECT_EQ(s["ph"], "i") << s.dump();
      EXPECT_FALSE(s.contains("dur")) << s.dump();
    } else {
      EXPECT_EQ(s["ph"], "X") << s.dump();
      EXPECT_DOUBLE_EQ(s["dur"].get<double>(), c["duration_ns"].get<double>() / 1000.0);
    }
    EXPECT_EQ(s["args"]["status_name"], c["status_name"]);
    if (c["failed"] == true) {
      ++failed;
      EXPECT_EQ(s["cname"], "terrible") << s.dump();
    } else {
      EXPECT_FALSE(s.contains("cname")) << s.dump();
    }
    if (c["function"] == "cublasSgemm_v2") {
      EXPECT_EQ(s["args"]["m"], 4);
    }
  }
  EXPECT_GT(failed, 0u);
  EXPECT_EQ(failure_markers, failed);
}

TEST(Perfetto, UnwritableFileIsReported) {
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir);
  ASSERT_FALSE(trace.empty());
  ProcessResult r = run_process({kTool, "report", "--perfetto", dir / "no-such-dir/calls.json", trace});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cublasspy::tools::testing
