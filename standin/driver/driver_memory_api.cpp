// Driver API, part 2: memory and pointer queries, over the allocation table.
#include <cstdint>
#include <cstring>

#include "capture.h"
#include "capture_work.h"
#include "driver_bodies.h"
#include "driver_entry.h"

using namespace standin::driver;

namespace {

constexpr unsigned kDeviceKinds = (1u << STANDIN_MEMORY_DEVICE) | (1u << STANDIN_MEMORY_MANAGED);
constexpr unsigned kHostKinds = 1u << STANDIN_MEMORY_HOST;

void* as_ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

CUresult allocate_into(void** out, size_t bytes, int kind) {
  void* p = allocate(bytes, kind, current_context()->device);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *out = p;
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

STANDIN_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  STANDIN_DRIVER_ENTRY("cuMemAlloc_v2");
  STANDIN_REQUIRE_CONTEXT();
  if (dptr == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (CUresult r = capture_unsafe_call(); r != CUDA_SUCCESS) return r;  // potentially unsafe during capture
  void* p = nullptr;
  CUresult r = allocate_into(&p, bytesize, STANDIN_MEMORY_DEVICE);
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return finish(r, fault);
}

// Stream-ordered, as cuBLAS 12.2 and later allocate their workspace: everything is synchronous
// here, so it is an ordinary allocation made now, legal on a capturing stream too (the memory
// stays for the graph's launches, as the runtime's cudaMallocAsync does).
STANDIN_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  STANDIN_DRIVER_ENTRY("cuMemAllocAsync");
  STANDIN_REQUIRE_CONTEXT();
  if (dptr == nullptr || bytesize == 0 || !standin_stream_valid(hStream)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (sticky() != CUDA_SUCCESS) return sticky();
  void* p = nullptr;
  CUresult r = allocate_into(&p, bytesize, STANDIN_MEMORY_DEVICE);
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return finish(r, fault);
}

STANDIN_EXPORT CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  STANDIN_DRIVER_ENTRY("cuMemAllocManaged");
  STANDIN_REQUIRE_CONTEXT();
  if (dptr == nullptr || bytesize == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (CUresult r = capture_unsafe_call(); r != CUDA_SUCCESS) return r;  // potentially unsafe during capture
  void* p = nullptr;
  CUresult r = allocate_into(&p, bytesize, STANDIN_MEMORY_MANAGED);
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return finish(r, fault);
}

STANDIN_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
  STANDIN_DRIVER_ENTRY("cuMemFree_v2");
  STANDIN_REQUIRE_CONTEXT();
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (CUresult r = capture_unsafe_call(); r != CUDA_SUCCESS) return r;  // potentially unsafe during capture
  if (dptr == 0) return finish(CUDA_SUCCESS, fault);
  if (!release(as_ptr(dptr), kDeviceKinds)) return CUDA_ERROR_INVALID_VALUE;
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
  STANDIN_DRIVER_ENTRY("cuMemAllocHost_v2");
  STANDIN_REQUIRE_CONTEXT();
  if (pp == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (CUresult r = capture_unsafe_call(); r != CUDA_SUCCESS) return r;  // potentially unsafe during capture
  return finish(allocate_into(pp, bytesize, STANDIN_MEMORY_HOST), fault);
}

STANDIN_EXPORT CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  STANDIN_DRIVER_ENTRY("cuMemHostAlloc");
  STANDIN_REQUIRE_CONTEXT();
  constexpr unsigned kKnown = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if (pp == nullptr || (Flags & ~kKnown) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (CUresult r = capture_unsafe_call(); r != CUDA_SUCCESS) return r;  // potentially unsafe during capture
  return finish(allocate_into(pp, bytesize, STANDIN_MEMORY_HOST), fault);
}

STANDIN_EXPORT CUresult cuMemFreeHost(void* p) {
  STANDIN_DRIVER_ENTRY("cuMemFreeHost");
  STANDIN_REQUIRE_CONTEXT();
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (CUresult r = capture_unsafe_call(); r != CUDA_SUCCESS) return r;  // potentially unsafe during capture
  if (p == nullptr) return finish(CUDA_SUCCESS, fault);
  if (!release(p, kHostKinds)) return CUDA_ERROR_INVALID_VALUE;
  return finish(CUDA_SUCCESS, fault);
}

// Page-locks the caller's memory: here it only enters the allocation table, so that pointer
// queries and GEMMs treat it as pinned host memory.
STANDIN_EXPORT CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
  STANDIN_DRIVER_ENTRY("cuMemHostRegister_v2");
  STANDIN_REQUIRE_CONTEXT();
  constexpr unsigned kKnown = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                              CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
  if (p == nullptr || bytesize == 0 || (Flags & ~kKnown) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (!register_host(p, bytesize, current_context()->device)) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuMemHostUnregister(void* p) {
  STANDIN_DRIVER_ENTRY("cuMemHostUnregister");
  STANDIN_REQUIRE_CONTEXT();
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  if (!unregister_host(p)) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  return finish(CUDA_SUCCESS, fault);
}

// Unified addressing: pinned host memory has the same address on the device.
STANDIN_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  STANDIN_DRIVER_ENTRY("cuMemHostGetDevicePointer_v2");
  STANDIN_REQUIRE_CONTEXT();
  standin_allocation a{};
  if (pdptr == nullptr || Flags != 0 || !find(p, &a) || a.kind != STANDIN_MEMORY_HOST) return CUDA_ERROR_INVALID_VALUE;
  *pdptr = reinterpret_cast<CUdeviceptr>(p);
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  STANDIN_DRIVER_ENTRY("cuMemGetInfo_v2");
  STANDIN_REQUIRE_CONTEXT();
  if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *total = config().memory_per_device;
  *free = *total - bytes_in_use(current_context()->device);
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  STANDIN_DRIVER_ENTRY("cuMemGetAddressRange_v2");
  STANDIN_REQUIRE_CONTEXT();
  standin_allocation a{};
  if (!find(as_ptr(dptr), &a) || a.kind == STANDIN_MEMORY_HOST) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = reinterpret_cast<CUdeviceptr>(a.base);
  if (psize) *psize = a.size;
  return finish(CUDA_SUCCESS, fault);
}

}  // extern "C"

// ---- copies and memsets ----------------------------------------------------------------------
// Bodies shared with the per-thread-default-stream aliases (driver_legacy_names.cpp), each
// counted under the name it was called by. The work is done before they return, unless a capture
// records it: then each launch of the graph does it, with the same checks, and memory that is no
// longer allocated by then faults as a real copy would (sticky illegal address).

namespace {

constexpr int kIllegalAddress = 700;  // CUDA_ERROR_ILLEGAL_ADDRESS

// The capture rules of a copy or memset: a synchronous one synchronizes its stream, an
// asynchronous one is enqueued (*record: a capture records it).
CUresult enqueue(const Target& t, bool* record) {
  *record = false;
  return t.async ? capture_enqueue(t.stream, record) : capture_sync_stream(t.stream);
}

// Either end may be pageable host memory where `*_host_ok`; memory the table knows must hold the
// whole range.
CUresult copy(const standin_fault_action& fault, void* dst, bool dst_host_ok, const void* src, bool src_host_ok,
              size_t bytes, const Target& t) {
  if (!stream_valid(t.stream)) return CUDA_ERROR_INVALID_HANDLE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  bool record = false;
  if (CUresult r = enqueue(t, &record); r != CUDA_SUCCESS) return r;
  if (bytes == 0) return finish(CUDA_SUCCESS, fault);
  if (!copy_range(dst, dst_host_ok, src, src_host_ok, bytes, !record)) return CUDA_ERROR_INVALID_VALUE;
  if (!record) return finish(CUDA_SUCCESS, fault);
  // At a launch, host memory stays acceptable; what was allocated must still be.
  const bool dst_host = dst_host_ok && !in_table(dst), src_host = src_host_ok && !in_table(src);
  const int async_error = fault.async_error;  // STANDIN_ASYNC_ERROR: each launch's copy faults after it
  return static_cast<CUresult>(standin::capture_work(t.stream, "memcpy", [=] {
    return copy_range(dst, dst_host, src, src_host, bytes, true) ? async_error : kIllegalAddress;
  }));
}

}  // namespace

CUresult standin::driver::mem_copy(const char* name, CUdeviceptr dst, CUdeviceptr src, size_t bytes, Target target) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return copy(fault, as_ptr(dst), true, as_ptr(src), true, bytes, target);
}

