#include "live_checks.h"

#include <cuda.h>

#include "gemm_view.h"
#include "driver_table.h"
#include "lt_descriptors.h"

namespace cublasspy {
namespace {

// One driver answer for a range of addresses. A pointer the driver does not know is cached as
// a one-byte range at its exact address (alpha on the host stack comes back every call).
struct CachedRange {
  uint64_t base;
  uint64_t size;
  int32_t device;
  MemoryKind kind;
};

// Per thread, initial-exec, zero-initialized plain data: no allocation, no lock, no TLS
// constructor. Entries are replaced round-robin.
struct PointerCache {
  uint64_t generation;
  uint32_t count;
  uint32_t next;
  CachedRange entries[kPointerCacheEntries];
};
__attribute__((tls_model("initial-exec"))) thread_local PointerCache t_cache;

PointerInfo ask_driver(const DriverApi& api, uint64_t address) {
  PointerInfo info;
  if (api.pointer_get_attributes == nullptr) return info;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned int memory_type = 0;
  int ordinal = -1;
  CUdeviceptr start = 0;
  size_t size = 0;
  uint32_t managed = 0;  // documented as a boolean; a zeroed word reads right whatever its width
  void* data[] = {&memory_type, &ordinal, &start, &size, &managed};
  ThreadState& ts = thread_state();
  ts.internal++;
  CUresult r = api.pointer_get_attributes(5, attributes, data, static_cast<CUdeviceptr>(address));
  ts.internal--;
  if (r != CUDA_SUCCESS) return info;
  info.known = true;
  if (managed != 0 || memory_type == CU_MEMORYTYPE_UNIFIED) info.kind = MemoryKind::kManaged;
  else if (memory_type == CU_MEMORYTYPE_DEVICE) info.kind = MemoryKind::kDevice;
  else if (memory_type == CU_MEMORYTYPE_HOST) info.kind = MemoryKind::kHost;
  else info.kind = MemoryKind::kUnknown;
  info.device = info.kind == MemoryKind::kUnknown ? -1 : ordinal;
  if (info.kind != MemoryKind::kUnknown && size != 0 && start <= address && address - start < size) {
    info.base = start;
    info.size = size;
  }
  return info;
}

PointerInfo from(const CachedRange& e) {
  PointerInfo info;
  info.known = true;
  info.kind = e.kind;
  info.device = e.device;
  if (e.kind != MemoryKind::kUnknown) {
    info.base = e.base;
    info.size = e.size;
  }
  return info;
}

// Per device: 0 not asked yet, 1 reads pageable memory, -1 does not. A device property.
constexpr int kDevices = 64;
constinit std::atomic<int8_t> g_pageable[kDevices] = {};
// Per device: 0 not asked yet, else major * 10 + minor, or -1 when the driver did not say.
constinit std::atomic<int16_t> g_compute_capability[kDevices] = {};



}  // namespace

PointerInfo DriverPointerQuery::query(uint64_t address) {
  // Read before asking: a free that lands during the question moves the generation past the
  // one the answer is filed under, and the next call drops it.
  const uint64_t generation = allocation_generation().load(std::memory_order_acquire);
  PointerCache& cache = t_cache;
  if (cache.generation != generation) {
    cache.generation = generation;
    cache.count = 0;
    cache.next = 0;
  }
  for (uint32_t i = 0; i < cache.count; ++i) {
    const CachedRange& e = cache.entries[i];
    if (address - e.base < e.size) return from(e);  // unsigned: also false below base
  }
  PointerInfo info = ask_driver(api_, address);
  if (!info.known) return info;  // a failing driver is asked again next time
  CachedRange& slot = cache.entries[cache.next];
  cache.next = (cache.next + 1) % kPointerCacheEntries;
  if (cache.count < kPointerCacheEntries) cache.count++;
  slot.kind = info.kind;
  slot.device = info.device;
  slot.base = info.size != 0 ? info.base : address;
  slot.size = info.size != 0 ? info.size : 1;
  return info;
}

bool DriverPointerQuery::pageable_memory_access(int device) {
  if (device < 0 || device >= kDevices) return false;
  int8_t known = g_pageable[device].load(std::memory_order_relaxed);
  if (known != 0) return known > 0;
  if (api_.device_get_attribute == nullptr) return false;
  int value = 0;
  ThreadState& ts = thread_state();
  ts.internal++;
  CUresult r = api_.device_get_attribute(&value, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device);
  ts.internal--;
  if (r != CUDA_SUCCESS) return false;
  g_pageable[device].store(value != 0 ? 1 : -1, std::memory_order_relaxed);
  return value != 0;
}

int DriverPointerQuery::compute_capability(int device) {
  if (device < 0 || device >= kDevices) return -1;
  int16_t known = g_compute_capability[device].load(std::memory_order_relaxed);
  if (known != 0) return known;
  if (api_.device_get_attribute == nullptr) return -1;
  int major = 0, minor = 0;
  ThreadState& ts = thread_state();
  ts.internal++;
  CUresult r = api_.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (r == CUDA_SUCCESS) r = api_.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  ts.internal--;
  const int16_t value = r == CUDA_SUCCESS ? static_cast<int16_t>(major * 10 + minor) : int16_t{-1};
  g_compute_capability[device].store(value, std::memory_order_relaxed);
  return value;
}

int current_device(const DriverApi& api) {
  if (api.ctx_get_device == nullptr) return -1;
  CUdevice device = -1;
  ThreadState& ts = thread_state();
  ts.internal++;
  CUresult r = api.ctx_get_device(&device);
  ts.internal--;
  return r == CUDA_SUCCESS ? static_cast<int>(device) : -1;
}

bool run_checks(Runtime&, CallContext& ctx) {
  format::Record& rec = ctx.rec;
  if (rec.depth != 0) return false;
  const GemmCall* call = gemm_view(ctx);
  if (call == nullptr) return false;
  DriverApi scratch;
  const DriverApi& api = driver_table(scratch);
  DriverPointerQuery query(api);
  const bool lt_matmul = ctx.lt && ctx.lt->matmul_desc != 0 && ctx.lt->layouts[3] != 0;
  const LtMatmulExtras extras =
      lt_matmul ? read_lt_matmul_extras(ctx.lt->matmul_desc, ctx.lt->layouts) : LtMatmulExtras{};
  CheckFindings found = check_gemm(*call, rec.pointer_mode, current_device(api), query, lt_matmul ? &extras : nullptr);
  if (found.bits == 0) return false;
  rec.check_bits |= found.bits;
  rec.check_detail[0] = found.detail[0];
  rec.check_detail[1] = found.detail[1];
  return true;
}

bool run_group_checks(Runtime&, CallContext& ctx) {
  format::Record& rec = ctx.rec;
  if (rec.depth != 0 || ctx.groups == nullptr || !ctx.groups->read) return false;
  const GemmCall* first = gemm_view(ctx);
  if (first == nullptr) return false;
  DriverApi scratch;
  const DriverApi& api = driver_table(scratch);
  DriverPointerQuery query(api);
  const int device = current_device(api);
  bool flagged = false;
  int64_t first_problem = 0;
  for (uint32_t i = 0; i < ctx.groups->header.recorded; ++i) {
    const format::GemmGroup& group = ctx.groups->groups[i];
    CheckFindings found = check_gemm(group_call(*first, group, first_problem), rec.pointer_mode, device, query);
    first_problem += group.size;
    if (found.bits == 0) continue;
    if (!flagged) {
      rec.check_detail[0] = found.detail[0];
      rec.check_detail[1] = found.detail[1];
    }
    rec.check_bits |= found.bits;
    flagged = true;
  }
  return flagged;
}

}  // namespace cublasspy
