#include "trace/trace_validation.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <sys/wait.h>

#include <fmt/format.h>

namespace cublasspy {

using namespace format;

namespace {

// A section [offset, offset+bytes) must lie inside the file, without overflow.
bool inside(uint64_t offset, uint64_t bytes, uint64_t size) {
  return offset <= size && bytes <= size - offset;
}

// A writer version is a release name (0.1.0, 1.2.0~rc1+git5): anything else is not one, and
// the refusal must not print control characters from the file.
bool writer_version_valid(const char (&v)[kWriterVersionBytes]) {
  const char* nul = static_cast<const char*>(std::memchr(v, '\0', sizeof v));
  if (nul == nullptr) return false;
  return std::all_of(v, nul, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '+' || c == '~' || c == '_' || c == '-';
  });
}

}  // namespace

std::string identity_problem(const FileHeader& h, const char* base) {
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return "not a cublasspy trace (bad magic)";
  if (h.endian_mark != kEndianMark) return "written on a machine of the other byte order";
  if (h.format_version < kOldestReadableVersion || h.format_version > kFormatVersion) {
    return fmt::format("unknown format version {} (this reader reads {} to {})", h.format_version,
                       kOldestReadableVersion, kFormatVersion);
  }
  if (h.header_bytes != kHeaderBytes || h.record_bytes != kRecordBytes || h.word_bytes != 8) {
    return fmt::format("corrupt header: header {} / record {} / word {} bytes", h.header_bytes, h.record_bytes,
                       h.word_bytes);
  }
  if (std::atomic_ref<const uint32_t>(*reinterpret_cast<const uint32_t*>(base + offsetof(FileHeader, header_complete)))
          .load() != 1) {
    return "incomplete: the process died while creating the trace";
  }
  return "";
}

