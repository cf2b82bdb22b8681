// interpose/shadow_table.h: the shadow state of handles and descriptors must stay correct under
// the create/destroy churn PyTorch produces (descriptors around every matmul), from threads.
#include "shadow_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace cublasspy {
namespace {

struct Entry {
  std::atomic<uint64_t> key{0};
  std::atomic<uint64_t> value{0};
};
using Table = ShadowTable<Entry, 1024, 0xff51afd7ed558ccdull>;

// Heap-like addresses: 64-byte aligned, neighbours close together.
uint64_t address(uint64_t i) { return 0x7f0000000000ull + 64 * i; }

TEST(ShadowTable, ClaimFindRemove) {
  static Table table;
  Entry* e = table.claim(address(1));
  ASSERT_NE(e, nullptr);
  e->value = 42;
  EXPECT_EQ(table.find(address(1)), e);
  EXPECT_EQ(table.find(address(2)), nullptr);
  EXPECT_EQ(table.claim(address(1)), e) << "an address created again keeps its one entry";
  table.remove(address(1));
  EXPECT_EQ(table.find(address(1)), nullptr);
  EXPECT_EQ(table.claim(0), nullptr);
  EXPECT_EQ(table.claim(Table::kTombstone), nullptr);
}

TEST(ShadowTable, ChurnNeverLosesALiveKeyNorInventsOne) {
  // A million descriptors made and destroyed, 16 live at a time: the table (1024 places) fills
  // with tombstones; live keys must still be placed and found, dead ones never found.
  static Table table;
  constexpr uint64_t kLive = 16;
  uint64_t placed = 0, tried = 0;
  for (uint64_t i = 0; i < 1000000; ++i) {
    if (i >= kLive) {
      table.remove(address(i - kLive));
      ASSERT_EQ(table.find(address(i - kLive)), nullptr) << i;
    }
    ++tried;
    if (Entry* e = table.claim(address(i))) {
      ++placed;
      e->value.store(i);
    }
    if (i % 4096 == 0) {
      for (uint64_t j = (i >= kLive ? i - kLive + 1 : 0); j <= i; ++j) {
        Entry* e = table.find(address(j));
        if (e != nullptr) {
          ASSERT_EQ(e->value.load(), j);
        }
      }
    }
  }
  EXPECT_EQ(placed, tried) << "a few live keys always find a place, however many tombstones";
}

TEST(ShadowTable, ThreadsCreatingAndDestroyingTheirOwnKeys) {
  static Table table;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 50000; ++i) {
        uint64_t key = address((i * 8 + t) % 4096 + 1);  // addresses reused, as malloc does
        Entry* e = table.claim(key);
        if (e == nullptr) continue;
        e->value.store(t);
        Entry* f = table.find(key);
        if (f != e || f->value.load() != t) ++wrong;
        table.remove(key);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace cublasspy
