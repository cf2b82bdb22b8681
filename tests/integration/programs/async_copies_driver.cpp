// The driver's 2D, 3D, peer, 3D peer and batched copies and its 2D memsets, each once with its
// per-thread-default-stream form, in a fixed order; and cuMemcpy2DAsync_v2, cuMemcpy3DAsync_v2,
// cuMemcpy3DPeerAsync and the batches once more with a null parameter struct or array, then
// CUDA 12.8's batches (the plain names, with failIdx) with theirs. Linked against the null CUDA
// stack's libcuda (null_cuda/), which defines these functions and answers CUDA_SUCCESS without
// touching anything: there is no driver on this machine, and the stand-in has no 2D copies.
// Stream i is the made-up handle 0x5100 + i (never dereferenced). Then each through
// cuGetProcAddress by its unversioned name, with the per-thread flag, then the legacy one (the
// null libcuda answers those names as the driver does), and the batches by name for CUDA 12.8.
// Prints "NAME STATUS" per call.
#define __CUDA_API_VERSION_INTERNAL  // declares the plain and the _ptsz forms
#include <cuda.h>

#include <cstdint>
#include <cstdio>

namespace {
void report(const char* name, CUresult status) { std::printf("%s %d\n", name, static_cast<int>(status)); }
CUstream stream(uintptr_t i) { return reinterpret_cast<CUstream>(uintptr_t{0x5100} + i); }

// A driver function looked up by its unversioned name, as a program with the static runtime does
// (through the shim's cuGetProcAddress_v2); null when not found.
template <typename Fn>
Fn look_up(const char* name, cuuint64_t flags, int cuda_version = 13000) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found{};
  const CUresult rc = cuGetProcAddress_v2(name, &fn, cuda_version, flags, &found);
  if (rc != CUDA_SUCCESS || fn == nullptr) std::printf("cuGetProcAddress %s %d\n", name, static_cast<int>(rc));
  return reinterpret_cast<Fn>(fn);
}

// Each of them once more through cuGetProcAddress with `flags`; `tag` names the lookup in what is
// printed ("NAME/TAG STATUS"), stream 0x5200 + i.
void resolved(cuuint64_t flags, const char* tag, const CUDA_MEMCPY2D& c2, const CUDA_MEMCPY3D& c3,
              const CUDA_MEMCPY3D_PEER& peer, CUDA_MEMCPY3D_BATCH_OP* ops) {
  char label[96];
  const auto say = [&](const char* name, CUresult rc) {
    std::snprintf(label, sizeof label, "%s/%s", name, tag);
    report(label, rc);
  };
  const auto s = [](uintptr_t i) { return reinterpret_cast<CUstream>(uintptr_t{0x5200} + i); };
  const CUdeviceptr dst = 0xD000, src = 0xE000;
  if (auto f = look_up<CUresult (*)(const CUDA_MEMCPY2D*, CUstream)>("cuMemcpy2DAsync", flags)) {
    say("cuMemcpy2DAsync", f(&c2, s(1)));
  }
  if (auto f = look_up<CUresult (*)(const CUDA_MEMCPY3D*, CUstream)>("cuMemcpy3DAsync", flags)) {
    say("cuMemcpy3DAsync", f(&c3, s(2)));
  }
  if (auto f = look_up<CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream)>(
          "cuMemcpyPeerAsync", flags)) {
    say("cuMemcpyPeerAsync", f(dst, nullptr, src, nullptr, 77, s(3)));
  }
  if (auto f = look_up<CUresult (*)(CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream)>(
          "cuMemsetD2D8Async", flags)) {
    say("cuMemsetD2D8Async", f(dst, 64, 1, 9, 2, s(4)));
  }
  if (auto f = look_up<CUresult (*)(CUdeviceptr, size_t, unsigned short, size_t, size_t, CUstream)>(
          "cuMemsetD2D16Async", flags)) {
    say("cuMemsetD2D16Async", f(dst, 64, 1, 9, 2, s(5)));
  }
  if (auto f = look_up<CUresult (*)(CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream)>(
          "cuMemsetD2D32Async", flags)) {
    say("cuMemsetD2D32Async", f(dst, 64, 1, 9, 2, s(6)));
  }
  CUdeviceptr dsts[2] = {dst, dst + 0x100}, srcs[2] = {src, src + 0x100};
  size_t sizes[2] = {5, 6};
  CUmemcpyAttributes attrs{};
  size_t attrs_idx = 0;
  if (auto f = look_up<CUresult (*)(CUdeviceptr*, CUdeviceptr*, size_t*, size_t, CUmemcpyAttributes*, size_t*,
                                    size_t, CUstream)>("cuMemcpyBatchAsync", flags)) {
    say("cuMemcpyBatchAsync", f(dsts, srcs, sizes, 2, &attrs, &attrs_idx, 1, s(7)));
  }
  if (auto f = look_up<CUresult (*)(const CUDA_MEMCPY3D_PEER*, CUstream)>("cuMemcpy3DPeerAsync", flags)) {
    say("cuMemcpy3DPeerAsync", f(&peer, s(8)));
  }
  if (auto f = look_up<CUresult (*)(size_t, CUDA_MEMCPY3D_BATCH_OP*, unsigned long long, CUstream)>(
          "cuMemcpy3DBatchAsync", flags)) {
    say("cuMemcpy3DBatchAsync", f(2, ops, 0, s(9)));
  }
}

