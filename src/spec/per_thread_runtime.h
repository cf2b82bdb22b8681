// The CUDA runtime's per-thread-default-stream forms that the hook list names (cudaMemcpyAsync_ptsz,
// cudaMemcpy_ptds, ...). A program built with --default-stream per-thread calls them in place of
// the plain names. cuda_runtime_api.h declares them beside the plain forms to the runtime's own
// build (__CUDA_API_VERSION_INTERNAL), so the wrappers' check against the header (hook_expansion.h)
// holds them to CUDA's own prototypes, as it does the plain ones: nothing here is written by hand.
// It also makes cuda.h declare the driver's _ptsz forms and leave the driver's names unversioned
// (cuMemAlloc is the 32-bit cuMemAlloc, not cuMemAlloc_v2), which the hook list spells in full.
//
// Include this before any CUDA header: the flag must be seen by the first inclusion.
#pragma once

#if (defined(__CUDA_RUNTIME_API_H__) || defined(__cuda_cuda_h__)) && !defined(__CUDA_API_VERSION_INTERNAL)
#error "spec/per_thread_runtime.h must come before any CUDA header in this file"
#endif
#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL
#endif

#include <cuda.h>
#include <cuda_runtime_api.h>