CUresult standin::driver::mem_copy_checked(const char* name, void* dst, bool dst_device, const void* src,
                                           bool src_device, size_t bytes, Target target) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return copy(fault, dst, !dst_device, src, !src_device, bytes, target);
}

CUresult standin::driver::mem_set(const char* name, CUdeviceptr dst, unsigned value, size_t width, size_t count,
                                  Target target) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  if (!stream_valid(target.stream)) return CUDA_ERROR_INVALID_HANDLE;
  if (sticky() != CUDA_SUCCESS) return sticky();
  bool record = false;
  if (CUresult r = enqueue(target, &record); r != CUDA_SUCCESS) return r;
  if (count == 0) return finish(CUDA_SUCCESS, fault);
  // The real driver wants a D16/D32 destination aligned to its element.
  if (dst % width != 0) return CUDA_ERROR_INVALID_VALUE;
  void* out = as_ptr(dst);
  if (!set_range(out, value, width, count, !record)) return CUDA_ERROR_INVALID_VALUE;
  if (!record) return finish(CUDA_SUCCESS, fault);
  const int async_error = fault.async_error;
  return static_cast<CUresult>(standin::capture_work(target.stream, "memset", [=] {
    return set_range(out, value, width, count, true) ? async_error : kIllegalAddress;
  }));
}

extern "C" {

STANDIN_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return mem_copy("cuMemcpy", dst, src, ByteCount);
}

STANDIN_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyHtoD_v2", as_ptr(dstDevice), true, srcHost, false, ByteCount);
}

