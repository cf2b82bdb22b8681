#include "gemm_view.h"

#include <atomic>

#include "hook_table.h"

namespace cublasspy {
namespace {

// gemm_slots() of each function, found on first use: a pass over its descriptors costs more
// than building the view from them. state: 0 not yet, 1 being filled, 2 ready.
struct CachedSlots {
  std::atomic<uint8_t> state{0};
  GemmSlots slots;
};
constinit CachedSlots g_slots[format::kMaxFunctions];

const GemmSlots& slots_of(uint16_t id, const format::FunctionEntry& entry, GemmSlots& local) {
  CachedSlots& cached = g_slots[id];
  if (cached.state.load(std::memory_order_acquire) == 2) return cached.slots;
  uint8_t expected = 0;
  if (cached.state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    cached.slots = gemm_slots(entry);
    cached.state.store(2, std::memory_order_release);
    return cached.slots;
  }
  local = gemm_slots(entry);  // another thread is filling the entry: do not wait for it
  return local;
}

}  // namespace

const GemmCall* gemm_view(CallContext& ctx) {
  if (ctx.gemm) return &*ctx.gemm;
  const format::Record& rec = ctx.rec;
  if (rec.function_id >= function_count()) return nullptr;
  const format::FunctionEntry& entry = function_table()[rec.function_id];
  if (!format::is_gemm_family(entry.family)) return nullptr;
  GemmSlots local;
  GemmCall& call = ctx.gemm.emplace();  // built in place: no copy of the view per call
  gemm_from_record(slots_of(rec.function_id, entry, local), rec, call);
  if (call.valid && ctx.plane_offset != nullptr) apply_plane_offsets(ctx.plane_offset, call);
  if (call.valid) return &call;
  ctx.gemm.reset();
  return nullptr;
}

}  // namespace cublasspy
