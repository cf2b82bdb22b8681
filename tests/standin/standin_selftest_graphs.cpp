// Stream capture and CUDA graphs on the stand-in (standin.graph_*): work enqueued on a capturing
// stream is recorded, not run; a graph's launch runs it, reading memory (and pageable host
// memory) anew each time but the host scalars of the capture; the capture rules answer with
// CUDA's codes and invalidate the captures CUDA would; a launch that touches freed memory, or one
// scripted to fault, leaves a sticky error for the next synchronizing call.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "selftest_check.h"

namespace {

void plan(const char* variable, const char* value) { CHECK_EQ(setenv(variable, value, 1), 0); }

template <class T>
T* device_alloc(size_t n) {
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
  return static_cast<T*>(p);
}

template <class T>
void upload(T* device, const std::vector<T>& host) {
  CHECK_EQ(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
}

template <class T>
std::vector<T> download(const T* device, size_t n) {
  std::vector<T> host(n);
  CHECK_EQ(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// alpha * A B (+ beta C), column-major, exact for the small integers used here.
std::vector<float> reference(int m, int n, int k, float alpha, const std::vector<float>& a, const std::vector<float>& b,
                             float beta = 0.0f, const std::vector<float>& c = {}) {
  std::vector<float> d(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) sum += double(a[size_t(p) * m + i]) * b[size_t(j) * k + p];
      d[size_t(j) * m + i] = float(alpha * sum + (beta != 0.0f ? beta * c[size_t(j) * m + i] : 0.0));
    }
  return d;
}

std::vector<float> ramp(size_t n, int salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 5 + size_t(salt)) % 7) - 3);
  return v;
}

cudaStreamCaptureStatus status_of(cudaStream_t s) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CHECK_EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
  return st;
}

cudaStream_t make_stream(unsigned flags = cudaStreamNonBlocking) {
  cudaStream_t s = nullptr;
  CHECK_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
  return s;
}

size_t node_count(cudaGraph_t g) {
  size_t n = 0;
  CHECK_EQ(cudaGraphGetNodes(g, nullptr, &n), cudaSuccess);
  return n;
}

// Begins a capture on `s`, makes it invalid with `breaker`, and checks what CUDA answers: the
// status Invalidated, 901 for further work, 901 and no graph at the end, and then no capture.
void expect_invalidated(cudaStream_t s, void* scratch) {
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
  CHECK_EQ(cudaMemsetAsync(scratch, 0, 4, s), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t g = reinterpret_cast<cudaGraph_t>(0x1);
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  CHECK(g == nullptr);
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusNone);
  CHECK_EQ(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
}

std::atomic<int> host_calls{0};
void CUDART_CB count_call(void* data) { host_calls += *static_cast<int*>(data); }

}  // namespace

