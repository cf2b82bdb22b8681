// The shim's side of CUBLASSPY_CHECK=1 (interpose/live_checks.cpp) against a fake driver
// table: how cuPointerGetAttributes answers are read, cached per thread and dropped when the
// allocation generation moves, that the shim's own driver calls are marked internal, what a
// table missing a function answers (cuda_driver/driver_api.h), and that run_checks() writes its
// findings into the record. The few shim functions it needs (thread_state, driver_table, the
// function table) are stubbed here.
#include <gtest/gtest.h>

#include <cuda.h>

#include <cstring>
#include <map>
#include <tuple>

#include "checks/check_ids.h"
#include "spec/hook_list.h"
#include "live_checks.h"
#include "hook_table.h"
#include "runtime.h"
#include "driver_table.h"

namespace {

struct FakeAlloc {
  uint64_t size;
  unsigned int memory_type;  // CUmemorytype
  bool managed;
  int device;
};
std::map<uint64_t, FakeAlloc> g_allocs;
int g_pointer_calls = 0;
uint32_t g_internal_seen = 0;  // thread_state().internal during the last driver call
CUresult g_pointer_result = CUDA_SUCCESS;
int g_device = 0;
CUresult g_device_result = CUDA_SUCCESS;
int g_attribute_calls = 0;

CUresult fake_pointer_get_attributes(unsigned int n, CUpointer_attribute* attributes, void** data, CUdeviceptr ptr) {
  ++g_pointer_calls;
  g_internal_seen = cublasspy::thread_state().internal;
  if (g_pointer_result != CUDA_SUCCESS) return g_pointer_result;
  const FakeAlloc* found = nullptr;
  uint64_t base = 0;
  auto it = g_allocs.upper_bound(ptr);
  if (it != g_allocs.begin()) {
    --it;
    if (ptr - it->first < it->second.size) found = &it->second, base = it->first;
  }
  // Unknown pointers: every attribute gets its "NULL" value, and CUDA_SUCCESS.
  for (unsigned int i = 0; i < n; ++i) {
    switch (attributes[i]) {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned int*>(data[i]) = found ? found->memory_type : 0; break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data[i]) = found ? found->device : -2; break;
      case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data[i]) = base; break;
      case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t*>(data[i]) = found ? found->size : 0; break;
      case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<bool*>(data[i]) = found && found->managed; break;
      default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

CUresult fake_ctx_get_device(CUdevice* device) {
  g_internal_seen = cublasspy::thread_state().internal;
  if (g_device_result != CUDA_SUCCESS) return g_device_result;
  *device = g_device;
  return CUDA_SUCCESS;
}

CUresult fake_device_get_attribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  ++g_attribute_calls;
  // Device 2 is an Ada GPU (8.9); the others do not say.
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR && device == 2) return *value = 8, CUDA_SUCCESS;
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR && device == 2) return *value = 9, CUDA_SUCCESS;
  if (attribute != CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS) return CUDA_ERROR_INVALID_VALUE;
  *value = device == 5 ? 1 : 0;  // device 5 is an HMM system
  return CUDA_SUCCESS;
}

cublasspy::format::FunctionEntry g_table[2];

// The driver the tests hand the shim: the three functions of the checks.
cublasspy::DriverApi fake_driver() {
  cublasspy::DriverApi api;
  api.pointer_get_attributes = fake_pointer_get_attributes;
  api.ctx_get_device = fake_ctx_get_device;
  api.device_get_attribute = fake_device_get_attribute;
  return api;
}
cublasspy::DriverApi g_driver_table = fake_driver();

}  // namespace

// The shim functions interpose/live_checks.cpp relies on.
namespace cublasspy {
namespace detail {
constinit __attribute__((tls_model("initial-exec"))) thread_local ThreadState t_state;  // thread_state()'s
}
const DriverApi& driver_table(DriverApi&) { return g_driver_table; }
const format::FunctionEntry* function_table() { return g_table; }
std::atomic<uint64_t>& allocation_generation() {
  static std::atomic<uint64_t> generation{0};
  return generation;
}
uint32_t function_count() { return 2; }
// The tests make no cuBLASLt call: no descriptor to read.
LtMatmulExtras read_lt_matmul_extras(uint64_t, const uint64_t*) { return {}; }
}  // namespace cublasspy

