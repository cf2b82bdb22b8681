// Device enumeration: the first thing CUDA does (cudaGetDeviceCount, cuInit, cuDeviceGetCount),
// and where the field reports of "CUDA unknown error" and of cudaGetDeviceCount's misleading
// "out of memory" on multi-GPU hosts start (docs/DIAGNOSES.md). Three findings, most specific
// first:
//   invalid-visible-devices  CUDA_VISIBLE_DEVICES hides the GPUs or names ones that do not exist
//   no-device                the driver works and reports no GPU
//   device-enumeration-failed  enumeration failed otherwise (2, 3, 999, 803, ...)
#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "diagnose/advice.h"
#include "diagnose/machine_state.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

constexpr int kNoDevice = 100;       // cudaErrorNoDevice == CUDA_ERROR_NO_DEVICE
constexpr int kInvalidDevice = 101;  // cudaErrorInvalidDevice == CUDA_ERROR_INVALID_DEVICE

bool is_enumeration(const CallView& c) { return format::has_trait(c.function, format::Trait::kEnumeratesDevices); }

struct Enumeration {
  const CallView* first_failure = nullptr;  // the first failing enumeration call
  const CallView* zero_count = nullptr;     // a successful count of 0
  const CallView* bad_set_device = nullptr; // cudaSetDevice(n) -> invalid device
  int max_count = -1;                       // the largest count a successful call returned
};

Enumeration enumeration_of(const TraceFacts& f) {
  Enumeration e;
  for (const CallView& c : f.device_calls) {
    if (c.state != format::RecordState::kCompleted) continue;
    const int status = c.rec().status;
    if (format::has_trait(c.function, format::Trait::kSelectsDevice)) {
      if (status == kInvalidDevice && e.bad_set_device == nullptr) e.bad_set_device = &c;
      continue;
    }
    if (!is_enumeration(c)) continue;
    if (status != 0) {
      if (e.first_failure == nullptr) e.first_failure = &c;
      continue;
    }
    if (auto count = c.arg(format::ArgRole::kDeviceCount); count && *count != format::kArgUnset) {
      int n = static_cast<int>(static_cast<int64_t>(*count));
      e.max_count = std::max(e.max_count, n);
      if (n == 0 && e.zero_count == nullptr) e.zero_count = &c;
    }
  }
  return e;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// CUDA_VISIBLE_DEVICES as CUDA reads it: indices or GPU-/MIG- UUIDs, comma separated; reading
// stops at the first entry that is not valid.
struct VisibleDevices {
  std::vector<std::string> entries;
  std::vector<std::string> malformed;  // neither an index nor a UUID ("cuda:0", "0 1")
  bool empty = false;                  // set to "": hides every GPU
};

VisibleDevices parse_visible(const std::string& value) {
  VisibleDevices v;
  if (trim(value).empty()) {
    v.empty = true;
    return v;
  }
  size_t start = 0;
  for (;;) {
    size_t comma = value.find(',', start);
    std::string item = trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    v.entries.push_back(item);
    bool index = !item.empty() && std::all_of(item.begin(), item.end(), [](unsigned char ch) { return std::isdigit(ch); });
    bool uuid = item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0;
    if (!index && !uuid) v.malformed.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "'" : ", '") + s + "'";
  return out;
}

// What the multi-GPU report's advice says about each variable, with its value in this process.
std::string multi_gpu_settings(const TraceFacts& f) {
  return fmt::format("In this process: {}, {}, {}.", f.env_text("CUDA_DEVICE_ORDER"),
                     f.env_text("PYTORCH_NVML_BASED_CUDA_CHECK"), f.env_text("CUDA_VISIBLE_DEVICES"));
}

void check_visible_devices(RuleContext& ctx, const TraceFacts& f, const Enumeration& e) {
  auto value = f.env_value("CUDA_VISIBLE_DEVICES");
  if (!value) return;
  const VisibleDevices v = parse_visible(*value);
  const bool no_device = (e.first_failure && e.first_failure->rec().status == kNoDevice) || e.zero_count;
  const CallView* at = e.first_failure && e.first_failure->rec().status == kNoDevice ? e.first_failure : e.zero_count;
  const bool fewer = e.max_count >= 0 && e.max_count < static_cast<int>(v.entries.size());
  if (!no_device && !fewer && e.bad_set_device == nullptr) return;

  Diagnosis d = finding(ids::kInvalidVisibleDevices, no_device || e.bad_set_device ? Severity::kError : Severity::kWarning, f);
  std::string seen = at != nullptr ? fmt::format("{} returned {}{}", call_name(*at), status_text(*at),
                                                 at->rec().status == 0 ? " with a count of 0" : "")
                                   : fmt::format("CUDA counted {} device{}", e.max_count, plural(e.max_count));
  if (v.empty) {
    d.summary = "CUDA_VISIBLE_DEVICES is set to an empty string, which hides every GPU";
    d.evidence = fmt::format("CUDA_VISIBLE_DEVICES=\"\"; {}.", seen);
  } else if (no_device) {
    d.summary = fmt::format("CUDA_VISIBLE_DEVICES={} names no GPU that exists, so CUDA sees none", *value);
    d.evidence = fmt::format("CUDA_VISIBLE_DEVICES={} ({} entr{}); {}.", *value, v.entries.size(),
                             v.entries.size() == 1 ? "y" : "ies", seen);
  } else if (fewer) {
    d.summary = fmt::format("CUDA_VISIBLE_DEVICES lists {} devices but CUDA sees only {}",
                            v.entries.size(), e.max_count);
    d.evidence = fmt::format("CUDA_VISIBLE_DEVICES={}; CUDA counted {} device{}. CUDA stops reading "
                             "the list at the first entry that is not a valid, unused device, so "
                             "the entries from '{}' on were ignored.",
                             *value, e.max_count, plural(e.max_count), v.entries[static_cast<size_t>(e.max_count)]);
  } else {
    d.summary = fmt::format("the program selected a device that CUDA_VISIBLE_DEVICES={} does not make visible", *value);
    d.evidence = fmt::format("{} returned {} (device {}); CUDA_VISIBLE_DEVICES={}{}.",
                             call_name(*e.bad_set_device), status_text(*e.bad_set_device),
                             static_cast<int64_t>(e.bad_set_device->arg(format::ArgRole::kDevice).value_or(0)), *value,
                             e.max_count >= 0 ? fmt::format(", and CUDA counted {} device{}", e.max_count, plural(e.max_count)) : "");
    at = e.bad_set_device;
  }
  if (!v.malformed.empty()) {
    d.evidence += fmt::format(" Entries that are neither an index nor a GPU-/MIG- UUID: {}.", quoted_list(v.malformed));
  }
  if (at != nullptr) d.call = at->seq;
  d.advice = kVisibleDevicesAdvice;
  ctx.add(std::move(d));
}

}  // namespace

