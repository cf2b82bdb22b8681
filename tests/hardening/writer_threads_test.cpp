// The trace writer's ring under many threads, in-process, so that the sanitizer builds see it
// (the shim itself cannot carry a sanitizer runtime): 16 threads claim, fill, publish and
// complete records through TraceWriter exactly as intercept.h does, the ring wraps thousands
// of times, and a reader walks the live file meanwhile. Totals are exact, every record held is
// one thread's, whole, and the reader never hands out a record half rewritten. Two rings: 64
// slots (claimed one at a time) and 4096 (claimed in blocks, format::claim_block_for). Failing
// calls are counted at their failure sites, which the threads claim at once. And a signal
// handler recording a call in the middle of its thread's own.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace cublasspy {
namespace {

// More threads than counter stripes (format::kCounterStripes): the first 15 count on stripes of
// their own with plain increments, the others share stripe 0 with locked ones, and the total
// must be exact either way.
constexpr int kThreads = 20, kCallsPerThread = 80000;
static_assert(kThreads > static_cast<int>(format::kCounterStripes));
constexpr uint16_t kArgs = format::kMaxArgs;

// One function whose every argument slot a thread fills with the same value (its signature):
// a record mixing two writes shows two values.
std::vector<format::FunctionEntry> function_table() {
  std::vector<format::FunctionEntry> t(1);
  std::strcpy(t[0].name, "stress_call");
  t[0].arg_count = kArgs;
  for (uint16_t i = 0; i < kArgs; ++i) {
    std::snprintf(t[0].args[i].name, sizeof t[0].args[i].name, "a%u", i);
    t[0].args[i].kind = static_cast<uint8_t>(format::ArgKind::kUInt);
  }
  return t;
}

// The failing calls' sites (their return addresses).
constexpr uint64_t kSiteBase = 0x1000;
constexpr int kSites = 5;

uint64_t signature(int thread, int call) { return (uint64_t(thread + 1) << 32) | uint32_t(call); }

// "" when the record is one write of one thread's call; else what is wrong.
std::string record_problem(const CallView& call) {
  const format::Record& r = call.rec();
  uint64_t s = r.args[0];
  for (uint16_t i = 1; i < kArgs; ++i) {
    if (r.args[i] != s) return "arguments from two calls in seq " + std::to_string(call.seq);
  }
  uint64_t thread = (s >> 32) - 1;
  if (thread >= kThreads || r.tid != thread + 1000) return "tid/thread mismatch in seq " + std::to_string(call.seq);
  if (r.start_ns != call.seq) return "start_ns is not the seq in seq " + std::to_string(call.seq);
  return "";
}

class WriterThreads : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cublasspy-writer-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_P(WriterThreads, MoreThreadsThanCounterStripesWrapTheRingWithExactTotalsAndWholeRecords) {
  const uint64_t kRing = GetParam();
  std::vector<format::FunctionEntry> table = function_table();
  TraceWriter writer;
  const std::string path = dir_ + "/writer.cbt";
  OpenResult opened = writer.open(path, kRing, table.data(), 1, std::string("pid\0" "1\0", 6));
  ASSERT_TRUE(opened.ok && opened.file_backed) << opened.warning;

