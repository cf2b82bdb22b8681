// Reading a trace: validation first (a truncated, corrupt or unknown-version file is refused
// with a message that names the file and the problem), then the process section, the function
// table, the totals and the records. Shared by the tools and the tests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/cuda_errors.h"
#include "common/cuda_names.h"
#include "gemm/gemm_call.h"
#include "trace/trace_format.h"

namespace cublasspy {

// One argument of a call, as the trace's function table describes it.
struct ArgView {
  const char* name;
  format::ArgKind kind;
  format::ArgRole role;
  uint64_t raw;  // the slot's bits; format::kArgUnset for an out-value never written
};

// One record, copied out of the file and checked (never a pointer into a live mapping). Its
// function's table entry has a role for every slot and the function's library, whatever the
// trace's version (the reader derives them for versions before 3: roles_from_names.h).
struct CallView {
  uint64_t seq = 0;
  format::RecordState state = format::RecordState::kEmpty;
  format::RecordSlot slot{};
  const format::FunctionEntry* function = nullptr;

  const format::Record& rec() const { return slot.call; }
  const char* function_name() const { return function ? function->name : "?"; }
  bool in_flight() const { return state == format::RecordState::kInFlight; }
  // CUBLASSPY_SYNC's wait after the call found its work faulted (an asynchronous error,
  // common/cuda_errors.h). Any other status the wait returned (no context on the thread) is the
  // wait's own failure, not the call's.
  bool async_fault() const { return is_asynchronous_cuda_error(rec().async_status); }
  bool failed() const {
    return state == format::RecordState::kCompleted && (rec().status != 0 || async_fault());
  }
  // Whether TraceFile::side_entries may find any: entries of its own, or (version 9) a failure
  // that repeated its site's first, whose entries it shares.
  bool has_side_link() const { return slot.side_head != 0 || (slot.failure_site != 0 && failed()); }
  std::vector<ArgView> args() const;
  // The first slot with `role`, if the function has one (its bits: kArgUnset for an out-value
  // the call did not write).
  std::optional<uint64_t> arg(format::ArgRole role) const;
  // The slot called `name`, if the function has one. Names are for people (and the tests that
  // check what was recorded under them); the tools find a call's fields by role.
  std::optional<uint64_t> arg(const char* name) const;
  // The text in the first slot with `role` (a kText slot: its bytes run on over the slots after
  // it, to a NUL or the end of the record); "" when the function has no such slot.
  std::string text_arg(format::ArgRole role) const;
  format::Library library() const;
  // The call's GEMM, from the slots' roles; GemmCall::valid is false for other calls and for a
  // record that lacks the sizes.
  GemmCall gemm() const;
  // The record's status by name, in the words of the function's library:
  // "CUBLAS_STATUS_EXECUTION_FAILED", "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE".
  std::string status_name() const;
};

// Whether call `a` began before call `b` of the same process: the order for_each_call visits
// calls in (start time, then seq). Comparing seqs alone is right only within one thread: since
// format version 2 threads number their calls in blocks.
inline bool began_before(const CallView& a, const CallView& b) {
  if (a.rec().start_ns != b.rec().start_ns) return a.rec().start_ns < b.rec().start_ns;
  return a.seq < b.seq;
}

// One entry of the launch ring (format version 4), copied out and checked.
struct LaunchView {
  uint64_t ticket = 0;  // its ring ticket (0-based): one thread's launches in order; since
                        // version 6 threads take them in blocks, so launched_before orders
  format::LaunchEntry entry{};
  const format::FunctionEntry* function = nullptr;  // the hook it was made through
  std::string kernel;   // the kernel's name, demangled; "" when unknown or not a kernel
  const char* function_name() const { return function ? function->name : "?"; }
  format::Library library() const;
};

// Whether launch `a` was made before launch `b` of the same process: the order
// for_each_launch visits them in (start time, then ticket, which orders one thread's).
inline bool launched_before(const LaunchView& a, const LaunchView& b) {
  if (a.entry.start_ns != b.entry.start_ns) return a.entry.start_ns < b.entry.start_ns;
  return a.ticket < b.ticket;
}

// A launched function's total launches (the kernel table), whatever the ring still holds.
struct KernelTotal {
  std::string name;          // demangled; "" when unknown (copies and memsets: "")
  const format::FunctionEntry* function = nullptr;  // the hook it was first launched through
  uint64_t launches = 0;
};

// A symbol demangled ("_Z4fillPfi" -> "fill(float*, int)"); the text itself when it is not a
// mangled C++ name.
std::string demangle(const std::string& symbol);

// One entry of the side area (format::SideEntry) attached to a call: its kind and its data,
// copied out of the file (at most format::kMaxSideEntryBytes).
struct SideEntryView {
  uint32_t kind = 0;
  uint64_t seq = 0;  // the record it was attached to (version 9: a repeated failure's site's first)
  std::vector<uint8_t> bytes;
};

// One entry of the failure-site table (format::FailureSite, version 9): where failed calls came
// from, how many, and the first of them, with its locations.
struct FailureSiteView {
  uint32_t index = 0;
  uint16_t function_id = 0;
  const format::FunctionEntry* function = nullptr;
  int32_t status = 0;
  uint64_t return_address = 0;
  int32_t python_line = -1;
  uint64_t count = 0;
  std::optional<CallView> first;  // absent while it was being copied (or torn)
  const char* function_name() const { return function ? function->name : "?"; }
};

struct ProcessInfo {
  std::vector<std::pair<std::string, std::string>> entries;  // in file order, keys repeat
  std::string get(const std::string& key) const;             // first value, "" if none
  std::vector<std::string> all(const std::string& key) const;
};

class TraceFile {
 public:
  // How the ring is read. It is always copied from the file in chunks; kAuto copies each chunk
  // once when the writer is gone (see writer_gone in trace_reader.cpp), three times while a
  // process may still be writing it (a seqlock over the copies). kAssumeLive forces the second
  // way (tests compare the two).
  enum class Access { kAuto, kAssumeLive };

