// The launch recorder: the exported wrappers of CUBLASSPY_LAUNCH_HOOKS (hook_list.h), each a
// lean record of one kernel launch, asynchronous copy or memset, or of one wait or query where
// an asynchronous error surfaces, or of one CUDA graph capture, instantiation or launch, into the
// launch ring (format::LaunchEntry). No allocation, no lock, no record slot: a claimed ticket, a
// few stores, the kernel table's lookup (lock-free; the name is found once per function), the
// real call. (The graph calls, rare, also keep the shim's graph registry: graph_registry.h.)
//
// Not recorded: the shim's own launches (thread_state().internal) and launches made inside an
// intercepted call or another launch (thread_state().depth): a GEMM's own kernels, and the
// cuLaunchKernel the runtime makes for a cudaLaunchKernel, which would count it twice.
#include "spec/per_thread_runtime.h"  // first: the runtime's and the driver's _ptsz forms

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "call_locations.h"
#include "common/cuda_errors.h"
#include "gpu_health.h"
#include "graph_registry.h"
#include "hook_expansion.h"
#include "kernel_image_record.h"
#include "post_call.h"
#include "real_functions.h"
#include "driver_table.h"
#include "shim_guard.h"

extern "C" {
// What nvcc's host stubs call (declared by crt/device_functions.h under __CUDACC__ only).
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
}

