// What the per-hook round trip needs to know about an argument tag (interpose/arg_tags.h), shared
// by the null CUDA stack and the round-trip program so that both follow the hook list:
//   WritesBack:      an out-parameter; the callee writes through it, the shim records that value.
//   ReadsScalar:     alpha/beta; the shim may read the pointee (host pointer mode).
//   ReadsFirst:      a grouped GEMM's per-group array; the shim reads element 0 (derived slot).
//   ReadsAttrBuffer: a cuBLASLt attribute value; the shim reads up to 8 bytes (derived slot).
//   ScalarByValue:   the legacy API's alpha/beta, passed by value.
//   ReadsLtAlgo:     cublasLtMatmul's algo; the shim copies its 64 bytes onto the record.
// Tags are often specialized by deriving (AllocatedPtr is an Out<kPointer> that also bumps a
// counter), so each trait asks "derives from", not "is".
#pragma once

#include <type_traits>

#include "arg_tags.h"
#include "cublas_tags.h"
#include "cuda_tags.h"
#include "lt_tags.h"
#include "process_tags.h"

namespace roundtrip {

namespace tags = ::cublasspy::tags;
using ::cublasspy::Library;
using ::cublasspy::LtObject;
using ::cublasspy::ScalarType;
using ::cublasspy::format::ArgKind;
using ::cublasspy::format::ArgRole;

namespace detail {
template <ArgKind K, ArgRole R> std::true_type out_base(const tags::Out<K, R>*);
template <Library L> std::true_type out_base(const tags::HandleCreatedBy<L>*);
template <LtObject O> std::true_type out_base(const tags::LtCreated<O, true>*);
std::false_type out_base(const void*);

template <ScalarType S> std::true_type scalar_base(const tags::Alpha<S>*);
template <ScalarType S> std::true_type scalar_base(const tags::Beta<S>*);
std::false_type scalar_base(const void*);

template <ArgKind K, ArgRole R> std::true_type first_base(const tags::First<K, R>*);
std::false_type first_base(const void*);
}  // namespace detail

template <class Tag>
inline constexpr bool kWritesBack = decltype(detail::out_base(static_cast<const Tag*>(nullptr)))::value;
template <class Tag>
inline constexpr bool kReadsScalar = decltype(detail::scalar_base(static_cast<const Tag*>(nullptr)))::value;
template <class Tag>
inline constexpr bool kReadsFirst = decltype(detail::first_base(static_cast<const Tag*>(nullptr)))::value;
template <class Tag> inline constexpr bool kReadsAttrBuffer = std::is_base_of_v<tags::LtAttrBuffer, Tag>;
template <class Tag>
inline constexpr bool kScalarByValue = std::is_base_of_v<tags::AlphaValue, Tag> || std::is_base_of_v<tags::BetaValue, Tag>;
template <class Tag> inline constexpr bool kReadsLtAlgo = std::is_base_of_v<tags::LtAlgoArg, Tag>;
template <class Tag> inline constexpr bool kIsAlpha = std::is_base_of_v<tags::AlphaValue, Tag>;

}  // namespace roundtrip
