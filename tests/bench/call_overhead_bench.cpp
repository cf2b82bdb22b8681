// What trace mode adds to one intercepted call. The real function is called directly (the
// baseline) and through the shim's wrapper (the shim is dlopen'ed and its wrapper found with
// dlsym, so both run in the same process and the same run). The calls chosen return at once:
// real cuBLAS with a null handle (NOT_INITIALIZED, no GPU needed), cuBLASLt layout create and
// destroy (host only), so the figure is the shim's cost, not cuBLAS's.
//
//   call_overhead_bench [benchmark flags]      CUBLASSPY_SHIM=<path to libcublasspy.so>
//                                              [CUBLASSPY_SHIM_BASELINE=<another build's>]
// CUBLASSPY_SHIM_BASELINE loads a second shim (an earlier commit's build) beside the first, so
// that a change's cost or saving is measured in one run: the *_Baseline cases call its wrappers.
// Run with LD_LIBRARY_PATH=<build>/standin to measure against the stand-in instead.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using SgemmFn = decltype(&cublasSgemm_v2);
using LayoutCreateFn = decltype(&cublasLtMatrixLayoutCreate);
using LayoutDestroyFn = decltype(&cublasLtMatrixLayoutDestroy);
using LtMatmulFn = decltype(&cublasLtMatmul);
using LaunchKernelFn = decltype(&cudaLaunchKernel);
using CreateFn = decltype(&cublasCreate_v2);
using SetStreamFn = decltype(&cublasSetStream_v2);
using SetWorkspaceFn = decltype(&cublasSetWorkspace_v2);
using SetMathModeFn = decltype(&cublasSetMathMode);

struct Targets {
  SgemmFn sgemm = nullptr;
  LayoutCreateFn layout_create = nullptr;
  LayoutDestroyFn layout_destroy = nullptr;
  LtMatmulFn lt_matmul = nullptr;
  LaunchKernelFn launch_kernel = nullptr;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkspaceFn set_workspace = nullptr;
  SetMathModeFn set_math_mode = nullptr;
};

Targets g_direct{&cublasSgemm_v2,   &cublasLtMatrixLayoutCreate, &cublasLtMatrixLayoutDestroy,
                 &cublasLtMatmul,   &cudaLaunchKernel,           &cublasCreate_v2,
                 &cublasSetStream_v2, &cublasSetWorkspace_v2,    &cublasSetMathMode};
Targets g_shim;
Targets g_baseline;

float g_one = 1.f, g_zero = 0.f;

void sgemm(benchmark::State& state, const Targets& t) {
  for (auto _ : state) {
    auto st = t.sgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &g_one, nullptr, 8, nullptr, 8, &g_zero,
                      nullptr, 8);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(state.iterations());
}

void lt_layout(benchmark::State& state, const Targets& t) {
  for (auto _ : state) {
    cublasLtMatrixLayout_t layout = nullptr;
    t.layout_create(&layout, CUDA_R_32F, 64, 32, 64);
    t.layout_destroy(layout);
  }
  state.SetItemsProcessed(state.iterations() * 2);
}

