// Stream capture and graphs inside the driver (capture.cpp): the rules its own entry points
// apply, and the bodies of the capture and graph API (driver_graphs.cpp exports them).
#pragma once

#include <cuda.h>

namespace standin::driver {

// The capture rules (see capture.cpp). Each returns CUDA_SUCCESS or the error to return, having
// invalidated the captures that made it so.
// Work enqueued on `stream`: *record is set when the stream is capturing (record the work as a
// node instead of doing it); errors: invalidated capture, legacy stream beside a blocking capture.
CUresult capture_enqueue(CUstream stream, bool* record);
// Records work on a capturing stream (standin_capture_node).
CUresult capture_record(CUstream stream, const char* kind, int (*run)(void*), void* data, void (*destroy)(void*));
// A potentially unsafe call (cuMemAlloc, cuMemFree, ...).
CUresult capture_unsafe_call();
// Synchronizing or querying `stream`, or synchronous work on it (cuMemcpy on the legacy stream).
CUresult capture_sync_stream(CUstream stream);
// Synchronizing the context (cuCtxSynchronize): conflicts with every capture on its device.
CUresult capture_sync_context();
// cuStreamDestroy: the stream leaves its capture (which is invalidated; ended if it began there).
void capture_forget_stream(CUstream stream);

// Copies and memsets with the copy engine's checks (standin_copy_range, standin_set_range).
bool copy_range(void* dst, bool dst_host_ok, const void* src, bool src_host_ok, size_t bytes, bool act);
bool set_range(void* dst, unsigned value, size_t width, size_t count, bool act);
// Whether the allocation table knows `p`.
bool in_table(const void* p);

// The capture and graph API (driver_graphs.cpp and driver_legacy_names.cpp export these).
CUresult begin_capture(CUstream stream, CUstreamCaptureMode mode);
CUresult end_capture(CUstream stream, CUgraph* graph);
CUresult capture_status(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                        const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data, size_t* count);
CUresult exchange_capture_mode(CUstreamCaptureMode* mode);
CUresult instantiate(CUgraphExec* exec, CUgraph graph, unsigned long long flags);
CUresult graph_launch(CUgraphExec exec, CUstream stream);
CUresult graph_upload(CUgraphExec exec, CUstream stream);
CUresult graph_destroy(CUgraph graph);
CUresult graph_exec_destroy(CUgraphExec exec);
CUresult graph_nodes(CUgraph graph, CUgraphNode* nodes, size_t* count);
CUresult graph_dot_print(CUgraph graph, const char* path);

}  // namespace standin::driver
