// The CUDA runtime's per-thread-default-stream forms that the hook list names. A program built
// with --default-stream per-thread (or CUDA_API_PER_THREAD_DEFAULT_STREAM) calls them in place of
// the plain names; cuda_runtime_api.h declares them only to such programs, under the plain names.
// Same prototypes as the plain forms (CUDA 13's, for the batches: hook_list.h).
#pragma once

#include <cuda_runtime_api.h>

extern "C" {
cudaError_t cudaLaunchKernel_ptsz(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t*, const void*, void**);
cudaError_t cudaMemsetAsync_ptsz(void*, int, size_t, cudaStream_t);
cudaError_t cudaMemcpyAsync_ptsz(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy2DAsync_ptsz(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms*, cudaStream_t);
cudaError_t cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms*, cudaStream_t);
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t, size_t, size_t, const void*, size_t, size_t, size_t,
                                          cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void*, size_t, cudaArray_const_t, size_t, size_t, size_t, size_t,
                                            cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpyBatchAsync_ptsz(void* const*, const void* const*, const size_t*, size_t, cudaMemcpyAttributes*,
                                      size_t*, size_t, cudaStream_t);
cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t, cudaMemcpy3DBatchOp*, unsigned long long, cudaStream_t);
cudaError_t cudaMemset2DAsync_ptsz(void*, size_t, int, size_t, size_t, cudaStream_t);
cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr, int, cudaExtent, cudaStream_t);
cudaError_t cudaMemcpy_ptds(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t);
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t, cudaStreamCaptureMode);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t, cudaGraph_t*);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t, cudaStream_t);
}
