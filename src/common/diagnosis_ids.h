// Every diagnosis id the project gives, in one table: the report's rules, the doctor, the
// machine evidence, the argument checks and the scans name a finding by the constants below,
// never by a literal. Ids are the contract's (docs/CONTRACT.md, "Diagnoses") and never change;
// docs/DIAGNOSES.md explains each, and tests/unit/diagnosis_ids_doc_test.cpp holds both pages
// to this table. Header-only and constexpr: the shim may include it (check_ids.cpp does).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cublasspy::ids {

// What a finding rests on, which is also where docs/DIAGNOSES.md explains it.
enum class IdKind : uint8_t {
  kRule,     // a trace rule's own reasoning (src/diagnose/rule_*.cpp; some also `doctor`'s):
             // a "### id" heading of its own
  kMachine,  // the machine evidence (src/diagnose/machine_state.cpp), read from a trace or by
             // `doctor`: a "#### id" under "### Findings from the machine evidence"
  kCheck,    // an argument check the shim records (CUBLASSPY_CHECK, checks/check_ids.h): named
             // under "### The argument checks"
  kScan,     // a NaN/Inf scan the shim records (CUBLASSPY_SCAN): named in the scans' heading
};

// For the findings that say why CUDA or cuBLAS could not work at all in a process: where its
// set-up stopped. Once such a finding stands, later failures there are its consequences; a
// rule asks for the stages that explain what it looks at (kSetupFailuresThrough below).
enum class SetupStage : uint8_t {
  kNone,     // not a set-up failure
  kDriver,   // the driver (its library, its kernel module, nodes or services) cannot work
  kDevices,  // the driver works, but CUDA cannot enumerate or use the devices
  kHandle,   // the devices work, but no cuBLAS handle could be made
};

inline constexpr const char* kNoDriver = "no-driver";
inline constexpr const char* kDriverTooOld = "driver-too-old";
inline constexpr const char* kKernelModuleNotLoaded = "kernel-module-not-loaded";
inline constexpr const char* kDeviceNodesInaccessible = "device-nodes-inaccessible";
inline constexpr const char* kUvmNotLoaded = "uvm-not-loaded";
inline constexpr const char* kFabricManagerNotRunning = "fabric-manager-not-running";
inline constexpr const char* kForwardCompatUnsupported = "forward-compat-unsupported";
inline constexpr const char* kOutOfMemoryAtInit = "out-of-memory-at-init";
inline constexpr const char* kCublasLtMismatch = "cublas-lt-mismatch";
inline constexpr const char* kNoDevice = "no-device";
inline constexpr const char* kInvalidVisibleDevices = "invalid-visible-devices";
inline constexpr const char* kDeviceEnumerationFailed = "device-enumeration-failed";
inline constexpr const char* kCublasInitFailed = "cublas-init-failed";
inline constexpr const char* kForkAfterCudaInit = "fork-after-cuda-init";
inline constexpr const char* kMixedCudaLibraries = "mixed-cuda-libraries";
inline constexpr const char* kInvalidLeadingDimension = "invalid-leading-dimension";
inline constexpr const char* kInvalidStride = "invalid-stride";
inline constexpr const char* kOutputAliasesInput = "output-aliases-input";
inline constexpr const char* kPointerModeMismatch = "pointer-mode-mismatch";
inline constexpr const char* kHostPointerOperand = "host-pointer-operand";
inline constexpr const char* kOperandOutOfBounds = "operand-out-of-bounds";
inline constexpr const char* kDeviceMismatch = "device-mismatch";
inline constexpr const char* kMisalignedOperand = "misaligned-operand";
inline constexpr const char* kSizeOverflow = "size-overflow";
inline constexpr const char* kNonFiniteInput = "non-finite-input";
inline constexpr const char* kNonFiniteOutput = "non-finite-output";
inline constexpr const char* kHalfOverflow = "half-overflow";
inline constexpr const char* kConfigurationNotSupported = "configuration-not-supported";
inline constexpr const char* kInvalidValue = "invalid-value";
inline constexpr const char* kArchMismatch = "arch-mismatch";
inline constexpr const char* kExecutionFailed = "execution-failed";
inline constexpr const char* kReportedError = "reported-error";
inline constexpr const char* kAsyncError = "async-error";
inline constexpr const char* kGraphReplayFreedMemory = "graph-replay-freed-memory";
inline constexpr const char* kCrashedInCall = "crashed-in-call";
inline constexpr const char* kKilledInCall = "killed-in-call";
inline constexpr const char* kNoKernelImage = "no-kernel-image";
inline constexpr const char* kGpuHardwareFault = "gpu-hardware-fault";
inline constexpr const char* kBatchCountMismatch = "batch-count-mismatch";
inline constexpr const char* kEpilogueOperand = "epilogue-operand";
inline constexpr const char* kFp8Layout = "fp8-layout";
inline constexpr const char* kDeviceOutOfMemory = "device-out-of-memory";

