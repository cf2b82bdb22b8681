#include "diagnose/gpu_health.h"

#include <charconv>

#include <fmt/format.h>

#include "common/diagnosis_ids.h"
#include "diagnose/xid_table.h"

namespace cublasspy::diagnoses {
namespace {

std::vector<std::string> fields(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t tab = value.find('\t'); tab != std::string::npos; tab = value.find('\t', start)) {
    out.push_back(value.substr(start, tab - start));
    start = tab + 1;
  }
  out.push_back(value.substr(start));
  return out;
}

// A count, or nullopt for "-" (the device does not keep it) and anything malformed.
std::optional<uint64_t> count(const std::string& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string or_unknown(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "not kept"; }

}  // namespace

GpuHealth gpu_health_from(const std::vector<std::pair<std::string, std::string>>& entries) {
  GpuHealth h;
  for (const auto& [key, value] : entries) {
    const std::vector<std::string> f = fields(value);
    if (key == "machine.nvml") {
      if (f[0] == "read" && f.size() == 3) {
        h.read = GpuHealth::Read::kRead;
        h.watched = f[1];
        h.devices = f[2];
      } else if ((f[0] == "unavailable" || f[0] == "not-read") && f.size() == 2) {
        h.read = f[0] == "unavailable" ? GpuHealth::Read::kUnavailable : GpuHealth::Read::kNotRead;
        h.why = f[1];
      }
    } else if (key == "machine.gpu_event" && f.size() >= 2) {
      GpuHealth::Event e{f[0], f[1], 0};
      if (f.size() == 3) {
        auto v = count(f[2]);
        if (!v) continue;
        e.value = *v;
      } else if (e.kind == "xid" || e.kind == "more") {
        continue;
      }
      h.events.push_back(std::move(e));
    } else if (key == "machine.ecc" && f.size() == 5) {
      h.ecc.push_back({f[0], count(f[1]), count(f[2]), count(f[3]), count(f[4])});
    } else if (key == "machine.retired_pages" && f.size() == 4) {
      auto single_bit = count(f[1]), double_bit = count(f[2]);
      if (!single_bit || !double_bit) continue;
      std::optional<bool> pending;
      if (f[3] != "-") pending = f[3] == "pending";
      h.retired.push_back({f[0], *single_bit, *double_bit, pending});
    } else if (key == "machine.remapped_rows" && f.size() == 5) {
      auto correctable = count(f[1]), uncorrectable = count(f[2]);
      if (!correctable || !uncorrectable) continue;
      h.remapped.push_back({f[0], *correctable, *uncorrectable, f[3] == "pending", f[4] == "failed"});
    }
  }
  return h;
}

std::optional<Diagnosis> gpu_hardware_finding(const GpuHealth& h, const std::string& failure) {
  if (h.read != GpuHealth::Read::kRead) return std::nullopt;
  bool fault = false, history = false;
  std::vector<std::string> seen, advice, program_xids;
  for (const GpuHealth::Event& e : h.events) {
    if (e.kind == "xid") {
      const XidInfo* info = xid_info(e.value);
      if (info != nullptr && info->cause == XidCause::kProgram) {
        program_xids.push_back(fmt::format("Xid {} ({}; {})", e.value, info->meaning, info->advice));
        continue;
      }
      fault = true;
      seen.push_back(fmt::format("Xid {} on {} ({})", e.value, e.device,
                                 info != nullptr ? info->meaning : "not in cublasspy's table: see NVIDIA's Xid catalogue"));
      if (info != nullptr) advice.push_back(fmt::format("Xid {}: {}.", e.value, info->advice));
    } else if (e.kind == "gpu-lost") {
      fault = true;
      seen.push_back(fmt::format("NVML answered that the GPU {} is lost (fallen off the bus or inaccessible)",
                                 e.device == "*" ? std::string("in use") : e.device));
      advice.push_back(fmt::format("A lost GPU: {}.", xid_info(79)->advice));
    } else if (e.kind == "ecc-double-bit") {
      fault = true;
      seen.push_back(fmt::format("a double-bit (uncorrectable) ECC error event on {}", e.device));
    } else if (e.kind == "more") {
      seen.push_back(fmt::format("{} more events", e.value));
    }
  }
  for (const GpuHealth::Ecc& e : h.ecc) {
    const bool now = e.uncorrected_volatile.value_or(0) > 0;
    const bool ever = e.uncorrected_aggregate.value_or(0) > 0;
    if (!now && !ever) continue;
    fault = fault || now;
    history = history || ever;
    seen.push_back(fmt::format("uncorrectable ECC errors on {}: {} since the driver loaded, {} in the GPU's life",
                               e.device, or_unknown(e.uncorrected_volatile), or_unknown(e.uncorrected_aggregate)));
  }
  for (const GpuHealth::RetiredPages& r : h.retired) {
    if (r.single_bit + r.double_bit == 0 && !r.pending.value_or(false)) continue;
    fault = fault || r.pending.value_or(false);
    history = true;
    seen.push_back(fmt::format("retired pages on {}: {} for double-bit errors, {} for repeated single-bit errors{}",
                               r.device, r.double_bit, r.single_bit,
                               r.pending.value_or(false) ? ", a retirement pending until the GPU is reset" : ""));
  }
  for (const GpuHealth::RemappedRows& r : h.remapped) {
    if (r.uncorrectable == 0 && !r.pending && !r.failed) continue;
    fault = fault || r.failed || r.pending;
    history = history || r.uncorrectable > 0;
    seen.push_back(fmt::format("remapped rows on {}: {} for uncorrectable errors, {} for correctable ones{}{}",
                               r.device, r.uncorrectable, r.correctable,
                               r.pending ? ", a remapping pending until the GPU is reset" : "",
                               r.failed ? ", and a remapping has failed" : ""));
    if (r.failed) advice.push_back("A failed row remapping: the memory can no longer be repaired; the GPU needs replacing.");
  }
  if (!fault && !history) return std::nullopt;

  Diagnosis d;
  d.id = ids::kGpuHardwareFault;
  d.severity = fault ? Severity::kError : Severity::kWarning;
  d.summary = fault ? "the GPU reported a hardware fault at the failure: the GPU or the node, not the program, is the "
                      "likely cause"
                    : "the GPU's memory has a history of uncorrectable errors";
  const std::string where = failure.empty() ? "NVML reports" : fmt::format("At the first failure ({}), NVML reported", failure);
  d.evidence = fmt::format("{}: {}.", where, fmt::join(seen, "; "));
  if (!program_xids.empty()) d.evidence += fmt::format(" Also {}.", fmt::join(program_xids, "; "));
  if (h.watched == "none" && !failure.empty()) {
    d.evidence += " NVML was opened only at the failure, so Xid events before it were not seen.";
  }
  d.advice = fmt::to_string(fmt::join(advice, " "));
  if (!d.advice.empty()) d.advice += " ";
  d.advice += fault ? "Do not rerun on this GPU until it is reset (`nvidia-smi -r`, or a reboot of the node); tell the "
                      "administrator the node and the GPU's bus id. `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER` "
                      "and `dmesg | grep -i xid` show the GPU's own record; if the fault recurs after a reset, the GPU "
                      "needs replacing."
                    : "The GPU works, but its memory has failed before: if failures recur, rerun on another GPU and "
                      "report this one (`nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`).";
  return d;
}

}  // namespace cublasspy::diagnoses
