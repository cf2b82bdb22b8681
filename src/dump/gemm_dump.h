// CUBLASSPY_DUMP for one GEMM: each operand's exact strided extent copied out of device memory
// into `<prefix>.<a|b|c|d>.npy`, with `<prefix>.<a|b|c|d>.json` beside it naming the shape, ld,
// stride and type (docs/SCAN.md shows how to view the flat array as the matrix). Runtime-free,
// like gemm_scan.h: live_dump.cpp feeds it from the live shim, the tests from a fake driver.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "gemm/gemm_call.h"
#include "scan/device_reader.h"

namespace cublasspy {

// The total a process may dump (Config::dump_max_mb, CUBLASSPY_DUMP_MAX_MB). Operands that
// would exceed it are skipped, whole: a dump is either complete or absent. The limit is fixed at
// construction, so threads that reserve concurrently share only the atomic count.
class DumpBudget {
 public:
  constexpr explicit DumpBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}
  // Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
  bool reserve(uint64_t bytes);
  void give_back(uint64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }

 private:
  std::atomic<uint64_t> used_{0};
  const uint64_t limit_;
};

struct GemmDumpRequest {
  std::string prefix;        // "<trace path>.call<seq>"
  std::string function;      // the exported name, for the JSON
  uint64_t seq = 0;
  uint64_t stream = 0;       // synchronized before reading
  bool failed = false;       // the call failed or was flagged (why it was dumped)
  uint64_t chunk_bytes = kDefaultChunkBytes;
};

struct GemmDumpResult {
  int written = 0;            // operands written (npy + json)
  int over_budget = 0;        // operands skipped: CUBLASSPY_DUMP_MAX_MB reached
  int failed = 0;             // operands that could not be read or written
  bool skipped_capture = false;
  std::string error;          // the first failure, for the log
};

// Writes the dumps of A, B, C (and D when it is not C). C is captured after the call: when C is
// also the output, the file holds the result (the JSON says so).
GemmDumpResult dump_gemm(const DriverApi& api, const GemmCall& g, const GemmDumpRequest& request,
                         DumpBudget& budget);

}  // namespace cublasspy
