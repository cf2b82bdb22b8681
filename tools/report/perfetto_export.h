// `report --perfetto FILE`: the calls as a Chrome trace-event JSON file, which ui.perfetto.dev
// and chrome://tracing open. One process track per traced process, one thread track per thread,
// one slice per call with its arguments; failures are red slices with an instant marker, calls
// still in flight are slices that never end.
#pragma once

#include <nlohmann/json.hpp>

namespace cublasspy::tools {

// `report` must list every call (build_report with all_calls).
nlohmann::ordered_json perfetto_trace(const nlohmann::ordered_json& report);

}  // namespace cublasspy::tools