// A copy from pageable host memory, a memset, a kernel (scripted to succeed doing nothing), a host
// function and an SGEMM with host alpha and beta, captured on a stream: nothing runs at the
// capture; three launches (runtime and driver) each re-read A from the host and compute
// C = 2 A B with the alpha of the capture.
void case_graph_capture() {
  plan("STANDIN_FAIL", "cudaLaunchKernel:*:0");
  const int m = 5, n = 4, k = 3;
  cudaStream_t s = make_stream();
  cublasHandle_t h = nullptr;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
  float* da = device_alloc<float>(m * k);
  float* db = device_alloc<float>(k * n);
  float* dc = device_alloc<float>(m * n);
  const std::vector<float> b = ramp(k * n, 2), sentinel(m * n, 42.0f);
  std::vector<float> a = ramp(m * k, 1);
  upload(db, b);
  upload(da, std::vector<float>(m * k, 0.0f));
  upload(dc, sentinel);

  CHECK_EQ(status_of(s), cudaStreamCaptureStatusNone);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);
  CHECK_EQ(status_of(nullptr), cudaStreamCaptureStatusNone);  // the legacy stream: s does not block it
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  cudaGraph_t capturing = nullptr;
  CHECK_EQ(cudaStreamGetCaptureInfo(s, &st, &id, &capturing, nullptr, nullptr, nullptr), cudaSuccess);
  CHECK_EQ(st, cudaStreamCaptureStatusActive);
  CHECK(id != 0);
  CHECK(capturing != nullptr);
  CHECK_EQ(cudaMemcpyAsync(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice, s), cudaSuccess);
  CHECK_EQ(cudaMemsetAsync(dc, 0, m * n * sizeof(float), s), cudaSuccess);
  CHECK_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&case_graph_capture), dim3(1), dim3(1), nullptr, 0, s),
           cudaSuccess);
  int one = 1;
  CHECK_EQ(cudaLaunchHostFunc(s, count_call, &one), cudaSuccess);
  float alpha = 2.0f, beta = 1.0f;
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m),
           CUBLAS_STATUS_SUCCESS);
  alpha = 100.0f;  // read at the capture: the graph keeps 2
  size_t deps = 0;
  CHECK_EQ(cudaStreamGetCaptureInfo(s, &st, &id, &capturing, nullptr, nullptr, &deps), cudaSuccess);
  CHECK_EQ(deps, 1u);  // the stream's last node
  CHECK_EQ(node_count(capturing), 5u);

  cudaGraph_t graph = nullptr;
  CHECK_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  CHECK(graph == capturing);
  // Nothing ran: every device buffer is as it was, the host function was not called.
  CHECK(download(dc, m * n) == sentinel);
  CHECK(download(da, m * k) == std::vector<float>(m * k, 0.0f));
  CHECK_EQ(host_calls.load(), 0);
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusNone);
  CHECK_EQ(cudaStreamGetCaptureInfo(s, &st, &id, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
  CHECK_EQ(st, cudaStreamCaptureStatusNone);
  CHECK_EQ(node_count(graph), 5u);
  std::vector<cudaGraphNode_t> nodes(7, reinterpret_cast<cudaGraphNode_t>(0x1));
  size_t asked = nodes.size();
  CHECK_EQ(cudaGraphGetNodes(graph, nodes.data(), &asked), cudaSuccess);
  CHECK_EQ(asked, 5u);
  CHECK(nodes[4] != nullptr && nodes[5] == nullptr && nodes[6] == nullptr);
  char dot[] = "/tmp/standin_graph_XXXXXX";
  const int fd = mkstemp(dot);
  CHECK(fd >= 0);
  close(fd);
  CHECK_EQ(cudaGraphDebugDotPrint(graph, dot, cudaGraphDebugDotFlagsVerbose), cudaSuccess);
  std::stringstream text;
  text << std::ifstream(dot).rdbuf();
  std::remove(dot);
  for (const char* kind : {"memcpy", "memset", "kernel", "host", "gemm"})
    CHECK(text.str().find(kind) != std::string::npos);

  cudaGraphExec_t exec = nullptr;
  CHECK_EQ(cudaGraphInstantiateWithFlags(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
  CHECK_EQ(cudaGraphDestroy(graph), cudaSuccess);  // the instantiated graph stays launchable
  CHECK_EQ(cudaGraphUpload(exec, s), cudaSuccess);
  for (int launch = 1; launch <= 3; ++launch) {
    const std::vector<float> next = ramp(m * k, launch + 10);
    std::copy(next.begin(), next.end(), a.begin());  // the captured copy reads this buffer at each launch
    if (launch == 2) {
      CHECK_EQ(cuGraphLaunch(reinterpret_cast<CUgraphExec>(exec), reinterpret_cast<CUstream>(s)), CUDA_SUCCESS);
    } else {
      CHECK_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    }
    CHECK_EQ(cudaStreamSynchronize(s), cudaSuccess);
    CHECK(download(dc, m * n) == reference(m, n, k, 2.0f, a, b));
    CHECK_EQ(host_calls.load(), launch);
  }
  // A graph launched into a capture is one node of it; the outer graph runs the inner one.
  cudaStream_t outer = make_stream();
  CHECK_EQ(cudaStreamBeginCapture(outer, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaGraphLaunch(exec, outer), cudaSuccess);
  cudaGraph_t wrapper = nullptr;
  CHECK_EQ(cudaStreamEndCapture(outer, &wrapper), cudaSuccess);
  CHECK_EQ(node_count(wrapper), 1u);
  CHECK_EQ(host_calls.load(), 3);
  cudaGraphExec_t wrapped = nullptr;
  CHECK_EQ(cudaGraphInstantiate(&wrapped, wrapper, 0), cudaSuccess);
  CHECK_EQ(cudaGraphLaunch(wrapped, nullptr), cudaSuccess);  // any stream, the legacy one too
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK_EQ(host_calls.load(), 4);

  // Handles: null, destroyed.
  CHECK_EQ(cudaGraphLaunch(nullptr, s), cudaErrorInvalidValue);
  CHECK_EQ(cudaGraphExecDestroy(wrapped), cudaSuccess);
  CHECK_EQ(cudaGraphLaunch(wrapped, s), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaGraphExecDestroy(wrapped), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaGraphDestroy(wrapper), cudaSuccess);
  CHECK_EQ(cudaGraphDestroy(wrapper), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaGraphGetNodes(nullptr, nullptr, &asked), cudaErrorInvalidValue);
  CHECK_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  CHECK_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}

// cuBLAS beyond SGEMM and cuBLASLt on a capturing stream: cublasGemmEx on fp16 (through the
// nested cublasLtMatmul), cublasLtMatmul itself, a strided batch and gemv, each recorded with its
// host scalars and recomputed from the current operands at each launch.
void case_graph_blas() {
  const int m = 4, n = 3, k = 2;
  cudaStream_t s = make_stream();
  cublasHandle_t h = nullptr;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
  cublasLtHandle_t lt = nullptr;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  float* da = device_alloc<float>(2 * m * k);
  float* db = device_alloc<float>(2 * k * n);
  float* dd = device_alloc<float>(2 * m * n);  // strided batch of 2
  float* dl = device_alloc<float>(m * n);      // cublasLtMatmul's D
  float* dy = device_alloc<float>(m);          // gemv
  __half* ha = device_alloc<__half>(m * k);
  __half* hd = device_alloc<__half>(m * n);
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  CHECK_EQ(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m), CUBLAS_STATUS_SUCCESS);

  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const float three = 3.0f, zero = 0.0f, one = 1.0f;
  CHECK_EQ(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &three, da, m, m * k, db, k, k * n, &zero,
                                     dd, m, m * n, 2),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmul(lt, op, &one, da, la, db, lb, &zero, dl, lc, dl, lc, nullptr, nullptr, 0, s),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSgemv(h, CUBLAS_OP_N, m, k, &one, da, m, db, 1, &zero, dy, 1), CUBLAS_STATUS_SUCCESS);
  const float half_alpha = 1.0f, half_beta = 0.0f;
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &half_alpha, ha, CUDA_R_16F, m, ha, CUDA_R_16F, k,
                        &half_beta, hd, CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_SUCCESS);
  cudaGraph_t graph = nullptr;
  CHECK_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  CHECK_EQ(node_count(graph), 4u);  // cublasGemmEx's node is its nested cublasLtMatmul's
  // The descriptors may go: the graph copied what it needs.
  CHECK_EQ(cublasLtMatmulDescDestroy(op), CUBLAS_STATUS_SUCCESS);
  for (auto l : {la, lb, lc}) CHECK_EQ(cublasLtMatrixLayoutDestroy(l), CUBLAS_STATUS_SUCCESS);
  cudaGraphExec_t exec = nullptr;
  CHECK_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    const std::vector<float> a = ramp(2 * m * k, 3 + launch), b = ramp(2 * k * n, 5 + 2 * launch);
    upload(da, a);
    upload(db, b);
    std::vector<__half> h16(m * k);
    for (int i = 0; i < m * k; ++i) h16[i] = __float2half(a[i]);
    upload(ha, h16);
    CHECK_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    CHECK_EQ(cudaStreamSynchronize(s), cudaSuccess);
    const std::vector<float> d = download(dd, 2 * m * n);
    for (int batch = 0; batch < 2; ++batch) {
      const std::vector<float> ab(a.begin() + batch * m * k, a.begin() + (batch + 1) * m * k);
      const std::vector<float> bb(b.begin() + batch * k * n, b.begin() + (batch + 1) * k * n);
      CHECK(std::vector<float>(d.begin() + batch * m * n, d.begin() + (batch + 1) * m * n) ==
            reference(m, n, k, 3.0f, ab, bb));
    }
    const std::vector<float> a0(a.begin(), a.begin() + m * k), b0(b.begin(), b.begin() + k * n);
    CHECK(download(dl, m * n) == reference(m, n, k, 1.0f, a0, b0));
    const std::vector<float> y = download(dy, m), want_y = reference(m, 1, k, 1.0f, a0, b0);
    CHECK(y == want_y);
    const std::vector<__half> d16 = download(hd, m * n);
    // A (m x k) times A read as k x n: exact small integers in fp16.
    const std::vector<float> want16 = reference(m, n, k, 1.0f, a0, std::vector<float>(a0.begin(), a0.begin() + k * n));
    for (int i = 0; i < m * n; ++i) CHECK_EQ(__half2float(d16[i]), want16[i]);
  }
  CHECK_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  CHECK_EQ(cudaGraphDestroy(graph), cudaSuccess);
  CHECK_EQ(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}

// The rules, each with CUDA's code and the invalidation CUDA makes.
void case_graph_rules() {
  cudaStream_t s = make_stream(), other = make_stream();
  float* scratch = device_alloc<float>(16);
  cudaGraph_t g = nullptr;

  // Not capturing; the legacy stream cannot be captured; nor a stream twice.
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaErrorIllegalState);
  CHECK_EQ(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  // Synchronizing the capturing stream: 900, the capture invalidated; it ends with 901.
  CHECK_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  expect_invalidated(s, scratch);
  // Querying it likewise; and driver calls as the runtime's.
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cudaStreamQuery(s), cudaErrorStreamCaptureUnsupported);
  expect_invalidated(s, scratch);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cuStreamSynchronize(reinterpret_cast<CUstream>(s)), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  expect_invalidated(s, scratch);

  // cudaDeviceSynchronize from another thread during a global capture: 900, invalidated. From a
  // relaxed thread too: it would wait for the capturing stream. A relaxed thread may synchronize
  // an unrelated stream; a global one may not.
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::thread([&] { CHECK_EQ(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported); }).join();
  expect_invalidated(s, scratch);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::thread([&] {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
    CHECK_EQ(mode, cudaStreamCaptureModeGlobal);
    CHECK_EQ(cudaStreamSynchronize(other), cudaSuccess);
    CHECK_EQ(cudaStreamQuery(other), cudaSuccess);
    CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);
    CHECK_EQ(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
  }).join();
  expect_invalidated(s, scratch);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::thread([&] { CHECK_EQ(cudaStreamSynchronize(other), cudaErrorStreamCaptureUnsupported); }).join();
  expect_invalidated(s, scratch);

  // cudaMalloc during a global capture of this thread: 900, invalidated; after exchanging the
  // thread's mode to relaxed (what PyTorch's allocator does), allowed, and the capture goes on.
  void* p = nullptr;
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
  expect_invalidated(s, scratch);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  CHECK_EQ(cudaMalloc(&p, 64), cudaSuccess);
  CHECK_EQ(cudaMemsetAsync(p, 7, 64, s), cudaSuccess);
  CHECK_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  CHECK_EQ(mode, cudaStreamCaptureModeRelaxed);
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  CHECK_EQ(node_count(g), 1u);
  CHECK_EQ(cudaGraphDestroy(g), cudaSuccess);
  CHECK_EQ(cudaFree(p), cudaSuccess);
  // The other unsafe calls of a global-mode thread during its capture, each invalidating it.
  const std::vector<std::pair<const char*, std::function<cudaError_t()>>> unsafe = {
      {"cudaFree", [&] { return cudaFree(scratch); }},
      {"cudaMallocHost", [&] { return cudaMallocHost(&p, 64); }},
      {"cudaMemcpy", [&] { return cudaMemcpy(scratch, scratch + 4, 4, cudaMemcpyDeviceToDevice); }},
      {"cudaMemset", [&] { return cudaMemset(scratch, 0, 4); }},
      {"cuMemAlloc", [&] { return static_cast<cudaError_t>(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(&p), 64)); }},
      {"cudaEventQuery",
       [&] {
         cudaEvent_t e = nullptr;
         CHECK_EQ(cudaEventCreate(&e), cudaSuccess);
         return cudaEventQuery(e);
       }},
  };
  for (const auto& [name, call] : unsafe) {
    CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    if (call() != cudaErrorStreamCaptureUnsupported) {
      std::fprintf(stderr, "%s during a global capture was not cudaErrorStreamCaptureUnsupported\n", name);
      std::exit(1);
    }
    expect_invalidated(s, scratch);
  }
  // Always legal: queries of pointers, memory, devices, errors, captures.
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaPointerAttributes attributes{};
  CHECK_EQ(cudaPointerGetAttributes(&attributes, scratch), cudaSuccess);
  size_t free_bytes = 0, total = 0;
  CHECK_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  int device = -1, value = 0, priority = 1;
  CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
  CHECK_EQ(cudaSetDevice(0), cudaSuccess);
  CHECK_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  CHECK_EQ(cudaStreamGetPriority(s, &priority), cudaSuccess);
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
  unsigned long long buffer_id = 0;
  CHECK_EQ(cuPointerGetAttribute(&buffer_id, CU_POINTER_ATTRIBUTE_BUFFER_ID, reinterpret_cast<CUdeviceptr>(scratch)),
           CUDA_SUCCESS);
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  CHECK_EQ(node_count(g), 0u);
  CHECK_EQ(cudaGraphDestroy(g), cudaSuccess);

  // A thread-local capture prohibits this thread's unsafe calls only: another (global) thread may
  // allocate. Other threads' global captures prohibit a global thread's, not a thread-local one's.
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  std::thread([&] {
    void* q = nullptr;
    CHECK_EQ(cudaMalloc(&q, 64), cudaSuccess);
    CHECK_EQ(cudaFree(q), cudaSuccess);
  }).join();
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);
  CHECK_EQ(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
  expect_invalidated(s, scratch);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::thread([&] {
    cudaStreamCaptureMode local = cudaStreamCaptureModeThreadLocal;
    CHECK_EQ(cudaThreadExchangeStreamCaptureMode(&local), cudaSuccess);
    void* q = nullptr;
    CHECK_EQ(cudaMalloc(&q, 64), cudaSuccess);
    CHECK_EQ(cudaFree(q), cudaSuccess);
  }).join();
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);

  // Ending a global capture from another thread: 908, and the capture goes on; a relaxed one may.
  std::thread([&] { CHECK_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureWrongThread); }).join();
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  CHECK_EQ(cudaGraphDestroy(g), cudaSuccess);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  std::thread([&] { CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess); }).join();
  CHECK_EQ(cudaGraphDestroy(g), cudaSuccess);

  // An event last recorded in a capture: querying it is 907 and invalidates the capture.
  cudaEvent_t e = nullptr;
  CHECK_EQ(cudaEventCreate(&e), cudaSuccess);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cudaEventRecord(e, s), cudaSuccess);
  CHECK_EQ(cudaEventSynchronize(e), cudaErrorCapturedEvent);
  expect_invalidated(s, scratch);
  CHECK_EQ(cudaEventQuery(e), cudaSuccess);  // its capture is over
  // Waiting on an event recorded outside the capture: 905, unless cudaEventWaitExternal.
  CHECK_EQ(cudaEventRecord(e, other), cudaSuccess);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaStreamWaitEvent(s, e, cudaEventWaitExternal), cudaSuccess);
  CHECK_EQ(status_of(s), cudaStreamCaptureStatusActive);
  CHECK_EQ(cudaStreamWaitEvent(s, e, 0), cudaErrorStreamCaptureIsolation);
  expect_invalidated(s, scratch);

  // The legacy stream while a blocking stream captures: work on it, synchronizing it or asking
  // whether it captures is 906; the first two invalidate the capture.
  cudaStream_t blocking = make_stream(cudaStreamDefault);
  CHECK_EQ(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CHECK_EQ(cudaStreamIsCapturing(nullptr, &st), cudaErrorStreamCaptureImplicit);
  CHECK_EQ(status_of(blocking), cudaStreamCaptureStatusActive);
  CHECK_EQ(cudaMemsetAsync(scratch, 0, 4, nullptr), cudaErrorStreamCaptureImplicit);
  expect_invalidated(blocking, scratch);
  CHECK_EQ(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(nullptr), cudaErrorStreamCaptureImplicit);
  expect_invalidated(blocking, scratch);
  // A non-blocking capture leaves the legacy stream alone.
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cudaMemsetAsync(scratch, 0, 4, nullptr), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  CHECK_EQ(cudaGraphDestroy(g), cudaSuccess);

  // The driver's names for all of it.
  CUstream cs = reinterpret_cast<CUstream>(s);
  CUstreamCaptureMode cmode = CU_STREAM_CAPTURE_MODE_RELAXED;
  CHECK_EQ(cuThreadExchangeStreamCaptureMode(&cmode), CUDA_SUCCESS);
  CHECK_EQ(cmode, CU_STREAM_CAPTURE_MODE_GLOBAL);
  CHECK_EQ(cuThreadExchangeStreamCaptureMode(&cmode), CUDA_SUCCESS);
  CHECK_EQ(cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  CUstreamCaptureStatus cst = CU_STREAM_CAPTURE_STATUS_NONE;
  CHECK_EQ(cuStreamIsCapturing(cs, &cst), CUDA_SUCCESS);
  CHECK_EQ(cst, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  cuuint64_t cid = 0;
  CUgraph cg = nullptr;
  CHECK_EQ(cuStreamGetCaptureInfo(cs, &cst, &cid, &cg, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  CHECK(cid != 0 && cg != nullptr);
  CHECK_EQ(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(scratch), 0x3f800000u, 16, cs), CUDA_SUCCESS);  // 1.0f
  CHECK_EQ(cuMemFree(reinterpret_cast<CUdeviceptr>(scratch)), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK_EQ(cuStreamIsCapturing(cs, &cst), CUDA_SUCCESS);
  CHECK_EQ(cst, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  CHECK_EQ(cuStreamEndCapture(cs, &cg), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK(cg == nullptr);
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
}

// Fork and join through events: the forked stream's work is captured into the same graph; a fork
// left unjoined fails the end of the capture (904); two captures cannot merge (902).
void case_graph_fork_join() {
  cudaStream_t s1 = make_stream(), s2 = make_stream(), s3 = make_stream();
  cudaEvent_t fork = nullptr, join = nullptr;
  CHECK_EQ(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming), cudaSuccess);
  CHECK_EQ(cudaEventCreateWithFlags(&join, cudaEventDisableTiming), cudaSuccess);
  int* a = device_alloc<int>(8);
  int* b = device_alloc<int>(8);
  upload(a, std::vector<int>(8, 0));
  upload(b, std::vector<int>(8, 0));

  CHECK_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaMemsetAsync(a, 1, 8 * sizeof(int), s1), cudaSuccess);
  CHECK_EQ(cudaEventRecord(fork, s1), cudaSuccess);
  CHECK_EQ(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);  // s2 joins the capture
  CHECK_EQ(status_of(s2), cudaStreamCaptureStatusActive);
  unsigned long long id1 = 0, id2 = 0;
  cudaStreamCaptureStatus st;
  CHECK_EQ(cudaStreamGetCaptureInfo(s1, &st, &id1, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
  CHECK_EQ(cudaStreamGetCaptureInfo(s2, &st, &id2, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
  CHECK(id1 != 0 && id1 == id2);
  CHECK_EQ(cudaMemcpyAsync(b, a, 8 * sizeof(int), cudaMemcpyDeviceToDevice, s2), cudaSuccess);
  CHECK_EQ(cudaEventRecord(join, s2), cudaSuccess);
  CHECK_EQ(cudaStreamWaitEvent(s1, join, 0), cudaSuccess);  // joined back
  CHECK_EQ(cudaMemsetAsync(a, 2, 4, s1), cudaSuccess);
  cudaGraph_t g = nullptr;
  CHECK_EQ(cudaStreamEndCapture(s1, &g), cudaSuccess);
  CHECK_EQ(status_of(s2), cudaStreamCaptureStatusNone);  // the forked stream left the capture too
  CHECK_EQ(node_count(g), 3u);
  CHECK(download(b, 8) == std::vector<int>(8, 0));
  cudaGraphExec_t exec = nullptr;
  CHECK_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  CHECK_EQ(cudaGraphLaunch(exec, s3), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(s3), cudaSuccess);
  CHECK(download(b, 8) == std::vector<int>(8, 0x01010101));
  std::vector<int> want_a(8, 0x01010101);
  want_a[0] = 0x02020202;
  CHECK(download(a, 8) == want_a);
  CHECK_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  CHECK_EQ(cudaGraphDestroy(g), cudaSuccess);

  // Ending on a forked stream is not the origin's end: 903 (unmatched).
  CHECK_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaEventRecord(fork, s1), cudaSuccess);
  CHECK_EQ(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
  CHECK_EQ(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);
  // A fork whose work is not joined back: 904, no graph, both streams out of the capture.
  CHECK_EQ(cudaMemsetAsync(b, 3, 4, s2), cudaSuccess);
  g = reinterpret_cast<cudaGraph_t>(0x1);
  CHECK_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureUnjoined);
  CHECK(g == nullptr);
  CHECK_EQ(status_of(s1), cudaStreamCaptureStatusNone);
  CHECK_EQ(status_of(s2), cudaStreamCaptureStatusNone);
  CHECK(download(b, 8) == std::vector<int>(8, 0x01010101));  // the memset was never run

  // A stream of one capture waiting on an event of another: 902, both invalidated.
  CHECK_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed), cudaSuccess);
  CHECK_EQ(cudaEventRecord(fork, s1), cudaSuccess);
  CHECK_EQ(cudaStreamWaitEvent(s2, fork, 0), cudaErrorStreamCaptureMerge);
  CHECK_EQ(status_of(s1), cudaStreamCaptureStatusInvalidated);
  expect_invalidated(s2, a);
  expect_invalidated(s1, a);
}

// A graph launch after its operand was freed: the launch succeeds, its GEMM faults, and the next
// synchronizing call reports the sticky illegal address (700); nothing crashed.
void case_graph_illegal_address() {
  const int m = 4, n = 4, k = 4;
  cudaStream_t s = make_stream();
  cublasHandle_t h = nullptr;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
  float* da = device_alloc<float>(m * k);
  float* dc = device_alloc<float>(m * n);
  upload(da, ramp(m * k, 1));
  upload(dc, std::vector<float>(m * n, 5.0f));
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  const float one = 1.0f, zero = 0.0f;
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, da, k, &zero, dc, m), CUBLAS_STATUS_SUCCESS);
  cudaGraph_t g = nullptr;
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  CHECK_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  CHECK_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(s), cudaSuccess);
  CHECK_EQ(cudaFree(da), cudaSuccess);
  CHECK_EQ(cudaGraphLaunch(exec, s), cudaSuccess);  // the launch itself succeeds
  CHECK_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
  CHECK_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);  // sticky
  CHECK_EQ(cudaGraphLaunch(exec, s), cudaErrorIllegalAddress);
}

// STANDIN_ASYNC_ERROR=cudaGraphLaunch:3:700 (set by ctest): the third launch succeeds and faults;
// the error shows at the next synchronization, as a kernel's does.
void case_graph_async_error() {
  cudaStream_t s = make_stream();
  int* d = device_alloc<int>(4);
  CHECK_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  CHECK_EQ(cudaMemsetAsync(d, 1, 16, s), cudaSuccess);
  cudaGraph_t g = nullptr;
  CHECK_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  CHECK_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  for (int launch = 1; launch <= 2; ++launch) {
    CHECK_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    CHECK_EQ(cudaStreamSynchronize(s), cudaSuccess);
  }
  CHECK_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
  CHECK_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
}

// The driver API alone (cuStreamBeginCapture_v2, cuStreamEndCapture, cuGraphInstantiate,
// cuGraphLaunch), with STANDIN_ASYNC_ERROR=cuGraphLaunch:2:700 (set by ctest): the first launch
// does the captured copy, the second faults after its work.
void case_graph_driver() {
  CHECK_EQ(cuInit(0), CUDA_SUCCESS);
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CHECK_EQ(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  CHECK_EQ(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  CHECK_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  CUstream s = nullptr;
  CHECK_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUdeviceptr d = 0;
  CHECK_EQ(cuMemAlloc(&d, 64), CUDA_SUCCESS);
  std::vector<int> host(16, 0);
  CHECK_EQ(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  CHECK_EQ(cuMemsetD32Async(d, 9, 16, s), CUDA_SUCCESS);
  CHECK_EQ(cuMemcpyDtoHAsync(host.data(), d, 64, s), CUDA_SUCCESS);
  CUgraph g = nullptr;
  CHECK_EQ(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
  size_t count = 0;
  CHECK_EQ(cuGraphGetNodes(g, nullptr, &count), CUDA_SUCCESS);
  CHECK_EQ(count, 2u);
  CHECK(host == std::vector<int>(16, 0));  // recorded, not run
  CUgraphExec exec = nullptr;
  CHECK_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
  CHECK_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  CHECK_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  CHECK(host == std::vector<int>(16, 9));
  CHECK_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  CHECK_EQ(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
  CHECK_EQ(cuGraphExecDestroy(exec), CUDA_ERROR_INVALID_HANDLE);
}