namespace cublasspy {
namespace {

// cudaErrorNoKernelImageForDevice, and the driver's CUDA_ERROR_NO_BINARY_FOR_GPU: the same number.
constexpr int kNoKernelImage = 209;
static_assert(kNoKernelImage == cudaErrorNoKernelImageForDevice && kNoKernelImage == CUDA_ERROR_NO_BINARY_FOR_GPU);

// Asks one of the CUDA libraries for a kernel's name: `table` finds the library's table (with the
// shim's own calls passing straight through, as the lookup may reach a hooked dlsym), `get` the
// function in it. Copies the name into `out` and says whether there was one.
template <typename Table, typename Get, typename Handle, typename Status>
bool ask_name(Table table, Get get, Handle handle, Status ok, char* out, size_t size) {
  ThreadState& ts = thread_state();
  ts.internal++;
  const auto get_name = table().*get;
  const char* name = nullptr;
  const bool named = get_name != nullptr && get_name(&name, handle) == ok && name != nullptr;
  ts.internal--;
  if (named) std::strncpy(out, name, size - 1);
  return named;
}

// The runtime's cudaFuncGetName, which answers the registered device name; else "".
bool name_from_runtime(void* context, char* out, size_t size) {
  RuntimeApi scratch;
  return ask_name([&]() -> const RuntimeApi& { return shim_runtime(scratch); }, &RuntimeApi::func_get_name,
                  static_cast<const void*>(context), cudaSuccess, out, size);
}

// A runtime kernel's name: the host stub's symbol (nvcc gives the stub the kernel's mangled
// name). dladdr knows the dynamic symbols only: for a stub it cannot name (a local symbol, as
// nvcc 13 makes them), the runtime's. Once per function (the kernel table caches it).
void name_from_stub(void* context, char* out, size_t size) {
  Dl_info info;
  if (dladdr(context, &info) != 0 && info.dli_sname != nullptr) {
    std::strncpy(out, info.dli_sname, size - 1);
    return;
  }
  name_from_runtime(context, out, size);
}

// A kernel handle's name: the driver's cuKernelGetName (a cudaKernel_t is a CUkernel), else the
// runtime's cudaFuncGetName, which takes a handle in place of the entry function.
void name_from_handle(void* context, char* out, size_t size) {
  DriverApi scratch;
  if (ask_name([&]() -> const DriverApi& { return driver_table(scratch); }, &DriverApi::kernel_get_name,
               static_cast<CUkernel>(context), CUDA_SUCCESS, out, size)) {
    return;
  }
  name_from_runtime(context, out, size);
}

// A driver kernel's name, from cuFuncGetName (CUDA 12.3 and later drivers; older: "").
void name_from_function(void* context, char* out, size_t size) {
  DriverApi scratch;
  ask_name([&]() -> const DriverApi& { return driver_table(scratch); }, &DriverApi::func_get_name,
           static_cast<CUfunction>(context), CUDA_SUCCESS, out, size);
}

void no_name(void*, char*, size_t) {}

// A graph call (family kGraph) as it stands before the real call: the capture it belongs to,
// and for a launch, its number and its graph.
struct GraphCall {
  uint64_t capture_id = 0;
  GraphLaunch launch;
};

// The pointer a graph call writes what it made to, read after it succeeded (0 otherwise).
uint64_t made_by(const void* out, int status) {
  return status == 0 && out != nullptr ? *static_cast<const uint64_t*>(out) : 0;
}

// Before a graph call: the capture a capture's end ends (asked while it is still underway),
// the graph an instantiation's capture, a launch's number; and under CUBLASSPY_CHECK, whether
// a launch's captured GEMMs name memory freed since the capture (noted before it runs).
GraphCall graph_call_before(Runtime& rt, const LaunchContext& lc, format::LaunchEntry* e, uint64_t ticket) {
  GraphCall g;
  if (lc.g.graph_made != nullptr) {
    g.capture_id = capture_of(lc.stream);
  } else if (lc.g.exec_made != nullptr) {
    g.capture_id = capture_of_graph(lc.g.graph);
  } else if (lc.g.exec != 0) {
    g.launch = graph_launched(lc.g.exec);
    g.capture_id = g.launch.capture_id;
    if (rt.config.check) {
      if (const std::optional<CapturedOperand> freed = find_freed_operand(g.capture_id)) {
        e->flags |= format::kLaunchStaleOperands;
        rt.writer.note_stale_replay(ticket, freed->seq, freed->address, freed->role);
      }
    }
  }
  return g;
}

// After a graph call: the registry learns what it made, and the entry holds its words.
void graph_call_after(const LaunchContext& lc, int status, GraphCall& g, format::LaunchEntry* e) {
  format::GraphWords words{};
  if (lc.g.begins_capture) {
    if (status == 0) {
      capture_began();
      g.capture_id = capture_of(lc.stream);
    }
  } else if (lc.g.graph_made != nullptr) {
    words.graph = made_by(lc.g.graph_made, status);
    if (g.capture_id != 0) capture_ended(g.capture_id, words.graph);  // it was capturing: it ended
  } else if (lc.g.exec_made != nullptr) {
    words.graph = lc.g.graph;
    words.exec = made_by(lc.g.exec_made, status);
    if (words.exec != 0) graph_instantiated(lc.g.graph, words.exec);
  } else {
    words.graph = g.launch.graph;
    words.exec = lc.g.exec;
    words.launch = g.launch.number;
  }
  e->bytes = g.capture_id;
  static_assert(offsetof(format::LaunchEntry, block) == offsetof(format::LaunchEntry, grid) + 12 &&
                offsetof(format::LaunchEntry, shared_mem) == offsetof(format::LaunchEntry, grid) + sizeof words);
  std::memcpy(reinterpret_cast<char*>(e) + offsetof(format::LaunchEntry, grid), &words, sizeof words);
}

// kFamily: kLaunch (work put on a stream: a kernel, copy or memset) or kSync (a wait or query
// where an asynchronous error surfaces, CUBLASSPY_SURFACE_HOOKS): the latter has no kernel-table
// totals and is not waited after under CUBLASSPY_SYNC=all (it is a wait, or a query).
// `caller`: the wrapper's return address, in the object that made the launch (for a kernel
// launched by its handle or CUfunction, the only code address of its object at hand).
template <FnId kId, Family kFamily, typename Ret, typename Fill, typename Invoke>
Ret record_launch(Ret fail_value, const void* caller, Fill&& fill, Invoke&& invoke) {
  static_assert(kFamily == Family::kLaunch || kFamily == Family::kSync || kFamily == Family::kGraph);
  constexpr bool kGraphCall = kFamily == Family::kGraph;
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  void* fn = resolved_real(id);
  if (fn == nullptr) [[unlikely]] fn = resolve_real_for(hook_library(id), id, hook_name(id), kDefaultVariant, caller);
  if (fn == nullptr) [[unlikely]] {
    warn_unresolved(id);
    return fail_value;
  }
  ThreadState& ts = thread_state();
  if (ts.depth != 0) return invoke(fn);
  Runtime* rt = recording_runtime(ts);  // nullptr for the shim's own calls, or without a trace
  uint64_t ticket = 0;
  format::LaunchEntry* e = rt != nullptr ? rt->writer.claim_launch(ts.launch, &ticket) : nullptr;
  if (e == nullptr) return invoke(fn);

  LaunchContext lc;
  if constexpr (kGraphCall) lc.g = {};
  fill(lc, fn);
  // A graph's launch puts its work on the stream; its capture, end and instantiation do not.
  bool puts_work = kFamily == Family::kLaunch;
  if constexpr (kGraphCall) puts_work = lc.g.exec != 0;
  e->function_id = id;
  e->tid = current_tid(ts);
  e->start_ns = call_clock::now().ns;
  e->stream = lc.stream;
  e->bytes = lc.bytes;
  std::memcpy(e->grid, lc.grid, sizeof lc.grid);
  std::memcpy(e->block, lc.block, sizeof lc.block);
  e->shared_mem = lc.shared_mem;
  e->status = 0;
  e->async_status = 0;
  e->flags = 0;
  if (puts_work) {
    // Copies, memsets and graph launches are counted under their function (key: the hook id + 1,
    // never a code address); kernels under the function launched.
    const uint64_t key = lc.function != 0 ? lc.function : uint64_t{id} + 1;
    const TraceWriter::NameKernel namer = lc.function == 0                                  ? no_name
                                          : lc.kind == LaunchContext::Kind::kDriverFunction ? name_from_function
                                          : lc.kind == LaunchContext::Kind::kKernelHandle   ? name_from_handle
                                                                                            : name_from_stub;
    e->kernel = rt->writer.kernel_index(key, id, namer, reinterpret_cast<void*>(lc.function));
  } else {
    e->kernel = format::kNoKernel;
  }
  TraceWriter::count_launch(ts.launch, e->kernel);
  [[maybe_unused]] GraphCall graph;
  // The graph registry's work allocates (shim_guard.h): should it throw, the call is made all
  // the same, its entry without what the registry would have said.
  if constexpr (kGraphCall) graph = shim_guarded_or(GraphCall{}, [&] { return graph_call_before(*rt, lc, e, ticket); });

  ts.depth++;
  const Ret ret = invoke(fn);
  ts.depth--;
  const int status = static_cast<int>(ret);
  e->status = status;
  if constexpr (kGraphCall) shim_guarded([&] { graph_call_after(lc, status, graph, e); });
  // An asynchronous error a copy, a wait or a query reports is earlier work's, surfacing here.
  if (is_asynchronous_cuda_error(status)) rt->writer.note_launch_error(ticket);
  // CUBLASSPY_SYNC=all: wait for the launch's stream, as CUDA_LAUNCH_BLOCKING=1 would (work put
  // on a stream being captured into a graph runs at the graph's launches: not waited for).
  if (puts_work && rt->config.sync_mode == SyncMode::kAll && status == 0) {
    const StreamWait w = shim_wait_for_stream(lc.stream);
    if (w.waited()) {
      // The wait's status as it is: only an asynchronous fault is the launched work failing
      // (a wait without a context on this thread says nothing about it).
      e->async_status = w.status;
      e->flags |= format::kLaunchSynced;
      if (is_asynchronous_cuda_error(w.status)) rt->writer.note_launch_error(ticket);
    }
  }
  // A failed launch is a failing call: its locations (the error path only, after the entry is
  // complete). A wait or query fails only with an asynchronous error (cudaErrorNotReady from a
  // query, or an old error cudaGetLastError clears, is no failure of the program's).
  const bool failed = kFamily != Family::kSync ? status != 0 || is_asynchronous_cuda_error(e->async_status)
                                               : is_asynchronous_cuda_error(status);
  TraceWriter::complete_launch(e, ticket);
  if (failed) [[unlikely]] {
    shim_guarded([&] { take_launch_locations(*rt, id, ticket); });
    // A kernel this GPU has no code for: the device's and the kernel's object's architectures.
    if (kFamily == Family::kLaunch && status == kNoKernelImage && lc.function != 0) {
      const void* code = lc.kind == LaunchContext::Kind::kHostStub ? reinterpret_cast<const void*>(lc.function) : caller;
      shim_guarded([&] { record_kernel_image(*rt, code, process_section_busy()); });
    }
    record_gpu_health(*rt, process_section_busy());
  }
  return ret;
}

// Whether `real`, the real function of the runtime's batch hook kId, has CUDA 12.8's prototype:
// libcudart.so.12 defines it under that version node (hook_list.h, CBS_RUNTIME_BATCH_HOOKS).
// Asked once per hook: a hook's default binding, once found, stays.
template <FnId kId>
bool takes_fail_index(void* real) {
  static constinit std::atomic<int> known{-1};  // -1: not asked yet; constinit, so no guard
  int answer = known.load(std::memory_order_relaxed);
  if (answer < 0) [[unlikely]] {
    const uint16_t id = static_cast<uint16_t>(kId);
    ThreadState& ts = thread_state();
    ts.internal++;  // the dynamic linker's work is the shim's, not the program's
    answer = defined_with_version(real, hook_name(id), "libcudart.so.12") ? 1 : 0;
    ts.internal--;
    known.store(answer, std::memory_order_relaxed);
  }
  return answer == 1;
}

}  // namespace
}  // namespace cublasspy

