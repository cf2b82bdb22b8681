// gpu-hardware-fault: the GPU's state that the shim read through NVML at the first failure
// (gpu_health.h), tied to that failure. From the trace alone.
#include <fmt/format.h>

#include "diagnose/gpu_health.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {

void rule_gpu_hardware(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const GpuHealth health = gpu_health_from(f.trace->process().entries);
    if (health.read != GpuHealth::Read::kRead) continue;
    // The first failing call; the GPU's state was read at the first failure of any kind, which
    // may have been a launch, copy or wait the launch ring holds.
    const CallView* first = nullptr;
    for (const auto& key : f.failure_order) {
      const CallView& c = f.failures.at(key).first;
      if (first == nullptr || began_before(c, *first)) first = &c;
    }
    const std::string failure = first != nullptr
                                    ? fmt::format("{} returned {}", call_name(*first), status_text(*first))
                                    : std::string("a failed launch, copy or wait");
    std::optional<Diagnosis> d = gpu_hardware_finding(health, failure);
    if (!d) continue;
    d->pid = f.pid;
    if (first != nullptr) d->call = first->seq;
    ctx.add(std::move(*d));
  }
}

}  // namespace cublasspy::diagnoses
