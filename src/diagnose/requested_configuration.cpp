#include "diagnose/requested_configuration.h"

#include <set>

#include <fmt/format.h>

#include "present/call_text.h"

namespace cublasspy::diagnoses {
namespace {

using json = nlohmann::ordered_json;
using format::ArgKind;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Argument kinds that are part of what the call asks for (not addresses, sizes or handles).
bool is_configuration_kind(ArgKind kind) {
  switch (kind) {
    case ArgKind::kDataType: case ArgKind::kComputeType: case ArgKind::kOperation: case ArgKind::kLegacyChar:
    case ArgKind::kOrder: case ArgKind::kEpilogue: case ArgKind::kGemmAlgo: case ArgKind::kMathMode:
      return true;
    default: return false;
  }
}

// Keys the report adds or derives that belong to the configuration too, whatever their kind.
bool is_configuration_key(const std::string& key) {
  return key == "math_mode" || key == "batch_mode" || key == "batch_count" || key == "algo_id" ||
         key == "algo_config" || starts_with(key, "plane_offset_") || key.find("scale_mode") != std::string::npos ||
         starts_with(key, "emulation");
}

// The text of one value as argument_pieces() writes it ("CUDA_R_32F", "4").
std::string piece_value(const json& args, const std::string& key) {
  json one = json::object({{key, args[key]}});
  if (args.contains(key + "_name")) one[key + "_name"] = args[key + "_name"];  // an order's, an epilogue's name
  for (const std::string& piece : argument_pieces(one)) {
    if (starts_with(piece, (key + "=").c_str())) return piece.substr(key.size() + 1);
  }
  return "";
}

}  // namespace

RequestedConfiguration requested_configuration(const CallView& call) {
  RequestedConfiguration r;
  const json args = call_arguments(call);
  std::set<std::string> kept;
  for (const ArgView& a : call.args()) {
    if (a.name[0] != '\0' && is_configuration_kind(a.kind)) kept.insert(a.name);
  }
  json picked = json::object();
  for (auto it = args.begin(); it != args.end(); ++it) {
    const std::string& key = it.key();
    if (it.value().is_null() || !(kept.count(key) || is_configuration_key(key))) continue;
    picked[key] = it.value();
    if (auto name = args.find(key + "_name"); name != args.end() && !name->is_null()) picked[key + "_name"] = *name;
  }
  // The batch mode has no name table: cublasLtBatchMode_t has two values.
  if (picked.contains("batch_mode") && picked["batch_mode"].is_number_integer()) {
    const int64_t mode = picked["batch_mode"].get<int64_t>();
    r.pointer_array = mode == 1;
    picked["batch_mode"] = mode == 0 ? json("CUBLASLT_BATCH_MODE_STRIDED")
                           : mode == 1 ? json("CUBLASLT_BATCH_MODE_POINTER_ARRAY")
                                       : picked["batch_mode"];
  }
  for (auto it = picked.begin(); it != picked.end(); ++it) {
    const std::string& key = it.key();
    if (starts_with(key, "plane_offset_") && it.value().is_number() && it.value().get<int64_t>() != 0) r.planar = true;
    if (ends_with(key, "_name")) continue;
    const std::string value = piece_value(picked, key);
    if (ends_with(key, "_order") && value != "CUBLASLT_ORDER_COL" && value != "CUBLASLT_ORDER_ROW" &&
        !value.empty()) {
      r.tiled_order = true;
    }
    if (key == "epilogue" && value != "CUBLASLT_EPILOGUE_DEFAULT" && value != "1") r.epilogue = true;
    if (key.find("scale_mode") != std::string::npos && value != "CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F" &&
        value != "0") {
      r.scale_modes = true;
    }
    if (value.find("_EMULATED_") != std::string::npos) r.emulated = true;
  }
  // A cuBLASLt matmul's algorithm: the program's (with what the library reads of its bytes) or
  // the library's choice.
  const bool lt_matmul = args.contains("algo_id") || args.contains("algo_preset");
  if (args.value("algo_preset", false)) {
    r.preset_algo = true;
    r.algo = picked.contains("algo_id") ? fmt::format("id {}", piece_value(picked, "algo_id")) : "of unknown id";
    if (picked.contains("algo_config")) {
      std::string config = piece_value(picked, "algo_config");  // "{tile=... splitk_num=4}"
      if (config.size() >= 2 && config.front() == '{') config = config.substr(1, config.size() - 2);
      r.algo += " (" + config + ")";
    }
    else r.algo += " (bytes " + args.value("algo_bytes", std::string("?")) + ", undecoded: no cuBLASLt could read them)";
  }
  picked.erase("algo_id");
  picked.erase("algo_config");
  for (const std::string& piece : argument_pieces(picked)) r.text += (r.text.empty() ? "" : ", ") + piece;
  if (lt_matmul && call.function != nullptr && call.function->family == static_cast<uint16_t>(format::Family::kLtMatmul)) {
    r.text += (r.text.empty() ? "" : "; ") +
              (r.preset_algo ? "the preset algorithm " + r.algo : std::string("no preset algorithm (cuBLASLt's own choice)"));
  }
  return r;
}

}  // namespace cublasspy::diagnoses
