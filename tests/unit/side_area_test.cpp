// The trace's side area (format::SideEntry): entries of any kind attached to a record, read back
// in order; a full area drops and counts, never overruns; threads attach at once without a lock;
// the reader trusts nothing it did not check (a slot reused by a later call, links out of the
// area, into the middle of an entry or backwards, a version 3 trace, a misplaced area).
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace cublasspy {
namespace {

namespace fs = std::filesystem;
using format::RecordSlot;

format::FunctionEntry one_function() {
  format::FunctionEntry f{};
  std::strcpy(f.name, "traced_call");
  f.arg_count = 1;
  std::strcpy(f.args[0].name, "call");
  f.args[0].kind = static_cast<uint8_t>(format::ArgKind::kUInt);
  return f;
}

class SideArea : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("side_area_test." + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string open_writer(TraceWriter& w, uint64_t ring, uint64_t side_bytes) {
    format::FunctionEntry f = one_function();
    OpenResult r = w.open((dir_ / "t.cbt").string(), ring, &f, 1, std::string("pid\0" "1\0", 6), side_bytes);
    EXPECT_TRUE(r.file_backed) << r.warning;
    return r.path;
  }
  // One completed call; `attach` runs between claiming and completing it, as in the shim.
  template <typename Attach>
  uint64_t call(TraceWriter& w, ClaimCursor& cursor, bool failed, Attach&& attach) {
    RecordSlot scratch{};
    uint64_t seq = 0;
    RecordSlot* slot = w.claim(cursor, &seq, &scratch);
    slot->call.function_id = 0;
    slot->call.args[0] = seq;
    slot->call.status = failed ? 13 : 0;
    TraceWriter::publish_in_flight(slot, seq);
    attach(slot, seq);
    w.complete(slot, seq, failed, cursor);
    return seq;
  }
  static std::vector<CallView> calls(const TraceFile& t) {
    std::vector<CallView> out;
    t.for_each_call([&](const CallView& c) { out.push_back(c); });
    return out;
  }
  static std::string text(const SideEntryView& e) { return std::string(e.bytes.begin(), e.bytes.end()); }

  fs::path dir_;
};

TEST_F(SideArea, EntriesOfAnyKindReadBackOldestFirst) {
  TraceWriter w;
  std::string path = open_writer(w, 64, 1 << 16);
  ClaimCursor cursor;
  call(w, cursor, false, [](RecordSlot*, uint64_t) {});
  call(w, cursor, true, [&](RecordSlot* slot, uint64_t seq) {
    EXPECT_TRUE(w.attach(slot, seq, 1, "python", 6));
    EXPECT_TRUE(w.attach(slot, seq, 2, "native!", 7));
    EXPECT_TRUE(w.attach(slot, seq, 77, "", 0));  // a kind this reader does not know; empty
  });
  std::string error;
  auto t = TraceFile::open(path, error);
  ASSERT_TRUE(t) << error;
  std::vector<CallView> all = calls(*t);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(t->side_entries(all[0]).empty());
  std::vector<SideEntryView> e = t->side_entries(all[1]);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].kind, 1u);
  EXPECT_EQ(text(e[0]), "python");
  EXPECT_EQ(e[1].kind, 2u);
  EXPECT_EQ(text(e[1]), "native!");
  EXPECT_EQ(e[2].kind, 77u);
  EXPECT_TRUE(e[2].bytes.empty());
  ASSERT_TRUE(t->side_entry(all[1], 2));
  EXPECT_EQ(text(*t->side_entry(all[1], 2)), "native!");
  EXPECT_FALSE(t->side_entry(all[1], 3));
  EXPECT_EQ(t->header().side_entries, 3u);
  // 24-byte headers, data rounded up to 8 bytes.
  EXPECT_EQ(t->side_used(), (24 + 8) + (24 + 8) + 24u);
  // The first failure's copy names the same entries.
  auto first = t->first_failure();
  ASSERT_TRUE(first);
  ASSERT_EQ(t->side_entries(*first).size(), 3u);
}

