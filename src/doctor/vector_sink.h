// The doctor's EvidenceSink (machine/machine_evidence.h): entries kept as a trace's process
// section would hold them, for the readers the trace rules use (diagnose/machine_state.h,
// diagnose/gpu_health.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "machine/machine_evidence.h"

namespace cublasspy::doctor {

class VectorSink final : public EvidenceSink {
 public:
  explicit VectorSink(std::vector<std::pair<std::string, std::string>>& out) : out_(out) {}
  void add(const char* key, const char* value) override { out_.emplace_back(key, value); }
 private:
  std::vector<std::pair<std::string, std::string>>& out_;
};

}  // namespace cublasspy::doctor