void rule_device_enumeration(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    if (ctx.found_for(f, ids::kSetupFailuresThrough<ids::SetupStage::kDriver>)) {
      continue;  // the driver, or the machine evidence, already explains it
    }
    const Enumeration e = enumeration_of(f);
    check_visible_devices(ctx, f, e);
    if (ctx.found_for(f, {ids::kInvalidVisibleDevices})) continue;

    const bool failed_no_device = e.first_failure && e.first_failure->rec().status == kNoDevice;
    if (failed_no_device || e.zero_count) {
      const CallView& at = failed_no_device ? *e.first_failure : *e.zero_count;
      Diagnosis d = finding(ids::kNoDevice, Severity::kError, f);
      d.call = at.seq;
      // "The driver works" only when the machine evidence shows its module and nodes working;
      // a trace without evidence (older shims) cannot tell.
      const MachineState m = machine_state_from(f.trace->process().entries);
      d.summary = m.recorded && m.module_loaded() && m.any_gpu_node
                      ? "the NVIDIA driver is loaded and its device nodes are usable, but CUDA sees no GPU"
                      : "CUDA sees no GPU (the trace holds no machine evidence that the driver works)";
      d.evidence = fmt::format("{} returned {}{}; {}{}.", call_name(at), status_text(at),
                               at.rec().status == 0 ? " with a count of 0" : "", f.env_text("CUDA_VISIBLE_DEVICES"),
                               f.env_value("NVIDIA_VISIBLE_DEVICES") ? ", " + f.env_text("NVIDIA_VISIBLE_DEVICES") : "");
      d.advice = kNoDeviceAdvice;
      ctx.add(std::move(d));
      continue;
    }
    if (e.first_failure == nullptr) continue;
    // A forked child's failure belongs to fork-after-cuda-init when the parent had set CUDA up.
    if (f.header().forked_child && f.header().parent_cuda_ready) continue;
    const CallView& at = *e.first_failure;
    const int status = at.rec().status;
    Diagnosis d = finding(ids::kDeviceEnumerationFailed, Severity::kError, f);
    d.call = at.seq;
    d.summary = fmt::format("CUDA could not enumerate the GPUs: {} returned {}", at.function_name(), status_text(at));
    d.evidence = fmt::format("{} returned {}.", call_name(at), status_text(at));
    for (const CallView& c : f.device_calls) {  // the driver call underneath, if it was seen
      if (&c != &at && is_enumeration(c) && c.rec().status != 0 && c.state == format::RecordState::kCompleted) {
        d.evidence += fmt::format(" Underneath, {} returned {}.", call_name(c), status_text(c));
        break;
      }
    }
    if (status == 2) d.evidence += " " + multi_gpu_settings(f);
    d.advice = advice_for_enumeration(status);
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