  std::atomic<bool> writing{true};
  std::atomic<uint64_t> failures_made{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      format::RecordSlot scratch{};
      ClaimCursor cursor;
      for (int i = 0; i < kCallsPerThread; ++i) {
        uint64_t seq = 0;
        format::RecordSlot* slot = writer.claim(cursor, &seq, &scratch);
        format::Record& rec = slot->call;
        rec.function_id = 0;
        rec.tid = static_cast<uint32_t>(t + 1000);
        rec.start_ns = seq;
        for (uint16_t a = 0; a < kArgs; ++a) rec.args[a] = signature(t, i);
        writer.count_call(0, cursor);
        TraceWriter::publish_in_flight(slot, seq);
        const bool failed = i % 997 == 0;
        rec.status = failed ? 13 : 0;
        if (failed) {
          failures_made.fetch_add(1);
          // Five sites, which every thread meets at once: counted as intercept.h counts them.
          FailureSiteKey key;
          key.return_address = kSiteBase + (i / 997) % kSites;
          key.status = 13;
          const FailureSiteCount site = writer.failure_sites().count(key);
          slot->failure_site = site.index >= 0 ? static_cast<uint32_t>(site.index) + 1 : 0;
          if (site.first) writer.failure_sites().keep_first(site.index, slot, seq);
        }
        writer.complete(slot, seq, failed, cursor);
      }
    });
  }
  // A reader of the live file, as `cublasspy report` on a running job would be.
  int snapshots = 0, checked = 0;
  std::string live_problem;
  std::thread reader([&] {
    while (writing.load()) {
      std::string error;
      auto trace = TraceFile::open(path, error);
      if (!trace) continue;
      ++snapshots;
      trace->for_each_call([&](const CallView& c) {
        ++checked;
        std::string p = record_problem(c);
        if (!p.empty() && live_problem.empty()) live_problem = p;
      });
      for (const FailureSiteView& site : trace->failure_sites()) {
        std::string p = site.first ? record_problem(*site.first) : "";
        if (!p.empty() && live_problem.empty()) live_problem = "failure site's first: " + p;
      }
    }
  });
  for (std::thread& t : threads) t.join();
  writing.store(false);
  reader.join();
  EXPECT_EQ(live_problem, "") << "the live reader handed out a torn record";
  EXPECT_GT(snapshots, 0);
  RecordProperty("live_snapshots", snapshots);
  RecordProperty("live_records_checked", checked);

  std::string error;
  auto trace = TraceFile::open(path, error);
  ASSERT_TRUE(trace) << error;
  const uint64_t total = uint64_t{kThreads} * kCallsPerThread;
  EXPECT_EQ(trace->counters(0).calls, total);
  EXPECT_EQ(trace->counters(0).failed, failures_made.load());
  EXPECT_EQ(trace->header().dropped_records, 0u) << "at most 16 slots are ever in flight";
  EXPECT_EQ(trace->torn_records(), 0u);
  // Slots whose ticket went to a block its thread finished without using keep an older
  // record, which counts as overwritten: the ring holds at most its size.
  EXPECT_LE(trace->records_held(), kRing);
  EXPECT_GE(trace->records_held(), kRing - kThreads * (format::claim_block_for(kRing) + 1));
  uint64_t held = 0, previous = 0;
  std::vector<int64_t> last_call(kThreads, -1);
  trace->for_each_call([&](const CallView& c) {
    ++held;
    EXPECT_EQ(record_problem(c), "");
    EXPECT_GT(c.seq, previous) << "in start-time order (start_ns is the seq here), each once";
    EXPECT_LE(c.seq, trace->header().next_ticket);
    previous = c.seq;
    const uint64_t thread = (c.rec().args[0] >> 32) - 1, call = c.rec().args[0] & 0xffffffffu;
    if (thread < kThreads) {
      EXPECT_GT(static_cast<int64_t>(call), last_call[thread]) << "a thread's calls in its order";
      last_call[thread] = static_cast<int64_t>(call);
    }
  });
  EXPECT_EQ(held, trace->records_held());
  auto first = trace->first_failure();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->rec().status, 13);
  EXPECT_EQ(record_problem(*first), "");
  EXPECT_EQ(first->rec().args[0] & 0xffffffffu, 0u) << "the first failure is some thread's call 0";

  // Every failure counted at its site, each site's first whole; a site two threads met at the
  // same instant may have two entries, which count together.
  uint64_t site_total = 0;
  std::set<uint64_t> addresses;
  for (const FailureSiteView& site : trace->failure_sites()) {
    site_total += site.count;
    addresses.insert(site.return_address);
    ASSERT_TRUE(site.first) << "site " << site.index << " has no first failure";
    EXPECT_EQ(site.first->rec().status, 13);
    EXPECT_EQ(record_problem(*site.first), "");
  }
  EXPECT_EQ(site_total, failures_made.load());
  EXPECT_EQ(addresses.size(), static_cast<size_t>(kSites));
  EXPECT_EQ(trace->header().failures_unsited, 0u);
}

// The launch ring (format version 6): threads take tickets in blocks and count in tables of
// their own, more threads than there are tables (the rest share table 0). Totals stay exact
// however small the ring. In a ring that does not wrap, no entry is torn or lost and the reader
// hands the entries out in launch order (start_ns is a shared counter taken after the ticket
// here, so that order is known), each thread's in its order. (Wrapping, an entry is written
// once without a lock: a thread stalled between its ticket and its stores while the others
// take three quarters of the ring may leave it mixed with a newer launch's.)
class LaunchRingThreads : public WriterThreads {};

