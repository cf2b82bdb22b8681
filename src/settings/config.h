// The shim's settings, read once from the environment (see docs/CONTRACT.md, "Configuring the
// shim"). Parsing is separate from reading so the tools and the tests share it; a bad value
// yields a message naming the variable and the accepted values, and the default is kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cublasspy {

enum class ScanMode : uint8_t { kNone, kInputs, kOutputs, kAll };
enum class OnError : uint8_t { kContinue, kAbort, kTrap };
enum class DumpMode : uint8_t { kNone, kFailing, kAll };
// CUBLASSPY_SYNC: 0 off; 1 synchronize around each GEMM; all also after each recorded launch.
enum class SyncMode : uint8_t { kOff, kCalls, kAll };
// CUBLASSPY_STACKS: where the calls' Python and native locations are taken.
enum class StackMode : uint8_t { kNone, kFailing, kAll };
// CUBLASSPY_NVML: when the GPU's health is read through NVML. kEarly opens it at the first
// cuBLAS/cuBLASLt handle created and watches Xid/ECC events from then on; kFailure opens it only
// at the first failure (its counts, but no event from before); kOff never.
enum class NvmlMode : uint8_t { kOff, kFailure, kEarly };
// CUBLASSPY_KEEP: which traces outlive their process's clean exit. kIncident keeps a trace
// only when something happened (docs/CONTRACT.md, "Which traces are kept"); kAlways keeps all.
enum class KeepMode : uint8_t { kIncident, kAlways };

inline constexpr uint64_t kDefaultRing = 8192;   // records; 8 MiB of trace at 1 KiB a record
inline constexpr uint64_t kMinRing = 16;
inline constexpr uint64_t kMaxRing = 1u << 22;  // 4 GiB of trace: beyond that, a mistake
inline constexpr uint64_t kDefaultLaunchRing = 16384;  // launches; 1.25 MiB at 80 bytes each
inline constexpr uint64_t kMaxLaunchRing = 1u << 24;     // 1.25 GiB: beyond that, a mistake
inline constexpr uint64_t kDefaultDumpMaxMb = 256;
inline constexpr uint64_t kDefaultSideMb = 4;     // the trace's side area (stacks, groups)
inline constexpr uint64_t kMaxSideMb = 4096;
inline constexpr uint64_t kMaxDumpMaxMb = 1ull << 40;  // a mistake, not a budget

struct Config {
  bool disabled = false;
  bool check = false;
  bool sync = false;  // sync_mode != kOff
  SyncMode sync_mode = SyncMode::kOff;
  ScanMode scan = ScanMode::kNone;
  OnError on_error = OnError::kContinue;
  DumpMode dump = DumpMode::kNone;
  uint64_t ring = kDefaultRing;
  uint64_t launch_ring = kDefaultLaunchRing;  // CUBLASSPY_LAUNCH_RING; 0: launches not recorded
  uint64_t dump_max_mb = kDefaultDumpMaxMb;  // the most operand data one process dumps; 0: none
  uint64_t side_mb = kDefaultSideMb;         // CUBLASSPY_SIDE_MB: the side area; 0: none
  StackMode stacks = StackMode::kFailing;    // CUBLASSPY_STACKS
  std::string trace_template = "cublasspy-%p.cbt";
  std::string log = "stderr";  // "stderr", "off", or a file path
  // Where the machine evidence is read from (/proc, /dev under it): "/" but in a container that
  // mounts the host's elsewhere, and in tests that fake a machine.
  std::string machine_root = "/";
  NvmlMode nvml = NvmlMode::kEarly;          // CUBLASSPY_NVML
  KeepMode keep = KeepMode::kIncident;       // CUBLASSPY_KEEP
};

// Reads a variable through `getenv_fn` (so tests can feed their own) and appends one message per
// bad value to `errors`.
using GetEnv = const char* (*)(const char*);
Config parse_config(GetEnv getenv_fn, std::vector<std::string>& errors);

// The individual parsers, exposed for the tools (`run` maps its options to the same names).
bool parse_bool(std::string_view text, bool& out);
bool parse_sync_mode(std::string_view text, SyncMode& out);  // 0, 1, all
bool parse_scan_mode(std::string_view text, ScanMode& out);
bool parse_on_error(std::string_view text, OnError& out);
bool parse_dump_mode(std::string_view text, DumpMode& out);
bool parse_ring(std::string_view text, uint64_t& out);
bool parse_launch_ring(std::string_view text, uint64_t& out);  // 0, or 16 to kMaxLaunchRing
bool parse_dump_max_mb(std::string_view text, uint64_t& out);  // whole MiB, 0 to kMaxDumpMaxMb
bool parse_stack_mode(std::string_view text, StackMode& out);
bool parse_side_mb(std::string_view text, uint64_t& out);      // whole MiB, 0 to kMaxSideMb
bool parse_nvml_mode(std::string_view text, NvmlMode& out);    // off, failure, early
bool parse_keep_mode(std::string_view text, KeepMode& out);    // incident, always

const char* to_string(ScanMode m);
const char* to_string(OnError m);
const char* to_string(DumpMode m);
const char* to_string(StackMode m);
const char* to_string(KeepMode m);

}  // namespace cublasspy