  // Opens and validates `path`. On failure returns nullopt and sets `error` to one line:
  // "<path>: <what is wrong>".
  static std::optional<TraceFile> open(const std::string& path, std::string& error,
                                       Access access = Access::kAuto);

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
  // Version 10: calls of handle setter `id` that set the value the handle already held and
  // succeeded (FileHeader::unchanged_offset), which have no record; counters(id).calls adds
  // them to the calls FunctionCounters counted.
  // 0 in older traces.
  uint64_t unchanged(uint16_t id) const;
  uint64_t total_calls() const;
  // For a forked child: the calls its parent had made when it forked (version 1 kept the count
  // in parent_seq_at_fork).
  uint64_t parent_calls_at_fork() const {
    return header_.format_version < 2 ? header_.parent_seq_at_fork : header_.parent_calls_at_fork;
  }
  uint64_t total_failed() const;
  // Version 4: the launch ring's entries still held, oldest first (none in older traces), and
  // the kernel table's totals, most launched first.
  void for_each_launch(const std::function<void(const LaunchView&)>& visit) const;
  std::vector<KernelTotal> kernel_totals() const;
  // The launch the header's first_launch_error names, if the ring still holds it.
  std::optional<LaunchView> first_launch_error() const;
  // The launches (and waits and queries) recorded in the ring, however many it still holds.
  uint64_t total_launches() const;
  // The launch of `ticket`, if the ring still holds it.
  std::optional<LaunchView> launch_at(uint64_t ticket) const;
  // The version of cublasspy whose shim wrote the trace; empty before format version 4.
  std::string_view writer_version() const { return header_.writer_version; }

  std::optional<CallView> first_failure() const;
  // The side-area entries attached to `call`, oldest first: only entries that lie in the used
  // part of the area, are published, and carry the call's seq (at most
  // format::kMaxSideEntriesPerRecord; a broken link ends the list). None before version 4.
  std::vector<SideEntryView> side_entries(const CallView& call) const;
  // Version 9: the failure-site table's keyed entries (none in older traces), and one of them.
  // A failure that repeated its site's first has that first's side entries (side_entries).
  std::vector<FailureSiteView> failure_sites() const;
  std::optional<FailureSiteView> failure_site(uint32_t index) const;
  // The call's oldest entry of `kind`, if any.
  std::optional<SideEntryView> side_entry(const CallView& call, uint32_t kind) const;
  // Version 6: the trace's first failed launch (FileHeader::first_failed_launch: a launch or its
  // CUBLASSPY_SYNC=all synchronization returned an error, or a wait or query an asynchronous
  // one), by ticket, whether or not the launch ring still holds it; and the side-area entries
  // of its locations, oldest first, checked as a call's are. None before version 6.
  std::optional<uint64_t> first_failed_launch() const;
  std::vector<SideEntryView> launch_side_entries(uint64_t ticket) const;
  // Bytes of the side area in use, as the writer last left them (<= side_bytes).
  uint64_t side_used() const;
  // Visits every intact record still in the ring, in the order the calls began (format version
  // 1: by seq; version 2: by start time, then seq), streaming: memory stays flat however long
  // the ring (a bounded reorder window, see record_ring_reader.cpp). Records being written at
  // the moment of death (state kWriting) and torn records are skipped and counted.
  void for_each_call(const std::function<void(const CallView&)>& visit) const;
  // Records in flight or completed, and records caught being written or rewritten: as the last
  // for_each_call counted them (a pass of their own before any).
  uint64_t records_held() const;
  uint64_t torn_records() const;
  // True when the writer is known to be gone: the ring is copied once, with no seqlock.
  bool quiescent() const { return quiescent_; }

