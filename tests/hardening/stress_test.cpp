// Many threads at once, churning handles while they call: the totals are exact however often
// the ring wraps, and every record the reader hands out is one call's arguments, whole: after
// the run, and while the process is still writing (the reader's seqlock check).
#include <sys/wait.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

struct ThreadOperands {
  uint64_t a = 0, b = 0, c = 0;
  std::set<uint64_t> handles;
};

// "thread T a 0x.. b 0x.. c 0x.. handles 0x..,0x.." lines of stress_threads.
std::map<uint64_t, ThreadOperands> operands_by_m(const std::string& out) {
  std::map<uint64_t, ThreadOperands> by;
  std::regex line(R"(thread (\d+) a (0x[0-9a-f]+) b (0x[0-9a-f]+) c (0x[0-9a-f]+) handles ([0-9a-fx,]+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    ThreadOperands o;
    o.a = std::stoull((*it)[2], nullptr, 16);
    o.b = std::stoull((*it)[3], nullptr, 16);
    o.c = std::stoull((*it)[4], nullptr, 16);
    std::string list = (*it)[5];
    for (size_t at = 0; at < list.size();) {
      size_t comma = list.find(',', at);
      o.handles.insert(std::stoull(list.substr(at, comma - at), nullptr, 16));
      at = comma == std::string::npos ? list.size() : comma + 1;
    }
    by[std::stoull((*it)[1]) + 1] = o;  // thread t passes m = t + 1
  }
  return by;
}

uint64_t calls_to(const TraceFile& trace, const char* function) {
  int id = function_id(trace, function);
  return id < 0 ? 0 : trace.counters(static_cast<uint16_t>(id)).calls;
}

uint64_t failures_of(const TraceFile& trace, const char* function) {
  int id = function_id(trace, function);
  return id < 0 ? 0 : trace.counters(static_cast<uint16_t>(id)).failed;
}

// The arguments a GEMM record must hold if it is one thread's call, whole; "" when it does.
std::string gemm_record_problem(const CallView& call, int threads) {
  uint64_t m = call.arg("m").value_or(0);
  if (m < 1 || m > static_cast<uint64_t>(threads)) return "m " + std::to_string(m);
  if (call.arg("n") != 2u || call.arg("k") != 3u || call.arg("lda") != m || call.arg("ldb") != 3u) {
    return "n/k/lda/ldb of m " + std::to_string(m);
  }
  uint64_t ldc = call.arg("ldc").value_or(0);
  if (ldc < m || ldc > m + 2) return "ldc " + std::to_string(ldc) + " for m " + std::to_string(m);
  if (!(call.rec().flags & format::kFlagAlphaKnown) || call.rec().alpha[0] != static_cast<double>(m)) {
    return "alpha of m " + std::to_string(m);
  }
  return "";
}

class Stress : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  std::vector<std::string> argv(int threads, int calls, int recreate_every) {
    return {program("hard_stress_threads"), std::to_string(threads), std::to_string(calls),
            std::to_string(recreate_every)};
  }
  Env env(int ring) { return traced(dir_) + on_standin() + Env{{"CUBLASSPY_RING", std::to_string(ring)}}; }
  ScratchDir dir_;
};

TEST_F(Stress, SixteenThreadsChurningHandlesKeepExactTotalsAndWholeRecords) {
  constexpr int kThreads = 16, kCalls = 1500, kEvery = 50, kRing = 64;
  ProcessResult r = run_process(argv(kThreads, kCalls, kEvery), env(kRing), isolated_in(dir_, std::chrono::seconds(120)));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  constexpr int kCreates = kThreads * (kCalls / kEvery);
  ASSERT_NE(r.out.find("creates " + std::to_string(kCreates) + " gemms " +
                       std::to_string(kThreads * kCalls) + " failed 0"),
            std::string::npos)
      << r.out;
  auto operands = operands_by_m(r.out);
  ASSERT_EQ(operands.size(), static_cast<size_t>(kThreads));

  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  const format::FileHeader& h = trace->header();
  EXPECT_EQ(calls_to(*trace, "cublasSgemm_v2"), uint64_t{kThreads} * kCalls);
  EXPECT_EQ(calls_to(*trace, "cublasCreate_v2"), uint64_t{kCreates});
  EXPECT_EQ(calls_to(*trace, "cublasDestroy_v2"), uint64_t{kCreates});
  for (const char* f : {"cublasSgemm_v2", "cublasCreate_v2", "cublasDestroy_v2"}) {
    EXPECT_EQ(failures_of(*trace, f), 0u) << f;
  }
  EXPECT_LE(trace->total_calls(), h.next_ticket) << "every call counted once and given one ticket";
  EXPECT_EQ(h.dropped_records, 0u) << "16 threads never fill a ring of 64 with calls in flight";
  // A full set, less the slots passed over a round earlier (one per thread at most).
  EXPECT_LE(trace->records_held(), uint64_t{kRing});
  EXPECT_GE(trace->records_held(), uint64_t{kRing - kThreads});
  EXPECT_EQ(trace->torn_records(), 0u);

  std::set<uint64_t> seqs;
  std::map<uint64_t, uint32_t> tid_of_m;
  int gemms = 0;
  for (const CallView& call : calls_of(*trace)) {
    EXPECT_TRUE(seqs.insert(call.seq).second) << "seq " << call.seq << " held twice";
    EXPECT_EQ(call.state, format::RecordState::kCompleted);
    EXPECT_EQ(call.rec().status, 0) << call.function_name();
    if (std::string(call.function_name()) != "cublasSgemm_v2") continue;
    ++gemms;
    EXPECT_EQ(gemm_record_problem(call, kThreads), "");
    uint64_t m = *call.arg("m");
    const ThreadOperands& o = operands[m];
    EXPECT_EQ(call.arg("a"), o.a);
    EXPECT_EQ(call.arg("b"), o.b);
    EXPECT_EQ(call.arg("c"), o.c);
    EXPECT_TRUE(o.handles.count(call.rec().handle)) << "a handle thread " << m - 1 << " never had";
    auto [at, fresh] = tid_of_m.emplace(m, call.rec().tid);
    EXPECT_EQ(at->second, call.rec().tid) << "records with m " << m << " from two threads";
  }
  EXPECT_GT(gemms, kRing / 2);
}

