// Stream capture and CUDA graphs, the profiler switches, and cudaDeviceReset.
//
// Work runs when it is called, so the stand-in cannot record it into a graph: a stream is never
// capturing (what PyTorch's caching allocator asks before every allocation), beginning a capture
// fails with cudaErrorNotSupported, and since no graph can exist, every graph handle is invalid.
// The thread's capture mode is kept and exchanged as CUDA does.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "runtime_state.h"

using namespace standin::runtime;

namespace {

cudaStreamCaptureMode& thread_capture_mode() {
  thread_local cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  return mode;
}

// The answer for a graph or graph-exec handle: none was ever created.
cudaError_t no_graph(const void* handle) { return record(handle == nullptr ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle); }

}  // namespace

extern "C" {

// ---- capture -------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamIsCapturing");
  if (pCaptureStatus == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  *pCaptureStatus = cudaStreamCaptureStatusNone;
  return finish(cudaSuccess, fault);
}

#if STANDIN_CUDA_MAJOR >= 13
// CUDA 13's cudaStreamGetCaptureInfo reports edge data too (12.3's _v3, renamed).
STANDIN_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* captureStatus_out,
                                                    unsigned long long* id_out, cudaGraph_t* graph_out,
                                                    const cudaGraphNode_t** dependencies_out,
                                                    const cudaGraphEdgeData** edgeData_out,
                                                    size_t* numDependencies_out) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamGetCaptureInfo");
  (void)id_out, (void)graph_out, (void)dependencies_out, (void)edgeData_out, (void)numDependencies_out;
#else
// The CUDA 12 entry point PyTorch 2.6 calls; the CUDA 13 headers no longer declare it.
STANDIN_EXPORT cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
                                                       enum cudaStreamCaptureStatus* captureStatus_out,
                                                       unsigned long long* id_out, cudaGraph_t* graph_out,
                                                       const cudaGraphNode_t** dependencies_out,
                                                       size_t* numDependencies_out) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamGetCaptureInfo_v2");
  (void)id_out, (void)graph_out, (void)dependencies_out, (void)numDependencies_out;
#endif
  // Not capturing: only the status is defined, as in CUDA.
  if (captureStatus_out == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  *captureStatus_out = cudaStreamCaptureStatusNone;
  return finish(cudaSuccess, fault);
}

// The legacy default stream cannot be captured at all (as in CUDA); others could be, but the
// stand-in cannot defer work into a graph.
STANDIN_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamBeginCapture");
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (stream == nullptr || stream == cudaStreamLegacy) return record(cudaErrorStreamCaptureUnsupported);
  return record(cudaErrorNotSupported);
}

STANDIN_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamEndCapture");
  if (pGraph == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  return record(cudaErrorIllegalState);  // the stream is not capturing
}

STANDIN_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode) {
  STANDIN_RUNTIME_ENTRY("cudaThreadExchangeStreamCaptureMode");
  if (mode == nullptr || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed) {
    return record(cudaErrorInvalidValue);
  }
  const cudaStreamCaptureMode previous = thread_capture_mode();
  thread_capture_mode() = *mode;
  *mode = previous;
  return finish(cudaSuccess, fault);
}

// ---- graphs: none can exist ------------------------------------------------------------------

}  // extern "C"

namespace {

cudaError_t instantiate(const char* name, cudaGraphExec_t* pGraphExec, cudaGraph_t graph) {
  STANDIN_RUNTIME_ENTRY(name);
  if (pGraphExec == nullptr) return record(cudaErrorInvalidValue);
  return no_graph(graph);
}

}  // namespace

extern "C" {

STANDIN_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                unsigned long long /*flags*/) {
  return instantiate("cudaGraphInstantiate", pGraphExec, graph);
}

STANDIN_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                         unsigned long long /*flags*/) {
  return instantiate("cudaGraphInstantiateWithFlags", pGraphExec, graph);
}

STANDIN_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  STANDIN_RUNTIME_ENTRY("cudaGraphLaunch");
  (void)stream;
  return no_graph(graphExec);
}

STANDIN_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  STANDIN_RUNTIME_ENTRY("cudaGraphExecDestroy");
  return no_graph(graphExec);
}

STANDIN_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  STANDIN_RUNTIME_ENTRY("cudaGraphDestroy");
  return no_graph(graph);
}

STANDIN_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  STANDIN_RUNTIME_ENTRY("cudaGraphGetNodes");
  (void)nodes;
  if (numNodes == nullptr) return record(cudaErrorInvalidValue);
  return no_graph(graph);
}

STANDIN_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags) {
  STANDIN_RUNTIME_ENTRY("cudaGraphDebugDotPrint");
  (void)flags;
  if (path == nullptr) return record(cudaErrorInvalidValue);
  return no_graph(graph);
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