STANDIN_EXPORT CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyDtoH_v2", dstHost, false, as_ptr(srcDevice), true, ByteCount);
}

STANDIN_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyDtoD_v2", as_ptr(dstDevice), true, as_ptr(srcDevice), true, ByteCount);
}

STANDIN_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return mem_set("cuMemsetD8_v2", dstDevice, uc, 1, N);
}

STANDIN_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return mem_copy("cuMemcpyAsync", dst, src, ByteCount, async_on(hStream));
}

STANDIN_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                             CUstream hStream) {
  return mem_copy_checked("cuMemcpyHtoDAsync_v2", as_ptr(dstDevice), true, srcHost, false, ByteCount,
                          async_on(hStream));
}

STANDIN_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return mem_copy_checked("cuMemcpyDtoHAsync_v2", dstHost, false, as_ptr(srcDevice), true, ByteCount,
                          async_on(hStream));
}

STANDIN_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                             CUstream hStream) {
  return mem_copy_checked("cuMemcpyDtoDAsync_v2", as_ptr(dstDevice), true, as_ptr(srcDevice), true, ByteCount,
                          async_on(hStream));
}

STANDIN_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD8Async", dstDevice, uc, 1, N, async_on(hStream));
}

STANDIN_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD16Async", dstDevice, us, 2, N, async_on(hStream));
}

STANDIN_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD32Async", dstDevice, ui, 4, N, async_on(hStream));
}

}  // extern "C"

// ---- pointer attributes ------------------------------------------------------------------------

namespace {

template <class T>
void put(void* data, T value) {
  std::memcpy(data, &value, sizeof value);
}

// Writes one attribute of `ptr` (found in the table as `a`, or not: `known` false) into data.
// Returns false for an attribute that is invalid for this pointer.
bool write_attribute(CUpointer_attribute attribute, const void* ptr, bool known, const standin_allocation& a,
                     void* data) {
  const bool on_device = known && a.kind != STANDIN_MEMORY_HOST;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: put<CUcontext>(data, known ? primary_context(a.device) : nullptr); return true;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      put<unsigned int>(data, !known ? 0u
                                    : (a.kind == STANDIN_MEMORY_HOST ? unsigned{CU_MEMORYTYPE_HOST}
                                                                     : unsigned{CU_MEMORYTYPE_DEVICE}));
      return true;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: put<CUdeviceptr>(data, known ? reinterpret_cast<CUdeviceptr>(ptr) : 0); return true;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      put<void*>(data, known && a.kind != STANDIN_MEMORY_DEVICE ? const_cast<void*>(ptr) : nullptr);
      return true;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: put<bool>(data, false); return true;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: put<unsigned long long>(data, known ? a.id : 0); return true;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: put<bool>(data, known && a.kind == STANDIN_MEMORY_MANAGED); return true;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: put<int>(data, known ? a.device : -2); return true;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: put<bool>(data, on_device); return true;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: put<CUdeviceptr>(data, known ? reinterpret_cast<CUdeviceptr>(a.base) : 0); return true;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: put<size_t>(data, known ? a.size : 0); return true;
    case CU_POINTER_ATTRIBUTE_MAPPED: put<bool>(data, known); return true;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: put<unsigned long long>(data, 0); return true;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: put<bool>(data, false); return true;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      put<unsigned int>(data, known ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE);
      return true;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: put<void*>(data, nullptr); return true;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: put<size_t>(data, known ? a.size : 0); return true;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: put<void*>(data, known ? a.base : nullptr); return true;
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: put<unsigned long long>(data, known ? a.id : 0); return true;
    default: return false;
  }
}

}  // namespace

extern "C" {

STANDIN_EXPORT CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  STANDIN_DRIVER_ENTRY("cuPointerGetAttribute");
  STANDIN_REQUIRE_INIT();
  if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  standin_allocation a{};
  // Unlike cuPointerGetAttributes, the single query fails for memory the driver does not know.
  if (!find(as_ptr(ptr), &a)) return CUDA_ERROR_INVALID_VALUE;
  if (attribute == CU_POINTER_ATTRIBUTE_HOST_POINTER && a.kind == STANDIN_MEMORY_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (!write_attribute(attribute, as_ptr(ptr), true, a, data)) return CUDA_ERROR_INVALID_VALUE;
  return finish(CUDA_SUCCESS, fault);
}

STANDIN_EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes,
                                               void** data, CUdeviceptr ptr) {
  STANDIN_DRIVER_ENTRY("cuPointerGetAttributes");
  STANDIN_REQUIRE_INIT();
  if (numAttributes == 0 || attributes == nullptr || data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  standin_allocation a{};
  const bool known = find(as_ptr(ptr), &a);
  for (unsigned int i = 0; i < numAttributes; ++i) {
    if (data[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (!write_attribute(attributes[i], as_ptr(ptr), known, a, data[i])) return CUDA_ERROR_INVALID_VALUE;
  }
  return finish(CUDA_SUCCESS, fault);
}

}  // extern "C"