 private:
  TraceFile() = default;
  // Copies `count` ring slots from `index` into `out` (stable[i]: slot i was not being
  // rewritten); returns how many the file still held.
  uint64_t copy_slots(uint64_t index, uint64_t count, format::RecordSlot* out,
                      std::vector<format::RecordSlot>& scratch, bool* stable) const;
  // Calls visit(ticket, ring index, slot, stable) for every used slot in ticket order, oldest
  // first (the ticket the slot was last handed out for); the slot is a copy.
  template <typename Visit>
  void walk_ring(Visit&& visit) const;
  void count_records() const;
  bool copy_launch(uint64_t ticket, LaunchView& out) const;
  uint64_t launch_count(uint32_t table, uint32_t entry) const;  // version 6's count tables
  std::string kernel_name(uint16_t index) const;
  std::vector<uint64_t> passed_over_slots() const;
  uint64_t load_header_u64(size_t offset) const;
  bool read_at(uint64_t offset, void* out, uint64_t bytes) const;  // pread, whole or false
  // The chain of side entries from `head` that carry `seq`, oldest first (side_entries()).
  std::vector<SideEntryView> side_chain(uint64_t head, uint64_t seq) const;
  // Whether a record's word belongs to the ticket its slot was last handed out for.
  bool is_current(uint64_t word, uint64_t ticket) const;
  // The order calls are visited in.
  struct OrderKey {
    uint64_t major, minor;
    bool operator<(const OrderKey& o) const { return major != o.major ? major < o.major : minor < o.minor; }
  };
  OrderKey order_key(const CallView& v) const;
  uint64_t reorder_window() const;
  // Fill `out` from a slot holding an in-flight or completed record; false otherwise.
  bool copy_view(const format::RecordSlot& slot, CallView& out) const;  // a stable copy
  // One ring slot, copied like the rest of the ring.
  bool fetch_slot(uint64_t index, CallView& out) const;
  std::optional<CallView> fetch_slot(uint64_t index) const;

  std::string path_;
  const char* base_ = nullptr;  // read-only mapping of the whole file
  int fd_ = -1;                 // the ring is read through it
  bool quiescent_ = false;      // the writer is gone: one copy of the ring suffices
  uint64_t size_ = 0;
  format::FileHeader header_{};
  ProcessInfo process_;
  std::vector<format::FunctionEntry> functions_;
  mutable bool counted_ = false;               // held_ and torn_ are known
  mutable uint64_t held_ = 0;                  // records in flight or completed
  mutable uint64_t torn_ = 0;
  mutable std::vector<uint64_t> in_flight_;    // version 1: ring indices of calls in flight
};

// The report's short spellings of argument values (CUDA's own names: common/cuda_names.h).
const char* operation_name(int op);           // "N", "T", "C"
// The status name in the vocabulary of `library` (common/cuda_names.h, status_set_of):
// cublasStatus_t names for cuBLAS and cuBLASLt, cudaError_t for the runtime, CUresult for the
// driver ("unknown CUresult" for a value of no toolkit), the number otherwise (dlopen).
// CallView::status_name() and the rules name statuses through these.
std::string status_name_for(format::Library library, int status);
// The same with the number: "CUDA_ERROR_NO_DEVICE (100)".
std::string status_text_for(format::Library library, int status);
const char* pointer_mode_name(int mode);      // "host", "device", or "?"
// "cublas", "cublasLt", "cudart", "cuda" (the driver), "system" (dlopen), "unknown".
const char* library_name(format::Library library);

}  // namespace cublasspy
