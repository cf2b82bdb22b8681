#include "replay/replay_plan.h"

#include <algorithm>
#include <stdexcept>

#include "gemm/gemm_call.h"

namespace cublasspy::replay {
namespace {

constexpr std::pair<CallKind, const char*> kKindNames[] = {
    {CallKind::kGemm, "gemm"},
    {CallKind::kGemmBatched, "gemm_batched"},
    {CallKind::kGemmStridedBatched, "gemm_strided_batched"},
    {CallKind::kGemmGrouped, "gemm_grouped"},
    {CallKind::kLtMatmul, "lt_matmul"},
    {CallKind::kLegacyGemm, "legacy_gemm"},
    {CallKind::kXtGemm, "xt_gemm"},
};

const char* fill_name(Fill f) { return f == Fill::kDump ? "dump" : f == Fill::kOnes ? "ones" : "random"; }
Fill parse_fill(const std::string& s) {
  if (s == "dump") return Fill::kDump;
  if (s == "ones") return Fill::kOnes;
  if (s == "random") return Fill::kRandom;
  throw std::invalid_argument("unknown fill '" + s + "'");
}

nlohmann::json pieces_json(const std::vector<DumpPiece>& pieces) {
  nlohmann::json out = nlohmann::json::array();
  for (const DumpPiece& d : pieces) {
    out.push_back({{"path", d.path}, {"offset", d.offset}, {"first_member", d.first_member}, {"members", d.members},
                   {"member_bytes", d.member_bytes}});
  }
  return out;
}

std::vector<DumpPiece> pieces_from(const nlohmann::json& j) {
  std::vector<DumpPiece> out;
  for (const auto& d : j) {
    DumpPiece one;
    d.at("path").get_to(one.path);
    d.at("offset").get_to(one.offset);
    d.at("first_member").get_to(one.first_member);
    d.at("members").get_to(one.members);
    d.at("member_bytes").get_to(one.member_bytes);
    out.push_back(one);
  }
  return out;
}

nlohmann::json groups_json(const std::vector<GroupPlan>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const GroupPlan& g : groups) {
    out.push_back({{"transa", g.transa}, {"transb", g.transb}, {"m", g.m}, {"n", g.n}, {"k", g.k}, {"lda", g.lda},
                   {"ldb", g.ldb}, {"ldc", g.ldc}, {"size", g.size}, {"alpha", g.alpha}, {"beta", g.beta}});
  }
  return out;
}

}  // namespace

const char* call_kind_name(CallKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "?";
}

bool parse_call_kind(const std::string& text, CallKind& out) {
  for (const auto& [k, name] : kKindNames) {
    if (text == name) {
      out = k;
      return true;
    }
  }
  return false;
}

uint64_t OperandPlan::member_elements() const {
  if (rows <= 0 || cols <= 0) return 0;
  // The last element is (rows-1, cols-1); sizes are bounded by the plan builder.
  return offset(rows - 1, cols - 1) + 1;
}

uint64_t OperandPlan::extent_elements() const {
  uint64_t one = member_elements();
  if (pointer_array) return std::max<uint64_t>(one, member_capacity);
  if ( members <= 1 || stride <= 0 || one == 0) return one;
  return one + static_cast<uint64_t>(stride) * static_cast<uint64_t>(members - 1);
}

uint64_t OperandPlan::bytes() const {
  return extent_elements() * static_cast<uint64_t>(element_bytes(static_cast<DataType>(data_type)));
}

