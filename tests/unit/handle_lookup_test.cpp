// interpose/runtime.h's find_handle: a thread's memory of its last handle look-up must never
// give a handle the entry of another, nor of a destroyed one, whatever the registry did since.
#include "runtime.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace cublasspy {
namespace {

constexpr uint64_t kHandleA = 0x7f0000001000ull;
constexpr uint64_t kHandleB = 0x7f0000002000ull;

TEST(HandleLookUp, TwoHandlesInTurnEachGetsItsOwnEntry) {
  ThreadState ts;
  HandleState* a = handles().add(kHandleA, 0);
  HandleState* b = handles().add(kHandleB, 1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(find_handle(ts, kHandleA), a);
    EXPECT_EQ(find_handle(ts, kHandleB), b);
  }
  EXPECT_EQ(find_handle(ts, 0x7f0000003000ull), nullptr) << "a handle the shim never saw created";
  EXPECT_EQ(find_handle(ts, kHandleB), b);
  handles().remove(kHandleA);
  handles().remove(kHandleB);
}

TEST(HandleLookUp, ADestroyedHandleIsNotFoundAndItsAddressStartsAnew) {
  ThreadState ts;
  HandleState* a = handles().add(kHandleA, 0);
  ASSERT_NE(a, nullptr);
  a->stream.store(0x5000);
  ASSERT_EQ(find_handle(ts, kHandleA), a);  // remembered now
  handles().remove(kHandleA);
  EXPECT_EQ(find_handle(ts, kHandleA), nullptr) << "the remembered entry holds a tombstone";
  // A new handle at the destroyed one's address: its creation state, not the stream set before.
  ASSERT_EQ(find_handle(ts, kHandleB), nullptr);
  HandleState* again = handles().add(kHandleA, 0);
  ASSERT_NE(again, nullptr);
  HandleState* found = find_handle(ts, kHandleA);
  EXPECT_EQ(found, again);
  EXPECT_EQ(found->stream.load(), 0u);
  // Its entry reused for another handle while this thread remembered it: not given out as A's.
  handles().remove(kHandleA);
  HandleState* b = handles().add(kHandleB, 0);
  ASSERT_NE(b, nullptr);
  if (b == again) {
    EXPECT_EQ(find_handle(ts, kHandleA), nullptr) << "the entry now holds B";
  }
  EXPECT_EQ(find_handle(ts, kHandleB), b);
  EXPECT_EQ(find_handle(ts, kHandleA), nullptr);
  handles().remove(kHandleB);
}

}  // namespace
}  // namespace cublasspy
