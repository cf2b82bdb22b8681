// Recording deferred work into a stream capture from C++ (the runtime, cuBLAS, cuBLASLt): the
// work is a callable that returns 0, or the asynchronous error it raised; it is moved into the
// node and runs at every launch of a graph made from the capture (standin_capture_node).
#pragma once

#include <utility>

#include "standin_private.h"

namespace standin {

template <class Work>
int capture_work(const void* stream, const char* kind, Work work) {
  auto* held = new Work(std::move(work));
  return standin_capture_node(
      stream, kind, [](void* w) { return (*static_cast<Work*>(w))(); }, held,
      [](void* w) { delete static_cast<Work*>(w); });
}

}  // namespace standin
