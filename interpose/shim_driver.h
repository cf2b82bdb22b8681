// The driver entry points the shim itself calls (scans, dumps), found in the libcuda the program
// has loaded: never loading one, never initializing CUDA on the program's behalf.
#pragma once

#include "scan/scan_driver.h"

namespace cublasspy {

// The table, resolved on first use; nullptr while libcuda is not loaded or lacks the copy
// functions (asked again next time). Callers hold thread_state().internal while calling
// through it, so any of these functions the shim also hooks pass straight through.
const DriverApi* shim_driver_api();

}  // namespace cublasspy