namespace cublasspy {
namespace {

constexpr uint64_t kDev = 0x7f0000000000, kPinned = 0x200000000, kManaged = 0x300000000;

class DriverQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    g_allocs.clear();
    g_allocs[kDev] = {1 << 20, CU_MEMORYTYPE_DEVICE, false, 1};
    g_allocs[kPinned] = {4096, CU_MEMORYTYPE_HOST, false, 0};
    g_allocs[kManaged] = {4096, CU_MEMORYTYPE_DEVICE, true, 0};
    g_pointer_result = CUDA_SUCCESS;
    g_device_result = CUDA_SUCCESS;
    g_device = 0;
    note_allocation_change();  // each test starts with an empty cache
    g_pointer_calls = 0;
    g_driver_table = fake_driver();
  }
  DriverApi api = fake_driver();
  DriverPointerQuery q{api};
};

TEST_F(DriverQuery, ReadsTheKindDeviceAndRange) {
  PointerInfo dev = q.query(kDev + 100);
  EXPECT_TRUE(dev.known);
  EXPECT_EQ(dev.kind, MemoryKind::kDevice);
  EXPECT_EQ(dev.device, 1);
  EXPECT_EQ(dev.base, kDev);
  EXPECT_EQ(dev.size, 1u << 20);
  EXPECT_EQ(q.query(kPinned).kind, MemoryKind::kHost);
  EXPECT_EQ(q.query(kManaged).kind, MemoryKind::kManaged);
  PointerInfo stack = q.query(0x7ffc00001000);
  EXPECT_TRUE(stack.known);
  EXPECT_EQ(stack.kind, MemoryKind::kUnknown);
  EXPECT_EQ(stack.size, 0u);
}

TEST_F(DriverQuery, OwnDriverCallsAreMarkedInternal) {
  g_internal_seen = 0;
  q.query(kDev);
  EXPECT_GT(g_internal_seen, 0u);
  EXPECT_EQ(thread_state().internal, 0u);
  g_internal_seen = 0;
  EXPECT_EQ(current_device(api), 0);
  EXPECT_GT(g_internal_seen, 0u);
  EXPECT_EQ(thread_state().internal, 0u);
}

TEST_F(DriverQuery, AnAllocationIsAskedOnce) {
  q.query(kDev);
  q.query(kDev + 4096);
  q.query(kDev + (1 << 20) - 1);
  EXPECT_EQ(g_pointer_calls, 1);
  q.query(kDev + (1 << 20));  // one past the end: another question
  EXPECT_EQ(g_pointer_calls, 2);
}

TEST_F(DriverQuery, AFreeDropsTheCache) {
  EXPECT_EQ(q.query(kDev).kind, MemoryKind::kDevice);
  g_allocs.erase(kDev);  // cudaFree, seen by the shim's hook
  note_allocation_change();
  EXPECT_EQ(q.query(kDev).kind, MemoryKind::kUnknown);
  EXPECT_EQ(g_pointer_calls, 2);
}

TEST_F(DriverQuery, UnknownAddressesAreCachedExactly) {
  q.query(0x7ffc00001000);
  q.query(0x7ffc00001000);
  EXPECT_EQ(g_pointer_calls, 1);
  q.query(0x7ffc00001008);  // beta next to alpha: its own question
  EXPECT_EQ(g_pointer_calls, 2);
}

TEST_F(DriverQuery, AFailingDriverIsNotCached) {
  g_pointer_result = CUDA_ERROR_NOT_INITIALIZED;
  EXPECT_FALSE(q.query(kDev).known);
  EXPECT_FALSE(q.query(kDev).known);
  EXPECT_EQ(g_pointer_calls, 2);
  g_pointer_result = CUDA_SUCCESS;
  EXPECT_TRUE(q.query(kDev).known);
}