TEST_P(LaunchRingThreads, MoreThreadsThanCountTablesKeepExactTotalsAndLaunchOrder) {
  const uint64_t kRing = GetParam();
  constexpr int kLaunchThreads = format::kLaunchCountTables + 4, kLaunchesPerThread = 4000, kKernels = 3;
  const uint64_t total = uint64_t{kLaunchThreads} * kLaunchesPerThread;
  const bool wraps = kRing < total;
  std::vector<format::FunctionEntry> table = function_table();
  TraceWriter writer;
  const std::string path = dir_ + "/launches.cbt";
  OpenResult opened = writer.open(path, 64, table.data(), 1, std::string("pid\0" "1\0", 6),
                                  TraceWriter::kDefaultSideBytes, kRing);
  ASSERT_TRUE(opened.ok && opened.file_backed) << opened.warning;
  std::atomic<uint64_t> clock{1};
  std::vector<std::thread> threads;
  for (int t = 0; t < kLaunchThreads; ++t) {
    threads.emplace_back([&, t] {
      LaunchCursor cursor;
      for (int i = 0; i < kLaunchesPerThread; ++i) {
        uint64_t ticket = 0;
        format::LaunchEntry* e = writer.claim_launch(cursor, &ticket);
        e->function_id = 0;
        e->tid = static_cast<uint32_t>(t);
        e->start_ns = clock.fetch_add(1);
        e->stream = e->bytes = signature(t, i);
        const int kernel = (t + i) % (kKernels + 1);  // kKernels: a wait, with no kernel
        e->kernel = kernel == kKernels ? format::kNoKernel
                                       : writer.kernel_index(uint64_t{0x1000} * (kernel + 1), 0,
                                                             [](void*, char* out, size_t) { out[0] = 'k'; }, nullptr);
        TraceWriter::count_launch(cursor, e->kernel);
        TraceWriter::complete_launch(e, ticket);
      }
    });
  }
  for (std::thread& t : threads) t.join();

  std::string error;
  auto trace = TraceFile::open(path, error);
  ASSERT_TRUE(trace) << error;
  EXPECT_EQ(trace->total_launches(), total);
  EXPECT_EQ(trace->header().launch_tables_taken, format::kLaunchCountTables - 1);
  uint64_t kernel_launches = 0;
  std::vector<KernelTotal> totals = trace->kernel_totals();
  EXPECT_EQ(totals.size(), size_t{kKernels});
  for (const KernelTotal& k : totals) kernel_launches += k.launches;
  uint64_t waits = 0;
  for (int t = 0; t < kLaunchThreads; ++t) {
    for (int i = 0; i < kLaunchesPerThread; ++i) waits += (t + i) % (kKernels + 1) == kKernels;
  }
  EXPECT_EQ(kernel_launches, total - waits) << "every kernel launch counted once";
  uint64_t held = 0, previous = 0;
  std::vector<int64_t> last(kLaunchThreads, -1);
  trace->for_each_launch([&](const LaunchView& l) {
    ++held;
    if (wraps) return;
    EXPECT_GT(l.entry.start_ns, previous) << "in launch order, each once";
    previous = l.entry.start_ns;
    const uint64_t thread = (l.entry.stream >> 32) - 1, launch = l.entry.stream & 0xffffffffu;
    ASSERT_LT(thread, uint64_t{kLaunchThreads});
    EXPECT_EQ(l.entry.bytes, l.entry.stream) << "an entry written by one launch";
    EXPECT_EQ(l.entry.tid, thread);
    EXPECT_GT(static_cast<int64_t>(launch), last[thread]) << "a thread's launches in its order";
    last[thread] = static_cast<int64_t>(launch);
  });
  EXPECT_LE(held, kRing);
  if (!wraps) { EXPECT_EQ(held, total) << "a ring that does not wrap loses no launch"; }
}

// A signal handler that records a call in the middle of its thread's claim (the shim's
// fatal-signal handler, or a program's handler that makes a CUDA call) gets a slot of its own:
// claim() takes its ticket in one instruction. A thread alone in a large ring marks its slots
// with plain stores (trace_writer.h, claim), so a handler given the same ticket would write the
// same slot as the call it interrupted, and one of the two records would be lost or mixed.
thread_local ClaimCursor t_cursor;
TraceWriter* g_signal_writer = nullptr;
constexpr size_t kMaxHandlerCalls = size_t{1} << 20;
std::atomic<uint64_t> g_handler_calls{0};
uint64_t g_handler_seqs[kMaxHandlerCalls];  // the seq each handler call got

void record_from_handler(int) {
  const uint64_t n = g_handler_calls.fetch_add(1, std::memory_order_relaxed);
  if (n >= kMaxHandlerCalls) return;
  format::RecordSlot scratch;
  uint64_t seq = 0;
  format::RecordSlot* slot = g_signal_writer->claim(t_cursor, &seq, &scratch);
  g_handler_seqs[n] = seq;
  format::Record& rec = slot->call;
  rec.function_id = 0;
  rec.tid = 1 + 1000;  // record_problem's thread 1
  rec.start_ns = seq;
  for (uint16_t a = 0; a < kArgs; ++a) rec.args[a] = signature(1, static_cast<int>(n));
  g_signal_writer->count_call(0, t_cursor);
  TraceWriter::publish_in_flight(slot, seq);
  rec.status = 0;
  g_signal_writer->complete(slot, seq, false, t_cursor);
}

class WriterSignals : public WriterThreads {};

