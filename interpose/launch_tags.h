// How each argument of a launch hook (hook_list.h, CUBLASSPY_LAUNCH_HOOKS) lands in its launch
// entry. A launch is not a call record: its tags only fill a LaunchContext, which
// launch_hooks.cpp writes into the launch ring. kind/role describe the parameters in the
// function table like any hook's (a reader of the table sees what the launch functions take).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "trace/trace_format.h"

namespace cublasspy {

// What one launch records, gathered from its arguments.
struct LaunchContext {
  uint64_t function = 0;     // the kernel table's key: the host stub's or the CUfunction's address
  // What `function` is, which says how it is named (interpose/launch_hooks.cpp).
  enum class Kind : uint8_t {
    kHostStub,        // a host stub (dladdr, else cudaFuncGetName)
    kDriverFunction,  // a CUfunction (cuFuncGetName)
    kKernelHandle,    // a cudaKernel_t, a CUkernel (cuKernelGetName, else cudaFuncGetName)
  } kind = Kind::kHostStub;
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t shared_mem = 0;
  const size_t* batch_sizes = nullptr;  // cuMemcpyBatchAsync's sizes, summed by its count's tag
  size_t batch_ops = 0;                 // cuMemcpy3DBatchAsync's count, for its list's tag
  // CUDA graphs (family kGraph): the graph and executable graph a call names, and where it
  // writes the one it makes (read after the call). A capture's beginning gives its mode. Set
  // only for the graph hooks (record_launch zeroes them for those alone): a kernel launch, the
  // common case, pays no stores for them.
  struct Graph {
    uint64_t graph;
    uint64_t exec;
    const void* graph_made;
    const void* exec_made;
    bool begins_capture;
  } g;
};

namespace tags {

template <format::ArgKind K, format::ArgRole R = format::ArgRole::kNone>
struct LaunchArg {
  static constexpr format::ArgKind kind = K;
  static constexpr format::ArgRole role = R;
  static constexpr int kSlots = 1;
  static constexpr int kDerived = 0;
  static void describe(format::FunctionEntry&, const char*) {}
};

// Passed through, not recorded (kernel arguments, addresses, fill values).
struct Unrecorded : LaunchArg<format::ArgKind::kNone> {
  template <typename T> static void launch(LaunchContext&, T) {}
};
struct KernelStub : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const void* stub) { c.function = reinterpret_cast<uint64_t>(stub); }
};
struct DriverKernel : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, CUfunction f) {
    c.function = reinterpret_cast<uint64_t>(f);
    c.kind = LaunchContext::Kind::kDriverFunction;
  }
};
// nvcc 12.4+ host stubs launch through the runtime's __cudaLaunchKernel with the kernel's handle.
struct KernelHandle : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, cudaKernel_t k) {
    c.function = reinterpret_cast<uint64_t>(k);
    c.kind = LaunchContext::Kind::kKernelHandle;
  }
};
// A dim3 is copied whole: field by field, the compiler reloads y and z as one 8-byte word
// straddling the two registers the ABI passed it in, a store-forwarding stall (~5 ns a launch).
static_assert(sizeof(dim3) == sizeof(LaunchContext::grid) && offsetof(dim3, z) == 8);
struct Grid : LaunchArg<format::ArgKind::kUInt> {
  static void launch(LaunchContext& c, const dim3& d) { std::memcpy(c.grid, &d, sizeof c.grid); }
};
struct Block : LaunchArg<format::ArgKind::kUInt> {
  static void launch(LaunchContext& c, const dim3& d) { std::memcpy(c.block, &d, sizeof c.block); }
};
template <int kAxis>
struct GridAxis : LaunchArg<format::ArgKind::kUInt> {
  static void launch(LaunchContext& c, unsigned int v) { c.grid[kAxis] = v; }
};
template <int kAxis>
struct BlockAxis : LaunchArg<format::ArgKind::kUInt> {
  static void launch(LaunchContext& c, unsigned int v) { c.block[kAxis] = v; }
};
using GridX = GridAxis<0>;
using GridY = GridAxis<1>;
using GridZ = GridAxis<2>;
using BlockX = BlockAxis<0>;
using BlockY = BlockAxis<1>;
using BlockZ = BlockAxis<2>;
struct SharedMem : LaunchArg<format::ArgKind::kUInt> {
  template <typename T> static void launch(LaunchContext& c, T v) { c.shared_mem = static_cast<uint32_t>(v); }
};
struct LaunchStream : LaunchArg<format::ArgKind::kPointer, format::ArgRole::kStream> {
  template <typename T> static void launch(LaunchContext& c, T s) { c.stream = reinterpret_cast<uint64_t>(s); }
};
// A count of kWidth-byte elements, recorded in bytes: cuMemsetD16Async counts 2-byte halves,
// cuMemsetD32Async 4-byte words.
template <size_t kWidth>
struct Elements : LaunchArg<format::ArgKind::kUInt, format::ArgRole::kByteCount> {
  static void launch(LaunchContext& c, size_t n) { c.bytes = n * kWidth; }
};
using Bytes = Elements<1>;
using Halves = Elements<2>;
using Words = Elements<4>;
// A 2D copy's or memset's height: its rows of the width just recorded (every 2D function lists
// its width, Bytes/Halves/Words, before its height).
struct Rows : LaunchArg<format::ArgKind::kUInt> {
  static void launch(LaunchContext& c, size_t height) { c.bytes *= height; }
};
// A 3D extent's volume: a cudaExtent's or a CUextent3D's width x height x depth.
template <typename Extent>
uint64_t volume(const Extent& e) {
  return uint64_t{e.width} * e.height * e.depth;
}
// cudaMemset3DAsync's extent, in bytes (a memset's extent is given in bytes).
struct Extent3D : LaunchArg<format::ArgKind::kUInt, format::ArgRole::kByteCount> {
  static void launch(LaunchContext& c, const cudaExtent& e) { c.bytes = volume(e); }
};
// The copy's parameter struct, read before the call as the call itself reads it; a null one is
// the call's own error to report (0 bytes). The runtime's (cudaMemcpy3DParms,
// cudaMemcpy3DPeerParms) give an extent, which counts elements of an array where one is
// involved: recorded as given. The driver's give the width in bytes.
template <typename Parms>
struct RuntimeCopyExtent : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const Parms* p) {
    if (p != nullptr) c.bytes = volume(p->extent);
  }
};
using RuntimeCopy3D = RuntimeCopyExtent<cudaMemcpy3DParms>;
using RuntimeCopy3DPeer = RuntimeCopyExtent<cudaMemcpy3DPeerParms>;
struct DriverCopy2D : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const CUDA_MEMCPY2D* p) {
    if (p != nullptr) c.bytes = p->WidthInBytes * p->Height;
  }
};
template <typename Copy>
struct DriverCopyVolume : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const Copy* p) {
    if (p != nullptr) c.bytes = p->WidthInBytes * p->Height * p->Depth;
  }
};
using DriverCopy3D = DriverCopyVolume<CUDA_MEMCPY3D>;
using DriverCopy3DPeer = DriverCopyVolume<CUDA_MEMCPY3D_PEER>;
// cu/cudaMemcpy3DBatchAsync: its count, then its operations (CUDA_MEMCPY3D_BATCH_OP or
// cudaMemcpy3DBatchOp); the bytes are the sum of their extents (0 for a null list; an extent's
// width counts elements where an operand is an array, as for the 3D copies).
struct Batch3DCount : LaunchArg<format::ArgKind::kUInt> {
  static void launch(LaunchContext& c, size_t count) { c.batch_ops = count; }
};
struct Batch3DOps : LaunchArg<format::ArgKind::kPointer> {
  template <typename Op>
  static void launch(LaunchContext& c, const Op* ops) {
    if (ops == nullptr) return;
    uint64_t total = 0;
    for (size_t i = 0; i < c.batch_ops; ++i) total += volume(ops[i].extent);
    c.bytes = total;
  }
};
// cu/cudaMemcpyBatchAsync: its sizes array, then its count; the bytes are the sum of the sizes (0 for
// a null array).
struct BatchSizes : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const size_t* sizes) { c.batch_sizes = sizes; }
};
struct BatchCount : LaunchArg<format::ArgKind::kUInt, format::ArgRole::kByteCount> {
  static void launch(LaunchContext& c, size_t count) {
    if (c.batch_sizes == nullptr) return;
    uint64_t total = 0;
    for (size_t i = 0; i < count; ++i) total += c.batch_sizes[i];
    c.bytes = total;
  }
};
// cudaLaunchKernelExC / cuLaunchKernelEx: the configuration struct (read before the launch, as
// the launch itself reads it; a null one is the launch's own error to report).
struct LaunchConfig : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const cudaLaunchConfig_t* cfg) {
    if (cfg == nullptr) return;
    Grid::launch(c, cfg->gridDim);
    Block::launch(c, cfg->blockDim);
    c.shared_mem = static_cast<uint32_t>(cfg->dynamicSmemBytes);
    c.stream = reinterpret_cast<uint64_t>(cfg->stream);
  }
};
struct DriverLaunchConfig : LaunchArg<format::ArgKind::kPointer> {
  static void launch(LaunchContext& c, const CUlaunchConfig* cfg) {
    if (cfg == nullptr) return;
    c.grid[0] = cfg->gridDimX, c.grid[1] = cfg->gridDimY, c.grid[2] = cfg->gridDimZ;
    c.block[0] = cfg->blockDimX, c.block[1] = cfg->blockDimY, c.block[2] = cfg->blockDimZ;
    c.shared_mem = cfg->sharedMemBytes;
    c.stream = reinterpret_cast<uint64_t>(cfg->hStream);
  }
};

