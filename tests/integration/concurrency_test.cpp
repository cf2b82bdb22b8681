// Several threads recording into one small ring at once: the totals are exact although the ring
// wraps many times, and every record still held is one call's arguments, whole.
#include <map>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

constexpr int kThreads = 8, kCallsPerThread = 2000, kRing = 64;

struct Operands {
  uint64_t a = 0, b = 0, c = 0;
};

// "thread T a 0x.. b 0x.. c 0x.." lines of sgemm_threads.
std::map<int, Operands> operands_by_thread(const std::string& out) {
  std::map<int, Operands> by;
  std::regex line(R"(thread (\d+) a (0x[0-9a-f]+) b (0x[0-9a-f]+) c (0x[0-9a-f]+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    Operands o{std::stoull((*it)[2], nullptr, 16), std::stoull((*it)[3], nullptr, 16),
               std::stoull((*it)[4], nullptr, 16)};
    by[std::stoi((*it)[1])] = o;
  }
  return by;
}

TEST(ConcurrentCalls, TotalsAreExactAndEveryHeldRecordIsIntact) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process(
      {program("shim_sgemm_threads"), std::to_string(kThreads), std::to_string(kCallsPerThread)},
      traced(dir) + on_standin() + Env{{"CUBLASSPY_RING", std::to_string(kRing)}}, isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  std::map<int, Operands> operands = operands_by_thread(r.out);
  ASSERT_EQ(operands.size(), static_cast<size_t>(kThreads)) << r.out;

  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  const format::FileHeader& h = trace->header();
  int sgemm = function_id(*trace, "cublasSgemm_v2");
  ASSERT_GE(sgemm, 0);
  EXPECT_EQ(trace->counters(static_cast<uint16_t>(sgemm)).calls, uint64_t{kThreads} * kCallsPerThread);
  EXPECT_EQ(trace->counters(static_cast<uint16_t>(sgemm)).failed, 0u);
  EXPECT_LE(trace->total_calls(), h.next_ticket) << "every call counted once, and given one ticket";
  EXPECT_EQ(h.dropped_records, 0u) << "at most 8 calls are in flight at once: a slot is always free";
  EXPECT_EQ(h.ring_capacity, uint64_t{kRing});
  // The ring wrapped and holds a full set, less the slots passed over because their call was
  // still in flight a round earlier (one per thread at most) and completed since.
  EXPECT_LE(trace->records_held(), uint64_t{kRing});
  EXPECT_GE(trace->records_held(), uint64_t{kRing - kThreads}) << "the ring wrapped and holds a full set";
  EXPECT_EQ(trace->torn_records(), 0u);

  std::set<uint64_t> seqs;
  std::map<uint64_t, uint32_t> tid_of_m;
  std::set<uint32_t> tids;
  int checked = 0;
  for (const CallView& call : calls_of(*trace)) {
    EXPECT_TRUE(seqs.insert(call.seq).second) << "sequence number " << call.seq << " held twice";
    EXPECT_LE(call.seq, h.next_ticket);
    EXPECT_EQ(call.state, format::RecordState::kCompleted);
    if (std::string(call.function_name()) != "cublasSgemm_v2") continue;
    ++checked;
    const uint64_t m = *call.arg("m");
    ASSERT_GE(m, 1u);
    ASSERT_LE(m, uint64_t{kThreads});
    const Operands& o = operands[static_cast<int>(m) - 1];
    EXPECT_EQ(call.rec().status, 0);
    EXPECT_EQ(call.arg("n"), 2u);
    EXPECT_EQ(call.arg("k"), 3u);
    EXPECT_EQ(call.arg("lda"), m);
    EXPECT_EQ(call.arg("ldb"), 3u);
    uint64_t ldc = *call.arg("ldc");
    EXPECT_TRUE(ldc >= m && ldc <= m + 2) << "ldc " << ldc << " for m " << m;
    EXPECT_EQ(call.arg("a"), o.a) << "A of thread " << m - 1;
    EXPECT_EQ(call.arg("b"), o.b);
    EXPECT_EQ(call.arg("c"), o.c);
    EXPECT_EQ(call.arg("transa"), 0u);
    EXPECT_TRUE(call.rec().flags & format::kFlagAlphaKnown);
    EXPECT_EQ(call.rec().alpha[0], static_cast<double>(m)) << "alpha of thread " << m - 1;
    // One thread per m, and one m per thread.
    auto [at, fresh] = tid_of_m.emplace(m, call.rec().tid);
    EXPECT_EQ(at->second, call.rec().tid) << "records with m " << m << " from two threads";
    if (fresh) {
      EXPECT_TRUE(tids.insert(call.rec().tid).second) << "thread " << call.rec().tid << " with two m";
    }
  }
  EXPECT_GT(checked, kRing / 2) << "the ring's tail is made of the GEMMs";
}

}  // namespace
}  // namespace cublasspy::integration
