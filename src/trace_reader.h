// Reading a trace: validation first (a truncated, corrupt or unknown-version file is refused
// with a message that names the file and the problem), then the process section, the function
// table, the totals and the records. Shared by the tools and the tests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace_format.h"

namespace cublasspy {

// One argument of a call, as the trace's function table names it.
struct ArgView {
  const char* name;
  format::ArgKind kind;
  uint64_t raw;  // the slot's bits; format::kArgUnset for an out-value never written
};

// One record, copied out of the file and checked (never a pointer into a live mapping).
struct CallView {
  uint64_t seq = 0;
  format::RecordState state = format::RecordState::kEmpty;
  format::RecordSlot slot{};
  const format::FunctionEntry* function = nullptr;

  const format::Record& rec() const { return slot.call; }
  const char* function_name() const { return function ? function->name : "?"; }
  bool in_flight() const { return state == format::RecordState::kInFlight; }
  bool failed() const {
    return state == format::RecordState::kCompleted && (rec().status != 0 || rec().async_status != 0);
  }
  std::vector<ArgView> args() const;
  // The slot called `name`, if the function has one.
  std::optional<uint64_t> arg(const char* name) const;
};

struct ProcessInfo {
  std::vector<std::pair<std::string, std::string>> entries;  // in file order, keys repeat
  std::string get(const std::string& key) const;             // first value, "" if none
  std::vector<std::string> all(const std::string& key) const;
};

class TraceFile {
 public:
  // Opens and validates `path`. On failure returns nullopt and sets `error` to one line:
  // "<path>: <what is wrong>".
  static std::optional<TraceFile> open(const std::string& path, std::string& error);

  TraceFile(TraceFile&&) noexcept;
  TraceFile& operator=(TraceFile&&) noexcept;
  TraceFile(const TraceFile&) = delete;
  ~TraceFile();

  const std::string& path() const { return path_; }
  const format::FileHeader& header() const { return header_; }
  const ProcessInfo& process() const { return process_; }
  uint32_t function_count() const { return static_cast<uint32_t>(functions_.size()); }
  const format::FunctionEntry& function(uint16_t id) const { return functions_[id]; }
  format::FunctionCounters counters(uint16_t id) const;
  uint64_t total_calls() const;
  uint64_t total_failed() const;

  std::optional<CallView> first_failure() const;
  // Visits every intact record still in the ring, in sequence order, streaming: memory stays
  // flat however long the ring (a bounded reorder window, see trace_reader.cpp). Records being
  // written at the moment of death (state kWriting) and torn records are skipped and counted.
  void for_each_call(const std::function<void(const CallView&)>& visit) const;
  uint64_t records_held() const { return held_; }
  uint64_t torn_records() const { return torn_; }

 private:
  TraceFile() = default;
  std::optional<CallView> read_slot(uint64_t index) const;
  std::optional<CallView> view_of(const format::RecordSlot& slot) const;

  std::string path_;
  const char* base_ = nullptr;  // read-only mapping of the whole file
  uint64_t size_ = 0;
  format::FileHeader header_{};
  ProcessInfo process_;
  std::vector<format::FunctionEntry> functions_;
  uint64_t held_ = 0;                  // records in flight or completed
  std::vector<uint64_t> in_flight_;    // their ring indices (few: one per thread at most)
  mutable uint64_t torn_ = 0;
};

// Helpers for printing argument values (text report, JSON, golden tests).
const char* operation_name(int op);           // "N", "T", "C"
std::string data_type_text(int type);         // "CUDA_R_16F" or the number
std::string compute_type_text(int type);      // "CUBLAS_COMPUTE_32F" or the number
std::string cublas_status_name(int status);   // "CUBLAS_STATUS_EXECUTION_FAILED"
std::string cuda_error_name(int error);       // "cudaErrorInsufficientDriver"
// The status name that fits the function: cuBLAS names for cublas*, CUDA names for cuda*/cu*.
std::string status_name_for(const char* function, int status);
const char* pointer_mode_name(int mode);      // "host", "device", or "?"
// "CUBLAS_TF32_TENSOR_OP_MATH", with "|CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION" when
// that flag is set; the number for unknown values.
std::string math_mode_text(int mode);

}  // namespace cublasspy
