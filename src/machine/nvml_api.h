// The part of NVML (libnvidia-ml.so.1, the library nvidia-smi is built on) that the GPU-health
// reader calls, declared here because the CUDA toolkit does not always ship nvml.h (it is a
// separate package). The types and values are NVML's ABI, stable since NVML 11 (the _v2 entry
// points); where nvml.h is on the include path, the static_asserts below hold them to it. Only
// function pointer types: NVML is never linked, always opened at run time (nvml_reader.h).
#pragma once

#include <cstdint>

namespace cublasspy::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;              // NVML_SUCCESS
inline constexpr Return kErrorNotSupported = 3;    // NVML_ERROR_NOT_SUPPORTED
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorTimeout = 10;        // NVML_ERROR_TIMEOUT: no event waiting
inline constexpr Return kErrorGpuIsLost = 15;      // NVML_ERROR_GPU_IS_LOST: fell off the bus

struct DeviceOpaque;
using Device = DeviceOpaque*;      // nvmlDevice_t
struct EventSetOpaque;
using EventSet = EventSetOpaque*;  // nvmlEventSet_t

// nvmlEventData_t
struct EventData {
  Device device;
  unsigned long long event_type;
  unsigned long long event_data;  // the Xid for an Xid event (999: unknown)
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

inline constexpr unsigned long long kEventSingleBitEcc = 0x1;  // nvmlEventTypeSingleBitEccError
inline constexpr unsigned long long kEventDoubleBitEcc = 0x2;  // nvmlEventTypeDoubleBitEccError
inline constexpr unsigned long long kEventXid = 0x8;           // nvmlEventTypeXidCriticalError

inline constexpr int kMemoryErrorCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
inline constexpr int kMemoryErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
inline constexpr int kVolatileEcc = 0;             // NVML_VOLATILE_ECC: since the driver loaded
inline constexpr int kAggregateEcc = 1;            // NVML_AGGREGATE_ECC: the device's lifetime
inline constexpr int kRetiredMultipleSingleBit = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
inline constexpr int kRetiredDoubleBit = 1;          // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR

using Init = Return (*)();                                            // nvmlInit_v2
using Shutdown = Return (*)();                                        // nvmlShutdown
using DeviceGetCount = Return (*)(unsigned int*);                     // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndex = Return (*)(unsigned int, Device*);     // nvmlDeviceGetHandleByIndex_v2
using DeviceGetHandleByPciBusId = Return (*)(const char*, Device*);   // nvmlDeviceGetHandleByPciBusId_v2
using EventSetCreate = Return (*)(EventSet*);                         // nvmlEventSetCreate
using DeviceRegisterEvents = Return (*)(Device, unsigned long long, EventSet);
using EventSetWait = Return (*)(EventSet, EventData*, unsigned int);  // nvmlEventSetWait_v2
using DeviceGetTotalEccErrors = Return (*)(Device, int, int, unsigned long long*);
using DeviceGetRetiredPages = Return (*)(Device, int, unsigned int*, unsigned long long*);
using DeviceGetRetiredPagesPendingStatus = Return (*)(Device, int*);  // nvmlEnableState_t
using DeviceGetRemappedRows = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*);

}  // namespace cublasspy::nvml

#if __has_include(<nvml.h>)
#include <nvml.h>
#include <cstddef>
#include <type_traits>
namespace cublasspy::nvml {
static_assert(NVML_SUCCESS == kSuccess && NVML_ERROR_NOT_SUPPORTED == kErrorNotSupported &&
              NVML_ERROR_INSUFFICIENT_SIZE == kErrorInsufficientSize && NVML_ERROR_TIMEOUT == kErrorTimeout &&
              NVML_ERROR_GPU_IS_LOST == kErrorGpuIsLost);
static_assert(nvmlEventTypeSingleBitEccError == kEventSingleBitEcc &&
              nvmlEventTypeDoubleBitEccError == kEventDoubleBitEcc && nvmlEventTypeXidCriticalError == kEventXid);
static_assert(NVML_MEMORY_ERROR_TYPE_CORRECTED == kMemoryErrorCorrected &&
              NVML_MEMORY_ERROR_TYPE_UNCORRECTED == kMemoryErrorUncorrected && NVML_VOLATILE_ECC == kVolatileEcc &&
              NVML_AGGREGATE_ECC == kAggregateEcc);
static_assert(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS == kRetiredMultipleSingleBit &&
              NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR == kRetiredDoubleBit);
static_assert(sizeof(nvmlEventData_t) == sizeof(EventData) &&
              offsetof(nvmlEventData_t, eventData) == offsetof(EventData, event_data) &&
              offsetof(nvmlEventData_t, computeInstanceId) == offsetof(EventData, compute_instance_id));
static_assert(sizeof(nvmlReturn_t) == sizeof(Return) && sizeof(nvmlEnableState_t) == sizeof(int));
}  // namespace cublasspy::nvml
#endif