const OperandPlan* ReplayPlan::operand(const std::string& name) const {
  for (const OperandPlan& o : operands) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

OperandPlan* ReplayPlan::operand(const std::string& name) {
  for (OperandPlan& o : operands) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

uint64_t ReplayPlan::total_bytes() const {
  uint64_t total = 0;
  for (const OperandPlan& o : operands) {
    if (o.null || !o.same_memory_as.empty()) continue;
    uint64_t copies = o.pointer_array ? static_cast<uint64_t>(std::max<int64_t>(o.members, 1)) : 1;
    total += o.bytes() * copies;
  }
  if (workspace_bytes > 0) total += static_cast<uint64_t>(workspace_bytes);
  if (lt.workspace_bytes > 0) total += static_cast<uint64_t>(lt.workspace_bytes);
  return total;
}

void set_group_shape(OperandPlan& o, const GroupPlan& g) {
  if (o.name == "a") o.rows = g.transa ? g.k : g.m, o.cols = g.transa ? g.m : g.k, o.ld = g.lda;
  if (o.name == "b") o.rows = g.transb ? g.n : g.k, o.cols = g.transb ? g.k : g.n, o.ld = g.ldb;
  if (o.name == "c") o.rows = g.m, o.cols = g.n, o.ld = g.ldc;
}

ReplayPlan group_plan(const ReplayPlan& p, size_t g, int64_t& first) {
  ReplayPlan one = p;
  one.groups.clear();
  first = 0;
  for (size_t i = 0; i < g; ++i) first += p.groups[i].size;
  const GroupPlan& group = p.groups.at(g);
  one.transa = group.transa, one.transb = group.transb;
  one.m = group.m, one.n = group.n, one.k = group.k;
  one.batch = group.size;
  one.alpha = {group.alpha, 0};
  one.beta = {group.beta, 0};
  for (OperandPlan& o : one.operands) {
    const uint64_t capacity = o.extent_elements();
    set_group_shape(o, group);
    o.members = group.size;
    o.member_capacity = capacity;
  }
  return one;
}

void to_json(nlohmann::json& j, const OperandPlan& p) {
  j = nlohmann::json{{"name", p.name},
                     {"data_type", p.data_type},
                     {"rows", p.rows},
                     {"cols", p.cols},
                     {"ld", p.ld},
                     {"row_order", p.row_order},
                     {"stride", p.stride},
                     {"members", p.members},
                     {"pointer_array", p.pointer_array},
                     {"member_capacity", p.member_capacity},
                     {"null", p.null},
                     {"misalignment", p.misalignment},
                     {"same_memory_as", p.same_memory_as},
                     {"output", p.output},
                     {"fill", fill_name(p.fill)},
                     {"dump", pieces_json(p.dump)},
                     {"program_result", pieces_json(p.program_result)}};
}

void from_json(const nlohmann::json& j, OperandPlan& p) {
  j.at("name").get_to(p.name);
  j.at("data_type").get_to(p.data_type);
  j.at("rows").get_to(p.rows);
  j.at("cols").get_to(p.cols);
  j.at("ld").get_to(p.ld);
  j.at("row_order").get_to(p.row_order);
  j.at("stride").get_to(p.stride);
  j.at("members").get_to(p.members);
  j.at("pointer_array").get_to(p.pointer_array);
  if (j.contains("member_capacity")) j.at("member_capacity").get_to(p.member_capacity);
  j.at("null").get_to(p.null);
  j.at("misalignment").get_to(p.misalignment);
  j.at("same_memory_as").get_to(p.same_memory_as);
  j.at("output").get_to(p.output);
  p.fill = parse_fill(j.at("fill").get<std::string>());
  p.dump = pieces_from(j.at("dump"));
  if (j.contains("program_result")) p.program_result = pieces_from(j.at("program_result"));
}

void to_json(nlohmann::json& j, const ReplayPlan& p) {
  j = nlohmann::json{{"function", p.function},
                     {"quantized", p.quantized},
                     {"kind", call_kind_name(p.kind)},
                     {"call_seq", p.call_seq},
                     {"values", p.values},
                     {"pointer_mode", p.pointer_mode},
                     {"math_mode", p.math_mode},
                     {"own_stream", p.own_stream},
                     {"workspace_bytes", p.workspace_bytes},
                     {"scalar_type", p.scalar_type},
                     {"alpha", p.alpha},
                     {"beta", p.beta},
                     {"transa", p.transa},
                     {"transb", p.transb},
                     {"m", p.m},
                     {"n", p.n},
                     {"k", p.k},
                     {"batch", p.batch},
                     {"compute_type", p.compute_type},
                     {"operands", p.operands},
                     {"groups", groups_json(p.groups)},
                     {"lt",
                      {{"compute_type", p.lt.compute_type},
                       {"scale_type", p.lt.scale_type},
                       {"epilogue", p.lt.epilogue},
                       {"workspace_bytes", p.lt.workspace_bytes},
                       {"algo", p.lt.algo}}},
                     {"seed", p.seed},
                     {"repeat", p.repeat},
                     {"verify", p.verify},
                     {"tolerance", p.tolerance},
                     {"timeout_s", p.timeout_s}};
}

void from_json(const nlohmann::json& j, ReplayPlan& p) {
  j.at("function").get_to(p.function);
  if (j.contains("quantized")) j.at("quantized").get_to(p.quantized);
  if (!parse_call_kind(j.at("kind").get<std::string>(), p.kind)) {
    throw std::invalid_argument("unknown call kind " + j.at("kind").dump());
  }
  j.at("call_seq").get_to(p.call_seq);
  j.at("values").get_to(p.values);
  j.at("pointer_mode").get_to(p.pointer_mode);
  j.at("math_mode").get_to(p.math_mode);
  j.at("own_stream").get_to(p.own_stream);
  j.at("workspace_bytes").get_to(p.workspace_bytes);
  j.at("scalar_type").get_to(p.scalar_type);
  j.at("alpha").get_to(p.alpha);
  j.at("beta").get_to(p.beta);
  j.at("transa").get_to(p.transa);
  j.at("transb").get_to(p.transb);
  j.at("m").get_to(p.m);
  j.at("n").get_to(p.n);
  j.at("k").get_to(p.k);
  j.at("batch").get_to(p.batch);
  j.at("compute_type").get_to(p.compute_type);
  j.at("operands").get_to(p.operands);
  if (j.contains("groups")) {
    for (const auto& g : j.at("groups")) {
      GroupPlan one;
      g.at("transa").get_to(one.transa);
      g.at("transb").get_to(one.transb);
      g.at("m").get_to(one.m);
      g.at("n").get_to(one.n);
      g.at("k").get_to(one.k);
      g.at("lda").get_to(one.lda);
      g.at("ldb").get_to(one.ldb);
      g.at("ldc").get_to(one.ldc);
      g.at("size").get_to(one.size);
      g.at("alpha").get_to(one.alpha);
      g.at("beta").get_to(one.beta);
      p.groups.push_back(one);
    }
  }
  const auto& lt = j.at("lt");
  lt.at("compute_type").get_to(p.lt.compute_type);
  lt.at("scale_type").get_to(p.lt.scale_type);
  lt.at("epilogue").get_to(p.lt.epilogue);
  lt.at("workspace_bytes").get_to(p.lt.workspace_bytes);
  if (lt.contains("algo")) lt.at("algo").get_to(p.lt.algo);
  if (!p.lt.algo.empty() && p.lt.algo.size() != 8) throw std::invalid_argument("lt.algo is not 8 words");
  j.at("seed").get_to(p.seed);
  j.at("repeat").get_to(p.repeat);
  j.at("verify").get_to(p.verify);
  j.at("tolerance").get_to(p.tolerance);
  j.at("timeout_s").get_to(p.timeout_s);
}

}  // namespace cublasspy::replay
