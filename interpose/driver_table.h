// The shim's tables of src/cuda_driver/driver_api.h (every CUDA function the shim calls for its own
// use), filled from the libraries the program has loaded by driver_table.cpp.
#pragma once

#include <cstdint>

#include "cuda_driver/driver_api.h"
#include "cuda_driver/stream_wait.h"

namespace cublasspy {

// The tables. An entry is the loaded library's function, or nullptr while that library is not
// loaded and when it lacks the function. A table is filled once, the first time its library is
// found loaded, and then kept (a loaded library gains no functions). Until then it is looked for
// again only after note_libraries_changed(): a look searches the loaded objects, and a
// dlopen(RTLD_NOLOAD) of a name that is not loaded searches the library path on disk.
//
// `scratch`: where the table is filled when this thread finds it unfilled; the answer is then
// `scratch` itself (and the table is kept for the threads after it). No thread waits for
// another: the other could be waiting for the loader lock that this one holds, inside a library
// constructor.
//
// Callers keep thread_state().internal raised while calling through a table.
const DriverApi& driver_table(DriverApi& scratch);
const RuntimeApi& shim_runtime(RuntimeApi& scratch);
const CublasLtApi& shim_cublaslt(CublasLtApi& scratch);

// CUBLASSPY_SYNC's wait for a program's stream (cuda_driver/stream_wait.h: never a capturing one),
// through the driver table, as the shim's own call (thread_state().internal raised).
StreamWait shim_wait_for_stream(uint64_t stream);

// A CUDA library may have been loaded: the tables not yet filled look again at their next use.
// Called after each successful load the dlopen hook records, and after each set-up call (cuInit,
// cudaGetDeviceCount, cublasCreate: by then the program has its driver, however it loaded it).
void note_libraries_changed();

}  // namespace cublasspy