// The batches looked up as a program built against CUDA 12.8 asks for them: the driver answers
// their CUDA 12.8 functions, with failIdx. Streams 0x5300 + i.
void resolved_before_13(cuuint64_t flags, const char* tag, CUDA_MEMCPY3D_BATCH_OP* ops) {
  char label[96];
  const auto say = [&](const char* name, CUresult rc) {
    std::snprintf(label, sizeof label, "%s/%s-12.8", name, tag);
    report(label, rc);
  };
  const auto s = [](uintptr_t i) { return reinterpret_cast<CUstream>(uintptr_t{0x5300} + i); };
  CUdeviceptr dsts[2] = {0xD000, 0xD100}, srcs[2] = {0xE000, 0xE100};
  size_t sizes[2] = {7, 8};
  CUmemcpyAttributes attrs{};
  size_t attrs_idx = 0, fail_idx = 0;
  if (auto f = look_up<CUresult (*)(CUdeviceptr*, CUdeviceptr*, size_t*, size_t, CUmemcpyAttributes*, size_t*,
                                    size_t, size_t*, CUstream)>("cuMemcpyBatchAsync", flags, 12080)) {
    say("cuMemcpyBatchAsync", f(dsts, srcs, sizes, 2, &attrs, &attrs_idx, 1, &fail_idx, s(1)));
  }
  if (auto f = look_up<CUresult (*)(size_t, CUDA_MEMCPY3D_BATCH_OP*, size_t*, unsigned long long, CUstream)>(
          "cuMemcpy3DBatchAsync", flags, 12080)) {
    say("cuMemcpy3DBatchAsync", f(1, ops, &fail_idx, 0, s(2)));
  }
}
}  // namespace

