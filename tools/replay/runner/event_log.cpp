#include "replay/runner/event_log.h"

#include <cstdio>

namespace cublasspy::replay {

void emit_event(const nlohmann::json& event) {
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace cublasspy::replay
