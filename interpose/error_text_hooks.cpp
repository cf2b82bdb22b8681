// The texts of failure codes: cudaGetErrorString and its kin (hook_list.h,
// CUBLASSPY_ERROR_TEXT_HOOKS). A program that reports a CUDA or cuBLAS error asks for its text
// first (PyTorch's C10_CUDA_CHECK, TensorFlow, JAX, every CUDA sample's check macro), whichever
// call failed: one the shim hooks or one it does not (cudaStreamBeginCapture, cudaEventRecord,
// any of the runtime's hundreds). Recording that question, with the code and the Python and
// native location asking it, gives a finding for any failure the program reported
// (docs/DIAGNOSES.md, `reported-error`).
//
// Asked about success (a program that prints every status), the call passes straight through:
// one load and one compare more than the real call. Asked about a failure code, the record is
// written and published in flight, with its location, before the real call runs (a crash in it
// is then the call's), and completed after.
#include <cstdint>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "call_frame.h"
#include "call_locations.h"
#include "hook_expansion.h"
#include "shim_guard.h"

namespace cublasspy {
namespace {

void* real_error_text(uint16_t id) {
  if (void* fn = resolved_real(id)) return fn;
  return resolve_real(hook_library(id), id, hook_name(id), kDefaultVariant);
}

// The record of a failure code's text asked for: `words`, the call's arguments (the code
// first), written as the hook list describes them (one slot each), published in flight with
// its location before the real call. `scratch`: the wrapper's slot, for a ring full of calls
// in flight. Null when the call is not recorded (the shim's own naming of a status, a call
// nested in another hooked call, no trace).
[[gnu::cold, gnu::noinline]] format::RecordSlot* begin_reported_error(uint16_t id, const uint64_t* words, int count,
                                                                     format::RecordSlot* scratch, uint64_t* seq) {
  ThreadState& ts = thread_state();
  if (ts.depth != 0) return nullptr;
  Runtime* rt = recording_runtime(ts);
  if (rt == nullptr) return nullptr;
  format::RecordSlot* slot = rt->writer.claim(ts.claim, seq, scratch);
  start_record(slot, ts, id, call_clock::now().ns);
  for (int i = 0; i < count; ++i) slot->call.args[i] = words[i];
  rt->writer.count_call(id, ts.claim);
  TraceWriter::publish_in_flight(slot, *seq);
  // The location is the point of the record: taken whenever CUBLASSPY_STACKS allows one, as a
  // failing call's is. Not into the scratch slot of a ring full of calls in flight.
  // (A walk that throws, shim_guard.h, leaves the record without them.)
  if (slot != scratch && may_take_locations(*rt, id, ts.depth)) {
    shim_guarded([&] { take_locations(*rt, slot, *seq); });
  }
  return slot;
}

void finish_reported_error(format::RecordSlot* slot, uint64_t seq) {
  if (slot == nullptr) return;
  if (Runtime* rt = runtime()) rt->writer.complete(slot, seq, false, thread_state().claim);
}

}  // namespace

extern const HookInfo kErrorTextHooks[] = {CUBLASSPY_ERROR_TEXT_HOOKS(CBS_HOOK_INFO)};

}  // namespace cublasspy

#define CBS_WORD(type, name, tag) ::cublasspy::tags::bits(name)
// The code is each function's first parameter. While the real call runs the thread counts as
// inside an intercepted call: a runtime that asks the driver for the text (through the hooked
// cuGetErrorString) is not the program reporting twice.
#define CBS_DEFINE_ERROR_TEXT_WRAPPER(lib_, ret_, fn_, fail_, family_, traits_, ...)                      \
  CUBLASSPY_EXPORT ret_ fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) {                             \
    using Real = CBS_REAL_TYPE(ret_, __VA_ARGS__);                                               \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                        \
                  "hook_list.h prototype differs from the CUDA header: " #fn_);                  \
    constexpr uint16_t kId = static_cast<uint16_t>(::cublasspy::FnId::k##fn_);                  \
    void* real = ::cublasspy::real_error_text(kId);                                              \
    const uint64_t words[] = {CBS_MAP_COMMA(CBS_WORD, __VA_ARGS__)};                             \
    if (words[0] == 0) [[likely]] {                                                              \
      return real != nullptr ? reinterpret_cast<Real>(real)(CBS_MAP_COMMA(CBS_NAME, __VA_ARGS__)) \
                             : static_cast<ret_>(fail_);                                         \
    }                                                                                            \
    ::cublasspy::format::RecordSlot scratch;                                                     \
    uint64_t seq = 0;                                                                            \
    ::cublasspy::format::RecordSlot* slot = ::cublasspy::begin_reported_error(                   \
        kId, words, static_cast<int>(sizeof words / sizeof words[0]), &scratch, &seq);           \
    ::cublasspy::ThreadState& ts = ::cublasspy::thread_state();                                  \
    ::cublasspy::format::RecordSlot* outer = ts.current;                                         \
    if (slot != nullptr) ts.current = slot; /* the fatal-signal path marks it crashed */         \
    ts.depth++;                                                                                  \
    ret_ result = real != nullptr ? reinterpret_cast<Real>(real)(CBS_MAP_COMMA(CBS_NAME, __VA_ARGS__)) \
                                        : static_cast<ret_>(fail_);                              \
    ts.depth--;                                                                                  \
    ts.current = outer;                                                                          \
    ::cublasspy::finish_reported_error(slot, seq);                                               \
    return result;                                                                               \
  }
CUBLASSPY_ERROR_TEXT_HOOKS(CBS_DEFINE_ERROR_TEXT_WRAPPER)
#undef CBS_DEFINE_ERROR_TEXT_WRAPPER
#undef CBS_WORD
