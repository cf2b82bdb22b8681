// The argument tags of the CUDA runtime and driver (arg_tags.h): streams passed to a call, and
// memory allocated or freed.
#pragma once

#include <atomic>

#include "arg_tags.h"
#include "runtime.h"

namespace cublasspy::tags {

// A stream passed to the call itself (cuBLASLt, synchronization): the record's stream.
struct StreamArg : Plain<ArgKind::kPointer, ArgRole::kStream> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.rec.stream = bits(v);
  }
};

// Memory allocated or freed: cached pointer attributes (the checks) may now be stale.
struct FreedPtr : Plain<ArgKind::kPointer> {
  template <typename T> static void after(CallContext&, int, T, int status) {
    if (status == 0) allocation_generation().fetch_add(1, std::memory_order_release);
  }
};

// cudaMalloc's out-pointer: new memory, so cached pointer attributes may be stale.
struct AllocatedPtr : Out<ArgKind::kPointer> {
  template <typename T> static void after(CallContext& c, int s, T out, int status) {
    Out<ArgKind::kPointer>::after(c, s, out, status);
    if (status == 0) allocation_generation().fetch_add(1, std::memory_order_release);
  }
};

}  // namespace cublasspy::tags
