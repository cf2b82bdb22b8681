// Stream capture and CUDA graphs, the profiler switches, and cudaDeviceReset.
//
// Capture and graphs are the driver's (driver/capture.cpp holds the state and CUDA's rules): each
// call here is the driver call the real runtime makes, cuStreamBeginCapture_v2,
// cuGraphInstantiateWithFlags, cuGraphLaunch and so on, its CUresult returned as the cudaError_t
// of the same number. The runtime's own enqueuing calls (copies, launches, events) ask the driver
// whether their stream is capturing and record their work as graph nodes when it is.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "runtime_state.h"

using namespace standin::runtime;

extern "C" {

// ---- capture -------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamIsCapturing");
  if (pCaptureStatus == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  const CUresult r = drv->cuStreamIsCapturing(stream, &status);
  if (r == CUDA_SUCCESS) *pCaptureStatus = static_cast<cudaStreamCaptureStatus>(status);  // same values
  return finish(r, fault);
}

#if STANDIN_CUDA_MAJOR >= 13
// CUDA 13's cudaStreamGetCaptureInfo reports edge data too (12.3's _v3, renamed).
STANDIN_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* captureStatus_out,
                                                    unsigned long long* id_out, cudaGraph_t* graph_out,
                                                    const cudaGraphNode_t** dependencies_out,
                                                    const cudaGraphEdgeData** edgeData_out,
                                                    size_t* numDependencies_out) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamGetCaptureInfo");
  // cudaGraphEdgeData and CUgraphEdgeData are the same struct (driver_types.h says so).
  const CUgraphEdgeData** edges = reinterpret_cast<const CUgraphEdgeData**>(edgeData_out);
#else
// The CUDA 12 entry point PyTorch 2.6 calls; the CUDA 13 headers no longer declare it.
STANDIN_EXPORT cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
                                                       enum cudaStreamCaptureStatus* captureStatus_out,
                                                       unsigned long long* id_out, cudaGraph_t* graph_out,
                                                       const cudaGraphNode_t** dependencies_out,
                                                       size_t* numDependencies_out) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamGetCaptureInfo_v2");
  const CUgraphEdgeData** edges = nullptr;
#endif
  if (captureStatus_out == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // Not capturing: only the status is defined, as in CUDA.
  cuuint64_t id = 0;  // unsigned long in cuda.h, unsigned long long here: the same 64 bits
  const CUresult r = drv->cuStreamGetCaptureInfo(stream, &status, &id, graph_out, dependencies_out, edges,
                                                 numDependencies_out);
  if (r == CUDA_SUCCESS) {
    *captureStatus_out = static_cast<cudaStreamCaptureStatus>(status);
    if (id_out != nullptr && status != CU_STREAM_CAPTURE_STATUS_NONE) *id_out = id;
  }
  return finish(r, fault);
}

// The legacy default stream cannot be captured (cudaErrorStreamCaptureUnsupported).
STANDIN_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamBeginCapture");
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamBeginCapture(stream, static_cast<CUstreamCaptureMode>(mode)), fault);
}

// cudaErrorIllegalState when the stream is not capturing, cudaErrorStreamCaptureInvalidated (and
// no graph) when the capture was invalidated, cudaErrorStreamCaptureUnjoined when a stream forked
// from it was not joined back, cudaErrorStreamCaptureWrongThread from another thread than the one
// that began a capture that is not relaxed.
STANDIN_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamEndCapture");
  if (pGraph == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuStreamEndCapture(stream, pGraph), fault);
}

STANDIN_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode) {
  STANDIN_RUNTIME_ENTRY("cudaThreadExchangeStreamCaptureMode");
  if (mode == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_INIT();
  return finish(drv->cuThreadExchangeStreamCaptureMode(reinterpret_cast<CUstreamCaptureMode*>(mode)), fault);
}

// ---- graphs --------------------------------------------------------------------------------

}  // extern "C"

namespace {

cudaError_t instantiate(const char* name, cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  if (pGraphExec == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuGraphInstantiate(pGraphExec, graph, flags), fault);  // the flags' values are the driver's
}

// A launch runs the graph's work in order before it returns; a fault in it (memory freed since
// the capture, STANDIN_ASYNC_ERROR on a captured call) is sticky and reported by the next
// synchronizing call, as a kernel's is. STANDIN_ASYNC_ERROR=cudaGraphLaunch:N:code makes the Nth
// launch fault after its work.
cudaError_t launch(const char* name, cudaGraphExec_t graphExec, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuGraphLaunch(graphExec, stream), fault);
}

cudaError_t upload(const char* name, cudaGraphExec_t graphExec, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY(name);
  STANDIN_RUNTIME_CONTEXT();
  return finish(drv->cuGraphUpload(graphExec, stream), fault);
}

}  // namespace

extern "C" {

STANDIN_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                unsigned long long flags) {
  return instantiate("cudaGraphInstantiate", pGraphExec, graph, flags);
}

STANDIN_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                         unsigned long long flags) {
  return instantiate("cudaGraphInstantiateWithFlags", pGraphExec, graph, flags);
}

STANDIN_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return launch("cudaGraphLaunch", graphExec, stream);
}

STANDIN_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return launch("cudaGraphLaunch_ptsz", graphExec, stream != nullptr ? stream : cudaStreamPerThread);
}

STANDIN_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return upload("cudaGraphUpload", graphExec, stream);
}

STANDIN_EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return upload("cudaGraphUpload_ptsz", graphExec, stream != nullptr ? stream : cudaStreamPerThread);
}

STANDIN_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  STANDIN_RUNTIME_ENTRY("cudaGraphExecDestroy");
  STANDIN_RUNTIME_INIT();
  return finish(drv->cuGraphExecDestroy(graphExec), fault);
}

STANDIN_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  STANDIN_RUNTIME_ENTRY("cudaGraphDestroy");
  STANDIN_RUNTIME_INIT();
  return finish(drv->cuGraphDestroy(graph), fault);
}

// Without `nodes`, the number of nodes (what PyTorch asks after a capture).
STANDIN_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  STANDIN_RUNTIME_ENTRY("cudaGraphGetNodes");
  STANDIN_RUNTIME_INIT();
  return finish(drv->cuGraphGetNodes(graph, nodes, numNodes), fault);
}

// The nodes in launch order, each labelled with its kind (memcpy, memset, kernel, host, gemm, ...).
STANDIN_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags) {
  STANDIN_RUNTIME_ENTRY("cudaGraphDebugDotPrint");
  STANDIN_RUNTIME_INIT();
  return finish(drv->cuGraphDebugDotPrint(graph, path, flags), fault);
}

// ---- profiler: nothing profiles the stand-in, so the switches only need a working runtime ------

STANDIN_EXPORT cudaError_t cudaProfilerStart(void) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaProfilerStart");
  STANDIN_RUNTIME_CONTEXT();
  return finish(cudaSuccess, fault);
}

STANDIN_EXPORT cudaError_t cudaProfilerStop(void) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaProfilerStop");
  STANDIN_RUNTIME_CONTEXT();
  return finish(cudaSuccess, fault);
}

// ---- reset ---------------------------------------------------------------------------------

// Destroys the current device's primary context: its memory is freed and a sticky error is
// gone; the next call makes a fresh context, as in CUDA.
STANDIN_EXPORT cudaError_t cudaDeviceReset(void) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaDeviceReset");
  STANDIN_RUNTIME_CONTEXT();
  const CUresult r = drv->cuDevicePrimaryCtxReset(current_device(drv));
  if (r == CUDA_SUCCESS) last_error() = cudaSuccess;
  return finish(r, fault);
}

}  // extern "C"
