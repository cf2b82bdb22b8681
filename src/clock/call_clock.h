// The timestamps of call records: CLOCK_MONOTONIC nanoseconds, read through the TSC.
//
// Why not clock_gettime: every call takes two stamps, and on a KVM guest (kvm-clock) one
// clock_gettime costs ~75 ns, most of what the shim added to a call. With an invariant TSC the
// stamp is rdtsc scaled from an anchor, a (TSC, CLOCK_MONOTONIC) pair re-taken every ~50 ms by
// whichever call notices, so stamps of different processes on one host still line up (the
// multi-trace report orders them) to well under a microsecond. Without an invariant TSC, or while
// the anchor is being replaced or not yet calibrated, the stamp is clock_gettime itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

namespace cublasspy::call_clock {

struct State {
  // Seqlock: odd while a thread writes the anchor. 0 before the first anchor.
  std::atomic<uint32_t> version{0};
  std::atomic<uint64_t> anchor_tsc{0}, anchor_ns{0};
  std::atomic<uint64_t> mult{0};           // ns per tick, 32.32 fixed point; 0: not calibrated
  std::atomic<uint64_t> reanchor_ticks{0}; // ticks after which the anchor is re-taken
  std::atomic<bool> writing{false};        // one re-anchoring thread at a time (try, never wait)
  std::atomic<int> usable{-1};             // invariant TSC present: -1 unknown, 0 no, 1 yes
  // The calibration base, written only by the thread holding `writing`.
  uint64_t base_tsc = 0, base_ns = 0;
};
inline State& state() {
  static constinit State s;  // constant-initialized: nothing runs at load time
  return s;
}

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

#if defined(__x86_64__)
inline uint64_t ticks() { return __builtin_ia32_rdtsc(); }
#else
inline uint64_t ticks() { return 0; }  // no TSC path: stamps are clock_gettime's
#endif

// The slow path: calibrates or re-anchors when it is this thread's turn; returns a stamp.
uint64_t now_slow();

// A call's start: ns (CLOCK_MONOTONIC) and the raw tick count its duration is measured from.
struct Stamp {
  uint64_t ns;
  uint64_t tsc;
};

inline Stamp now() {
#if defined(__x86_64__)
  State& s = state();
  uint64_t tsc = ticks();
  uint32_t v = s.version.load(std::memory_order_acquire);
  uint64_t mult = s.mult.load(std::memory_order_relaxed);
  uint64_t a_tsc = s.anchor_tsc.load(std::memory_order_relaxed);
  uint64_t a_ns = s.anchor_ns.load(std::memory_order_relaxed);
  uint64_t limit = s.reanchor_ticks.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  uint64_t since = tsc - a_tsc;
  // The slow path is the branch taken, so that the usual one is the straight line of code.
  // `since >= limit` also stands for two more tests: a TSC behind the anchor wraps `since` past
  // any limit (at most 10^9 ticks, publish() in call_clock.cpp), and an anchor not calibrated has
  // limit 0 with its mult 0 (stored together, read under the version).
  if ((v & 1) != 0 || s.version.load(std::memory_order_relaxed) != v || since >= limit) [[unlikely]] {
    return {now_slow(), tsc};
  }
  return {a_ns + static_cast<uint64_t>((static_cast<unsigned __int128>(since) * mult) >> 32), tsc};
#else
  return {monotonic_ns(), 0};
#endif
}

// Nanoseconds since `start`; never negative (a thread moved to a core whose TSC lags gets 0).
inline uint64_t elapsed_ns(const Stamp& start) {
#if defined(__x86_64__)
  uint64_t mult = state().mult.load(std::memory_order_relaxed);
  if (mult == 0) {
    uint64_t end = monotonic_ns();
    return end > start.ns ? end - start.ns : 0;
  }
  uint64_t tsc = ticks();
  if (tsc <= start.tsc) return 0;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(tsc - start.tsc) * mult) >> 32);
#else
  uint64_t end = monotonic_ns();
  return end > start.ns ? end - start.ns : 0;
#endif
}

// In a forked child: a re-anchoring the parent's other thread was doing never finishes there.
void reset_after_fork();

}  // namespace cublasspy::call_clock