int main() {
  const CUdeviceptr dst = 0xD000, src = 0xE000;

  CUDA_MEMCPY2D c2{};
  c2.srcMemoryType = c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c2.srcDevice = src, c2.dstDevice = dst, c2.srcPitch = c2.dstPitch = 128;
  c2.WidthInBytes = 96, c2.Height = 5;
  report("cuMemcpy2DAsync_v2", cuMemcpy2DAsync_v2(&c2, stream(1)));
  report("cuMemcpy2DAsync_v2_ptsz", cuMemcpy2DAsync_v2_ptsz(&c2, stream(2)));
  report("cuMemcpy2DAsync_v2", cuMemcpy2DAsync_v2(nullptr, stream(3)));

  CUDA_MEMCPY3D c3{};
  c3.srcMemoryType = c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.srcDevice = src, c3.dstDevice = dst, c3.srcPitch = c3.dstPitch = 64, c3.srcHeight = c3.dstHeight = 4;
  c3.WidthInBytes = 40, c3.Height = 3, c3.Depth = 7;
  report("cuMemcpy3DAsync_v2", cuMemcpy3DAsync_v2(&c3, stream(4)));
  report("cuMemcpy3DAsync_v2_ptsz", cuMemcpy3DAsync_v2_ptsz(&c3, stream(5)));
  report("cuMemcpy3DAsync_v2", cuMemcpy3DAsync_v2(nullptr, stream(6)));

  report("cuMemcpyPeerAsync", cuMemcpyPeerAsync(dst, nullptr, src, nullptr, 333, stream(7)));
  report("cuMemcpyPeerAsync_ptsz", cuMemcpyPeerAsync_ptsz(dst, nullptr, src, nullptr, 334, stream(8)));

  report("cuMemsetD2D8Async", cuMemsetD2D8Async(dst, 256, 7, 50, 3, stream(9)));
  report("cuMemsetD2D8Async_ptsz", cuMemsetD2D8Async_ptsz(dst, 256, 7, 50, 3, stream(10)));
  report("cuMemsetD2D16Async", cuMemsetD2D16Async(dst, 256, 7, 50, 3, stream(11)));
  report("cuMemsetD2D16Async_ptsz", cuMemsetD2D16Async_ptsz(dst, 256, 7, 50, 3, stream(12)));
  report("cuMemsetD2D32Async", cuMemsetD2D32Async(dst, 256, 7, 50, 3, stream(13)));
  report("cuMemsetD2D32Async_ptsz", cuMemsetD2D32Async_ptsz(dst, 256, 7, 50, 3, stream(14)));

  CUdeviceptr dsts[3] = {dst, dst + 0x100, dst + 0x200}, srcs[3] = {src, src + 0x100, src + 0x200};
  size_t sizes[3] = {10, 20, 30};
  CUmemcpyAttributes attrs{};
  size_t attrs_idx = 0;
  report("cuMemcpyBatchAsync_v2", cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, &attrs, &attrs_idx, 1, stream(15)));
  report("cuMemcpyBatchAsync_v2_ptsz",
         cuMemcpyBatchAsync_v2_ptsz(dsts, srcs, sizes, 2, &attrs, &attrs_idx, 1, stream(16)));
  report("cuMemcpyBatchAsync_v2", cuMemcpyBatchAsync_v2(dsts, srcs, nullptr, 3, &attrs, &attrs_idx, 1, stream(17)));

  CUDA_MEMCPY3D_PEER peer{};
  peer.srcMemoryType = peer.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  peer.srcDevice = src, peer.dstDevice = dst, peer.srcPitch = peer.dstPitch = 64;
  peer.srcHeight = peer.dstHeight = 2;
  peer.WidthInBytes = 24, peer.Height = 2, peer.Depth = 3;
  report("cuMemcpy3DPeerAsync", cuMemcpy3DPeerAsync(&peer, stream(18)));
  report("cuMemcpy3DPeerAsync_ptsz", cuMemcpy3DPeerAsync_ptsz(&peer, stream(19)));
  report("cuMemcpy3DPeerAsync", cuMemcpy3DPeerAsync(nullptr, stream(20)));

  CUDA_MEMCPY3D_BATCH_OP ops[2]{};
  ops[0].extent = {8, 2, 1};
  ops[1].extent = {4, 3, 2};
  report("cuMemcpy3DBatchAsync_v2", cuMemcpy3DBatchAsync_v2(2, ops, 0, stream(21)));
  report("cuMemcpy3DBatchAsync_v2_ptsz", cuMemcpy3DBatchAsync_v2_ptsz(1, ops, 0, stream(22)));
  report("cuMemcpy3DBatchAsync_v2", cuMemcpy3DBatchAsync_v2(2, nullptr, 0, stream(23)));

  // CUDA 12.8's batches, which the driver still exports by the plain names: failIdx before the
  // stream.
  size_t fail_idx = 0;
  report("cuMemcpyBatchAsync", cuMemcpyBatchAsync(dsts, srcs, sizes, 3, &attrs, &attrs_idx, 1, &fail_idx, stream(24)));
  report("cuMemcpyBatchAsync_ptsz",
         cuMemcpyBatchAsync_ptsz(dsts, srcs, sizes, 1, &attrs, &attrs_idx, 1, &fail_idx, stream(25)));
  report("cuMemcpy3DBatchAsync", cuMemcpy3DBatchAsync(2, ops, &fail_idx, 0, stream(26)));
  report("cuMemcpy3DBatchAsync_ptsz", cuMemcpy3DBatchAsync_ptsz(1, ops, &fail_idx, 0, stream(27)));

  resolved(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "per-thread", c2, c3, peer, ops);
  resolved(CU_GET_PROC_ADDRESS_LEGACY_STREAM, "legacy", c2, c3, peer, ops);
  resolved_before_13(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "per-thread", ops);
  resolved_before_13(CU_GET_PROC_ADDRESS_LEGACY_STREAM, "legacy", ops);
  return 0;
}
