// no-driver and driver-too-old: CUDA cannot work at all because the NVIDIA driver is missing
// (libcuda.so.1 does not load, or what loads is the toolkit's stub) or older than the CUDA
// runtime the program ships. From the field reports (docs/DIAGNOSES.md) of "CUDA unknown error"
// ("nvidia-smi not found", the version matrix), of NOT_INITIALIZED (the driver / nvcc /
// framework version table; Docker) and of multi-GPU hosts (containers).
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/advice.h"
#include "diagnose/rule.h"
#include "diagnose/version_text.h"

namespace cublasspy::diagnoses {
namespace {

constexpr int kCudaErrorStubLibrary = 34;        // cudaErrorStubLibrary == CUDA_ERROR_STUB_LIBRARY
constexpr int kCudaErrorInsufficientDriver = 35;

bool is_driver_library(const std::string& path) { return base_name(path).rfind("libcuda.so", 0) == 0; }
bool is_stub_path(const std::string& path) { return path.find("/stubs/") != std::string::npos; }

// The process's own attempts to load the driver library (probes only ask "is it loaded?").
struct DriverLoads {
  const LibraryLoad* first_failure = nullptr;
  const LibraryLoad* first_success = nullptr;
};

DriverLoads driver_loads(const TraceFacts& f) {
  DriverLoads d;
  for (const LibraryLoad& load : f.loads) {
    if (!is_driver_library(load.requested) || load.probe()) continue;
    if (load.ok && d.first_success == nullptr) d.first_success = &load;
    if (!load.ok && d.first_failure == nullptr) d.first_failure = &load;
  }
  return d;
}

// The loaded driver library's path, "" when none was loaded.
std::string loaded_driver(const TraceFacts& f) {
  for (const std::string& lib : f.libraries) {
    if (is_driver_library(lib)) return lib;
  }
  for (const LibraryLoad& load : f.loads) {
    if (load.ok && is_driver_library(load.requested)) return load.result;
  }
  return "";
}

// The first call that failed with `status` among the CUDA runtime/driver calls.
const CallView* first_failing_with(const TraceFacts& f, int status) {
  const CallView* best = nullptr;
  for (const auto& key : f.failure_order) {
    const FailureGroup& g = f.failures.at(key);
    if (g.first.rec().status != status || is_cublas_call(g.first)) continue;
    if (best == nullptr || began_before(g.first, *best)) best = &g.first;
  }
  return best;
}

// "12 other calls failed after it, the first cublasCreate_v2 (call #4) with 1 ...": the
// failures the finding explains, so nobody reads them as separate problems.
std::string consequences(const TraceFacts& f, uint64_t named) {
  uint64_t others = 0;
  const CallView* next = nullptr;
  for (const auto& key : f.failure_order) {
    const FailureGroup& g = f.failures.at(key);
    others += g.first.seq <= named ? g.count - 1 : g.count;
    if (g.first.seq > named && (next == nullptr || g.first.seq < next->seq)) next = &g.first;
  }
  if (others == 0) return "";
  std::string text = fmt::format(" {} other call{} failed as a consequence", others, plural(others));
  if (next != nullptr) text += fmt::format(", e.g. {} with {}", call_name(*next), status_text(*next));
  return text + ".";
}

}  // namespace

void rule_no_driver(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const DriverLoads loads = driver_loads(f);
    const std::string driver = loaded_driver(f);
    const int version = f.header().driver_version;  // -1: not read, 0: the driver said 0
    const CallView* stub_status = first_failing_with(f, kCudaErrorStubLibrary);
    const CallView* insufficient = first_failing_with(f, kCudaErrorInsufficientDriver);

    const bool load_failed = loads.first_failure != nullptr && loads.first_success == nullptr && driver.empty();
    const bool stub = (!driver.empty() && is_stub_path(driver)) || stub_status != nullptr;
    const bool version_zero = version == 0;
    // 35 says "insufficient driver"; with no driver version to compare, there is no driver.
    const bool insufficient_without_version = insufficient != nullptr && version <= 0;
    if (!load_failed && !stub && !version_zero && !insufficient_without_version) continue;

    Diagnosis d = finding(ids::kNoDriver, Severity::kError, f);
    std::string evidence;
    if (load_failed) {
      d.call = loads.first_failure->seq;
      evidence += fmt::format("dlopen(\"{}\") (call #{}) failed: {}.", loads.first_failure->requested,
                              loads.first_failure->seq, loads.first_failure->result);
    } else if (!driver.empty()) {
      evidence += fmt::format("The driver library loaded was {}{}.", driver,
                              is_stub_path(driver) ? " (the toolkit's stub, not a driver)" : "");
    }
    if (stub_status != nullptr) {
      evidence += fmt::format(" {} returned {}: the stub library answered instead of a driver.",
                              call_name(*stub_status), status_text(*stub_status));
      if (!d.call) d.call = stub_status->seq;
    }
    if (insufficient != nullptr) {
      evidence += fmt::format(" {} returned {}.", call_name(*insufficient), status_text(*insufficient));
      if (!d.call) d.call = insufficient->seq;
    }
    evidence += version_zero ? " The driver version reads 0." :
                version < 0  ? " No driver version could be read." : "";
    uint64_t mentioned = d.call.value_or(0);  // the failures named above are not "other"
    if (stub_status) mentioned = std::max(mentioned, stub_status->seq);
    if (insufficient) mentioned = std::max(mentioned, insufficient->seq);
    evidence += consequences(f, mentioned);
    d.summary = stub        ? "CUDA found the toolkit's stub libcuda instead of the NVIDIA driver"
                : load_failed ? "no NVIDIA driver: libcuda.so.1 cannot be loaded, so every CUDA and cuBLAS call fails"
                              : "the NVIDIA driver does not answer: CUDA reports an insufficient driver and no driver version";
    const size_t text_start = evidence.find_first_not_of(' ');
    d.evidence = text_start == std::string::npos ? evidence : evidence.substr(text_start);
    d.advice = stub ? kStubAdvice : kInstallDriverAdvice;
    ctx.add(std::move(d));
  }
}