TEST_F(Stress, RingOfSixteenUnderSixteenThreadsStillCountsEveryCall) {
  // As many threads as slots: a call may find every slot taken by calls in flight and go
  // unrecorded (counted in dropped_records), but the totals never miss a call.
  constexpr int kThreads = 16, kCalls = 1000, kEvery = 100, kRing = 16;
  ProcessResult r = run_process(argv(kThreads, kCalls, kEvery), env(kRing), isolated_in(dir_, std::chrono::seconds(120)));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  const format::FileHeader& h = trace->header();
  EXPECT_EQ(calls_to(*trace, "cublasSgemm_v2"), uint64_t{kThreads} * kCalls);
  EXPECT_EQ(calls_to(*trace, "cublasCreate_v2"), uint64_t{kThreads} * (kCalls / kEvery));
  EXPECT_LE(trace->total_calls(), h.next_ticket);
  EXPECT_LT(h.dropped_records, trace->total_calls() / 10) << "dropping is the exception";
  EXPECT_EQ(trace->torn_records(), 0u);
  EXPECT_LE(trace->records_held(), uint64_t{kRing});
  for (const CallView& call : calls_of(*trace, "cublasSgemm_v2")) {
    EXPECT_EQ(gemm_record_problem(call, kThreads), "") << "seq " << call.seq;
  }
  RecordProperty("dropped_records", static_cast<int>(h.dropped_records));
}

TEST_F(Stress, ReaderOfALiveTraceOnlyEverSeesWholeRecords) {
  // The reader copies each record between two reads of its state word; a record rewritten
  // meanwhile is skipped (counted torn), never returned half old and half new.
  constexpr int kThreads = 16, kCalls = 4000, kEvery = 200, kRing = 64;
  RunningProcess running = start_process(argv(kThreads, kCalls, kEvery), env(kRing), isolated_in(dir_));
  const std::string path = trace_path(dir_, running.pid());
  int snapshots = 0, checked = 0, skipped_torn = 0;
  std::vector<std::string> problems;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    // Ended? (WNOWAIT: the child stays for wait() to reap below.)
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(running.pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == running.pid()) {
      break;
    }
    std::string error;
    auto trace = TraceFile::open(path, error);
    if (!trace) continue;  // not created yet
    ++snapshots;
    trace->for_each_call([&](const CallView& call) {
      if (std::string(call.function_name()) != "cublasSgemm_v2" || call.in_flight()) return;
      ++checked;
      std::string problem = gemm_record_problem(call, kThreads);
      if (!problem.empty() && problems.size() < 5) problems.push_back(problem);
    });
    skipped_torn += static_cast<int>(trace->torn_records());
  }
  ProcessResult r = running.wait();
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_TRUE(problems.empty()) << "a record mixing two calls was handed out: " << problems[0];
  EXPECT_GT(snapshots, 0);
  EXPECT_GT(checked, 0) << "the test never saw a record while the process ran";
  RecordProperty("live_snapshots", snapshots);
  RecordProperty("live_records_checked", checked);
  RecordProperty("live_records_skipped_torn", skipped_torn);
  auto trace = open_trace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(calls_to(*trace, "cublasSgemm_v2"), uint64_t{kThreads} * kCalls);
}

}  // namespace
}  // namespace cublasspy::integration
