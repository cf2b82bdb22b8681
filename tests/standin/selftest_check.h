// The selftest's assertion: print where and what, exit 1. Plain on purpose: several cases fork
// children that must die of a signal, and a test framework's own handlers would get in the way.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// CHECK_EQ for integral codes, printing both sides.
#define CHECK_EQ(a, b)                                                                           \
  do {                                                                                           \
    const long long va_ = static_cast<long long>(a), vb_ = static_cast<long long>(b);            \
    if (va_ != vb_) {                                                                            \
      std::fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, \
                   #a, #b, va_, vb_);                                                            \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
