// A program under which every allocation the shim makes fails: its own malloc (exported, so
// the shim's operator new reaches it) returns null to callers inside libcublasspy.so while
// faults are on, so the shim's std::string, containers and JSON throw std::bad_alloc. Nothing of
// that may reach the program: each call below is inside a try block that says so and exits 4.
//
//   shim_alloc_faults from-start    faults on before the first CUDA call (the shim's set-up)
//   shim_alloc_faults after-setup   faults on after a first GEMM (the per-call work)
//
// Makes GEMMs (the i-th with ldc = 4 + i - 2, so the first two fail), asks for an error's text,
// loads a CUDA library by name and one that does not exist (dlopen, dlerror). Prints the
// outcomes, the same with and without the shim, then how many allocations it refused
// ("refused N", on stderr: 0 without the shim). Exit status 0.
#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

extern "C" void* __libc_malloc(size_t size);

namespace {

uintptr_t g_shim_begin = 0, g_shim_end = 0;  // the shim's mapped segments
bool g_faults = false;
unsigned long g_refused = 0;

void find_shim() {
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) -> int {
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libcublasspy.so") == nullptr) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
          if (g_shim_begin == 0 || begin < g_shim_begin) g_shim_begin = begin;
          if (end > g_shim_end) g_shim_end = end;
        }
        return 1;
      },
      nullptr);
}

}  // namespace

// Everyone's malloc (the program exports it: -rdynamic); null for the shim's own while faults
// are on. Its operator new (libstdc++, linked into the shim) is the caller then.
extern "C" void* malloc(size_t size) {
  const auto caller = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  if (g_faults && caller >= g_shim_begin && caller < g_shim_end) {
    ++g_refused;
    return nullptr;
  }
  return __libc_malloc(size);
}

namespace {

constexpr int kM = 4, kN = 3, kK = 2, kGemms = 6;

float* device_ones(size_t floats) {
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  std::vector<float> ones(floats, 1.0f);
  cudaMemcpy(p, ones.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const bool from_start = std::strcmp(argv[1], "from-start") == 0;
  find_shim();
  if (from_start) g_faults = true;
  try {
    cublasHandle_t handle = nullptr;
    std::printf("create %d\n", static_cast<int>(cublasCreate(&handle)));
    float* a = device_ones(kM * kK);
    float* b = device_ones(kK * kN);
    float* c = device_ones(static_cast<size_t>(kM + kGemms) * kN);
    const float alpha = 1.0f, beta = 0.0f;
    int failed = 0;
    auto gemm = [&](int i) {
      failed += cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK, &beta, c,
                            kM + i - 2) != CUBLAS_STATUS_SUCCESS;
    };
    gemm(2);
    g_faults = true;
    for (int i = 0; i < kGemms; ++i) gemm(i);
    std::printf("gemms %d failed %d\n", kGemms + 1, failed);
    std::printf("error text %s\n", cudaGetErrorString(cudaErrorInvalidValue));
    void* cublas = dlopen("libcublas.so.13", RTLD_NOW);
    std::printf("dlopen libcublas.so.13 %s\n", cublas != nullptr ? "loaded" : "failed");
    void* missing = dlopen("libcudart.so.99", RTLD_NOW);
    const char* why = dlerror();
    std::printf("dlopen libcudart.so.99 %s, dlerror %s\n", missing != nullptr ? "loaded" : "failed",
                why != nullptr ? "says why" : "null");
    float c0 = 0;
    cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
    std::printf("c[0] %g destroy %d\n", static_cast<double>(c0), static_cast<int>(cublasDestroy(handle)));
  } catch (...) {
    g_faults = false;
    std::printf("an exception reached the program\n");
    return 4;
  }
  g_faults = false;
  std::fflush(stdout);
  std::fprintf(stderr, "refused %lu\n", g_refused);
  return 0;
}