// CUDA graphs (hook_list.h, CBS_GRAPH_HOOKS). cudaStreamCaptureMode / CUstreamCaptureMode, kept
// in the entry's shared_mem.
struct CaptureMode : LaunchArg<format::ArgKind::kInt> {
  template <typename T> static void launch(LaunchContext& c, T mode) {
    c.shared_mem = static_cast<uint32_t>(mode);
    c.g.begins_capture = true;
  }
};
// cudaGraph_t* / CUgraph*: where a capture's end writes the graph it made.
struct GraphMade : LaunchArg<format::ArgKind::kPointer, format::ArgRole::kGraphMade> {
  template <typename T> static void launch(LaunchContext& c, T* out) { c.g.graph_made = out; }
};
// cudaGraphExec_t* / CUgraphExec*: where an instantiation writes the executable graph.
struct GraphExecMade : LaunchArg<format::ArgKind::kPointer, format::ArgRole::kGraphExecMade> {
  template <typename T> static void launch(LaunchContext& c, T* out) { c.g.exec_made = out; }
};
struct GraphIn : LaunchArg<format::ArgKind::kPointer> {
  template <typename T> static void launch(LaunchContext& c, T g) { c.g.graph = reinterpret_cast<uint64_t>(g); }
};
struct GraphExecIn : LaunchArg<format::ArgKind::kPointer, format::ArgRole::kGraphExec> {
  template <typename T> static void launch(LaunchContext& c, T g) { c.g.exec = reinterpret_cast<uint64_t>(g); }
};

}  // namespace tags
}  // namespace cublasspy
