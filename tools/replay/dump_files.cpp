#include "replay/dump_files.h"

#include <sys/stat.h>

#include <fstream>

#include "dump/npy_writer.h"

namespace cublasspy::replay {

bool OperandDump::holds_result() const {
  return meta.is_object() && meta.value("is_output", false);
}

std::string dump_path(const std::string& trace_path, uint64_t seq, const std::string& operand, const char* extension,
                      size_t group) {
  // As interpose/live_dump.cpp names them.
  const std::string group_part = group == 0 ? "" : ".group" + std::to_string(group);
  return trace_path + ".call" + std::to_string(seq) + group_part + "." + operand + extension;
}

std::optional<OperandDump> find_operand_dump(const std::string& trace_path, uint64_t seq, const std::string& operand,
                                             std::string* problem, size_t group) {
  OperandDump d;
  d.npy_path = dump_path(trace_path, seq, operand, ".npy", group);
  struct stat st{};
  if (::stat(d.npy_path.c_str(), &st) != 0) return std::nullopt;
  std::string error;
  std::optional<NpyInfo> info = read_npy_header(d.npy_path, &error);
  if (!info) {
    if (problem) *problem = error;
    return std::nullopt;
  }
  if (info->fortran_order) {
    if (problem) *problem = d.npy_path + ": Fortran-ordered, not a cublasspy dump";
    return std::nullopt;
  }
  d.descr = info->descr;
  d.data_offset = info->data_offset;
  d.data_bytes = static_cast<uint64_t>(st.st_size) > d.data_offset ? static_cast<uint64_t>(st.st_size) - d.data_offset : 0;
  std::ifstream meta(dump_path(trace_path, seq, operand, ".json", group));
  d.meta = meta ? nlohmann::json::parse(meta, nullptr, false) : nlohmann::json::object();
  if (d.meta.is_discarded()) d.meta = nlohmann::json::object();
  return d;
}

}  // namespace cublasspy::replay
