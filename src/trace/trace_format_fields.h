// Every field of the structs in trace_format.h, in the order they lie in the file, as X-macro
// lists, and a compile-time proof that each list tiles its struct: consecutive, no gap, no
// overlap, ending at sizeof. A field added to a struct (usually carved out of a reserved array,
// which then starts later) but not to its list here leaves a gap, and the static_assert at the
// end names the struct; a struct added to trace_format.h belongs in CUBLASSPY_FORMAT_STRUCTS
// (tests/unit/format_doc_test.cpp finds one that is not). The doc test builds its tables from
// these lists, so docs/FORMAT.md must then describe the new field: nothing is listed by hand twice.
// tests/unit/format_doc_test.cpp includes it, so the default build checks it.
#pragma once

#include <cstddef>

#include "trace/trace_format.h"

// X(Struct) for each struct of the file's layout.
#define CUBLASSPY_FORMAT_STRUCTS(X)                                                                  \
  X(FileHeader) X(FunctionEntry) X(ArgDescriptor) X(FunctionCounters) X(RecordSlot) X(Record)        \
  X(ScanSummary) X(LaunchEntry) X(KernelEntry) X(SideEntry) X(GemmGroupsHeader) X(GemmGroup)        \
  X(LtEmulation) X(GraphWords) X(FailureSite)

// CUBLASSPY_FORMAT_FIELDS_<Struct>(F): F(Struct, field) for each field, in offset order.
#define CUBLASSPY_FORMAT_FIELDS_FileHeader(F) \
  F(FileHeader, magic) F(FileHeader, endian_mark) F(FileHeader, format_version) \
  F(FileHeader, header_bytes) F(FileHeader, record_bytes) F(FileHeader, word_bytes) \
  F(FileHeader, function_count) F(FileHeader, process_offset) F(FileHeader, process_bytes) \
  F(FileHeader, functions_offset) F(FileHeader, counters_offset) \
  F(FileHeader, first_failure_offset) F(FileHeader, ring_offset) F(FileHeader, ring_capacity) \
  F(FileHeader, file_bytes) F(FileHeader, next_seq) F(FileHeader, next_ticket) \
  F(FileHeader, first_failure_seq) F(FileHeader, end_state) F(FileHeader, end_signal) \
  F(FileHeader, exit_status) F(FileHeader, header_complete) F(FileHeader, dropped_records) \
  F(FileHeader, first_async_seq) F(FileHeader, first_async_error) F(FileHeader, driver_version) \
  F(FileHeader, runtime_version) F(FileHeader, forked_child) F(FileHeader, parent_seq_at_fork) \
  F(FileHeader, process_used) F(FileHeader, parent_pid_at_fork) F(FileHeader, parent_cuda_ready) \
  F(FileHeader, counter_stripes) F(FileHeader, claim_block) F(FileHeader, claim_lag) \
  F(FileHeader, parent_calls_at_fork) F(FileHeader, skipped_count) F(FileHeader, skipped) \
  F(FileHeader, launch_offset) F(FileHeader, launch_capacity) F(FileHeader, launch_next) \
  F(FileHeader, kernels_offset) F(FileHeader, kernel_capacity) F(FileHeader, launch_entry_bytes) \
  F(FileHeader, kernels_unnamed) F(FileHeader, first_launch_error) F(FileHeader, reserved_launches) \
  F(FileHeader, side_offset) F(FileHeader, side_bytes) F(FileHeader, side_used) \
  F(FileHeader, side_entries) F(FileHeader, side_dropped) F(FileHeader, side_dropped_bytes) \
  F(FileHeader, unchanged_offset) F(FileHeader, reserved_side) F(FileHeader, writer_version) \
  F(FileHeader, launcher_wait) F(FileHeader, launcher_status) F(FileHeader, launcher_pid) \
  F(FileHeader, stale_replay_launch) F(FileHeader, stale_replay_gemm) \
  F(FileHeader, stale_replay_address) F(FileHeader, stale_replay_role) F(FileHeader, stale_replays) \
  F(FileHeader, reserved_ends) F(FileHeader, launch_counts_offset) \
  F(FileHeader, launch_count_tables) F(FileHeader, launch_tables_taken) F(FileHeader, launch_block) \
  F(FileHeader, launch_lag) F(FileHeader, reserved_launch_totals) \
  F(FileHeader, first_failed_launch) F(FileHeader, first_failed_launch_side) \
  F(FileHeader, reserved_pinned_line) F(FileHeader, failure_sites_offset) \
  F(FileHeader, failure_site_capacity) F(FileHeader, failure_site_bytes) \
  F(FileHeader, failures_unsited) F(FileHeader, reserved_failure_sites)

#define CUBLASSPY_FORMAT_FIELDS_FunctionEntry(F) \
  F(FunctionEntry, name) F(FunctionEntry, arg_count) F(FunctionEntry, family) \
  F(FunctionEntry, library) F(FunctionEntry, element_type) \
  F(FunctionEntry, traits) F(FunctionEntry, args)

#define CUBLASSPY_FORMAT_FIELDS_ArgDescriptor(F) \
  F(ArgDescriptor, name) F(ArgDescriptor, kind) F(ArgDescriptor, role) F(ArgDescriptor, pad)

#define CUBLASSPY_FORMAT_FIELDS_FunctionCounters(F) \
  F(FunctionCounters, calls) F(FunctionCounters, failed)

