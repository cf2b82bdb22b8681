// The trace format (trace_format.h, the umbrella; docs/FORMAT.md): the launch ring, which keeps
// the GPU work launched outside the GEMMs, its kernel table, its per-thread count tables, and
// the words a CUDA graph's entries hold.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/format_common.h"

namespace cublasspy::format {

// Version 4: one launch of GPU work the program made outside the GEMMs (a kernel, an
// asynchronous copy or memset), in a ring of its own so that a program launching thousands of
// kernels per GEMM does not push its GEMMs out of the flight recorder. Written once, by the
// launching thread: kWriting while written, kCompleted after (the reader keeps an entry only if
// `word` reads the same before and after its copy).
struct LaunchEntry {
  uint64_t word;          // pack_word(ticket + 1, state)
  uint16_t function_id;   // the hook (function table): cudaLaunchKernel, cudaMemsetAsync, ...
  uint16_t kernel;        // index into the kernel table; kNoKernel when none
  uint32_t tid;
  uint64_t start_ns;      // CLOCK_MONOTONIC, the clock of Record::start_ns
  uint64_t stream;
  uint64_t bytes;         // copies and memsets: the byte count; kernels: 0
  uint32_t grid[3];       // kernels: grid and block dimensions, dynamic shared memory
  uint32_t block[3];
  uint32_t shared_mem;
  int32_t status;         // what the launch call returned
  int32_t async_status;   // CUBLASSPY_SYNC=all: the error synchronizing after it reported; 0 none
  uint32_t flags;         // LaunchFlags
};
static_assert(offsetof(LaunchEntry, stream) == 24);
static_assert(offsetof(LaunchEntry, grid) == 40);
static_assert(offsetof(LaunchEntry, status) == 68);
static_assert(sizeof(LaunchEntry) == 80);

inline constexpr uint16_t kNoKernel = 0xffff;
inline constexpr uint32_t kKernelNameBytes = 232;
inline constexpr uint32_t kMaxKernels = 0xfffe;  // kernel indices are < this (a reader refuses more)
inline constexpr uint32_t kKernelTableEntries = 1024;  // what the writer uses
// Version 6: the per-thread launch count tables (FileHeader::launch_count_tables): what the
// writer makes, and the most a reader accepts.
inline constexpr uint32_t kLaunchCountTables = 32;
inline constexpr uint32_t kMaxLaunchCountTables = 1024;

enum LaunchFlags : uint32_t {
  kLaunchSynced = 1u << 0,  // CUBLASSPY_SYNC=all: the stream was synchronized after the launch
  // Version 8, a graph launch: CUBLASSPY_CHECK found, before it ran, that memory a GEMM captured
  // into its graph named had been freed since the capture (FileHeader::stale_replay_*).
  kLaunchStaleOperands = 1u << 1,
};

// Version 8: a Family::kGraph entry of the launch ring holds these three words in place of
// grid and block (bytes [40, 64)), its capture's id in `bytes`, and for a capture's beginning
// the capture mode (cudaStreamCaptureMode) in `shared_mem`. Each word is 0 where the function
// has none or the shim does not know it:
//   cudaStreamBeginCapture (cu*):       stream, bytes = the new capture's id
//   cudaStreamEndCapture (cu*):         stream, bytes = the capture's id, graph = the graph made
//   cudaGraphInstantiate(WithFlags):    graph, exec = the executable graph made, bytes = graph's capture
//   cudaGraphLaunch (cu*):              stream, graph, exec, bytes = graph's capture,
//                                       launch = this executable graph's launches so far, this one too
struct GraphWords {
  uint64_t graph;   // cudaGraph_t
  uint64_t exec;    // cudaGraphExec_t
  uint64_t launch;  // a launch: its number among the executable graph's launches, from 1
};
static_assert(sizeof(GraphWords) == 24);
// A GEMM made on a capturing stream whose capture's id the driver would not give.
inline constexpr uint64_t kCaptureIdUnknown = ~uint64_t{0};

// Version 4: one launched function, named once, with its totals (so they survive the ring's
// wrap-around). `function` is the key the writer claims the entry with (the host stub's or the
// CUfunction's address, or for copies and memsets the hook's id + 1); the name is valid once
// `named` is 1: the symbol as the shim found it (mangled; the reader demangles), "" if unknown.
struct KernelEntry {
  uint64_t function;
  uint64_t launches;     // versions 4 and 5: its launches; version 6: 0 (the count tables have them)
  uint32_t named;
  uint16_t function_id;  // the hook it was first launched through
  uint16_t reserved;
  char name[kKernelNameBytes];
};
static_assert(offsetof(KernelEntry, name) == 24);
static_assert(sizeof(KernelEntry) == 256);

}  // namespace cublasspy::format
