// Where a trace's bytes live: the file the writer creates (exclusively, never through a link),
// the fallback in $TMPDIR, or anonymous memory when no file can be written; which of its blocks
// are reserved (the fixed parts at creation, the rings and the side area a step at a time as
// the writer reaches them, so the file's disk cost follows what was written); and what becomes
// of the mapping when the file is truncated under the process (SIGBUS) or the process forks.
// The writer (trace_writer.h) lays the trace out in it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace cublasspy {

// What opening produced: the file, a fallback file, or memory only (no file could be written).
struct OpenResult {
  bool ok = false;          // records can be written (to a file or to memory)
  bool file_backed = false;
  std::string path;         // the file actually written
  std::string warning;      // set when something had to give (fallback location, memory only)
};

// Where a trace goes when the directory of `path` cannot be written: the same name in $TMPDIR
// (or /tmp); "" when that is the same directory. `cublasspy run` looks for traces there too.
std::string fallback_trace_path(const std::string& path);

// A byte range of the file, [begin, end).
struct FileRange {
  uint64_t begin = 0, end = 0;
};

// A part of the file whose blocks are reserved as the writer reaches it, from its start:
// [offset, offset + bytes), of which the first `reserved` bytes are reserved. Nothing may store
// into (or read) the part past `reserved` of a file mapping: a page without blocks is allocated
// at its first store, and on a full disk that store is a SIGBUS.
struct GrowingRegion {
  uint64_t offset = 0, bytes = 0;
  std::atomic<uint64_t> reserved{0};
  std::atomic<bool> stuck{false};  // a reservation failed (a full disk): no more are tried
  bool complete() const { return reserved.load(std::memory_order_relaxed) == bytes; }
};

class TraceMapping {
 public:
  // Maps `bytes` of zeroed memory read-write: a new file at `requested` (never following a
  // symlink, never clobbering an existing file: a suffix is added; the blocks of the `fixed`
  // ranges reserved, so a full disk fails here, not later with SIGBUS; the rest is a hole until
  // reserve() reserves it), else at fallback_trace_path(requested), else anonymous memory.
  // Fills `result` (all but ok) and returns the mapping's start; nullptr, leaving the current
  // mapping as it was, when there is no memory either.
  char* create(const std::string& requested, uint64_t bytes, const FileRange* fixed, int fixed_count,
               OpenResult& result);
  // Whether bytes [0, end) of `region` are reserved; if not, reserves up to a step past `end`
  // (kReserveStep, within the region) first. Lock-free and async-signal-safe (the file opened
  // again by its path and checked to be this one, fallocate, close: the shim holds no
  // descriptor in the host process); concurrent reservations of one range are harmless. False
  // when the blocks cannot be had (a full disk, the file gone): the writer then leaves that
  // part unwritten, counting what it drops. True at once for memory, and for a file whose
  // blocks were all reserved at creation (a file system without fallocate).
  bool reserve(GrowingRegion& region, uint64_t end);
  static constexpr uint64_t kReserveStep = 256 << 10;

  char* base() const { return base_; }
  uint64_t bytes() const { return bytes_; }

  // The child of a fork must not write its parent's file: unmaps the child's view and forgets it.
  void abandon();

  // Removes the file when its path still names the one this mapping was created as (the same
  // device and inode, never through a link) and it is still mapped (not detached after a
  // fault). The mapping stays valid: threads still recording write to memory no file names any
  // more.
  bool remove_file();

  // Async-signal-safe, for the SIGBUS handler: when `address` lies in the file mapping (someone
  // truncated the file under the running process), replaces the whole mapping with anonymous
  // memory at the same address, so the faulting store can be retried and the recording goes on
  // in memory. True when the fault is the trace's and the store may be retried; false when it
  // is not ours or the memory could not be replaced.
  bool detach_on_fault(const void* address);
  // True once after a detach (the warning is given outside the signal handler). Cheap: one
  // relaxed load when nothing happened.
  bool detached_unreported() const { return detach_unreported_.load(std::memory_order_relaxed); }
  bool take_detach_notice() { return detach_unreported_.exchange(false); }

 private:
  // 24 bytes, in this order: the writer holds one beside the fields claim() reads, so that
  // detached_unreported(), which the shim asks on every call, reads the same cache line.
  char* base_ = nullptr;
  uint64_t bytes_ = 0;
  enum DetachState : int { kAttached = 0, kDetaching = 1, kDetached = 2, kDetachFailed = 3 };
  std::atomic<int> detach_state_{kAttached};
  bool file_backed_ = false;
  std::atomic<bool> detach_unreported_{false};
  uint64_t file_device_ = 0, file_inode_ = 0;  // what remove_file() and reserve() check the path against
  bool all_reserved_ = false;  // the file system has no fallocate: every block reserved at creation
  uint64_t page_bytes_ = 4096;
  std::string path_;           // the file, from the root (reserve() and remove_file() name it again)
};

}  // namespace cublasspy