void lt_matmul(benchmark::State& state, const Targets& t) {
  for (auto _ : state) {
    auto st = t.lt_matmul(nullptr, nullptr, &g_one, nullptr, nullptr, nullptr, nullptr, &g_zero, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(state.iterations());
}

// A matmul given a preset algorithm, as PyTorch gives every one (the heuristic's): the shim
// records its 64 bytes. The bytes are zero here; the call fails at once on the null handle.
cublasLtMatmulAlgo_t g_algo = {};

void lt_matmul_preset(benchmark::State& state, const Targets& t) {
  if (t.lt_matmul == nullptr) {
    state.SkipWithError("no such shim (CUBLASSPY_SHIM_BASELINE)");
    return;
  }
  for (auto _ : state) {
    auto st = t.lt_matmul(nullptr, nullptr, &g_one, nullptr, nullptr, nullptr, nullptr, &g_zero, nullptr,
                          nullptr, nullptr, nullptr, &g_algo, nullptr, 0, nullptr);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(state.iterations());
}

// What the shim no longer does on such a matmul: the real cublasLtMatmulAlgoConfigGetAttribute
// of the algorithm's id (the readers decode the bytes instead).
void BM_LtAlgoConfigGetId_Direct(benchmark::State& state) {
  for (auto _ : state) {
    int32_t id = 0;
    size_t written = 0;
    auto st = cublasLtMatmulAlgoConfigGetAttribute(&g_algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(id);
  }
  state.SetItemsProcessed(state.iterations());
}

// The launch recorder (interpose/launch_hooks.cpp): a kernel launch the runtime refuses at
// once (no driver here; on the stand-in, an unregistered function), so the difference between
// the two is the entry written to the launch ring and the kernel table's lookup.
void launch_stub() {}

void launch_kernel(benchmark::State& state, const Targets& t) {
  if (t.launch_kernel == nullptr) {
    state.SkipWithError("no such shim (CUBLASSPY_SHIM_BASELINE)");
    return;
  }
  for (auto _ : state) {
    auto st = t.launch_kernel(reinterpret_cast<const void*>(&launch_stub), dim3(4), dim3(256), nullptr, 0, nullptr);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(state.iterations());
}

// What PyTorch calls for one torch.mm (at::cuda::getCurrentCUDABlasHandle, then the GEMM): the
// handle's stream, workspace and math mode set again, then a cublasSgemm_v2 that succeeds. Only
// on the stand-in (LD_LIBRARY_PATH=<build>/standin), whose handle works without a GPU; 2x2x2,
// so that the stand-in's arithmetic stays small beside what the shim adds. The handle is
// created through the same targets, so the shim knows it as it knows PyTorch's.
//
// The arguments: KiB of the program's own memory each iteration writes besides (a line in 64
// bytes), as PyTorch's dispatcher, allocator and Python objects do between two torch.mm; KiB
// of the program's own code it runs besides (program_code); and the GEMM's m, 2 or 0. With 0
// and 0 the shim's code, data and ring lines stay in cache; otherwise they compete with the
// program's for it, as they do in the PyTorch loop (tests/pytorch/bench_mm_loop.py). An m of 0
// is an empty GEMM, which the library returns from once it has checked the arguments: the four
// calls then take some 60 ns without the shim instead of some 500, whose variation between runs
// (tens of nanoseconds) hid what the shim adds; the shim records it as any other GEMM.
std::vector<char>& program_memory() {
  static std::vector<char> memory(size_t{16} << 20, 1);
  return memory;
}

// KiB of the program's own code each iteration runs besides: one taken jump in each 64 bytes,
// in a shuffled order, so that the shim's code and branches leave the instruction cache and the
// branch predictors between two torch.mm, as PyTorch's dispatcher and interpreter make them.
using CodeFn = void (*)();
CodeFn program_code(size_t kib) {
  static std::vector<std::pair<size_t, CodeFn>> made;
  for (auto& [k, fn] : made) if (k == kib) return fn;
  const size_t blocks = kib * 1024 / 64;
  void* mem = mmap(nullptr, blocks * 64 + 64, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  auto* code = static_cast<unsigned char*>(mem);
  std::vector<size_t> order(blocks);
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin() + 1, order.end(), std::mt19937(42));
  for (size_t i = 0; i < blocks; ++i) {
    unsigned char* at = code + order[i] * 64;
    const unsigned char* to = i + 1 < blocks ? code + order[i + 1] * 64 : code + blocks * 64;
    const int32_t rel = static_cast<int32_t>(to - (at + 5));
    at[0] = 0xe9;
    std::memcpy(at + 1, &rel, 4);
  }
  code[blocks * 64] = 0xc3;
  auto fn = reinterpret_cast<CodeFn>(mem);
  made.emplace_back(kib, fn);
  return fn;
}

void torch_mm_calls(benchmark::State& state, const Targets& t) {
  const size_t touched = static_cast<size_t>(state.range(0)) << 10;
  CodeFn code = state.range(1) > 0 ? program_code(static_cast<size_t>(state.range(1))) : nullptr;
  const int m = static_cast<int>(state.range(2));
  if (state.range(1) > 0 && code == nullptr) {
    state.SkipWithError("cannot map the program's code (an executable anonymous mapping was refused)");
    return;
  }
  std::vector<char>& memory = program_memory();
  size_t offset = 0;
  cublasHandle_t handle = nullptr;
  if (t.create == nullptr) {
    state.SkipWithError("no such shim (CUBLASSPY_SHIM_BASELINE)");
    return;
  }
  if (t.create(&handle) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cublasCreate_v2 failed: run on the stand-in (LD_LIBRARY_PATH=<build>/standin)");
    return;
  }
  float *a = nullptr, *b = nullptr, *c = nullptr;
  void* workspace = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&a), 4 * sizeof(float));
  cudaMalloc(reinterpret_cast<void**>(&b), 4 * sizeof(float));
  cudaMalloc(reinterpret_cast<void**>(&c), 4 * sizeof(float));
  cudaMalloc(&workspace, 1 << 20);
  for (auto _ : state) {
    for (size_t i = 0; i < touched; i += 64) memory[(offset + i) % memory.size()]++;
    offset = (offset + touched) % memory.size();
    if (code != nullptr) code();
    t.set_stream(handle, nullptr);
    t.set_workspace(handle, workspace, 1 << 20);
    t.set_math_mode(handle, CUBLAS_DEFAULT_MATH);
    auto st = t.sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, 2, 2, &g_one, a, 2, b, 2, &g_zero, c, 2);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(state.iterations());
  cublasDestroy_v2(handle);
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), workspace}) cudaFree(p);
}
void BM_TorchMmCalls_Direct(benchmark::State& s) { torch_mm_calls(s, g_direct); }
void BM_TorchMmCalls_Shim(benchmark::State& s) { torch_mm_calls(s, g_shim); }
void BM_TorchMmCalls_Baseline(benchmark::State& s) { torch_mm_calls(s, g_baseline); }

