// Driver API for stream capture and graphs; the bodies and the rules are in capture.cpp. The
// legacy and per-thread-default-stream names are in driver_legacy_names.cpp.
#include "capture.h"
#include "driver_entry.h"

using namespace standin::driver;

extern "C" {

// ---- capture -------------------------------------------------------------------------------

STANDIN_EXPORT CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  STANDIN_DRIVER_ENTRY("cuStreamBeginCapture_v2");
  STANDIN_REQUIRE_CONTEXT();
  return finish(begin_capture(hStream, mode), fault);
}

STANDIN_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
  STANDIN_DRIVER_ENTRY("cuStreamEndCapture");
  STANDIN_REQUIRE_CONTEXT();
  return finish(end_capture(hStream, phGraph), fault);
}

STANDIN_EXPORT CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  STANDIN_DRIVER_ENTRY("cuStreamIsCapturing");
  STANDIN_REQUIRE_CONTEXT();
  return finish(capture_status(hStream, captureStatus, nullptr, nullptr, nullptr, nullptr, nullptr), fault);
}

STANDIN_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                                  cuuint64_t* id_out, CUgraph* graph_out,
                                                  const CUgraphNode** dependencies_out,
                                                  const CUgraphEdgeData** edgeData_out, size_t* numDependencies_out) {
  STANDIN_DRIVER_ENTRY("cuStreamGetCaptureInfo_v3");
  STANDIN_REQUIRE_CONTEXT();
  return finish(capture_status(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                               numDependencies_out),
                fault);
}

STANDIN_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  STANDIN_DRIVER_ENTRY("cuThreadExchangeStreamCaptureMode");
  STANDIN_REQUIRE_INIT();
  return finish(exchange_capture_mode(mode), fault);
}

// ---- graphs --------------------------------------------------------------------------------

// Every flag is accepted: AUTO_FREE_ON_LAUNCH needs nothing (the stand-in allocates at capture,
// see the runtime's cudaMallocAsync), UPLOAD and USE_NODE_PRIORITY change nothing observable.
STANDIN_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                    unsigned long long flags) {
  STANDIN_DRIVER_ENTRY("cuGraphInstantiateWithFlags");
  STANDIN_REQUIRE_CONTEXT();
  return finish(instantiate(phGraphExec, hGraph, flags), fault);
}

STANDIN_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  STANDIN_DRIVER_ENTRY("cuGraphLaunch");
  STANDIN_REQUIRE_CONTEXT();
  return finish(graph_launch(hGraphExec, hStream), fault);
}

STANDIN_EXPORT CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  STANDIN_DRIVER_ENTRY("cuGraphUpload");
  STANDIN_REQUIRE_CONTEXT();
  return finish(graph_upload(hGraphExec, hStream), fault);
}

STANDIN_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  STANDIN_DRIVER_ENTRY("cuGraphExecDestroy");
  STANDIN_REQUIRE_INIT();
  return finish(graph_exec_destroy(hGraphExec), fault);
}

STANDIN_EXPORT CUresult cuGraphDestroy(CUgraph hGraph) {
  STANDIN_DRIVER_ENTRY("cuGraphDestroy");
  STANDIN_REQUIRE_INIT();
  return finish(graph_destroy(hGraph), fault);
}

STANDIN_EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  STANDIN_DRIVER_ENTRY("cuGraphGetNodes");
  STANDIN_REQUIRE_INIT();
  return finish(graph_nodes(hGraph, nodes, numNodes), fault);
}

STANDIN_EXPORT CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char* path, unsigned int flags) {
  STANDIN_DRIVER_ENTRY("cuGraphDebugDotPrint");
  STANDIN_REQUIRE_INIT();
  (void)flags;  // one level of detail: the node kinds
  return finish(graph_dot_print(hGraph, path), fault);
}

}  // extern "C"