void rule_driver_too_old(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    if (ctx.found_for(f, {ids::kNoDriver})) continue;
    const int driver = f.header().driver_version;
    const int runtime = f.header().runtime_version;
    if (driver <= 0) continue;
    const CallView* insufficient = first_failing_with(f, kCudaErrorInsufficientDriver);
    const bool older = runtime > 0 && driver < runtime;
    if (insufficient == nullptr && !older) continue;
    // Minor-version compatibility: a 12.8 runtime works on a 12.2 driver as long as no call says
    // otherwise; only a different major (or a 35) means it cannot work.
    const bool cannot_work = insufficient != nullptr || (older && major_of(driver) < major_of(runtime));

    Diagnosis d = finding(ids::kDriverTooOld, cannot_work ? Severity::kError : Severity::kWarning, f);
    d.summary = fmt::format("the NVIDIA driver supports CUDA {} but the program's CUDA runtime is {}",
                            cuda_version_text(driver),
                            runtime > 0 ? cuda_version_text(runtime) : std::string("newer"));
    d.evidence = fmt::format("Driver version {} (CUDA {}), runtime version {}.", driver,
                             cuda_version_text(driver),
                             runtime > 0 ? fmt::format("{} (CUDA {})", runtime, cuda_version_text(runtime))
                                         : std::string("not read"));
    if (insufficient != nullptr) {
      d.call = insufficient->seq;
      d.evidence += fmt::format(" {} returned {}.", call_name(*insufficient), status_text(*insufficient));
      d.evidence += consequences(f, insufficient->seq);
    } else {
      d.evidence += " No call failed yet: the runtime relies on minor-version compatibility, "
                    "which does not cover every feature (PTX compiled for the newer version fails).";
    }
    d.advice = driver_too_old_advice(runtime > 0 ? cuda_version_text(runtime) : std::string("the runtime's version"));
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