TEST_F(SideArea, AFullAreaDropsAndCountsNeverOverruns) {
  TraceWriter w;
  std::string path = open_writer(w, 64, 256);
  ClaimCursor cursor;
  std::vector<char> data(100, 'x');
  int kept = 0, dropped = 0;
  for (int i = 0; i < 5; ++i) {
    call(w, cursor, false, [&](RecordSlot* slot, uint64_t seq) {
      (w.attach(slot, seq, 1, data.data(), 100) ? kept : dropped)++;
    });
  }
  // 24 + 104 = 128 bytes an entry: two fit in 256.
  EXPECT_EQ(kept, 2);
  EXPECT_EQ(dropped, 3);
  call(w, cursor, false, [&](RecordSlot* slot, uint64_t seq) {
    std::vector<char> big(format::kMaxSideEntryBytes + 1);
    EXPECT_FALSE(w.attach(slot, seq, 1, big.data(), static_cast<uint32_t>(big.size())));
    EXPECT_FALSE(w.attach(slot, seq, 0, "kind 0 is not a kind", 20));
  });
  std::string error;
  auto t = TraceFile::open(path, error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->header().side_used, 256u);
  EXPECT_EQ(t->header().side_dropped, 3u);
  EXPECT_EQ(t->header().side_dropped_bytes, 3u * 128);
  std::vector<CallView> all = calls(*t);
  ASSERT_EQ(all.size(), 6u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(t->side_entries(all[i]).size(), i < 2 ? 1u : 0u) << i;
}

TEST_F(SideArea, NoAreaMeansNoEntries) {
  TraceWriter w;
  std::string path = open_writer(w, 64, 0);
  ClaimCursor cursor;
  call(w, cursor, true, [&](RecordSlot* slot, uint64_t seq) { EXPECT_FALSE(w.attach(slot, seq, 1, "x", 1)); });
  std::string error;
  auto t = TraceFile::open(path, error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->header().side_offset, 0u);
  EXPECT_TRUE(t->side_entries(calls(*t).at(0)).empty());
}

TEST_F(SideArea, ThreadsAttachAtOnceWithoutLosingOrMixingEntries) {
  TraceWriter w;
  std::string path = open_writer(w, 4096, 1 << 20);
  constexpr int kThreads = 4, kCalls = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ClaimCursor cursor;
      for (int i = 0; i < kCalls; ++i) {
        call(w, cursor, false, [&](RecordSlot* slot, uint64_t seq) {
          const std::string a = "seq " + std::to_string(seq), b(static_cast<size_t>(1 + (i * 7 + t) % 61), 'a' + t);
          w.attach(slot, seq, 1, a.data(), static_cast<uint32_t>(a.size()));
          w.attach(slot, seq, 2, b.data(), static_cast<uint32_t>(b.size()));
        });
      }
    });
  }
  for (auto& th : threads) th.join();
  std::string error;
  auto t = TraceFile::open(path, error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->header().side_entries, 2u * kThreads * kCalls);
  EXPECT_EQ(t->header().side_dropped, 0u);
  size_t checked = 0;
  for (const CallView& c : calls(*t)) {
    std::vector<SideEntryView> e = t->side_entries(c);
    ASSERT_EQ(e.size(), 2u) << c.seq;
    EXPECT_EQ(text(e[0]), "seq " + std::to_string(c.seq));
    ASSERT_FALSE(e[1].bytes.empty());
    EXPECT_EQ(std::string(e[1].bytes.size(), static_cast<char>(e[1].bytes[0])), text(e[1]));
    ++checked;
  }
  EXPECT_EQ(checked, size_t{kThreads} * kCalls);
}

// Rewrites bytes of a closed trace, as a corrupt or hostile file would have them.
void poke(const std::string& path, uint64_t offset, const void* data, size_t n) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

TEST_F(SideArea, TheReaderTrustsOnlyWhatItChecked) {
  TraceWriter w;
  std::string path = open_writer(w, 64, 1 << 12);
  ClaimCursor cursor;
  call(w, cursor, false, [&](RecordSlot* slot, uint64_t seq) {
    w.attach(slot, seq, 1, "first", 5);
    w.attach(slot, seq, 1, "second", 6);
  });
  call(w, cursor, false, [&](RecordSlot*, uint64_t) {});
  const format::FileHeader h = *w.header();
  const uint64_t slot0 = h.ring_offset, slot1 = h.ring_offset + format::kRecordBytes;
  const uint64_t head_at = offsetof(RecordSlot, side_head);
  const uint64_t first_entry = h.side_offset, second_entry = h.side_offset + 24 + 8;
  auto entries_of = [&](size_t index) {
    std::string error;
    auto t = TraceFile::open(path, error);
    EXPECT_TRUE(t) << error;
    return t ? t->side_entries(calls(*t).at(index)) : std::vector<SideEntryView>{};
  };
  ASSERT_EQ(entries_of(0).size(), 2u);

  // A slot reused by a later call still naming the old call's entries: their seq is not its.
  poke(path, slot1 + head_at, &second_entry, 8);
  EXPECT_TRUE(entries_of(1).empty());
  // Links outside the area, unaligned, past the used part, into the middle of an entry.
  for (uint64_t bad : {uint64_t{8}, h.side_offset - 8, second_entry + 1, h.side_offset + (1 << 12),
                       h.side_offset + 256, second_entry + 8, ~uint64_t{0}}) {
    poke(path, slot0 + head_at, &bad, 8);
    EXPECT_TRUE(entries_of(0).empty()) << bad;
  }
  poke(path, slot0 + head_at, &second_entry, 8);
  ASSERT_EQ(entries_of(0).size(), 2u);
  // A link that does not go down ends the list: no loop.
  poke(path, second_entry + offsetof(format::SideEntry, prev), &second_entry, 8);
  ASSERT_EQ(entries_of(0).size(), 1u);
  poke(path, second_entry + offsetof(format::SideEntry, prev), &first_entry, 8);
  // A length beyond what is used, an entry never published.
  const uint32_t huge = 1u << 30, zero = 0;
  poke(path, second_entry + offsetof(format::SideEntry, length), &huge, 4);
  EXPECT_TRUE(entries_of(0).empty());
  const uint32_t six = 6;
  poke(path, second_entry + offsetof(format::SideEntry, length), &six, 4);
  poke(path, first_entry + offsetof(format::SideEntry, kind), &zero, 4);
  ASSERT_EQ(entries_of(0).size(), 1u);
  EXPECT_EQ(text(entries_of(0)[0]), "second");
  // A version 3 trace has no side area, whatever its bytes say.
  const uint32_t v3 = 3;
  poke(path, offsetof(format::FileHeader, format_version), &v3, 4);
  EXPECT_TRUE(entries_of(0).empty());
}

TEST_F(SideArea, AMisplacedAreaIsRefusedOnOneLine) {
  TraceWriter w;
  std::string path = open_writer(w, 64, 1 << 12);
  const format::FileHeader h = *w.header();
  w.abandon_after_fork();  // unmaps
  for (uint64_t offset : {h.ring_offset, h.side_offset + 4, h.file_bytes}) {
    poke(path, offsetof(format::FileHeader, side_offset), &offset, 8);
    std::string error;
    EXPECT_FALSE(TraceFile::open(path, error)) << offset;
    EXPECT_NE(error.find("side area"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace cublasspy
