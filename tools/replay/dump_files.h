// The operand dumps CUBLASSPY_DUMP leaves next to a trace (docs/SCAN.md):
//   <trace>.call<seq>.<a|b|c|d>.npy   the operand's strided extent, flat
//   <trace>.call<seq>.<a|b|c|d>.json  what it is (type, shape, whether it holds the result)
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

std::string dump_path(const std::string& trace_path, uint64_t seq, const std::string& operand, const char* extension);

// The dump of `operand` of call `seq`, or nullopt (with `problem` set when a file exists but is
// unusable: not a .npy, unreadable).
std::optional<OperandDump> find_operand_dump(const std::string& trace_path, uint64_t seq, const std::string& operand,
                                             std::string* problem);

}  // namespace cublasspy::replay