#define CBS_LAUNCH_ARG(type, name, tag) ::cublasspy::tags::tag::launch(lc, name)
#define CBS_DEFINE_LAUNCH_WRAPPER(lib_, ret_, fn_, fail_, family_, traits_, ...)                        \
  CUBLASSPY_EXPORT ret_ fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) {                            \
    using Real = CBS_REAL_TYPE(ret_, __VA_ARGS__);                                              \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                       \
                  "hook_list.h prototype differs from the CUDA header: " #fn_);                 \
    return ::cublasspy::record_launch<::cublasspy::FnId::k##fn_, ::cublasspy::Family::family_, ret_>( \
        fail_, __builtin_return_address(0), [&]([[maybe_unused]] ::cublasspy::LaunchContext& lc, void*) { CBS_MAP_SEMI(CBS_LAUNCH_ARG, __VA_ARGS__) }, \
        [&](void* real) { return ::cublasspy::call_real<Real>(real CBS_MAP_AFTER_COMMA(CBS_NAME, __VA_ARGS__)); }); \
  }

CBS_ONE_PROTOTYPE_LAUNCH_HOOKS(CBS_DEFINE_LAUNCH_WRAPPER)

// The runtime's batches: CUDA 13's parameters and one word more, `stream_if_12_8`, where CUDA
// 12.8's prototype has its stream (hook_list.h). Every word is handed on, so a real function of
// either prototype gets its own arguments: x86-64's and AArch64's calling conventions put the
// n-th word argument in the same register or stack slot whatever the number of arguments, and
// the caller removes its own, so the word a CUDA 13 caller did not pass (a register, or a slot
// of the caller's frame) is read, never written, and a CUDA 13 real function ignores it. The
// symbol is the hook's own name (the asm label): the C++ name cannot be, as the header declares
// that name with CUDA 13's prototype alone.
#define CBS_DEFINE_BATCH_WRAPPER(lib_, ret_, fn_, fail_, family_, traits_, ...)                         \
  CUBLASSPY_EXPORT ret_ cbs_batch_##fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__), uintptr_t stream_if_12_8) \
      __asm__(#fn_);                                                                            \
  ret_ cbs_batch_##fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__), uintptr_t stream_if_12_8) {      \
    using Real = CBS_REAL_TYPE(ret_, __VA_ARGS__);                                              \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                       \
                  "hook_list.h prototype differs from the CUDA header: " #fn_);                 \
    using EitherPrototype = ret_ (*)(CBS_MAP_COMMA(CBS_TYPE, __VA_ARGS__), uintptr_t);         \
    constexpr auto kId = ::cublasspy::FnId::k##fn_;                                             \
    return ::cublasspy::record_launch<kId, ::cublasspy::Family::family_, ret_>(                 \
        fail_, __builtin_return_address(0),                                                     \
        [&](::cublasspy::LaunchContext& lc, void* real) {                                       \
          CBS_MAP_SEMI(CBS_LAUNCH_ARG, __VA_ARGS__);                                            \
          if (::cublasspy::takes_fail_index<kId>(real)) lc.stream = stream_if_12_8;              \
        },                                                                                      \
        [&](void* real) {                                                                       \
          return ::cublasspy::call_real<EitherPrototype>(real CBS_MAP_AFTER_COMMA(CBS_NAME, __VA_ARGS__), \
                                                         stream_if_12_8);                       \
        });                                                                                     \
  }

CBS_RUNTIME_BATCH_HOOKS(CBS_DEFINE_BATCH_WRAPPER)

namespace cublasspy {
extern const HookInfo kLaunchHooks[] = {CUBLASSPY_LAUNCH_HOOKS(CBS_HOOK_INFO)};
}  // namespace cublasspy
