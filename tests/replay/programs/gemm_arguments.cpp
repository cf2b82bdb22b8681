#include <cublas_api.h>

#include "gemm_arguments.h"

#include <cstring>

#include "trace/roles_from_names.h"

namespace subjects {

using cublasspy::replay::encode_part;
using cublasspy::replay::fill_seeded;
using cublasspy::replay::SeededValues;

namespace {

// The element type an entry point's prototype fixes (cublasSgemm: CUDA_R_32F), known here by its
// name the way the reader knows it for traces that do not say it (roles_from_names.h).
DataType named_type(const std::string& fn) {
  cublasspy::format::FunctionEntry entry{};
  std::strncpy(entry.name, fn.c_str(), sizeof entry.name - 1);
  cublasspy::derive_traits_from_names(entry);
  const int fixed = cublasspy::format::fixed_element_type(entry);
  return fixed < 0 ? DataType::kUnknown : static_cast<DataType>(fixed);
}

}  // namespace

Types types_for(const std::string& fn) {
  if (fn.find("SgemmEx") != std::string::npos) return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
  if (fn.find("CgemmEx") != std::string::npos || fn.find("Cgemm3mEx") != std::string::npos) {
    return {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUBLAS_COMPUTE_32F};
  }
  if (fn.rfind("cublasGemm", 0) == 0) {
    // The _64 forms: bf16 in, fp32 out; the others fp16 throughout.
    if (fn.size() > 3 && fn.substr(fn.size() - 3) == "_64") return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    return {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
  }
  cudaDataType t = static_cast<cudaDataType>(named_type(fn));
  return {t, t, t, CUBLAS_COMPUTE_32F};
}

void* Memory::device(DataType type, int64_t elements, uint64_t seed) {
  const size_t bytes = static_cast<size_t>(elements) * static_cast<size_t>(cublasspy::element_bytes(type));
  host_.emplace_back(bytes);
  SeededValues values(seed, "subject");
  fill_seeded(values, type, host_.back().data(), static_cast<uint64_t>(elements));
  return device_copy(host_.back().data(), bytes);
}

void* Memory::device_copy(const void* host, size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
  return p;
}

int64_t Arguments::extent(char which, bool second) {
  // A stored m x k (N), B stored n x k (T), C m x n.
  const int64_t m = second ? kM2 : kM, n = second ? kN2 : kN, k = second ? kK2 : kK;
  const int64_t lda = second ? kLda2 : kLda, ldb = second ? kLdb2 : kLdb, ldc = second ? kLdc2 : kLdc;
  switch (which) {
    case 'a': return (k - 1) * lda + m;
    case 'b': return (k - 1) * ldb + n;
    default: return (n - 1) * ldc + m;
  }
}

DataType Arguments::element_type(char which) const {
  return static_cast<DataType>(which == 'a' ? types_.a : which == 'b' ? types_.b : types_.c);
}

void* Arguments::matrix(char which, bool array) {
  const DataType t = element_type(which);
  const uint64_t seed = static_cast<uint64_t>(which) * 7919 + fn_.size();
  if (strided()) return memory_.device(t, extent(which) + (extent(which) + 3) * (kBatch - 1), seed);
  if (!array) return memory_.device(t, extent(which), seed);
  std::vector<void*> members;
  for (int64_t i = 0; i < kBatch; ++i) members.push_back(memory_.device(t, extent(which), seed + static_cast<uint64_t>(i)));
  return memory_.device_copy(members.data(), members.size() * sizeof(void*));
}

void* Arguments::grouped_array(char which) {
  // Three members: two of the first group, one of the second (each as large as the first's).
  const DataType t = element_type(which);
  std::vector<void*> members;
  for (uint64_t i = 0; i < 3; ++i) members.push_back(memory_.device(t, extent(which), 31 * i + static_cast<uint64_t>(which)));
  return memory_.device_copy(members.data(), members.size() * sizeof(void*));
}

template <typename E>
const E* Arguments::host_array(std::initializer_list<E> values) {
  host_.emplace_back(values.size() * sizeof(E));
  std::memcpy(host_.back().data(), values.begin(), values.size() * sizeof(E));
  return reinterpret_cast<const E*>(host_.back().data());
}

// alpha/beta in the entry point's scalar type (two of them for grouped calls, same values).
const void* Arguments::scalar(double value) {
  DataType t = named_type(fn_);
  if (fn_.rfind("cublasGemm", 0) == 0) t = cublasspy::is_complex(element_type('c')) ? DataType::kC32F : DataType::kR32F;
  if (t == DataType::kUnknown) t = DataType::kR32F;
  const int bytes = cublasspy::element_bytes(t);
  host_.emplace_back(static_cast<size_t>(bytes) * 2, 0);
  for (int i = 0; i < 2; ++i) encode_part(t, host_.back().data() + i * bytes, 0, value);
  return host_.back().data();
}

template const cublasOperation_t* Arguments::host_array(std::initializer_list<cublasOperation_t>);
template const int* Arguments::host_array(std::initializer_list<int>);
template const int64_t* Arguments::host_array(std::initializer_list<int64_t>);

}  // namespace subjects