void BM_LaunchKernel_Direct(benchmark::State& s) { launch_kernel(s, g_direct); }
void BM_LaunchKernel_Shim(benchmark::State& s) { launch_kernel(s, g_shim); }
void BM_LaunchKernel_Baseline(benchmark::State& s) { launch_kernel(s, g_baseline); }

void BM_Sgemm_Direct(benchmark::State& s) { sgemm(s, g_direct); }
void BM_Sgemm_Shim(benchmark::State& s) { sgemm(s, g_shim); }
void BM_LtLayoutCreateDestroy_Direct(benchmark::State& s) { lt_layout(s, g_direct); }
void BM_LtLayoutCreateDestroy_Shim(benchmark::State& s) { lt_layout(s, g_shim); }
void BM_LtMatmul_Direct(benchmark::State& s) { lt_matmul(s, g_direct); }
void BM_LtMatmul_Shim(benchmark::State& s) { lt_matmul(s, g_shim); }
void BM_LtMatmulPresetAlgo_Direct(benchmark::State& s) { lt_matmul_preset(s, g_direct); }
void BM_LtMatmulPresetAlgo_Shim(benchmark::State& s) { lt_matmul_preset(s, g_shim); }
void BM_LtMatmulPresetAlgo_Baseline(benchmark::State& s) { lt_matmul_preset(s, g_baseline); }

