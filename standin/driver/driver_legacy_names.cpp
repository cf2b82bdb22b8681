// Exported names that cuda.h only declares in its internal mode: the 11.x cuGetProcAddress,
// legacy symbols whose signature equals their successor's, and the per-thread-default-stream
// (_ptds/_ptsz) flavours. Work is synchronous, so a per-thread flavour behaves as its base.
// Compiling this file in internal mode lets the header check these signatures too.
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include "capture.h"
#include "driver_bodies.h"
#include "driver_entry.h"

using namespace standin::driver;

namespace {

// In a per-thread-default-stream call, stream 0 is the calling thread's default stream.
CUstream ptsz(CUstream s) { return s == nullptr ? CU_STREAM_PER_THREAD : s; }

}  // namespace

extern "C" {

STANDIN_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return get_proc_address("cuGetProcAddress", symbol, pfn, cudaVersion, flags, nullptr, true);
}

STANDIN_EXPORT CUresult cuStreamDestroy(CUstream hStream) { return stream_destroy("cuStreamDestroy", hStream); }

STANDIN_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return primary_ctx_release("cuDevicePrimaryCtxRelease", dev);
}

STANDIN_EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return device_get_uuid("cuDeviceGetUuid", uuid, dev); }

STANDIN_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return mem_copy("cuMemcpy_ptds", dst, src, ByteCount, per_thread_sync());
}

STANDIN_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyHtoD_v2_ptds", reinterpret_cast<void*>(dstDevice), true, srcHost, false, ByteCount,
                          per_thread_sync());
}

STANDIN_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyDtoH_v2_ptds", dstHost, false, reinterpret_cast<void*>(srcDevice), true, ByteCount,
                          per_thread_sync());
}

STANDIN_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return mem_copy_checked("cuMemcpyDtoD_v2_ptds", reinterpret_cast<void*>(dstDevice), true,
                          reinterpret_cast<void*>(srcDevice), true, ByteCount, per_thread_sync());
}

STANDIN_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return mem_set("cuMemsetD8_v2_ptds", dstDevice, uc, 1, N, per_thread_sync());
}

STANDIN_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
  return stream_synchronize("cuStreamSynchronize_ptsz", ptsz(hStream));
}

STANDIN_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream) {
  return stream_query("cuStreamQuery_ptsz", ptsz(hStream));
}

STANDIN_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return mem_copy("cuMemcpyAsync_ptsz", dst, src, ByteCount, async_on(ptsz(hStream)));
}

STANDIN_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                                  CUstream hStream) {
  return mem_copy_checked("cuMemcpyHtoDAsync_v2_ptsz", reinterpret_cast<void*>(dstDevice), true, srcHost, false,
                          ByteCount, async_on(ptsz(hStream)));
}

STANDIN_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                                  CUstream hStream) {
  return mem_copy_checked("cuMemcpyDtoHAsync_v2_ptsz", dstHost, false, reinterpret_cast<void*>(srcDevice), true,
                          ByteCount, async_on(ptsz(hStream)));
}

STANDIN_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                                  CUstream hStream) {
  return mem_copy_checked("cuMemcpyDtoDAsync_v2_ptsz", reinterpret_cast<void*>(dstDevice), true,
                          reinterpret_cast<void*>(srcDevice), true, ByteCount, async_on(ptsz(hStream)));
}

STANDIN_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD8Async_ptsz", dstDevice, uc, 1, N, async_on(ptsz(hStream)));
}

STANDIN_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD16Async_ptsz", dstDevice, us, 2, N, async_on(ptsz(hStream)));
}

STANDIN_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return mem_set("cuMemsetD32Async_ptsz", dstDevice, ui, 4, N, async_on(ptsz(hStream)));
}

// ---- capture and graphs: the CUDA 10.0 and 11.x forms, and the per-thread-default-stream ones ----

namespace {

CUresult begin_named(const char* name, CUstream stream, CUstreamCaptureMode mode) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return finish(begin_capture(stream, mode), fault);
}

CUresult end_named(const char* name, CUstream stream, CUgraph* graph) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return finish(end_capture(stream, graph), fault);
}

CUresult status_named(const char* name, CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id,
                      CUgraph* graph, const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data,
                      size_t* count) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return finish(capture_status(stream, status, id, graph, dependencies, edge_data, count), fault);
}

