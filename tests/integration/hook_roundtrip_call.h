// The round-trip program's side of one hooked call: it makes a distinctive value for each
// argument, writes down which record slot must hold what, calls the hook, and afterwards writes
// down the out-values the callee wrote. Expanded once per hook-list entry by hook_roundtrip.cpp
// and hook_roundtrip_legacy.cpp.
//
// Expectation lines (read by hook_roundtrip_test.cpp), one per checked slot:
//   FUNCTION arg SLOT HEX       the slot holds the argument as passed
//   FUNCTION out SLOT HEX       the slot holds what the callee wrote through the out-parameter
//   FUNCTION derived SLOT HEX   a slot the shim fills by reading the argument's memory
//   FUNCTION alpha RE IM        record.alpha (likewise beta): the by-value scalars of the v1 API
//   FUNCTION params N           the function's parameter count (the test checks all were seen)
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <type_traits>
#include <vector>

#include <cuComplex.h>

#include "spec/foreach.h"
#include "spec/hook_list.h"
#include "hook_tag_traits.h"

using ::cublasspy::ScalarType;  // the hook list names tags like Alpha<ScalarType::kF32>
using ::cublasspy::Role;        // and like Int<Role::kM>

namespace roundtrip {

// A distinctive value of an enum type for argument position `pos`: valid values only (the
// shim may print them), different from one position to the next where the type has several.
template <class E>
E enum_value(int pos) {
  if constexpr (std::is_same_v<E, cublasOperation_t>) return pos % 2 ? CUBLAS_OP_T : CUBLAS_OP_C;
  else if constexpr (std::is_same_v<E, cudaDataType>) {
    constexpr cudaDataType kTypes[] = {CUDA_R_16F, CUDA_R_16BF, CUDA_R_8I, CUDA_C_32F, CUDA_R_64F};
    return kTypes[pos % 5];
  } else if constexpr (std::is_same_v<E, cublasComputeType_t>) return CUBLAS_COMPUTE_32F_FAST_TF32;
  else if constexpr (std::is_same_v<E, cublasGemmAlgo_t>) return CUBLAS_GEMM_DEFAULT_TENSOR_OP;
  else if constexpr (std::is_same_v<E, cublasPointerMode_t>) return CUBLAS_POINTER_MODE_DEVICE;
  else if constexpr (std::is_same_v<E, cublasMath_t>) return CUBLAS_TF32_TENSOR_OP_MATH;
  else if constexpr (std::is_same_v<E, cudaMemcpyKind>) return cudaMemcpyDeviceToHost;
  else if constexpr (std::is_same_v<E, cublasLtMatmulDescAttributes_t>) return CUBLASLT_MATMUL_DESC_EPILOGUE;
  else if constexpr (std::is_same_v<E, cublasLtMatrixLayoutAttribute_t>) return CUBLASLT_MATRIX_LAYOUT_LD;
  else return static_cast<E>(1);
}

// A distinctive plain value. 64-bit integers get a value above 2^32 so that a slot cut to 32
// bits would not pass.
template <class T>
T plain_value(int pos) {
  if constexpr (std::is_enum_v<T>) return enum_value<T>(pos);
  else if constexpr (std::is_same_v<T, char>) return pos % 2 ? 'T' : 'C';
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(1.25 + pos);
  else if constexpr (std::is_same_v<T, cuComplex>) return make_cuComplex(1.25f + pos, -2.5f - pos);
  else if constexpr (std::is_same_v<T, cuDoubleComplex>) return make_cuDoubleComplex(1.25 + pos, -2.5 - pos);
  else if constexpr (sizeof(T) == 8) return static_cast<T>((uint64_t{1} << 32) + 1000 + pos);
  else return static_cast<T>(1000 + pos);
}

class Recorder {
 public:
  explicit Recorder(FILE* out) : out_(out) {}
  void line(const char* fn, const char* what, int slot, uint64_t raw) {
    std::fprintf(out_, "%s %s %d %llx\n", fn, what, slot, static_cast<unsigned long long>(raw));
  }
  void scalar(const char* fn, const char* which, double re, double im) {
    std::fprintf(out_, "%s %s %.17g %.17g\n", fn, which, re, im);
  }
  void params(const char* fn, int count) { std::fprintf(out_, "%s params %d\n", fn, count); }

 private:
  FILE* out_;
};

class Call {
 public:
  Call(Recorder& recorder, const char* fn, int param_slots)
      : recorder_(recorder), fn_(fn), derived_(param_slots) {}

