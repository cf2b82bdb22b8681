// The shim's own waits on the program's streams (CUBLASSPY_SYNC, the scans and the dumps), made
// safe beside CUDA graph capture. On a GPU, synchronizing a stream that is being captured fails
// with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the program's capture; so does
// touching the legacy stream while a blocking stream is captured
// (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), and in the default global capture mode any "potentially
// unsafe" call (a wait, a synchronous copy) while another thread captures. So the shim never
// waits for a capturing stream, and does its own work in the relaxed capture mode, which CUDA
// provides for exactly this (cuThreadExchangeStreamCaptureMode), restoring the thread's mode after.
#pragma once

#include <cstdint>

#include "cuda_driver/driver_api.h"

namespace cublasspy {

// The capture statuses of CUresult (900 to 907): the call conflicted with a capture.
inline bool is_capture_error(CUresult r) { return r >= 900 && r <= 907; }

// Whether the shim must leave `stream` alone: it is being captured (or its capture was
// invalidated and not yet ended), or it is the legacy stream while a blocking stream is
// captured. False when the driver lacks the query (no capture can exist then), or when the
// query fails for another reason (no context: a wait would fail the same way, and says so).
inline bool capture_forbids_waiting(const DriverApi& api, uint64_t stream) {
  if (api.stream_is_capturing == nullptr) return false;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  const CUresult r = api.stream_is_capturing(reinterpret_cast<CUstream>(stream), &status);
  return is_capture_error(r) || (r == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE);
}

// The calling thread in the relaxed capture mode while it lives: the shim's waits, copies and
// launches are then no "unsafe call" that would invalidate another thread's global capture.
class RelaxedCaptureMode {
 public:
  explicit RelaxedCaptureMode(const DriverApi& api) : api_(api) {
    exchanged_ = api_.thread_exchange_capture_mode != nullptr &&
                 api_.thread_exchange_capture_mode(&mode_) == CUDA_SUCCESS;
  }
  ~RelaxedCaptureMode() {
    if (exchanged_) api_.thread_exchange_capture_mode(&mode_);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  const DriverApi& api_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool exchanged_ = false;
};

// What one of the shim's waits did.
struct StreamWait {
  enum class Outcome : uint8_t {
    kNoDriver,   // cuStreamSynchronize is missing: nothing was waited for
    kCapturing,  // the stream is captured into a graph (capture_forbids_waiting): left alone
    kWaited,     // waited; `status` is what the wait returned
  };
  Outcome outcome = Outcome::kNoDriver;
  CUresult status = CUDA_SUCCESS;
  bool waited() const { return outcome == Outcome::kWaited; }
};

// Waits for `stream` unless capture forbids it, in the relaxed capture mode.
inline StreamWait wait_for_stream(const DriverApi& api, uint64_t stream) {
  StreamWait w;
  if (api.stream_synchronize == nullptr) return w;
  if (capture_forbids_waiting(api, stream)) {
    w.outcome = StreamWait::Outcome::kCapturing;
    return w;
  }
  RelaxedCaptureMode relaxed(api);
  w.status = api.stream_synchronize(reinterpret_cast<CUstream>(stream));
  w.outcome = StreamWait::Outcome::kWaited;
  return w;
}

}  // namespace cublasspy
