// The reader's two ways through a ring: one copy of each chunk once its writer is gone, and
// three (a seqlock over the copies) while a process may still write it. Both must hand out the
// same records in the same order: by start time, a thread's own calls in its order, a call in
// flight since a round of the ring ago put back in its place (the header's list of passed-over
// slots), a record caught being written counted as torn. Traces of format version 1 still read.
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "machine/process_info.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace cublasspy {
namespace {

constexpr int kThreads = 4, kCallsPerThread = 3000;
constexpr uint64_t kRing = 1024;  // claimed in blocks of 16 (format::claim_block_for)

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

format::FunctionEntry one_function() {
  format::FunctionEntry f{};
  std::strcpy(f.name, "traced_call");
  f.arg_count = 2;
  std::strcpy(f.args[0].name, "thread");
  f.args[0].kind = static_cast<uint8_t>(format::ArgKind::kUInt);
  std::strcpy(f.args[1].name, "call");
  f.args[1].kind = static_cast<uint8_t>(format::ArgKind::kUInt);
  return f;
}

format::RecordSlot* begin_call(TraceWriter& writer, ClaimCursor& cursor, format::RecordSlot& scratch,
                               uint64_t thread, uint64_t call, uint64_t* seq) {
  format::RecordSlot* slot = writer.claim(cursor, seq, &scratch);
  format::Record& rec = slot->call;
  rec.function_id = 0;
  rec.tid = static_cast<uint32_t>(1000 + thread);
  rec.start_ns = now_ns();
  rec.args[0] = thread;
  rec.args[1] = call;
  writer.count_call(0, cursor);
  return slot;
}

// In a child process: one call that never returns (claimed first, so the ring comes round to
// it many times), kThreads threads of completed calls, and a last call never published.
void write_trace_and_exit(const std::string& path) {
  TraceWriter writer;
  format::FunctionEntry f = one_function();
  KeyValueBlob info = collect_process_info(-1, start_time_text());
  if (!writer.open(path, kRing, &f, 1, info.bytes()).file_backed) _exit(3);
  format::RecordSlot scratch{};
  ClaimCursor hung_cursor;
  uint64_t seq = 0;
  format::RecordSlot* hung = begin_call(writer, hung_cursor, scratch, 99, 0, &seq);
  TraceWriter::publish_in_flight(hung, seq);
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&writer, t] {
      format::RecordSlot scratch{};
      ClaimCursor cursor;
      for (uint64_t i = 0; i < kCallsPerThread; ++i) {
        uint64_t seq = 0;
        format::RecordSlot* slot = begin_call(writer, cursor, scratch, t, i, &seq);
        TraceWriter::publish_in_flight(slot, seq);
        writer.complete(slot, seq, false, cursor);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ClaimCursor last_cursor;
  begin_call(writer, last_cursor, scratch, 98, 0, &seq);  // dies while writing the record
  _exit(0);
}

struct Visit {
  std::vector<CallView> calls;
  uint64_t held = 0, torn = 0;
};

Visit read_all(const std::string& path, TraceFile::Access access, bool* quiescent) {
  Visit v;
  std::string error;
  auto trace = TraceFile::open(path, error, access);
  EXPECT_TRUE(trace) << error;
  if (!trace) return v;
  *quiescent = trace->quiescent();
  trace->for_each_call([&](const CallView& c) { v.calls.push_back(c); });
  v.held = trace->records_held();
  v.torn = trace->torn_records();
  return v;
}

class ReaderAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cublasspy-reader-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/t.cbt";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) write_trace_and_exit(path_);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, path_;
};

TEST_F(ReaderAccess, QuiescentAndLiveReadsHandOutTheSameRecordsInStartTimeOrder) {
  bool copied = false, mapped = true;
  Visit by_copy = read_all(path_, TraceFile::Access::kAuto, &copied);
  Visit by_map = read_all(path_, TraceFile::Access::kAssumeLive, &mapped);
  EXPECT_TRUE(copied) << "the writer has exited: the trace is quiescent";
  EXPECT_FALSE(mapped);

  ASSERT_EQ(by_copy.calls.size(), by_map.calls.size());
  for (size_t i = 0; i < by_copy.calls.size(); ++i) {
    ASSERT_EQ(by_copy.calls[i].seq, by_map.calls[i].seq) << i;
    EXPECT_EQ(std::memcmp(&by_copy.calls[i].slot.call, &by_map.calls[i].slot.call, sizeof(format::Record)), 0) << i;
  }
  EXPECT_EQ(by_copy.held, by_map.held);
  EXPECT_EQ(by_copy.held, by_copy.calls.size()) << "records_held() counts what the walk hands out";
  EXPECT_EQ(by_copy.torn, 1u) << "the record the process died writing";
  EXPECT_EQ(by_map.torn, 1u);
  // The ring is full but for blocks left unused by threads that finished.
  EXPECT_GE(by_copy.calls.size(), kRing - kThreads * 16);
  EXPECT_LE(by_copy.calls.size(), kRing);

  // The call in flight since the start comes first (it began first), exactly once.
  ASSERT_FALSE(by_copy.calls.empty());
  EXPECT_TRUE(by_copy.calls.front().in_flight());
  EXPECT_EQ(by_copy.calls.front().rec().args[0], 99u);
  int in_flight = 0;
  std::map<uint64_t, int64_t> last_call;
  uint64_t previous_start = 0;
  for (const CallView& c : by_copy.calls) {
    in_flight += c.in_flight();
    EXPECT_GE(c.rec().start_ns, previous_start) << "seq " << c.seq << ": in start-time order";
    previous_start = c.rec().start_ns;
    const uint64_t thread = c.rec().args[0];
    auto [it, fresh] = last_call.emplace(thread, -1);
    EXPECT_GT(static_cast<int64_t>(c.rec().args[1]), it->second) << "thread " << thread << ": in its order";
    it->second = static_cast<int64_t>(c.rec().args[1]);
  }
  EXPECT_EQ(in_flight, 1);

  std::string error;
  auto trace = TraceFile::open(path_, error);
  ASSERT_TRUE(trace) << error;
  EXPECT_GT(trace->header().skipped_count, 0u) << "later rounds passed over the call in flight";
  EXPECT_EQ(trace->total_calls(), uint64_t{kThreads} * kCallsPerThread + 2);
}

TEST_F(ReaderAccess, AFileCutShortAfterOpeningEndsTheWalk) {
  std::string error;
  std::vector<TraceFile> traces;
  for (TraceFile::Access access : {TraceFile::Access::kAuto, TraceFile::Access::kAssumeLive}) {
    auto trace = TraceFile::open(path_, error, access);
    ASSERT_TRUE(trace) << error;
    traces.push_back(std::move(*trace));
  }
  const uint64_t keep = traces[0].header().ring_offset + 100 * format::kRecordBytes + 17;
  ASSERT_EQ(truncate(path_.c_str(), static_cast<off_t>(keep)), 0);
  for (const TraceFile& trace : traces) {
    size_t visited = 0;
    trace.for_each_call([&](const CallView&) { ++visited; });
    EXPECT_LE(visited, 101u) << "the slots still in the file (and the call in flight), no more";
  }
}

TEST(ReaderVersions, FormatVersionOneStillReadsInSeqOrder) {
  const std::string corpus = std::string(CUBLASSPY_FUZZ_CORPUS) + "/trace_reader/";
  for (const char* name : {"v1-hang_killed.cbt", "v1-threads_checks_scans.cbt", "v1-sgemm_loop_exited.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(corpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 1u) << name;
    uint64_t previous = 0, visited = 0, in_flight = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_GT(c.seq, previous) << name;
      previous = c.seq;
      ++visited;
      in_flight += c.in_flight();
    });
    EXPECT_EQ(visited, trace->records_held()) << name;
    EXPECT_GT(visited, 0u) << name;
    EXPECT_EQ(in_flight, std::string(name) == "v1-hang_killed.cbt" ? 1u : 0u) << name;
  }
}

}  // namespace
}  // namespace cublasspy
