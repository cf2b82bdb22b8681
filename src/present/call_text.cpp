#include "present/call_text.h"

#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "present/lt_algo_config.h"

namespace cublasspy {

using json = nlohmann::ordered_json;
using format::ArgKind;
using format::ArgRole;

namespace {

double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// The enum a numeric argument's value belongs to, when CUDA names its values: an error code
// in the vocabulary of the function's library, a cuBLASLt attribute in that of the descriptor
// the function sets.
std::optional<NameSet> named_set(const ArgView& arg, const CallView& call) {
  switch (arg.kind) {
    case ArgKind::kGemmAlgo: return NameSet::kGemmAlgo;
    case ArgKind::kOrder: return NameSet::kLtOrder;
    case ArgKind::kEpilogue: return NameSet::kLtEpilogue;
    case ArgKind::kLtAttribute: return lt_attribute_set_for(call.function_name());
    case ArgKind::kCudaError:
      return status_set_of(call.library()) == NameSet::kCuResult ? NameSet::kCuResult : NameSet::kCudaError;
    default: return std::nullopt;
  }
}

// `<arg>_name` beside a numeric argument CUDA names ("algo": 99, "algo_name":
// "CUBLAS_GEMM_DEFAULT_TENSOR_OP"); null when the value is unset or no toolkit names it.
json arg_name(const ArgView& arg, NameSet set) {
  if (arg.raw == format::kArgUnset) return nullptr;
  const char* name = cuda_name(set, static_cast<int32_t>(arg.raw));
  return name != nullptr ? json(name) : json(nullptr);
}

// One argument slot in the form its kind calls for.
json arg_value(const ArgView& arg, const format::Record& rec, size_t slot_index) {
  uint64_t v = arg.raw;
  // Values the shim could not know or the call did not write (cudaGetDeviceCount's count on
  // failure, a cuBLASLt attribute never set) are null. A double's bits are its own: there this
  // pattern is -0.0.
  if (v == format::kArgUnset && arg.kind != ArgKind::kDouble) return nullptr;
  switch (arg.kind) {
    case ArgKind::kInt: return static_cast<int64_t>(v);
    case ArgKind::kUInt: return v;
    case ArgKind::kPointer: return hex_address(v);
    case ArgKind::kOperation: return operation_name(static_cast<int>(v));
    case ArgKind::kLegacyChar: return std::string(1, static_cast<char>(v));
    case ArgKind::kDataType: return name_or_number(NameSet::kDataType, static_cast<int>(v));
    case ArgKind::kComputeType: return compute_type_text(static_cast<int>(v));
    case ArgKind::kGemmAlgo: return static_cast<int64_t>(static_cast<int32_t>(v));
    case ArgKind::kPointerMode: return pointer_mode_name(static_cast<int>(v));
    case ArgKind::kMathMode: return math_mode_text(static_cast<int>(v));
    case ArgKind::kStatusOut:
      // A handle written back is an address; other out-values are counts.
      if (arg.role == ArgRole::kHandle) return hex_address(v);
      return static_cast<int64_t>(v);
    case ArgKind::kText: {
      const char* begin = reinterpret_cast<const char*>(&rec.args[slot_index]);
      size_t room = (format::kMaxArgs - slot_index) * sizeof(uint64_t);
      return std::string(begin, strnlen(begin, room));
    }
    case ArgKind::kCudaError: return static_cast<int64_t>(static_cast<int32_t>(v));
    case ArgKind::kDouble: return as_double(v);
    case ArgKind::kLtAttribute: case ArgKind::kOrder: case ArgKind::kEpilogue:
      return static_cast<int64_t>(v);
    case ArgKind::kNone:
    default: return v;
  }
}

// alpha/beta as numbers: a real value, [re, im] for complex types, null when only the device
// pointer is known (pointer mode device). JSON has no NaN or Inf: such a value is null too, and
// scalar_text() gives `<key>_text` ("nan", "inf") to say which.
json scalar_value(bool known, const double value[2], bool complex) {
  if (!known) return nullptr;
  auto number = [](double d) { return std::isfinite(d) ? json(d) : json(nullptr); };
  if (complex) return json::array({number(value[0]), number(value[1])});
  return number(value[0]);
}

json scalar_text(bool known, const double value[2], bool complex) {
  if (!known || (std::isfinite(value[0]) && (!complex || std::isfinite(value[1])))) return nullptr;
  return complex ? fmt::format("({}, {})", value[0], value[1]) : fmt::format("{}", value[0]);
}

// A preset algorithm's configuration: the enums by name, the counts as numbers, and the library
// that read them; what the library did not report is left out. Refused bytes (another library's
// layout) say why instead of values.
json algo_config_json(const LtAlgoConfig& c) {
  json j = json::object();
  if (!c.refused.empty()) {
    j["refused"] = c.refused;
    j["decoded_by"] = c.decoded_by;
    return j;
  }
  auto number = [&](const char* key, const std::optional<int64_t>& v) {
    if (v) j[key] = *v;
  };
  auto named = [&](const char* key, const std::optional<int64_t>& v, NameSet set) {
    if (v) j[key] = name_or_number(set, *v);
  };
  number("id", c.id);
  named("tile", c.tile, NameSet::kLtMatmulTile);
  named("stages", c.stages, NameSet::kLtMatmulStages);
  number("splitk_num", c.splitk_num);
  named("reduction_scheme", c.reduction_scheme, NameSet::kLtReductionScheme);
  number("cta_swizzling", c.cta_swizzling);
  number("custom_option", c.custom_option);
  named("inner_shape", c.inner_shape, NameSet::kLtInnerShape);
  named("cluster_shape", c.cluster_shape, NameSet::kLtClusterShape);
  j["decoded_by"] = c.decoded_by;
  return j;
}

// The emulation settings a cuBLASLt matmul ran with (format version 7), the enums by name;
// only the presence when the shim never saw the descriptor created.
json emulation_json(const format::LtEmulation& e) {
  json j = json::object();
  if (!(e.flags & format::kEmulationKnown)) {
    j["settings"] = "unknown (the descriptor was created before the shim saw it)";
    return j;
  }
  j["strategy"] = name_or_number(NameSet::kEmulationStrategy, e.strategy);
  j["special_values"] = name_or_number(NameSet::kEmulationSpecialValues, e.special_values);
  j["mantissa_control"] = name_or_number(NameSet::kEmulationMantissaControl, e.mantissa_control);
  j["max_mantissa_bits"] = e.max_mantissa_bits;
  j["mantissa_bit_offset"] = e.mantissa_bit_offset;
  if (e.mantissa_bit_count_pointer != 0) j["mantissa_bit_count_pointer"] = hex_address(e.mantissa_bit_count_pointer);
  return j;
}

// The GEMM family's handle state and scalars, named as the contract names them.
void add_gemm_args(const CallView& call, json& args) {
  const format::Record& rec = call.rec();
  const format::FunctionEntry& entry = *call.function;
  GemmCall g = call.gemm();
  // Entry points without type arguments (cublasSgemm_v2...) imply their operand types.
  static const char* const kTypeKeys[] = {"a_type", "b_type", "c_type"};
  for (int i = 0; i < 3; ++i) {
    const bool has_type_slot = slot_with_role(entry, format::operand_role(ArgRole::kAType, i)) >= 0;
    if (!has_type_slot && g.valid && g.op[i].present) {
      if (const char* name = cuda_name(NameSet::kDataType, static_cast<int>(g.op[i].type))) args[kTypeKeys[i]] = name;
    }
  }
  // cuBLASLt planar complex: the plane offsets kept beside the slots (RecordSlot::plane_offset).
  static const char* const kPlaneKeys[] = {"plane_offset_a", "plane_offset_b", "plane_offset_c", "plane_offset_d"};
  for (int i = 0; i < 4; ++i) {
    if (call.slot.plane_offset[i] != 0) args[kPlaneKeys[i]] = call.slot.plane_offset[i];
  }
  // A cuBLASLt matmul's preset algorithm (format version 5: the function has an algo_id slot):
  // "algo_preset" and the 64 bytes the program passed, for replay (JSON only).
  if (const int id_slot = slot_with_role(entry, ArgRole::kLtAlgoId); id_slot >= 0) {
    const int algo_slot = slot_with_role(entry, ArgRole::kAlgo);
    const bool preset = algo_slot >= 0 && rec.args[algo_slot] != 0 && rec.args[algo_slot] != format::kArgUnset;
    // Only when true: a matmul without one reads the same in every format version.
    if (preset) {
      args["algo_preset"] = true;
      std::string bytes;
      for (uint64_t word : call.slot.lt_algo) bytes += fmt::format("{:016x}", word);
      args["algo_bytes"] = bytes;
      // What the algorithm is, as a cuBLASLt loaded into the reader reads the bytes (the shim
      // records only the bytes; traces written before that also have the id in its slot).
      if (std::optional<LtAlgoConfig> config = decode_lt_algo(call.slot.lt_algo)) {
        args["algo_config"] = algo_config_json(*config);
        if (rec.args[id_slot] == format::kArgUnset && config->id) args["algo_id"] = *config->id;
      }
    }
  }
  // A cuBLASLt matmul's emulation descriptor (format version 7); absent without one, so a
  // matmul without emulation reads the same in every format version.
  if (slot_with_role(entry, ArgRole::kEpilogue) >= 0 && (call.slot.lt_emulation.flags & format::kEmulationAttached)) {
    args["emulation"] = emulation_json(call.slot.lt_emulation);
  }
  DataType out_type = g.valid ? (g.d().present ? g.d().type : g.c().type) : DataType::kUnknown;
  bool complex = is_complex(out_type);
  for (const ArgRole role : {ArgRole::kAlpha, ArgRole::kBeta}) {
    const bool is_alpha = role == ArgRole::kAlpha;
    const std::string key = is_alpha ? "alpha" : "beta";
    // The scalar's slot holds its address (the v1 API: its value): the address stays, as
    // <key>_ptr, and <key> becomes the value the shim read.
    const int slot = slot_with_role(entry, role);
    if (slot >= 0 && static_cast<ArgKind>(entry.args[slot].kind) == ArgKind::kPointer &&
        rec.args[slot] != format::kArgUnset) {
      args[key + "_ptr"] = hex_address(rec.args[slot]);
    }
    bool known = rec.flags & (is_alpha ? format::kFlagAlphaKnown : format::kFlagBetaKnown);
    const double* value = is_alpha ? rec.alpha : rec.beta;
    args[key] = scalar_value(known, value, complex);
    json text = scalar_text(known, value, complex);
    if (!text.is_null()) args[key + "_text"] = std::move(text);
  }
  if (!args.contains("pointer_mode")) {
    args["pointer_mode"] = rec.pointer_mode < 0 ? json(nullptr) : json(pointer_mode_name(rec.pointer_mode));
  }
  if (!args.contains("math_mode")) {
    args["math_mode"] = rec.math_mode < 0 ? json(nullptr) : json(math_mode_text(rec.math_mode));
  }
  // The handle's stream, unless the call names its own (cublasLtMatmul).
  if (slot_with_role(entry, ArgRole::kStream) < 0 && !args.contains("stream")) args["stream"] = hex_address(rec.stream);
}

// A cuBLASLt attribute whose value CUDA names (an epilogue, an order, a type): "value_name"
// beside the SetAttribute's value, so the text shows CUBLASLT_EPILOGUE_RELU, not 2.
struct NamedAttributeValue {
  const char* function_prefix;
  NameSet attributes;
  const char* attribute;
  NameSet values;
};
const NamedAttributeValue kNamedAttributeValues[] = {
    {"cublasLtMatmulDesc", NameSet::kLtMatmulDescAttribute, "CUBLASLT_MATMUL_DESC_EPILOGUE", NameSet::kLtEpilogue},
    {"cublasLtMatmulDesc", NameSet::kLtMatmulDescAttribute, "CUBLASLT_MATMUL_DESC_COMPUTE_TYPE", NameSet::kComputeType},
    {"cublasLtMatmulDesc", NameSet::kLtMatmulDescAttribute, "CUBLASLT_MATMUL_DESC_SCALE_TYPE", NameSet::kDataType},
    {"cublasLtMatmulDesc", NameSet::kLtMatmulDescAttribute, "CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE", NameSet::kDataType},
    {"cublasLtMatrixLayout", NameSet::kLtMatrixLayoutAttribute, "CUBLASLT_MATRIX_LAYOUT_ORDER", NameSet::kLtOrder},
    {"cublasLtMatrixLayout", NameSet::kLtMatrixLayoutAttribute, "CUBLASLT_MATRIX_LAYOUT_TYPE", NameSet::kDataType},
    {"cublasLtMatrixTransformDesc", NameSet::kLtTransformDescAttribute, "CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE",
     NameSet::kDataType},
    {"cublasLtEmulationDesc", NameSet::kLtEmulationDescAttribute, "CUBLASLT_EMULATION_DESC_STRATEGY",
     NameSet::kEmulationStrategy},
    {"cublasLtEmulationDesc", NameSet::kLtEmulationDescAttribute, "CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT",
     NameSet::kEmulationSpecialValues},
    {"cublasLtEmulationDesc", NameSet::kLtEmulationDescAttribute, "CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL",
     NameSet::kEmulationMantissaControl},
    {"cublasLtMatmulAlgoConfig", NameSet::kLtAlgoConfigAttribute, "CUBLASLT_ALGO_CONFIG_TILE_ID", NameSet::kLtMatmulTile},
    {"cublasLtMatmulAlgoConfig", NameSet::kLtAlgoConfigAttribute, "CUBLASLT_ALGO_CONFIG_STAGES_ID", NameSet::kLtMatmulStages},
    {"cublasLtMatmulAlgoConfig", NameSet::kLtAlgoConfigAttribute, "CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME",
     NameSet::kLtReductionScheme},
    {"cublasLtMatmulAlgoConfig", NameSet::kLtAlgoConfigAttribute, "CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID",
     NameSet::kLtInnerShape},
    {"cublasLtMatmulAlgoConfig", NameSet::kLtAlgoConfigAttribute, "CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID",
     NameSet::kLtClusterShape},
};

void add_attribute_value_name(const char* function, json& args) {
  if (!args.contains("attr") || !args.contains("value") || !args["attr"].is_number_integer() ||
      !args["value"].is_number_integer()) {
    return;
  }
  const int64_t attr = args["attr"].get<int64_t>();
  for (const NamedAttributeValue& n : kNamedAttributeValues) {
    if (std::strncmp(function, n.function_prefix, std::strlen(n.function_prefix)) != 0) continue;
    if (cuda_value(n.attributes, n.attribute) != std::optional<int64_t>(attr)) continue;
    // The value's first 8 bytes as the shim read them: the enums are 32 bits.
    const int32_t value = static_cast<int32_t>(args["value"].get<int64_t>());
    const char* name = cuda_name(n.values, value);
    args["value_name"] = name != nullptr ? json(name) : json(nullptr);
    return;
  }
}

// A group in a few characters: "2x N,N 4x4x4 ld 4,4,4 alpha=1 beta=0" (size, ops, m x n x k).
std::string group_text(const json& g) {
  auto scalar = [](const json& v) { return v.is_null() ? std::string("?") : fmt::format("{}", v.get<double>()); };
  return fmt::format("{}x {},{} {}x{}x{} ld {},{},{} alpha={} beta={}", g["size"].get<int64_t>(),
                     g["transa"].get<std::string>(), g["transb"].get<std::string>(), g["m"].get<int64_t>(),
                     g["n"].get<int64_t>(), g["k"].get<int64_t>(), g["lda"].get<int64_t>(), g["ldb"].get<int64_t>(),
                     g["ldc"].get<int64_t>(), scalar(g["alpha"]), scalar(g["beta"]));
}

std::string value_text(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_array()) {
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + value_text(v[i]);
    return out + ")";
  }
  return v.dump();
}

bool ends_with(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

std::string hex_address(uint64_t value) { return fmt::format("{:#x}", value); }

void add_gemm_groups(const GemmGroups& groups, json& args) {
  json list = json::array();
  auto scalar = [](bool known, double v) { return known && std::isfinite(v) ? json(v) : json(nullptr); };
  for (const format::GemmGroup& g : groups.groups) {
    json one = json::object();
    one["m"] = g.m;
    one["n"] = g.n;
    one["k"] = g.k;
    one["lda"] = g.lda;
    one["ldb"] = g.ldb;
    one["ldc"] = g.ldc;
    one["transa"] = operation_name(g.transa);
    one["transb"] = operation_name(g.transb);
    one["alpha"] = scalar(g.flags & format::kGroupAlphaKnown, g.alpha);
    one["beta"] = scalar(g.flags & format::kGroupBetaKnown, g.beta);
    one["size"] = g.size;
    list.push_back(std::move(one));
  }
  args["groups"] = std::move(list);
  args["problem_count"] = groups.problem_count;
  const int64_t omitted = groups.group_count - static_cast<int64_t>(groups.groups.size());
  if (omitted > 0) args["groups_omitted"] = omitted;
}

json call_arguments(const CallView& call) {
  json args = json::object();
  std::vector<ArgView> views = call.args();
  for (size_t i = 0; i < views.size(); ++i) {
    // Unnamed slots are room for a text argument's bytes, not arguments of their own.
    if (views[i].name[0] == '\0') continue;
    args[views[i].name] = arg_value(views[i], call.rec(), i);
    if (auto set = named_set(views[i], call)) args[std::string(views[i].name) + "_name"] = arg_name(views[i], *set);
  }
  // A layout's LD, STRIDED_BATCH_OFFSET and PLANE_OFFSET are int64_t (cublasLt.h): a negative
  // plane offset (the imaginary plane first) is -512, not 18446744073709551104.
  if (std::strncmp(call.function_name(), "cublasLtMatrixLayout", 20) == 0 && args.contains("attr") &&
      args.contains("value") && args["attr"].is_number_integer() && args["value"].is_number_unsigned()) {
    const uint64_t attr = args["attr"].get<uint64_t>();
    if (attr == 4 || attr == 6 || attr == 7) args["value"] = static_cast<int64_t>(args["value"].get<uint64_t>());
  }
  add_attribute_value_name(call.function_name(), args);
  // The GEMM family: the handle state (alpha, beta, pointer mode, math mode, stream) too.
  if (call.function != nullptr && format::is_gemm_family(call.function->family)) add_gemm_args(call, args);
  return args;
}

// Scalars the report read (alpha=1.5) hide their addresses; a scalar only known as a device
// pointer shows the pointer instead (alpha=@0x7f...). A value CUDA names shows its name (algo=
// CUBLAS_GEMM_DEFAULT_TENSOR_OP), its number when no toolkit names it.
std::vector<std::string> argument_pieces(const json& args) {
  std::vector<std::string> out;
  for (auto it = args.begin(); it != args.end(); ++it) {
    const std::string& key = it.key();
    // alpha_ptr / alpha_text / algo_name accompany alpha and algo: shown through them, not on
    // their own (an argument that merely ends so, like cudaMalloc's dev_ptr, is shown).
    bool companion = (ends_with(key, "_ptr") && args.contains(key.substr(0, key.size() - 4))) ||
                     (ends_with(key, "_text") && args.contains(key.substr(0, key.size() - 5))) ||
                     (ends_with(key, "_name") && args.contains(key.substr(0, key.size() - 5)));
    if (companion) continue;
    // For replay and the JSON, not for reading, unless no library could read them: then the
    // bytes are all there is to show.
    if (key == "algo_bytes" && args.contains("algo_config")) continue;
    if ((key == "algo_config" || key == "emulation") && it.value().is_object()) {
      std::string config;
      for (auto field = it.value().begin(); field != it.value().end(); ++field) {
        config += (config.empty() ? "" : " ") + field.key() + "=" + value_text(field.value());
      }
      out.push_back(key + "={" + config + "}");
      continue;
    }
    if (key == "groups" && it.value().is_array()) {
      std::string groups;
      for (const json& g : it.value()) groups += (groups.empty() ? "" : "; ") + group_text(g);
      out.push_back("groups=[" + groups + "]");
      continue;
    }
    std::string text = value_text(it.value());
    if (auto name = args.find(key + "_name"); name != args.end() && name->is_string()) {
      text = name->get<std::string>();
    } else if (it.value().is_null()) {
      if (args.contains(key + "_text")) text = value_text(args[key + "_text"]);
      else if (args.contains(key + "_ptr")) text = "@" + value_text(args[key + "_ptr"]);
    }
    out.push_back(key + "=" + text);
  }
  return out;
}

CallOutcome outcome_of(const CallView& call) {
  const format::Record& rec = call.rec();
  CallOutcome o;
  o.in_flight = call.in_flight();
  o.status = rec.status;
  o.status_name = call.status_name();
  o.async_status = rec.async_status;
  o.async_fault = call.async_fault();
  if (rec.async_status != 0) o.async_status_name = name_or_unknown(NameSet::kCudaError, rec.async_status);
  o.crashed = (rec.flags & format::kFlagCrashed) != 0;
  o.unresolved = (rec.flags & format::kFlagUnresolved) != 0;
  o.status_is_word = call.library() == format::Library::kSystem;
  o.capture_id = call.slot.capture_id;
  return o;
}

std::string outcome_text(const CallOutcome& o) {
  std::string text = o.in_flight        ? "in flight"
                     : o.status_is_word ? o.status_name
                                        : fmt::format("{} ({})", o.status_name, o.status);
  if (o.async_fault) text += fmt::format(", then asynchronous {} ({})", o.async_status_name, o.async_status);
  else if (o.async_status != 0) text += fmt::format(", then the wait after it failed with {} ({})", o.async_status_name, o.async_status);
  if (o.crashed) text += ", crashed (fatal signal during the call)";
  if (o.unresolved) text += ", real function not found";
  if (o.capture_id == format::kCaptureIdUnknown) {
    text += ", captured into a CUDA graph: it runs at the graph's launches";
  } else if (o.capture_id != 0) {
    text += fmt::format(", captured into a CUDA graph (capture {}): it runs at the graph's launches", o.capture_id);
  }
  return text;
}

std::string call_line(const CallView& call) {
  std::string pieces;
  for (const std::string& piece : argument_pieces(call_arguments(call))) pieces += (pieces.empty() ? "" : ", ") + piece;
  return fmt::format("{}({}) -> {}", call.function_name(), pieces, outcome_text(outcome_of(call)));
}

}  // namespace cublasspy