// The 11.x instantiation: no flags; the error node and log stay empty (nothing fails to instantiate).
CUresult instantiate_named(const char* name, CUgraphExec* exec, CUgraph graph, CUgraphNode* error_node, char* log,
                           size_t log_size) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  if (error_node != nullptr) *error_node = nullptr;
  if (log != nullptr && log_size > 0) log[0] = '\0';
  return finish(instantiate(exec, graph, 0), fault);
}

CUresult launch_named(const char* name, CUgraphExec exec, CUstream stream) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return finish(graph_launch(exec, stream), fault);
}

CUresult upload_named(const char* name, CUgraphExec exec, CUstream stream) {
  STANDIN_DRIVER_ENTRY(name);
  STANDIN_REQUIRE_CONTEXT();
  return finish(graph_upload(exec, stream), fault);
}

}  // namespace

// CUDA 10.0's capture had no mode argument: it behaves as the global mode.
STANDIN_EXPORT CUresult cuStreamBeginCapture(CUstream hStream) {
  return begin_named("cuStreamBeginCapture", hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

STANDIN_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream hStream) {
  return begin_named("cuStreamBeginCapture_ptsz", ptsz(hStream), CU_STREAM_CAPTURE_MODE_GLOBAL);
}

STANDIN_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) {
  return begin_named("cuStreamBeginCapture_v2_ptsz", ptsz(hStream), mode);
}

STANDIN_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph* phGraph) {
  return end_named("cuStreamEndCapture_ptsz", ptsz(hStream), phGraph);
}

STANDIN_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return status_named("cuStreamIsCapturing_ptsz", ptsz(hStream), captureStatus, nullptr, nullptr, nullptr, nullptr,
                      nullptr);
}

STANDIN_EXPORT CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                               cuuint64_t* id_out) {
  return status_named("cuStreamGetCaptureInfo", hStream, captureStatus_out, id_out, nullptr, nullptr, nullptr, nullptr);
}

STANDIN_EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                                    cuuint64_t* id_out) {
  return status_named("cuStreamGetCaptureInfo_ptsz", ptsz(hStream), captureStatus_out, id_out, nullptr, nullptr,
                      nullptr, nullptr);
}

STANDIN_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                                  cuuint64_t* id_out, CUgraph* graph_out,
                                                  const CUgraphNode** dependencies_out, size_t* numDependencies_out) {
  return status_named("cuStreamGetCaptureInfo_v2", hStream, captureStatus_out, id_out, graph_out, dependencies_out,
                      nullptr, numDependencies_out);
}

STANDIN_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                                       cuuint64_t* id_out, CUgraph* graph_out,
                                                       const CUgraphNode** dependencies_out,
                                                       size_t* numDependencies_out) {
  return status_named("cuStreamGetCaptureInfo_v2_ptsz", ptsz(hStream), captureStatus_out, id_out, graph_out,
                      dependencies_out, nullptr, numDependencies_out);
}

STANDIN_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                                       cuuint64_t* id_out, CUgraph* graph_out,
                                                       const CUgraphNode** dependencies_out,
                                                       const CUgraphEdgeData** edgeData_out,
                                                       size_t* numDependencies_out) {
  return status_named("cuStreamGetCaptureInfo_v3_ptsz", ptsz(hStream), captureStatus_out, id_out, graph_out,
                      dependencies_out, edgeData_out, numDependencies_out);
}

STANDIN_EXPORT CUresult cuGraphInstantiate(CUgraphExec* phGraphExec, CUgraph hGraph, CUgraphNode* phErrorNode,
                                           char* logBuffer, size_t bufferSize) {
  return instantiate_named("cuGraphInstantiate", phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

STANDIN_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec* phGraphExec, CUgraph hGraph, CUgraphNode* phErrorNode,
                                              char* logBuffer, size_t bufferSize) {
  return instantiate_named("cuGraphInstantiate_v2", phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

STANDIN_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return launch_named("cuGraphLaunch_ptsz", hGraphExec, ptsz(hStream));
}

STANDIN_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return upload_named("cuGraphUpload_ptsz", hGraphExec, ptsz(hStream));
}

}  // extern "C"