struct IdInfo {
  const char* id;
  IdKind kind;
  SetupStage setup;
  const char* meaning;  // one line; docs/DIAGNOSES.md has the rest
};

// THE table, in docs/DIAGNOSES.md's order (root causes first).
inline constexpr IdInfo kIds[] = {
    {kNoDriver, IdKind::kRule, SetupStage::kDriver, "the CUDA driver library is missing, a stub, or reads no version"},
    {kDriverTooOld, IdKind::kRule, SetupStage::kDriver, "the driver's CUDA version is below the runtime's"},
    {kKernelModuleNotLoaded, IdKind::kMachine, SetupStage::kDriver, "the nvidia kernel module is not loaded"},
    {kDeviceNodesInaccessible, IdKind::kMachine, SetupStage::kDriver,
     "the /dev/nvidia* nodes (or a MIG instance's capability nodes) are missing or may not be opened"},
    {kUvmNotLoaded, IdKind::kMachine, SetupStage::kDriver, "CUDA failed with 999 and nvidia_uvm is not loaded"},
    {kFabricManagerNotRunning, IdKind::kMachine, SetupStage::kDriver,
     "CUDA reports the system not ready (802): Fabric Manager is not running"},
    {kForwardCompatUnsupported, IdKind::kMachine, SetupStage::kDriver,
     "the forward-compatibility libcuda does not support this GPU (804)"},
    {kOutOfMemoryAtInit, IdKind::kMachine, SetupStage::kHandle, "cuBLAS could not initialize on a nearly full GPU"},
    {kCublasLtMismatch, IdKind::kMachine, SetupStage::kNone,
     "libcublas and libcublasLt come from different directories or releases"},
    {kNoDevice, IdKind::kRule, SetupStage::kDevices, "the driver works and reports no device"},
    {kInvalidVisibleDevices, IdKind::kRule, SetupStage::kDevices,
     "CUDA_VISIBLE_DEVICES hides every GPU, names missing ones, or hides the one selected"},
    {kDeviceEnumerationFailed, IdKind::kRule, SetupStage::kDevices, "enumerating the devices failed otherwise"},
    {kCublasInitFailed, IdKind::kRule, SetupStage::kHandle, "cublasCreate failed while the driver works"},
    {kForkAfterCudaInit, IdKind::kRule, SetupStage::kDevices,
     "a forked child makes CUDA calls after its parent had initialized CUDA"},
    {kMixedCudaLibraries, IdKind::kRule, SetupStage::kNone,
     "two copies or majors of a CUDA library in one process, or builds that do not fit together"},
    {kInvalidLeadingDimension, IdKind::kCheck, SetupStage::kNone, "an ld below the rows it must span"},
    {kInvalidStride, IdKind::kCheck, SetupStage::kNone, "a batch stride that makes batch members overlap"},
    {kOutputAliasesInput, IdKind::kCheck, SetupStage::kNone, "C (or D) overlaps A or B"},
    {kPointerModeMismatch, IdKind::kCheck, SetupStage::kNone,
     "alpha/beta live in another memory space than the pointer mode says"},
    {kHostPointerOperand, IdKind::kCheck, SetupStage::kNone, "an operand is memory the GPU cannot read"},
    {kOperandOutOfBounds, IdKind::kCheck, SetupStage::kNone, "an operand runs past the end of its allocation"},
    {kDeviceMismatch, IdKind::kCheck, SetupStage::kNone, "an operand lives on another device than the call runs on"},
    {kMisalignedOperand, IdKind::kCheck, SetupStage::kNone, "an operand is not aligned for its data type"},
    {kSizeOverflow, IdKind::kCheck, SetupStage::kNone,
     "through a 32-bit entry point, an operand spans more than 2^31 - 1 elements"},
    {kNonFiniteInput, IdKind::kScan, SetupStage::kNone, "a GEMM input holds NaN or Inf"},
    {kNonFiniteOutput, IdKind::kScan, SetupStage::kNone, "a GEMM output holds NaN/Inf while its inputs were finite"},
    {kHalfOverflow, IdKind::kScan, SetupStage::kNone, "an fp16/bf16 output overflowed to Inf from finite inputs"},
    {kConfigurationNotSupported, IdKind::kRule, SetupStage::kNone,
     "cuBLAS/cuBLASLt refused the configuration a call asked for (NOT_SUPPORTED)"},
    {kInvalidValue, IdKind::kRule, SetupStage::kNone, "INVALID_VALUE that no argument check explains"},
    {kArchMismatch, IdKind::kRule, SetupStage::kNone, "the GPU lacks what a call needs (ARCH_MISMATCH)"},
    {kExecutionFailed, IdKind::kRule, SetupStage::kNone, "a failing status that nothing else explains"},
    {kReportedError, IdKind::kRule, SetupStage::kNone,
     "the program asked for the text of a failure code that no other finding explains"},
    {kAsyncError, IdKind::kRule, SetupStage::kNone, "an asynchronous CUDA error surfaced"},
    {kGraphReplayFreedMemory, IdKind::kRule, SetupStage::kNone,
     "a CUDA graph was launched after memory its captured GEMMs name was freed"},
    {kCrashedInCall, IdKind::kRule, SetupStage::kNone, "the process died of a fatal signal with a call in flight"},
    {kKilledInCall, IdKind::kRule, SetupStage::kNone,
     "the trace ends with a call in flight and no recorded exit or signal"},
    {kNoKernelImage, IdKind::kRule, SetupStage::kNone,
     "a kernel launch found no code for the GPU's architecture (209)"},
    {kGpuHardwareFault, IdKind::kMachine, SetupStage::kNone,
     "NVML reported a hardware fault of the GPU at the failure: an Xid of the hardware's, ECC, retired or remapped memory"},
    {kBatchCountMismatch, IdKind::kCheck, SetupStage::kNone,
     "a cuBLASLt matmul's layouts have different batch counts"},
    {kEpilogueOperand, IdKind::kCheck, SetupStage::kNone,
     "a cuBLASLt epilogue's bias or auxiliary buffer is missing, misaligned or has a bad ld"},
    {kFp8Layout, IdKind::kCheck, SetupStage::kNone,
     "an fp8 cuBLASLt matmul breaks the fp8 kernels' alignment or TN-layout rule"},
    {kDeviceOutOfMemory, IdKind::kRule, SetupStage::kNone,
     "the GPU's memory ran out mid-run: an allocation failed, or cuBLAS failed with the device full"},
};