BENCHMARK(BM_LaunchKernel_Direct)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(BM_LaunchKernel_Shim)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(BM_LaunchKernel_Baseline)->Threads(1)->UseRealTime();
BENCHMARK(BM_TorchMmCalls_Direct)->Args({0, 0, 2})->Args({256, 0, 2})->Args({0, 64, 2})->Args({0, 0, 0})->Threads(1)->UseRealTime();
BENCHMARK(BM_TorchMmCalls_Shim)->Args({0, 0, 2})->Args({256, 0, 2})->Args({0, 64, 2})->Args({0, 0, 0})->Threads(1)->UseRealTime();
BENCHMARK(BM_TorchMmCalls_Baseline)->Args({0, 0, 2})->Args({256, 0, 2})->Args({0, 64, 2})->Args({0, 0, 0})->Threads(1)->UseRealTime();
BENCHMARK(BM_Sgemm_Direct)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Sgemm_Shim)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_LtMatmul_Direct)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_LtMatmul_Shim)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_LtMatmulPresetAlgo_Direct)->Threads(1)->UseRealTime();
BENCHMARK(BM_LtMatmulPresetAlgo_Shim)->Threads(1)->UseRealTime();
BENCHMARK(BM_LtMatmulPresetAlgo_Baseline)->Threads(1)->UseRealTime();
BENCHMARK(BM_LtAlgoConfigGetId_Direct)->Threads(1)->UseRealTime();
BENCHMARK(BM_LtLayoutCreateDestroy_Direct)->Threads(1)->UseRealTime();
BENCHMARK(BM_LtLayoutCreateDestroy_Shim)->Threads(1)->UseRealTime();

void load_torch_mm_targets(void* shim, Targets& t) {
  t.create = reinterpret_cast<CreateFn>(dlsym(shim, "cublasCreate_v2"));
  t.set_stream = reinterpret_cast<SetStreamFn>(dlsym(shim, "cublasSetStream_v2"));
  t.set_workspace = reinterpret_cast<SetWorkspaceFn>(dlsym(shim, "cublasSetWorkspace_v2"));
  t.set_math_mode = reinterpret_cast<SetMathModeFn>(dlsym(shim, "cublasSetMathMode"));
}

}  // namespace

int main(int argc, char** argv) {
  const char* shim = std::getenv("CUBLASSPY_SHIM");
  if (shim == nullptr) {
    std::fprintf(stderr, "call_overhead_bench: set CUBLASSPY_SHIM to libcublasspy.so\n");
    return 2;
  }
  if (std::getenv("CUBLASSPY_TRACE") == nullptr) setenv("CUBLASSPY_TRACE", "/tmp/cublasspy-bench-%p.cbt", 1);
  // Every call here fails (a null handle), and a failing call takes its Python and native
  // location by default: that cost is tests/pytorch/bench_locations.py's. This is the record's.
  if (std::getenv("CUBLASSPY_STACKS") == nullptr) setenv("CUBLASSPY_STACKS", "none", 1);
  void* h = dlopen(shim, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "call_overhead_bench: %s\n", dlerror());
    return 2;
  }
  g_shim.sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cublasSgemm_v2"));
  g_shim.layout_create = reinterpret_cast<LayoutCreateFn>(dlsym(h, "cublasLtMatrixLayoutCreate"));
  g_shim.layout_destroy = reinterpret_cast<LayoutDestroyFn>(dlsym(h, "cublasLtMatrixLayoutDestroy"));
  g_shim.lt_matmul = reinterpret_cast<LtMatmulFn>(dlsym(h, "cublasLtMatmul"));
  g_shim.launch_kernel = reinterpret_cast<LaunchKernelFn>(dlsym(h, "cudaLaunchKernel"));
  load_torch_mm_targets(h, g_shim);
  if (const char* baseline = std::getenv("CUBLASSPY_SHIM_BASELINE")) {
    void* b = dlopen(baseline, RTLD_NOW | RTLD_LOCAL);
    if (b == nullptr) {
      std::fprintf(stderr, "call_overhead_bench: %s\n", dlerror());
      return 2;
    }
    g_baseline.lt_matmul = reinterpret_cast<LtMatmulFn>(dlsym(b, "cublasLtMatmul"));
    g_baseline.launch_kernel = reinterpret_cast<LaunchKernelFn>(dlsym(b, "cudaLaunchKernel"));
    g_baseline.sgemm = reinterpret_cast<SgemmFn>(dlsym(b, "cublasSgemm_v2"));
    load_torch_mm_targets(b, g_baseline);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
