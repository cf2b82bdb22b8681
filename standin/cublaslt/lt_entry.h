// The stand-in cuBLASLt's entry and exit, shared by every file of its exported functions: an
// injected fault (STANDIN_FAULT) fails the call at entry, or leaves a sticky asynchronous error
// on success.
#pragma once

#include <cublasLt.h>

#include "standin_private.h"

#define STANDIN_LT_ENTRY(name)                            \
  const standin_fault_action fault = standin_enter(name); \
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status)

inline cublasStatus_t finish(const standin_fault_action& fault) {
  if (fault.async_error) standin_raise_scripted_fault(fault);
  return CUBLAS_STATUS_SUCCESS;
}