TEST_F(DriverQuery, ManyRangesStayCorrectAsEntriesAreReplaced) {
  for (uint64_t i = 0; i < 2 * kPointerCacheEntries; ++i) g_allocs[0x100000000 + i * 0x10000] = {4096, CU_MEMORYTYPE_DEVICE, false, 0};
  for (uint64_t i = 0; i < 2 * kPointerCacheEntries; ++i) {
    PointerInfo info = q.query(0x100000000 + i * 0x10000 + 8);
    EXPECT_EQ(info.base, 0x100000000 + i * 0x10000);
  }
  EXPECT_EQ(g_pointer_calls, 2 * kPointerCacheEntries);
  q.query(0x100000000 + (2 * kPointerCacheEntries - 1) * 0x10000);  // recent: still cached
  EXPECT_EQ(g_pointer_calls, 2 * kPointerCacheEntries);
  q.query(0x100000000);  // long replaced
  EXPECT_EQ(g_pointer_calls, 2 * kPointerCacheEntries + 1);
}

TEST_F(DriverQuery, PageableAccessIsADevicePropertyAskedOnce) {
  int before = g_attribute_calls;
  EXPECT_TRUE(q.pageable_memory_access(5));
  EXPECT_TRUE(q.pageable_memory_access(5));
  EXPECT_FALSE(q.pageable_memory_access(0));
  EXPECT_EQ(g_attribute_calls, before + 2);
  EXPECT_FALSE(q.pageable_memory_access(-1));
}

TEST_F(DriverQuery, ComputeCapabilityIsADevicePropertyAskedOnce) {
  int before = g_attribute_calls;
  EXPECT_EQ(q.compute_capability(2), 89);
  EXPECT_EQ(q.compute_capability(2), 89);
  EXPECT_EQ(g_attribute_calls, before + 2);  // major and minor, once
  EXPECT_EQ(q.compute_capability(1), -1);     // the driver did not say
  EXPECT_EQ(q.compute_capability(-1), -1);
}

TEST_F(DriverQuery, CurrentDevice) {
  g_device = 3;
  EXPECT_EQ(current_device(api), 3);
  g_device_result = CUDA_ERROR_INVALID_CONTEXT;  // no context on this thread
  EXPECT_EQ(current_device(api), -1);
}

// driver_api.h: each missing function degrades to "cannot tell", never to a guess.
TEST_F(DriverQuery, WithoutPointerAttributesNothingIsKnownOrCached) {
  DriverApi partial = fake_driver();
  partial.pointer_get_attributes = nullptr;
  DriverPointerQuery missing{partial};
  EXPECT_FALSE(missing.query(kDev).known);
  EXPECT_EQ(g_pointer_calls, 0);
  EXPECT_TRUE(q.query(kDev).known) << "the answer \"not known\" was cached";
  EXPECT_EQ(g_pointer_calls, 1);
}

TEST_F(DriverQuery, WithoutCtxGetDeviceThereIsNoDevice) {
  g_device = 3;
  DriverApi partial = fake_driver();
  partial.ctx_get_device = nullptr;
  EXPECT_EQ(current_device(partial), -1);
}

TEST_F(DriverQuery, WithoutDeviceAttributePageableAccessIsNo) {
  DriverApi partial = fake_driver();
  partial.device_get_attribute = nullptr;
  DriverPointerQuery missing{partial};
  int before = g_attribute_calls;
  EXPECT_FALSE(missing.pageable_memory_access(6));
  EXPECT_EQ(g_attribute_calls, before);
  EXPECT_FALSE(q.pageable_memory_access(6)) << "device 6 reads no pageable memory";
  EXPECT_EQ(g_attribute_calls, before + 1) << "the missing function's answer was not cached";
}

// ---- run_checks ---------------------------------------------------------------------------

void describe(format::FunctionEntry& e, const char* name, format::ArgKind kind, format::ArgRole role) {
  format::ArgDescriptor& d = e.args[e.arg_count++];
  std::strncpy(d.name, name, sizeof d.name - 1);
  d.kind = static_cast<uint8_t>(kind);
  d.role = static_cast<uint8_t>(role);
}