  template <class T, class Tag>
  T argument() {
    const int pos = pos_++;
    const int slot = slot_;
    slot_ += Tag::kSlots;
    const int derived = derived_;
    derived_ += Tag::kDerived;
    if constexpr (kWritesBack<Tag>) {
      // A real host buffer, zero-filled; its value after the call is the expectation.
      using Pointee = std::remove_cv_t<std::remove_pointer_t<T>>;
      auto* p = static_cast<Pointee*>(block());
      after_.push_back([this, p, slot] { recorder_.line(fn_, "out", slot, tags::bits(*p)); });
      return p;
    } else if constexpr (kReadsScalar<Tag> || kReadsAttrBuffer<Tag> || kReadsLtAlgo<Tag>) {
      // Host memory the shim may read: 16 bytes of a recognizable pattern.
      void* p = block();
      uint64_t pattern[2] = {0x1122334455667700ull + static_cast<uint64_t>(pos), 0x0102030405060708ull};
      std::memcpy(p, pattern, sizeof pattern);
      recorder_.line(fn_, "arg", slot, reinterpret_cast<uint64_t>(p));
      if constexpr (kReadsAttrBuffer<Tag>) recorder_.line(fn_, "derived", derived, pattern[0]);
      return static_cast<T>(p);
    } else if constexpr (kReadsFirst<Tag>) {
      // A per-group host array: the shim copies its first element into a derived slot.
      using Elem = std::remove_cv_t<std::remove_pointer_t<T>>;
      auto* p = static_cast<Elem*>(block());
      p[0] = plain_value<Elem>(pos + 100);
      recorder_.line(fn_, "arg", slot, reinterpret_cast<uint64_t>(p));
      recorder_.line(fn_, "derived", derived, tags::bits(p[0]));
      return p;
    } else if constexpr (std::is_base_of_v<tags::GroupCount, Tag>) {
      // A grouped GEMM reads group_count entries of each per-group array: one, as built above.
      T value = 1;
      recorder_.line(fn_, "arg", slot, tags::bits(value));
      return value;
    } else if constexpr (std::is_pointer_v<T>) {
      // Anything else is only an address to the shim: a made-up one, never mapped.
      T fake = reinterpret_cast<T>(uintptr_t{0x7e5700000000} + static_cast<uintptr_t>(pos + 1) * 0x40);
      recorder_.line(fn_, "arg", slot, reinterpret_cast<uint64_t>(fake));
      return fake;
    } else {
      T value = plain_value<T>(pos);
      if constexpr (std::is_same_v<T, cuComplex> || std::is_same_v<T, cuDoubleComplex>) {
        // The slot of a complex scalar passed by value keeps its real part; the record's
        // alpha/beta keep both parts.
        recorder_.line(fn_, "arg", slot, tags::bits(static_cast<double>(value.x)));
        recorder_.scalar(fn_, kIsAlpha<Tag> ? "alpha" : "beta", value.x, value.y);
      } else {
        recorder_.line(fn_, "arg", slot, tags::bits(value));
        if constexpr (kScalarByValue<Tag>) {
          recorder_.scalar(fn_, kIsAlpha<Tag> ? "alpha" : "beta", value, 0.0);
        }
      }
      return value;
    }
  }

  // What the hook returned: a value-returning function's (cublasLtGetVersion's size_t) is the
  // derived slot after all the others (intercept.h, kReturnsValue).
  template <class F>
  void invoke(F&& hook) {
    using R = decltype(hook());
    if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) {
      recorder_.line(fn_, "derived", derived_, tags::bits(hook()));
    } else {
      hook();
    }
  }

  void finish() {
    for (auto& f : after_) f();
    recorder_.params(fn_, pos_);
  }

 private:
  void* block() {
    blocks_.emplace_back();
    return blocks_.back().bytes;
  }
  struct alignas(16) Block {
    unsigned char bytes[64] = {};
  };

  Recorder& recorder_;
  const char* fn_;
  int pos_ = 0;
  int slot_ = 0;
  int derived_;
  std::deque<Block> blocks_;
  std::vector<std::function<void()>> after_;
};

}  // namespace roundtrip

#define RT_SLOTS(type, name, tag) +::cublasspy::tags::tag::kSlots
#define RT_TYPE(type, name, tag) type
#define RT_NAME(type, name, tag) name
#define RT_ARG(type, name, tag) type name = call.argument<type, ::cublasspy::tags::tag>()
// One function per hook: make the arguments, call the hook through the header's declaration of
// exactly the hook list's type (cublasGemmEx also has a C++ overload), record the out-values.
#define RT_DEFINE_CALL(lib_, ret_, fn_, fail_, family_, traits_, ...)                       \
  void roundtrip_##fn_(::roundtrip::Recorder& recorder) {                         \
    ::roundtrip::Call call(recorder, #fn_, 0 CBS_MAP_SPACE(RT_SLOTS, __VA_ARGS__)); \
    CBS_MAP_SEMI(RT_ARG, __VA_ARGS__)                                             \
    using Real = ret_ (*)(CBS_MAP_COMMA(RT_TYPE, __VA_ARGS__));                   \
    call.invoke([&] { return static_cast<Real>(&::fn_)(CBS_MAP_COMMA(RT_NAME, __VA_ARGS__)); }); \
    call.finish();                                                                \
  }
#define RT_INVOKE(lib_, ret_, fn_, fail_, family_, traits_, ...) roundtrip_##fn_(recorder);