std::string section_problem(const FileHeader& h, uint64_t size) {
  if (h.format_version >= 4 && !writer_version_valid(h.writer_version)) {
    return fmt::format("corrupt header: writer version {:?} is not a version",
                       std::string_view(h.writer_version, strnlen(h.writer_version, kWriterVersionBytes)));
  }
  if (h.function_count == 0 || h.function_count > kMaxFunctions) {
    return fmt::format("corrupt header: {} functions", h.function_count);
  }
  if (h.ring_capacity == 0 || h.ring_capacity > (1ull << 32)) {
    return fmt::format("corrupt header: ring of {} records", h.ring_capacity);
  }
  if (h.file_bytes != size) return fmt::format("truncated: {} bytes, the header says {}", size, h.file_bytes);
  if (h.counter_stripes > kMaxCounterStripes) {
    return fmt::format("corrupt header: {} counter stripes", h.counter_stripes);
  }
  const uint64_t stripes = h.counter_stripes == 0 ? 1 : h.counter_stripes;  // 0: an older writer
  if (!inside(h.process_offset, h.process_bytes, size) || h.process_used > h.process_bytes ||
      !inside(h.functions_offset, uint64_t{h.function_count} * sizeof(FunctionEntry), size) ||
      !inside(h.counters_offset, uint64_t{h.function_count} * stripes * sizeof(FunctionCounters), size) ||
      !inside(h.first_failure_offset, kRecordBytes, size) ||
      !inside(h.ring_offset, h.ring_capacity * kRecordBytes, size)) {
    return "corrupt header: a section lies outside the file";
  }
  // Version 4's side area; older writers left these bytes zero, and a reader of their traces
  // finds no entries (side_entries() checks the version).
  if (h.format_version >= 4 && h.side_bytes != 0 &&
      (h.side_offset % 8 != 0 || h.side_bytes % 8 != 0 || !inside(h.side_offset, h.side_bytes, size) ||
       h.side_offset < h.ring_offset + h.ring_capacity * kRecordBytes)) {
    return fmt::format("corrupt header: side area of {} bytes at {} is not in its place", h.side_bytes,
                       h.side_offset);
  }
  // Version 4: the launch ring and the kernel table, where there are any. Any of the four set
  // means there is a launch ring, and all of them must then hold up: a kernel table without a
  // ring (found by the fuzzer) would be read from anywhere.
  if (h.launch_offset != 0 || h.launch_capacity != 0 || h.kernels_offset != 0 || h.kernel_capacity != 0) {
    if (h.launch_entry_bytes != sizeof(LaunchEntry) || h.launch_capacity == 0 || h.launch_capacity > (1ull << 32) ||
        h.kernel_capacity > kMaxKernels) {
      return fmt::format("corrupt header: launch ring of {} entries of {} bytes, {} kernels", h.launch_capacity,
                         h.launch_entry_bytes, h.kernel_capacity);
    }
    if (!inside(h.launch_offset, h.launch_capacity * sizeof(LaunchEntry), size) ||
        !inside(h.kernels_offset, uint64_t{h.kernel_capacity} * sizeof(KernelEntry), size)) {
      return "corrupt header: the launch ring lies outside the file";
    }
    // Entries are read through atomic words (a seqlock, a kernel's named flag), which must be
    // aligned: a misaligned ring (found by the fuzzer) is no ring this writer made.
    if (h.launch_offset % 8 != 0 || h.kernels_offset % 8 != 0) {
      return fmt::format("corrupt header: launch ring at {} or kernel table at {} is misaligned", h.launch_offset,
                         h.kernels_offset);
    }
  }
  // Version 5: the launcher's wait status. A status that is neither an exit nor a death by
  // signal is no wait status.
  if (h.launcher_wait > static_cast<uint32_t>(LauncherWait::kCommand) ||
      (h.launcher_wait != 0 && !WIFEXITED(h.launcher_status) && !WIFSIGNALED(h.launcher_status))) {
    return fmt::format("corrupt header: launcher wait {} with status {:#x}", h.launcher_wait,
                       static_cast<uint32_t>(h.launcher_status));
  }
  // Version 6: the launch count tables, for a launch ring's kernel table.
  if (h.launch_counts_offset != 0 || h.launch_count_tables != 0) {
    if (h.launch_capacity == 0 || h.launch_count_tables == 0 || h.launch_count_tables > kMaxLaunchCountTables ||
        h.launch_counts_offset % 8 != 0 ||
        !inside(h.launch_counts_offset,
                uint64_t{h.launch_count_tables} * (uint64_t{h.kernel_capacity} + 1) * sizeof(uint64_t), size)) {
      return fmt::format("corrupt header: {} launch count tables at {} are not in their place",
                         h.launch_count_tables, h.launch_counts_offset);
    }
  }
  // Version 6's first failed launch and version 8's stale graph launch need no check: any value
  // is safe (launches are looked up by ticket in the ring, GEMMs by seq, side chains entry by
  // entry, and a role is named or shown as a number).
  // Version 9: a failure-site table must lie in the file, between the first failure's record
  // and the ring, in entries of this reader's size.
  if (h.failure_sites_offset != 0 || h.failure_site_capacity != 0) {
    if (h.failure_site_bytes != sizeof(FailureSite) || h.failure_site_capacity == 0 ||
        h.failure_site_capacity > kMaxFailureSites || h.failure_sites_offset % 8 != 0 ||
        !inside(h.failure_sites_offset, uint64_t{h.failure_site_capacity} * sizeof(FailureSite), size) ||
        h.failure_sites_offset + uint64_t{h.failure_site_capacity} * sizeof(FailureSite) > h.ring_offset) {
      return fmt::format("corrupt header: {} failure sites of {} bytes at {} are not in their place",
                         h.failure_site_capacity, h.failure_site_bytes, h.failure_sites_offset);
    }
  }
  // Version 10: the unchanged setters' counts lie in the file, striped like the counters.
  if (h.unchanged_offset != 0 &&
      (h.unchanged_offset % 8 != 0 ||
       !inside(h.unchanged_offset, uint64_t{h.function_count} * stripes * sizeof(uint64_t), size))) {
    return fmt::format("corrupt header: unchanged setters' counts at {} lie outside the file", h.unchanged_offset);
  }
  return "";
}

}  // namespace cublasspy