#define CUBLASSPY_FORMAT_FIELDS_RecordSlot(F) \
  F(RecordSlot, call) F(RecordSlot, scan) F(RecordSlot, pending_error) \
  F(RecordSlot, reserved_pending) F(RecordSlot, capture_id) F(RecordSlot, workspace) \
  F(RecordSlot, workspace_bytes) F(RecordSlot, reserved_launches) F(RecordSlot, side_head) \
  F(RecordSlot, failure_site) F(RecordSlot, reserved_stacks) F(RecordSlot, plane_offset) \
  F(RecordSlot, lt_algo) F(RecordSlot, lt_emulation) F(RecordSlot, pad)

#define CUBLASSPY_FORMAT_FIELDS_Record(F) \
  F(Record, word) F(Record, function_id) F(Record, depth) F(Record, flags) F(Record, tid) \
  F(Record, status) F(Record, start_ns) F(Record, duration_ns) F(Record, handle) F(Record, stream) \
  F(Record, pointer_mode) F(Record, math_mode) F(Record, async_status) F(Record, check_bits) \
  F(Record, alpha) F(Record, beta) F(Record, check_detail) F(Record, args)

#define CUBLASSPY_FORMAT_FIELDS_ScanSummary(F) \
  F(ScanSummary, nan_count) F(ScanSummary, pos_inf_count) F(ScanSummary, neg_inf_count) \
  F(ScanSummary, first_row) F(ScanSummary, first_col) F(ScanSummary, first_batch) \
  F(ScanSummary, overflow) F(ScanSummary, max_abs_finite)

#define CUBLASSPY_FORMAT_FIELDS_LaunchEntry(F) \
  F(LaunchEntry, word) F(LaunchEntry, function_id) F(LaunchEntry, kernel) F(LaunchEntry, tid) \
  F(LaunchEntry, start_ns) F(LaunchEntry, stream) F(LaunchEntry, bytes) F(LaunchEntry, grid) \
  F(LaunchEntry, block) F(LaunchEntry, shared_mem) F(LaunchEntry, status) \
  F(LaunchEntry, async_status) F(LaunchEntry, flags)

#define CUBLASSPY_FORMAT_FIELDS_KernelEntry(F) \
  F(KernelEntry, function) F(KernelEntry, launches) F(KernelEntry, named) \
  F(KernelEntry, function_id) F(KernelEntry, reserved) F(KernelEntry, name)

#define CUBLASSPY_FORMAT_FIELDS_SideEntry(F) \
  F(SideEntry, kind) F(SideEntry, length) F(SideEntry, seq) F(SideEntry, prev)

#define CUBLASSPY_FORMAT_FIELDS_GemmGroupsHeader(F) \
  F(GemmGroupsHeader, group_count) F(GemmGroupsHeader, problem_count) F(GemmGroupsHeader, recorded) \
  F(GemmGroupsHeader, entry_bytes)

#define CUBLASSPY_FORMAT_FIELDS_GemmGroup(F) \
  F(GemmGroup, m) F(GemmGroup, n) F(GemmGroup, k) F(GemmGroup, lda) F(GemmGroup, ldb) \
  F(GemmGroup, ldc) F(GemmGroup, size) F(GemmGroup, transa) F(GemmGroup, transb) \
  F(GemmGroup, flags) F(GemmGroup, reserved) F(GemmGroup, alpha) F(GemmGroup, beta)

#define CUBLASSPY_FORMAT_FIELDS_LtEmulation(F) \
  F(LtEmulation, flags) F(LtEmulation, strategy) F(LtEmulation, special_values) \
  F(LtEmulation, mantissa_control) F(LtEmulation, max_mantissa_bits) \
  F(LtEmulation, mantissa_bit_offset) F(LtEmulation, mantissa_bit_count_pointer)

#define CUBLASSPY_FORMAT_FIELDS_GraphWords(F) \
  F(GraphWords, graph) F(GraphWords, exec) F(GraphWords, launch)

#define CUBLASSPY_FORMAT_FIELDS_FailureSite(F) \
  F(FailureSite, state) F(FailureSite, function_id) F(FailureSite, reserved_key) \
  F(FailureSite, status) F(FailureSite, python_line) F(FailureSite, return_address) \
  F(FailureSite, python_code) F(FailureSite, count) F(FailureSite, first_seq) \
  F(FailureSite, reserved) F(FailureSite, first)

namespace cublasspy::format::field_lists {

struct Span {
  size_t offset, size;
};

// True when the spans lie end to end from byte 0 and end at `struct_size`.
template <size_t N>
constexpr bool tiles(const Span (&spans)[N], size_t struct_size) {
  size_t at = 0;
  for (const Span& s : spans) {
    if (s.offset != at) return false;
    at += s.size;
  }
  return at == struct_size;
}

#define CUBLASSPY_FORMAT_FIELD_SPAN(S, f) Span{offsetof(S, f), sizeof(S::f)},
#define CUBLASSPY_FORMAT_TILES(S)                                                            \
  static_assert(tiles({CUBLASSPY_FORMAT_FIELDS_##S(CUBLASSPY_FORMAT_FIELD_SPAN)}, sizeof(S)), \
                #S ": a field is missing from CUBLASSPY_FORMAT_FIELDS_" #S                    \
                   " (trace_format_fields.h) or listed out of its order");
CUBLASSPY_FORMAT_STRUCTS(CUBLASSPY_FORMAT_TILES)
#undef CUBLASSPY_FORMAT_TILES
#undef CUBLASSPY_FORMAT_FIELD_SPAN

}  // namespace cublasspy::format::field_lists
