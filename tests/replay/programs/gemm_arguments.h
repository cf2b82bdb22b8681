// Valid, small arguments for any GEMM entry point of the hook list, made by parameter name and C
// type: the replay tests' subject program calls every entry point with them (generated from the
// hook list, like the shim's wrappers), so each leaves a record the replay must re-execute.
//
// The problem: C (m 5 x n 4, ldc 7) = alpha * A (stored 5 x 3, lda 6) * B^T (B stored 4 x 3,
// ldb 4) + beta * C, alpha 1.5, beta 0.5; strided and pointer-array batches of 2 members, with
// gaps between members; grouped calls with two groups (the second 3 x 2 x 2, of one member).
// Operands hold seeded values in [-1, 1) and live in cudaMalloc'ed memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include <cuComplex.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

#include "replay/element_codec.h"

namespace subjects {

using cublasspy::DataType;

inline constexpr int64_t kM = 5, kN = 4, kK = 3, kLda = 6, kLdb = 4, kLdc = 7, kBatch = 2;
// The second group of grouped calls.
inline constexpr int64_t kM2 = 3, kN2 = 2, kK2 = 2, kLda2 = 4, kLdb2 = 2, kLdc2 = 3;

// The element types of an entry point's operands: what its name implies, or for the Ex forms
// a supported combination chosen here (16-bit inputs route cublasGemmEx through cublasLtMatmul
// in the stand-in, as in the real library).
struct Types {
  cudaDataType a, b, c;
  cublasComputeType_t compute;
};
Types types_for(const std::string& fn);

// Seeded device memory, kept until the program ends.
class Memory {
 public:
  void* device(DataType type, int64_t elements, uint64_t seed);
  void* device_copy(const void* host, size_t bytes);

 private:
  std::deque<std::vector<unsigned char>> host_;
};

class Arguments {
 public:
  Arguments(const std::string& fn, void* handle, Memory& memory) : fn_(fn), types_(types_for(fn)), handle_(handle), memory_(memory) {}

  template <typename T>
  T get(const char* name);

 private:
  // Stored extents (elements) of A, B, C of the main problem and of the second group.
  static int64_t extent(char which, bool second_group = false);
  DataType element_type(char which) const;
  void* matrix(char which, bool array);
  void* grouped_array(char which);
  template <typename E> const E* host_array(std::initializer_list<E> values);
  const void* scalar(double value);

  std::string fn_;
  Types types_;
  void* handle_;
  Memory& memory_;
  std::deque<std::vector<unsigned char>> host_;
  bool grouped() const { return fn_.find("GroupedBatched") != std::string::npos; }
  bool batched() const { return !grouped() && fn_.find("Batched") != std::string::npos && fn_.find("Strided") == std::string::npos; }
  bool strided() const { return fn_.find("StridedBatched") != std::string::npos; }
};

template <typename T>
T Arguments::get(const char* name_c) {
  const std::string name = name_c;
  if constexpr (std::is_pointer_v<T>) {
    if (name == "handle") return reinterpret_cast<T>(handle_);
    if (name == "A" || name == "B" || name == "C") return reinterpret_cast<T>(matrix(static_cast<char>(name[0] + 32), false));
    if (name == "Aarray" || name == "Barray" || name == "Carray") {
      char which = static_cast<char>(name[0] + 32);
      return reinterpret_cast<T>(grouped() ? grouped_array(which) : matrix(which, true));
    }
    if (name == "alpha" || name == "alpha_array") return reinterpret_cast<T>(const_cast<void*>(scalar(1.5)));
    if (name == "beta" || name == "beta_array") return reinterpret_cast<T>(const_cast<void*>(scalar(0.5)));
    using Elem = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_same_v<Elem, cublasOperation_t>) {
      return host_array<cublasOperation_t>({name == "transa_array" ? CUBLAS_OP_N : CUBLAS_OP_T,
                                            name == "transa_array" ? CUBLAS_OP_N : CUBLAS_OP_T});
    } else if constexpr (std::is_integral_v<Elem>) {
      if (name == "m_array") return host_array<Elem>({kM, kM2});
      if (name == "n_array") return host_array<Elem>({kN, kN2});
      if (name == "k_array") return host_array<Elem>({kK, kK2});
      if (name == "lda_array") return host_array<Elem>({kLda, kLda2});
      if (name == "ldb_array") return host_array<Elem>({kLdb, kLdb2});
      if (name == "ldc_array") return host_array<Elem>({kLdc, kLdc2});
      if (name == "group_size") return host_array<Elem>({2, 1});
    }
    return nullptr;
  } else if constexpr (std::is_same_v<T, cublasOperation_t>) {
    return name == "transa" ? CUBLAS_OP_N : CUBLAS_OP_T;
  } else if constexpr (std::is_same_v<T, cudaDataType>) {
    return name[0] == 'A' ? types_.a : name[0] == 'B' ? types_.b : types_.c;
  } else if constexpr (std::is_same_v<T, cublasComputeType_t>) {
    return types_.compute;
  } else if constexpr (std::is_same_v<T, cublasGemmAlgo_t>) {
    return CUBLAS_GEMM_DEFAULT;
  } else {
    static_assert(std::is_integral_v<T>);
    if (name == "m") return static_cast<T>(kM);
    if (name == "n") return static_cast<T>(kN);
    if (name == "k") return static_cast<T>(kK);
    if (name == "lda") return static_cast<T>(kLda);
    if (name == "ldb") return static_cast<T>(kLdb);
    if (name == "ldc") return static_cast<T>(kLdc);
    if (name == "strideA") return static_cast<T>(extent('a') + 3);
    if (name == "strideB") return static_cast<T>(extent('b') + 3);
    if (name == "strideC") return static_cast<T>(extent('c') + 3);
    if (name == "batchCount") return static_cast<T>(kBatch);
    if (name == "group_count") return static_cast<T>(2);
    return static_cast<T>(0);
  }
}

}  // namespace subjects
