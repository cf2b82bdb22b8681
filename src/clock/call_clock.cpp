#include "clock/call_clock.h"

#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cublasspy::call_clock {

namespace {

constexpr uint64_t kCalibrateAfterNs = 1000000;     // first rate from a 1 ms baseline
constexpr uint64_t kReanchorNs = 50000000;          // re-take the anchor every 50 ms
constexpr uint64_t kRebaseNs = 10000000000ull;      // follow NTP's slew: a fresh base every 10 s

bool invariant_tsc() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d & (1u << 8)) != 0;  // "TscInvariant": constant rate, runs in every C-state
#else
  return false;
#endif
}

// A (TSC, CLOCK_MONOTONIC) pair: the TSC halfway across the clock_gettime call. A thread
// preempted inside the bracket would skew the rate by the time it lost: the tightest of a few
// tries is kept (under ~10 µs of ticks is taken at once).
void pair(uint64_t& tsc, uint64_t& ns) {
  constexpr uint64_t kTightTicks = 30000;
  uint64_t best_width = UINT64_MAX;
  for (int attempt = 0; attempt < 4 && best_width > kTightTicks; ++attempt) {
    uint64_t before = ticks();
    uint64_t now = monotonic_ns();
    uint64_t after = ticks();
    if (after < before || after - before >= best_width) continue;
    best_width = after - before;
    tsc = before + best_width / 2;
    ns = now;
  }
  if (best_width == UINT64_MAX) {  // the TSC went backwards every time: not usable as is
    tsc = ticks();
    ns = monotonic_ns();
  }
}

void publish(State& s, uint64_t tsc, uint64_t ns, uint64_t mult) {
  uint32_t v = s.version.load(std::memory_order_relaxed);
  s.version.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.anchor_tsc.store(tsc, std::memory_order_relaxed);
  s.anchor_ns.store(ns, std::memory_order_relaxed);
  s.mult.store(mult, std::memory_order_relaxed);
  s.reanchor_ticks.store(((static_cast<unsigned __int128>(kReanchorNs) << 32) / mult), std::memory_order_relaxed);
  s.version.store(v + 2, std::memory_order_release);
}

}  // namespace

uint64_t now_slow() {
  State& s = state();
  int usable = s.usable.load(std::memory_order_relaxed);
  if (usable < 0) {
    usable = invariant_tsc() ? 1 : 0;
    s.usable.store(usable, std::memory_order_relaxed);
  }
  if (usable == 0) return monotonic_ns();
  // One thread re-anchors; the others take clock_gettime meanwhile rather than wait.
  if (s.writing.exchange(true, std::memory_order_acquire)) return monotonic_ns();
  uint64_t tsc, ns;
  pair(tsc, ns);
  if (s.base_ns == 0 || tsc <= s.base_tsc) {
    s.base_tsc = tsc;  // first call (or a TSC that went back): start calibrating
    s.base_ns = ns;
  } else if (ns - s.base_ns >= kCalibrateAfterNs) {
    uint64_t mult = static_cast<uint64_t>((static_cast<unsigned __int128>(ns - s.base_ns) << 32) /
                                          (tsc - s.base_tsc));
    // A rate outside 0.05..20 ns a tick (20 GHz..50 MHz) is no TSC to trust: clock_gettime only.
    if (mult < (uint64_t{1} << 32) / 20 || mult > (uint64_t{20} << 32)) {
      s.usable.store(0, std::memory_order_relaxed);
    } else {
      publish(s, tsc, ns, mult);
      if (ns - s.base_ns >= kRebaseNs) {
        s.base_tsc = tsc;
        s.base_ns = ns;
      }
    }
  }
  s.writing.store(false, std::memory_order_release);
  return ns;
}

void reset_after_fork() {
  State& s = state();
  uint32_t v = s.version.load(std::memory_order_relaxed);
  if (v & 1) {
    // The anchor was half written when the writing thread vanished: calibrate again.
    s.mult.store(0, std::memory_order_relaxed);
    s.reanchor_ticks.store(0, std::memory_order_relaxed);
    s.base_ns = 0;
    s.version.store(v + 1, std::memory_order_relaxed);
  }
  s.writing.store(false, std::memory_order_relaxed);
}

}  // namespace cublasspy::call_clock
