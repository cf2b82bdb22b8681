// The operand dumps CUBLASSPY_DUMP leaves next to a trace (docs/SCAN.md):
//   <trace>.call<seq>.<a|b|c|d>.npy   the operand's strided extent, flat
//   <trace>.call<seq>.<a|b|c|d>.json  what it is (type, shape, whether it holds the result)
//   <trace>.call<seq>.group<g>.<a|b|c>.npy (.json)  group g (from 1) of a grouped call; group 0's
//                                     are the call's own; each holds the group's members, flat
// The replay reads the .npy's data bytes as they are into the operand's buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cublasspy::replay {

struct OperandDump {
  std::string npy_path;
  std::string descr;          // the .npy dtype, e.g. "<f4"
  uint64_t data_offset = 0;   // where the data starts in the file
  uint64_t data_bytes = 0;    // bytes after the header
  nlohmann::json meta;        // the .json beside it ({} when missing or unreadable)
  bool holds_result() const;  // taken after the call from memory the call wrote
};

std::string dump_path(const std::string& trace_path, uint64_t seq, const std::string& operand, const char* extension,
                      size_t group = 0);

// The dump of `operand` of call `seq` (of its group `group`), or nullopt (with `problem` set when
// a file exists but is unusable: not a .npy, unreadable).
std::optional<OperandDump> find_operand_dump(const std::string& trace_path, uint64_t seq, const std::string& operand,
                                             std::string* problem, size_t group = 0);

}  // namespace cublasspy::replay