TEST_F(WriterSignals, AHandlerRecordingInTheMiddleOfAClaimGetsASlotOfItsOwn) {
  constexpr uint64_t kRing = 8192;
  constexpr int kCalls = 100000, kMaxCalls = 20000000;
  constexpr uint64_t kHandlerCalls = 5000;
  std::vector<format::FunctionEntry> table = function_table();
  TraceWriter writer;
  const std::string path = dir_ + "/signals.cbt";
  OpenResult opened = writer.open(path, kRing, table.data(), 1, std::string("pid\0" "1\0", 6));
  ASSERT_TRUE(opened.ok && opened.file_backed) << opened.warning;
  g_signal_writer = &writer;
  g_handler_calls.store(0);
  struct sigaction action {}, previous {};
  action.sa_handler = record_from_handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);

  const pthread_t main_thread = pthread_self();
  std::atomic<bool> calling{true};
  std::thread sender([&] {
    while (calling.load(std::memory_order_relaxed)) pthread_kill(main_thread, SIGUSR1);
  });
  // Calls until the handler has run often enough to have come in the middle of claims (its
  // rate depends on the machine's load: its count, not the thread's, ends the loop).
  std::vector<uint64_t> seqs;  // the seq each of this thread's calls got
  for (int i = 0; i < kMaxCalls && (i < kCalls || g_handler_calls.load() < kHandlerCalls); ++i) {
    uint64_t seq = 0;
    format::RecordSlot* slot = writer.claim(t_cursor, &seq, nullptr);
    ASSERT_NE(slot, nullptr);
    seqs.push_back(seq);
    format::Record& rec = slot->call;
    rec.function_id = 0;
    rec.tid = 0 + 1000;
    rec.start_ns = seq;
    for (uint16_t a = 0; a < kArgs; ++a) rec.args[a] = signature(0, i);
    writer.count_call(0, t_cursor);
    TraceWriter::publish_in_flight(slot, seq);
    rec.status = 0;
    writer.complete(slot, seq, false, t_cursor);
  }
  calling.store(false);
  sender.join();
  ASSERT_EQ(sigaction(SIGUSR1, &previous, nullptr), 0);
  const uint64_t handled = std::min<uint64_t>(g_handler_calls.load(), kMaxHandlerCalls);
  RecordProperty("handler_calls", static_cast<int>(handled));
  ASSERT_GE(handled, kHandlerCalls) << "the handler ran often enough to land inside claims";
  const uint64_t calls = seqs.size();

  // No two calls, the thread's and its handler's, ever got one ticket (the slot of the one
  // that wrote first would have held the other's record).
  std::vector<uint64_t> all(seqs);
  all.insert(all.end(), g_handler_seqs, g_handler_seqs + handled);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "two calls given one ticket";

  std::string error;
  auto trace = TraceFile::open(path, error);
  ASSERT_TRUE(trace) << error;
  EXPECT_EQ(trace->counters(0).calls, calls + handled);
  EXPECT_EQ(trace->header().dropped_records, 0u);
  EXPECT_EQ(trace->torn_records(), 0u);
  std::map<uint64_t, uint64_t> held;  // seq -> the signature its record holds
  trace->for_each_call([&](const CallView& c) {
    EXPECT_EQ(record_problem(c), "");
    EXPECT_TRUE(held.emplace(c.seq, c.rec().args[0]).second) << "seq " << c.seq << " twice";
  });
  ASSERT_FALSE(held.empty());
  EXPECT_LE(held.size(), kRing);
  // Every call whose seq falls among those the ring still holds is there, as made: none gave
  // its slot up to, or took it from, another.
  const uint64_t oldest = held.begin()->first, newest = held.rbegin()->first;
  uint64_t expected = 0, lost = 0, from_handler = 0;
  auto check = [&](uint64_t seq, uint64_t sig) {
    if (seq < oldest || seq > newest) return;
    ++expected;
    auto it = held.find(seq);
    if (it == held.end() || it->second != sig) ++lost;
  };
  for (uint64_t i = 0; i < calls; ++i) check(seqs[i], signature(0, static_cast<int>(i)));
  for (uint64_t n = 0; n < handled; ++n) {
    from_handler += g_handler_seqs[n] >= oldest && g_handler_seqs[n] <= newest;
    check(g_handler_seqs[n], signature(1, static_cast<int>(n)));
  }
  EXPECT_EQ(lost, 0u) << "of " << expected << " calls the ring should hold";
  EXPECT_EQ(expected, held.size());
  RecordProperty("handler_calls_held", static_cast<int>(from_handler));
}

INSTANTIATE_TEST_SUITE_P(Rings, LaunchRingThreads, ::testing::Values(64, 262144),
                         [](const auto& info) { return "Ring" + std::to_string(info.param); });

INSTANTIATE_TEST_SUITE_P(Rings, WriterThreads, ::testing::Values(64, 4096),
                         [](const auto& info) { return "Ring" + std::to_string(info.param); });

}  // namespace
}  // namespace cublasspy