// The entry of `id`, nullptr for an id the table lacks.
constexpr const IdInfo* find_id(std::string_view id) {
  for (const IdInfo& info : kIds) {
    if (id == info.id) return &info;
  }
  return nullptr;
}

namespace detail {
constexpr bool setup_through(const IdInfo& info, SetupStage last) {
  return info.setup != SetupStage::kNone && static_cast<int>(info.setup) <= static_cast<int>(last);
}
template <SetupStage kLast>
constexpr auto setup_failures_through() {
  constexpr size_t count = [] {
    size_t n = 0;
    for (const IdInfo& info : kIds) n += setup_through(info, kLast) ? 1 : 0;
    return n;
  }();
  std::array<const char*, count> out{};
  size_t at = 0;
  for (const IdInfo& info : kIds) {
    if (setup_through(info, kLast)) out[at++] = info.id;
  }
  return out;
}
}  // namespace detail

// The set-up failures of the stages up to `kLast`: kSetupFailuresThrough<SetupStage::kDriver>
// is what explains that CUDA never saw a device.
template <SetupStage kLast>
inline constexpr auto kSetupFailuresThrough = detail::setup_failures_through<kLast>();

// Every set-up failure: once one stands for a process, its later failures are consequences.
inline constexpr auto kSetupFailureIds = kSetupFailuresThrough<SetupStage::kHandle>;

}  // namespace cublasspy::ids
