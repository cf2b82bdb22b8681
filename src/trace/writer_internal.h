// What the writer's files (trace_writer.cpp and the *_writer.cpp beside it) share, and nothing
// outside them includes: atomic access to the mapping's fields, and the per-thread tables'
// hand-out.
#pragma once

#include <atomic>
#include <cstdint>

namespace cublasspy::writer_internal {

// A field of the mapping, accessed atomically (other threads, and a reader, see it live).
template <typename T>
std::atomic_ref<T> atom(T& v) { return std::atomic_ref<T>(v); }

inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Hands out copies 1..copies-1 of a per-thread table (launch counts, call counters) once each,
// to the first threads that ask, counting in `taken` (compare-and-swap); 0, the copy every later
// thread shares, when none is left. A copy is never taken back: a thread's exit is not seen, and
// its counts must stay.
inline uint32_t take_private_copy(uint32_t& taken, uint32_t copies) {
  uint32_t n = atom(taken).load(std::memory_order_relaxed);
  while (n + 1 < copies) {
    if (atom(taken).compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return n + 1;
  }
  return 0;
}

}  // namespace cublasspy::writer_internal