class RunChecks : public DriverQuery {
 protected:
  void SetUp() override {
    DriverQuery::SetUp();
    g_table[0] = {};
    std::strcpy(g_table[0].name, "cublasSgemm_v2");
    g_table[0].family = static_cast<uint16_t>(Family::kGemm);
    using K = format::ArgKind;
    using R = format::ArgRole;
    const std::tuple<const char*, K, R> args[] = {
        {"handle", K::kPointer, R::kHandle}, {"transa", K::kOperation, R::kTransA},
        {"transb", K::kOperation, R::kTransB}, {"m", K::kInt, R::kM}, {"n", K::kInt, R::kN},
        {"k", K::kInt, R::kK}, {"alpha", K::kPointer, R::kAlpha}, {"a", K::kPointer, R::kA},
        {"lda", K::kInt, R::kLda}, {"b", K::kPointer, R::kB}, {"ldb", K::kInt, R::kLdb},
        {"beta", K::kPointer, R::kBeta}, {"c", K::kPointer, R::kC}, {"ldc", K::kInt, R::kLdc}};
    for (auto& [name, kind, role] : args) describe(g_table[0], name, kind, role);
    g_table[1] = {};
    std::strcpy(g_table[1].name, "cublasSetStream_v2");
    g_table[1].family = static_cast<uint16_t>(Family::kHandle);
    rec = {};
    rec.function_id = 0;
    rec.pointer_mode = 0;
    uint64_t values[] = {0x1234, 0, 0, 4, 4, 4, 0x7ffc00001000, kDev, 4, kDev + 4096, 4, 0x7ffc00001008, kDev + 8192, 4};
    std::memcpy(rec.args, values, sizeof values);
  }
  Runtime rt{Config{}};
  format::Record rec{};
  CallContext ctx{rec, nullptr, nullptr};
};

TEST_F(RunChecks, ValidCallLeavesTheRecordClean) {
  g_device = 1;  // the buffers' device
  EXPECT_FALSE(run_checks(rt, ctx));
  EXPECT_EQ(rec.check_bits, 0u);
  EXPECT_EQ(rec.check_detail[0], 0u);
}

TEST_F(RunChecks, FindingsGoIntoTheRecord) {
  g_device = 0;  // the buffers live on device 1
  rec.args[8] = 3;  // lda below m
  EXPECT_TRUE(run_checks(rt, ctx));
  EXPECT_EQ(rec.check_bits, check_bit(CheckId::kInvalidLeadingDimension) | check_bit(CheckId::kDeviceMismatch));
  CheckDetail d = unpack_check_detail(rec.check_detail);
  ASSERT_TRUE(d.present);
  EXPECT_EQ(d.id, CheckId::kInvalidLeadingDimension);
  GemmCall call = gemm_from_record(g_table[0], rec);
  EXPECT_EQ(check_message(CheckId::kDeviceMismatch, call, rec),
            "an operand is memory of another device than the one the call runs on");
}

TEST_F(RunChecks, WithoutTheDriverOnlyTheArgumentChecksRun) {
  g_driver_table = DriverApi{};  // no libcuda loaded
  g_device = 0;                 // would be a device mismatch
  rec.args[8] = 3;              // lda below m
  EXPECT_TRUE(run_checks(rt, ctx));
  EXPECT_EQ(rec.check_bits, check_bit(CheckId::kInvalidLeadingDimension));
  EXPECT_EQ(g_pointer_calls, 0);
}

TEST_F(RunChecks, NestedAndNonGemmCallsAreLeftAlone) {
  rec.args[8] = 3;
  rec.depth = 1;  // cuBLAS's own call into cuBLASLt
  EXPECT_FALSE(run_checks(rt, ctx));
  EXPECT_EQ(rec.check_bits, 0u);
  rec.depth = 0;
  rec.function_id = 1;
  EXPECT_FALSE(run_checks(rt, ctx));
  EXPECT_EQ(rec.check_bits, 0u);
}

}  // namespace
}  // namespace cublasspy
