// The runner's answer to the tool: one JSON object per line on stdout, written and flushed as
// the replay goes, so a runner killed by the replayed call (a crash, the tool's timeout) still
// tells how far it got. Every event has "event": start, loaded, error, ready, run, verify,
// summary, done (docs/REPLAY.md lists their fields).
#pragma once

#include <nlohmann/json.hpp>

namespace cublasspy::replay {

void emit_event(const nlohmann::json& event);

}  // namespace cublasspy::replay
