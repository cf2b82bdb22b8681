// What the per-hook round trip needs to know about an argument tag (interpose/arg_tags.h), shared
// by the null CUDA stack and the round-trip program so that both follow the hook list:
//   WritesBack:   an out-parameter; the callee writes through it, the shim records that value.
//   ReadsScalar:  alpha/beta; the shim may read the pointee (host pointer mode).
//   ReadsFirst:   a grouped GEMM's per-group array; the shim reads element 0 into a derived slot.
//   ReadsAttrBuffer: a cuBLASLt attribute value; the shim reads up to 8 bytes into a derived slot.
//   ScalarByValue: the legacy API's alpha/beta, passed by value.
#pragma once

#include <type_traits>

#include "arg_tags.h"

namespace roundtrip {

namespace tags = ::cublasspy::tags;
using ::cublasspy::Library;
using ::cublasspy::LtObject;
using ::cublasspy::ScalarType;
using ::cublasspy::format::ArgKind;

template <class Tag> struct WritesBack : std::false_type {};
template <ArgKind K> struct WritesBack<tags::Out<K>> : std::true_type {};
template <Library L> struct WritesBack<tags::HandleCreatedBy<L>> : std::true_type {};
template <LtObject O> struct WritesBack<tags::LtCreated<O, true>> : std::true_type {};

template <class Tag> struct ReadsScalar : std::false_type {};
template <ScalarType S> struct ReadsScalar<tags::Alpha<S>> : std::true_type {};
template <ScalarType S> struct ReadsScalar<tags::Beta<S>> : std::true_type {};

template <class Tag> struct ReadsFirst : std::false_type {};
template <class Elem, ArgKind K> struct ReadsFirst<tags::First<Elem, K>> : std::true_type {};

template <class Tag> inline constexpr bool kReadsAttrBuffer = std::is_same_v<Tag, tags::LtAttrBuffer>;
template <class Tag>
inline constexpr bool kScalarByValue = std::is_same_v<Tag, tags::AlphaValue> || std::is_same_v<Tag, tags::BetaValue>;

}  // namespace roundtrip
