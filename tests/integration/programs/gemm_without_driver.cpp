// A cuBLAS program with no driver in its process: it links only the null cuBLAS
// (tests/integration/null_cuda), which needs no libcuda, creates a handle and makes two
// cublasSgemm_v2 calls with lda < m. Made-up device addresses: the null cuBLAS touches nothing
// but out-parameters. It prints whether a libcuda is mapped at the end.
//   gemm_without_driver         never loads libcuda itself
//   gemm_without_driver load    dlopens libcuda.so.1 itself between the two GEMMs
#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

bool libcuda_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libcuda.so") != std::string::npos) return true;
  }
  return false;
}

cublasStatus_t gemm(cublasHandle_t handle) {
  static const float alpha = 1.0f, beta = 0.0f;
  const auto* a = reinterpret_cast<const float*>(0x7f0000000000);
  const auto* b = reinterpret_cast<const float*>(0x7f0000100000);
  auto* c = reinterpret_cast<float*>(0x7f0000200000);
  return cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, a, 3, b, 4, &beta, c, 4);
}

}  // namespace

int main(int argc, char** argv) {
  const bool load = argc > 1 && std::strcmp(argv[1], "load") == 0;
  cublasHandle_t handle = nullptr;
  const int created = cublasCreate_v2(&handle);
  const int first = gemm(handle);
  if (load && dlopen("libcuda.so.1", RTLD_NOW) == nullptr) {
    std::printf("dlopen(libcuda.so.1) failed: %s\n", dlerror());
    return 1;
  }
  const int second = gemm(handle);
  std::printf("create %d sgemm %d %d libcuda %s\n", created, first, second,
              libcuda_mapped() ? "mapped" : "absent");
  return 0;
}
