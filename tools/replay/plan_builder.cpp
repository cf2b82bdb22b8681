#include "replay/plan_builder.h"

#include <algorithm>
#include <array>
#include <set>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "common/cuda_names.h"
#include "replay/dump_files.h"
#include "trace/call_text.h"
#include "trace/gemm_call.h"
#include "trace/gemm_groups.h"
#include "trace/lt_algo_config.h"
#include "replay/hook_signatures.h"
#include "dump/npy_writer.h"
#include "replay/tolerance.h"

namespace cublasspy::replay {
namespace {

using format::ArgKind;
using format::ArgRole;

// Pointer-array forms get one allocation per member: beyond this, the batch count is not a
// batch the program could have had either.
constexpr int64_t kMaxMembers = int64_t{1} << 20;

// cudaDataType and cublasComputeType_t values (library_types.h, cublas_api.h).
constexpr int kR16F = 2, kR32F = 0, kR64F = 1, kC32F = 4, kC64F = 5, kR32I = 10, kR8U = 8, kR16BF = 14;

struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool integer_kind(ArgKind k) {
  switch (k) {
    case ArgKind::kInt: case ArgKind::kUInt: case ArgKind::kOperation: case ArgKind::kDataType:
    case ArgKind::kComputeType: case ArgKind::kGemmAlgo: case ArgKind::kLegacyChar: case ArgKind::kPointerMode:
    case ArgKind::kMathMode: case ArgKind::kOrder: case ArgKind::kEpilogue:
      return true;
    default:
      return false;
  }
}

CallKind kind_of(const format::FunctionEntry& entry) {
  switch (static_cast<Family>(entry.family)) {
    case Family::kGemmBatched: return CallKind::kGemmBatched;
    case Family::kGemmStridedBatched: return CallKind::kGemmStridedBatched;
    case Family::kGemmGrouped: return CallKind::kGemmGrouped;
    case Family::kLtMatmul: return CallKind::kLtMatmul;
    case Family::kLegacyGemm: return CallKind::kLegacyGemm;
    default: return slot_with_role(entry, ArgRole::kXtHandle) >= 0 ? CallKind::kXtGemm : CallKind::kGemm;
  }
}

// What alpha and beta point to, for the cuBLAS entry points: the compute type's scalar for the
// Ex forms (cuBLAS's table), else the element type the prototype fixes (cublasXtSgemm's float).
int scalar_type_of(const format::FunctionEntry& entry, int compute_type, int c_type) {
  const bool complex = is_complex(static_cast<DataType>(c_type));
  switch (compute_type) {
    case 64: case 65: return kR16F;                            // COMPUTE_16F
    case 70: case 71: return complex ? kC64F : kR64F;          // COMPUTE_64F
    case 72: case 73: return kR32I;                            // COMPUTE_32I
    case -1: break;
    default: return complex ? kC32F : kR32F;                   // the 32F family
  }
  const int fixed = format::fixed_element_type(entry);
  return fixed < 0 ? kR32F : fixed;
}

class Builder {
 public:
  Builder(const TraceFile& trace, const CallView& call, const PlanOptions& options, PlanResult& out)
      : trace_(trace), call_(call), options_(options), out_(out) {}

  ReplayPlan build() {
    const std::string name = call_.function_name();
    const FunctionSignature* sig = find_signature(name);
    const Family family = call_.function ? static_cast<Family>(call_.function->family) : Family::kOther;
    if (sig == nullptr || !is_replayable_family(family)) {
      throw Refusal(name + " is not a GEMM: there is nothing to replay (replay re-executes GEMM calls; "
                    "`cublasspy report` and `cublasspy doctor` explain the others)");
    }
    p_.function = name;
    p_.kind = kind_of(*call_.function);
    p_.call_seq = call_.seq;
    p_.seed = options_.seed;
    p_.repeat = options_.repeat;
    p_.verify = options_.verify;
    for (const ArgView& a : call_.args()) {
      if (a.name[0] == '\0' || a.raw == format::kArgUnset || !integer_kind(a.kind)) continue;
      p_.values[a.name] = static_cast<int64_t>(a.raw);
    }
    if (p_.kind == CallKind::kLtMatmul) {
      build_lt();
    } else {
      build_cublas();
    }
    check_null_operands();
    check_total();
    attach_dumps();
    p_.tolerance = tolerance_for(tolerance_inputs_for(p_));
    return p_;
  }

 private:
  // The slot with `role`; `what` names it in the refusal when the record lacks it.
  int64_t required(ArgRole role, const std::string& what, const char* why) const {
    auto v = call_.arg(role);
    if (!v || *v == format::kArgUnset) throw Refusal("the record has no " + what + ": " + why);
    return static_cast<int64_t>(*v);
  }
  int64_t optional_slot(ArgRole role, int64_t fallback) const {
    auto v = call_.arg(role);
    return v && *v != format::kArgUnset ? static_cast<int64_t>(*v) : fallback;
  }
  uint64_t address(ArgRole role) const {
    auto v = call_.arg(role);
    return v && *v != format::kArgUnset ? *v : 0;
  }

  void scalars(bool known_alpha, bool known_beta) {
    const format::Record& r = call_.rec();
    if (known_alpha) p_.alpha = {r.alpha[0], r.alpha[1]};
    if (known_beta) p_.beta = {r.beta[0], r.beta[1]};
    if (!known_alpha || !known_beta) {
      // Unknown (device pointer mode, or a grouped call's host arrays): beta 1 reads C as any
      // non-zero beta would, so a bad C still faults.
      if (!known_alpha) p_.alpha = {1, 0};
      if (!known_beta) p_.beta = {1, 0};
      out_.notes.push_back(std::string(!known_alpha && !known_beta ? "alpha and beta were" : !known_alpha ? "alpha was" : "beta was") +
                           " not recorded (device memory, or not read): the replay uses alpha 1, beta 1");
    }
  }

  void handle_state() {
    const format::Record& r = call_.rec();
    p_.pointer_mode = r.pointer_mode == 1 ? 1 : 0;
    if (r.pointer_mode < 0 && p_.kind != CallKind::kLegacyGemm && p_.kind != CallKind::kXtGemm) {
      out_.notes.push_back("the handle's pointer mode is unknown (created before tracing): the replay uses host");
    }
    p_.math_mode = r.math_mode;
    p_.own_stream = r.stream != 0 && p_.kind != CallKind::kXtGemm && p_.kind != CallKind::kLegacyGemm;
    if (p_.kind == CallKind::kGemm || p_.kind == CallKind::kGemmBatched || p_.kind == CallKind::kGemmStridedBatched ||
        p_.kind == CallKind::kGemmGrouped) {
      if (auto ws = workspace_before(trace_, r.handle, call_.seq)) p_.workspace_bytes = static_cast<int64_t>(*ws);
    }
  }

  // cuBLAS entry points (v2, _64, Ex, batched, strided, grouped, v1, cublasXt): the normalized
  // view says it all.
  void build_cublas() {
    const GemmCall g = call_.gemm();
    if (!g.valid) throw Refusal("the record lacks the GEMM's sizes (m, n, k)");
    p_.transa = g.trans_a;
    p_.transb = g.trans_b;
    p_.m = g.m, p_.n = g.n, p_.k = g.k;
    p_.compute_type = g.compute_type;
    check_sizes();
    int64_t members = 1;
    bool arrays = false;
    switch (p_.kind) {
      case CallKind::kGemmBatched:
        members = g.batch_count;
        arrays = true;
        break;
      case CallKind::kGemmStridedBatched:
        members = g.batch_count;
        break;
      case CallKind::kGemmGrouped:
        members = plan_groups(g);
        arrays = true;
        break;
      default:
        break;
    }
    if (members < 0 || members > (arrays ? kMaxMembers : int64_t{1} << 31)) {
      throw Refusal("a batch of " + std::to_string(members) + " members is not one a program could pass (the record is "
                    "damaged, or the call is invalid: cuBLAS rejects a negative batch count)");
    }
    p_.batch = members;
    p_.quantized = format::has_trait(call_.function, format::Trait::kQuantized);
    const bool uint8_bias = p_.quantized;
    const char* names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
      const Matrix& mat = g.op[i];
      OperandPlan o;
      if (p_.kind == CallKind::kGemmGrouped) o.member_capacity = group_capacity(i);
      o.name = names[i];
      o.data_type = uint8_bias ? kR8U : static_cast<int>(mat.type);
      if (element_bytes(static_cast<DataType>(o.data_type)) == 0) {
        throw Refusal("operand " + std::string(names[i]) + " has a data type the replay does not know (" +
                      std::to_string(static_cast<int>(mat.type)) + ")");
      }
      o.rows = mat.rows;
      o.cols = mat.cols;
      o.ld = mat.ld;
      o.members = members;
      o.pointer_array = arrays;
      o.stride = p_.kind == CallKind::kGemmStridedBatched ? mat.stride : 0;
      o.output = i == 2;
      // Pointer-array forms (batched and grouped): the array's address.
      place(o, g.pointer_arrays ? mat.array_ptr : mat.ptr, /*may_share=*/!arrays);
      add_operand(o);
    }
    const format::Record& r = call_.rec();
    if (uint8_bias) {
      p_.scalar_type = kR32F;  // no alpha or beta: biases, a multiplier and a shift instead
    } else {
      p_.scalar_type = scalar_type_of(*call_.function, g.compute_type, static_cast<int>(g.op[2].type));
      if (p_.kind == CallKind::kGemmGrouped) {
        scalars(groups_alpha_known_, groups_beta_known_);
        if (groups_alpha_known_) p_.alpha = {p_.groups.front().alpha, 0};
        if (groups_beta_known_) p_.beta = {p_.groups.front().beta, 0};
        for (GroupPlan& group : p_.groups) {
          if (!groups_alpha_known_) group.alpha = 1;
          if (!groups_beta_known_) group.beta = 1;
        }
      } else {
        scalars(r.flags & format::kFlagAlphaKnown, r.flags & format::kFlagBetaKnown);
      }
    }
    handle_state();
  }

  // A grouped call's groups (the trace's table, format version 5; older traces describe the
  // first group alone): p_.groups, and the problems of all of them, which are the members.
  int64_t plan_groups(const GemmCall& g) {
    const int64_t group_count = optional_slot(ArgRole::kGroupCount, 1);
    const std::optional<GemmGroups> table = gemm_groups_of(trace_, call_);
    if (!table) {
      GroupPlan first;
      first.transa = g.trans_a, first.transb = g.trans_b;
      first.m = g.m, first.n = g.n, first.k = g.k;
      first.lda = g.op[0].ld, first.ldb = g.op[1].ld, first.ldc = g.op[2].ld;
      first.size = required(ArgRole::kFirstGroupSize, "first_group_size", "the first group's size was not read");
      p_.groups = {first};
      groups_alpha_known_ = groups_beta_known_ = false;
      if (group_count > 1) {
        out_.notes.push_back("the trace describes the first of " + std::to_string(group_count) +
                             " groups only (no group table: older than format version 5): the replay runs that group alone");
      }
      return first.size;
    }
    int64_t problems = 0;
    for (const format::GemmGroup& recorded : table->groups) {
      GroupPlan one;
      one.transa = recorded.transa, one.transb = recorded.transb;
      one.m = recorded.m, one.n = recorded.n, one.k = recorded.k;
      one.lda = recorded.lda, one.ldb = recorded.ldb, one.ldc = recorded.ldc;
      one.size = recorded.size;
      one.alpha = recorded.alpha, one.beta = recorded.beta;
      groups_alpha_known_ = groups_alpha_known_ && (recorded.flags & format::kGroupAlphaKnown);
      groups_beta_known_ = groups_beta_known_ && (recorded.flags & format::kGroupBetaKnown);
      for (auto [name, v] : {std::pair{"m", one.m}, std::pair{"n", one.n}, std::pair{"k", one.k}, std::pair{"size", one.size}}) {
        if (v < 0) {
          throw Refusal("group " + std::to_string(p_.groups.size()) + " has " + name + " " + std::to_string(v) +
                        ": the call is invalid as recorded (cuBLAS rejects it with CUBLAS_STATUS_INVALID_VALUE)");
        }
      }
      for (const char* name : {"a", "b", "c"}) {
        OperandPlan o;
        o.name = name;
        set_group_shape(o, one);
        if (o.ld < std::max<int64_t>(1, o.rows) || o.ld > (int64_t{1} << 31) || o.cols > (int64_t{1} << 31)) {
          throw Refusal("group " + std::to_string(p_.groups.size()) + " has ld" + name + " " + std::to_string(o.ld) +
                        " for " + std::to_string(o.rows) + " x " + std::to_string(o.cols) +
                        ": the call is invalid as recorded (cuBLAS rejects it with CUBLAS_STATUS_INVALID_VALUE)");
        }
      }
      if (problems > kMaxMembers - one.size) break;  // refused below, with the count
      problems += one.size;
      p_.groups.push_back(one);
    }
    if (p_.groups.size() < table->groups.size()) return kMaxMembers + 1;
    if (group_count > static_cast<int64_t>(p_.groups.size())) {
      out_.notes.push_back("the trace holds the first " + std::to_string(p_.groups.size()) + " of " +
                           std::to_string(group_count) + " groups (groups_omitted " +
                           std::to_string(group_count - static_cast<int64_t>(p_.groups.size())) +
                           "): the replay runs those groups only");
    }
    return problems;
  }

  // Elements of one member of operand `i` (A, B, C) that hold the largest group's matrix.
  uint64_t group_capacity(int i) const {
    uint64_t most = 0;
    for (const GroupPlan& group : p_.groups) {
      OperandPlan o;
      o.name = std::string(1, "abc"[i]);
      set_group_shape(o, group);
      most = std::max(most, o.member_elements());
    }
    return most;
  }

  // cublasLtMatmul: the descriptors' settings the shim copied into derived slots.
  void build_lt() {
    const char* why = "the call's descriptors were not recorded (created before tracing, or built inside another "
                      "library call: replay the outer call instead)";
    // Layouts the replay does not rebuild: refused, rather than replayed as something else.
    for (int64_t offset : call_.slot.plane_offset) {
      if (offset != 0) throw Refusal("planar complex layouts (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) are not replayed");
    }
    if (optional_slot(ArgRole::kBatchMode, 0) != 0) {
      throw Refusal("pointer-array batches (CUBLASLT_MATRIX_LAYOUT_BATCH_MODE) are not replayed");
    }
    p_.lt.compute_type = static_cast<int>(required(ArgRole::kComputeType, "compute_type", why));
    p_.lt.scale_type = static_cast<int>(required(ArgRole::kScaleType, "scale_type", why));
    p_.m = required(ArgRole::kM, "m", why);
    p_.n = required(ArgRole::kN, "n", why);
    p_.k = required(ArgRole::kK, "k", why);
    p_.transa = static_cast<int>(optional_slot(ArgRole::kTransA, 0));
    p_.transb = static_cast<int>(optional_slot(ArgRole::kTransB, 0));
    p_.lt.epilogue = static_cast<int>(optional_slot(ArgRole::kEpilogue, 1));
    p_.compute_type = p_.lt.compute_type;
    p_.scalar_type = p_.lt.scale_type;
    check_sizes();
    const int64_t batch = optional_slot(ArgRole::kBatchCount, 1);
    if (batch < 1 || batch > (int64_t{1} << 31)) throw Refusal("a batch count of " + std::to_string(batch) + " is not valid");
    p_.batch = batch;
    const char* names[4] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; ++i) {
      auto role = [i](ArgRole a_role) { return format::operand_role(a_role, i); };
      OperandPlan o;
      o.name = names[i];
      o.data_type = static_cast<int>(required(role(ArgRole::kAType), o.name + "_type", why));
      if (element_bytes(static_cast<DataType>(o.data_type)) == 0) {
        throw Refusal("operand " + o.name + " has a data type the replay does not know (" + std::to_string(o.data_type) + ")");
      }
      // A layout's rows and cols are the stored matrix's own (ORDER says only how they lie).
      if (i == 0) {
        o.rows = p_.transa ? p_.k : p_.m;
        o.cols = p_.transa ? p_.m : p_.k;
      } else if (i == 1) {
        o.rows = p_.transb ? p_.n : p_.k;
        o.cols = p_.transb ? p_.k : p_.n;
      } else {
        o.rows = p_.m;
        o.cols = p_.n;
      }
      o.ld = required(role(ArgRole::kLda), "ld" + o.name, why);
      o.row_order = optional_slot(role(ArgRole::kAOrder), 0) == 1;
      o.stride = batch > 1 ? optional_slot(role(ArgRole::kStrideA), 0) : 0;
      o.members = batch;
      o.output = i == 3;
      place(o, address(role(ArgRole::kA)), /*may_share=*/true);
      add_operand(o);
    }
    if ((p_.lt.epilogue & 4) && address(ArgRole::kBias) != 0) {
      // CUBLASLT_EPILOGUE_*BIAS: a vector of m, in D's type (bf16 for fp8 outputs), as cuBLASLt defaults.
      OperandPlan bias;
      bias.name = "bias";
      const int d_type = p_.operand("d")->data_type;
      bias.data_type = element_bytes(static_cast<DataType>(d_type)) == 1 ? kR16BF : d_type;
      bias.rows = p_.m, bias.cols = 1, bias.ld = std::max<int64_t>(p_.m, 1);
      place(bias, address(ArgRole::kBias), false);
      add_operand(bias);
    }
    for (const auto& [role, scale] : {std::pair{ArgRole::kAScale, "a_scale"}, std::pair{ArgRole::kBScale, "b_scale"},
                                      std::pair{ArgRole::kDScale, "d_scale"}}) {
      if (address(role) == 0) continue;
      OperandPlan s;
      s.name = scale;
      s.data_type = kR32F;
      s.rows = s.cols = s.ld = 1;
      s.fill = Fill::kOnes;
      place(s, address(role), false);
      add_operand(s);
    }
    if (address(ArgRole::kWorkspace) != 0) {
      p_.lt.workspace_bytes = optional_slot(ArgRole::kWorkspaceBytes, 0);
      if (p_.lt.workspace_bytes < 0) throw Refusal("the workspace size is negative");
    }
    p_.values["workspace_size_in_bytes"] = p_.lt.workspace_bytes;
    if (address(ArgRole::kAlgo) != 0) {
      // Format version 5 records the algorithm's bytes (a trace with an algo_id slot has them).
      if (call_.function != nullptr && slot_with_role(*call_.function, ArgRole::kLtAlgoId) >= 0) {
        p_.lt.algo.assign(std::begin(call_.slot.lt_algo), std::end(call_.slot.lt_algo));
        // What it is, as the program's cuBLASLt reads the bytes (when it can be loaded here).
        prefer_cublaslt_of(trace_);
        std::string what;
        if (const nlohmann::ordered_json args = call_arguments(call_); args.contains("algo_config")) {
          what = " (" + argument_pieces(nlohmann::ordered_json{{"algo_config", args["algo_config"]}}).front() + ")";
        }
        out_.notes.push_back("the program's cuBLASLt algorithm" + what +
                             " is replayed as recorded (the same library version is needed)");
      } else {
        out_.notes.push_back("the program chose a cuBLASLt algorithm (not recorded): the replay lets cuBLASLt pick one");
      }
    }
    const format::Record& r = call_.rec();
    scalars(r.flags & format::kFlagAlphaKnown, r.flags & format::kFlagBetaKnown);
    p_.pointer_mode = r.pointer_mode == 1 ? 1 : 0;
    p_.own_stream = address(ArgRole::kStream) != 0;
  }

  void check_sizes() const {
    for (auto [name, v] : {std::pair{"m", p_.m}, std::pair{"n", p_.n}, std::pair{"k", p_.k}}) {
      if (v < 0) {
        throw Refusal(std::string(name) + " is " + std::to_string(v) +
                      ": the call is invalid as recorded (cuBLAS rejects it with CUBLAS_STATUS_INVALID_VALUE); "
                      "fix the caller, there is nothing to replay");
      }
    }
  }

  // A null operand the call must read or write makes the call fail whatever the library: the
  // cause is before it (an allocation that failed, a pointer never set).
  void check_null_operands() const {
    const bool alpha_zero = (call_.rec().flags & format::kFlagAlphaKnown) && p_.alpha == std::array<double, 2>{0, 0};
    const bool product = p_.m > 0 && p_.n > 0 && p_.k > 0 && !alpha_zero;
    std::vector<std::string> nulls;
    for (const OperandPlan& o : p_.operands) {
      const bool needed = o.name == "a" || o.name == "b" ? product : o.output ? p_.m > 0 && p_.n > 0 : false;
      if (needed && o.null) nulls.push_back(o.name);
    }
    if (nulls.empty()) return;
    std::string names;
    for (size_t i = 0; i < nulls.size(); ++i) names += (i == 0 ? "" : i + 1 == nulls.size() ? " and " : ", ") + nulls[i];
    throw Refusal(names + (nulls.size() > 1 ? " are null pointers" : " is a null pointer") +
                  ": the call cannot work as recorded, on any library. The cause is earlier: an allocation that "
                  "failed (after an asynchronous error, every cudaMalloc fails) or a pointer never set; "
                  "`cublasspy report` shows the calls before it. There is nothing to replay");
  }

  // The program's address: null stays null, the alignment modulo 256 is kept, and an address
  // an earlier operand had means the same memory.
  void place(OperandPlan& o, uint64_t original, bool may_share) {
    o.null = original == 0;
    o.misalignment = static_cast<uint32_t>(original % 256);
    if (!may_share || o.null) return;
    for (const auto& [addr, name] : seen_) {
      if (addr == original) {
        o.same_memory_as = name;
        return;
      }
    }
    seen_.emplace_back(original, o.name);
  }

  // Checks an operand's numbers and its extent before anything is allocated.
  void add_operand(const OperandPlan& o) {
    const std::string ld_name = o.name.size() == 1 ? "ld" + o.name : o.name + " ld";
    if (o.rows < 0 || o.cols < 0) throw Refusal("operand " + o.name + " has a negative size");
    const int64_t spans = o.row_order ? o.cols : o.rows;
    if (o.ld < std::max<int64_t>(1, spans)) {
      throw Refusal(ld_name + " " + std::to_string(o.ld) + " is below the " + std::to_string(spans) + " " +
                    (o.row_order ? "columns" : "rows") + " of " + o.name +
                    " as stored: the call is invalid as recorded (cuBLAS rejects it with "
                    "CUBLAS_STATUS_INVALID_VALUE); fix the caller, there is nothing to replay");
    }
    if (o.stride < 0) throw Refusal("the stride of " + o.name + " is negative (" + std::to_string(o.stride) + ")");
    // The extent, in 128 bits: no product of recorded numbers may wrap.
    using u128 = unsigned __int128;
    const u128 elem = static_cast<u128>(element_bytes(static_cast<DataType>(o.data_type)));
    u128 one = 0;
    if (o.rows > 0 && o.cols > 0) {
      one = o.row_order ? static_cast<u128>(o.rows - 1) * static_cast<u128>(o.ld) + static_cast<u128>(o.cols)
                        : static_cast<u128>(o.cols - 1) * static_cast<u128>(o.ld) + static_cast<u128>(o.rows);
    }
    u128 bytes = one * elem;
    if (o.pointer_array) {
      bytes *= static_cast<u128>(std::max<int64_t>(o.members, 1));
    } else if (o.members > 1 && o.stride > 0 && one > 0) {
      bytes = (one + static_cast<u128>(o.stride) * static_cast<u128>(o.members - 1)) * elem;
    }
    if (o.null || !o.same_memory_as.empty()) bytes = 0;  // nothing of its own to allocate
    if (bytes > static_cast<u128>(options_.max_bytes)) {
      throw Refusal("operand " + o.name + " alone would need " + byte_text_128(bytes) + " of device memory, above --max-bytes " +
                    byte_text(options_.max_bytes) + ": pass a larger --max-bytes if the device has room");
    }
    p_.operands.push_back(o);
  }

  static std::string byte_text_128(unsigned __int128 bytes) {
    if (bytes > static_cast<unsigned __int128>(UINT64_MAX)) return "more than 16 EiB";
    return byte_text(static_cast<uint64_t>(bytes));
  }

  void check_total() const {
    if (p_.workspace_bytes > 0 && static_cast<uint64_t>(p_.workspace_bytes) > options_.max_bytes) {
      throw Refusal("the handle's workspace (" + byte_text(static_cast<uint64_t>(p_.workspace_bytes)) +
                    ") is above --max-bytes " + byte_text(options_.max_bytes));
    }
    if (p_.lt.workspace_bytes > 0 && static_cast<uint64_t>(p_.lt.workspace_bytes) > options_.max_bytes) {
      throw Refusal("the cuBLASLt workspace (" + byte_text(static_cast<uint64_t>(p_.lt.workspace_bytes)) +
                    ") is above --max-bytes " + byte_text(options_.max_bytes));
    }
    const uint64_t total = p_.total_bytes();
    if (total > options_.max_bytes) {
      std::string parts;
      for (const OperandPlan& o : p_.operands) {
        if (o.null || !o.same_memory_as.empty()) continue;
        uint64_t b = o.bytes() * static_cast<uint64_t>(o.pointer_array ? std::max<int64_t>(o.members, 1) : 1);
        parts += (parts.empty() ? "" : ", ") + o.name + " " + byte_text(b);
      }
      throw Refusal("the replay would need " + byte_text(total) + " of device memory (" + parts + "), above --max-bytes " +
                    byte_text(options_.max_bytes) + ": pass a larger --max-bytes if the device has room");
    }
  }

  // The .npy dumps next to the trace, checked against the operands they claim to be: the call's
  // own, or each group's of a grouped call (its members at the group's shape, docs/SCAN.md). A
  // group whose dump of an operand is missing or unusable keeps seeded values there, and a note
  // names it; the output's dump taken after a successful call is the program's result, which
  // --verify compares the replay's with where every input came from the dumps.
  void attach_dumps() {
    const format::Record& r = call_.rec();
    const bool call_succeeded = call_.state == format::RecordState::kCompleted && r.status == 0 && !call_.async_fault();
    const bool grouped = p_.kind == CallKind::kGemmGrouped && !p_.groups.empty();
    const size_t parts = grouped ? p_.groups.size() : 1;
    OperandPlan* output = p_.operand(p_.kind == CallKind::kLtMatmul ? "d" : "c");
    std::vector<std::string> missing;  // "group 1's a (PATH)": absent while other dumps exist
    bool any_file = false, result_note = false;
    std::vector<std::optional<DumpPiece>> results(parts);
    std::vector<std::set<std::string>> from_dump(parts);  // per group: operands its dumps fill
    for (size_t g = 0; g < parts; ++g) {
      int64_t first = 0;
      const ReplayPlan view = grouped ? group_plan(p_, g, first) : p_;
      const std::string whose = grouped && parts > 1 ? "group " + std::to_string(g) + "'s dump of " : "the dump of ";
      for (OperandPlan& o : p_.operands) {
        if (o.name.size() != 1 || o.null) continue;  // a, b, c, d only
        const OperandPlan& shape = *view.operand(o.name);
        std::string problem;
        auto dump = find_operand_dump(trace_.path(), call_.seq, o.name, &problem, g);
        if (!dump) {
          if (!problem.empty()) {
            any_file = true;
            out_.notes.push_back(whose + o.name + " is unusable (" + problem + ")" + fallback(grouped, o.name));
          } else if (grouped && parts > 1) {
            missing.push_back("group " + std::to_string(g) + "'s " + o.name + " (" +
                              dump_path(trace_.path(), call_.seq, o.name, ".npy", g) + ")");
          }
          continue;
        }
        any_file = true;
        // The file holds the members one after the other (a pointer array's), or the whole extent.
        DumpPiece piece;
        piece.path = dump->npy_path;
        piece.offset = dump->data_offset;
        piece.first_member = first;
        piece.members = grouped || o.pointer_array ? std::max<int64_t>(shape.members, 1) : 1;
        piece.member_bytes = grouped ? shape.member_elements() * static_cast<uint64_t>(element_bytes(static_cast<DataType>(o.data_type)))
                                     : o.bytes();
        const std::string type_name = dump->meta.value("type", std::string());
        const char* want_type = cuda_name(NameSet::kDataType, o.data_type);
        if (dump->data_bytes != piece.bytes() || (!type_name.empty() && want_type && type_name != want_type)) {
          out_.notes.push_back(whose + o.name + " (" + std::to_string(dump->data_bytes) + " bytes, " +
                               (type_name.empty() ? "?" : type_name) + ") does not match the operand (" +
                               std::to_string(piece.bytes()) + " bytes, " + (want_type ? want_type : "?") + "): not used" +
                               fallback(grouped, o.name));
          continue;
        }
        if (dump->holds_result() && call_succeeded) {
          // Taken after the call from memory it wrote: the program's result, not an input.
          if (output != nullptr && (o.output || output->same_memory_as == o.name)) results[g] = piece;
          if (o.output && !result_note) {
            result_note = true;
            const bool several = grouped && parts > 1;
            out_.notes.push_back(std::string(several ? "the dumps of " : "the dump of ") + o.name +
                                 (several ? " were taken after the call and hold its result" : " was taken after the call and holds its result") +
                                 ", not its input: " + o.name + " gets random values");
          }
          continue;
        }
        if (!o.same_memory_as.empty()) continue;  // the memory's owner brings the values
        from_dump[g].insert(o.name);
        if (std::find(out_.dumped_operands.begin(), out_.dumped_operands.end(), o.name) == out_.dumped_operands.end()) {
          out_.dumped_operands.push_back(o.name);
        }
        if (options_.data == DataSource::kDump) {
          o.fill = Fill::kDump;
          o.dump.push_back(piece);
        }
      }
    }
    if (any_file) {
      for (const std::string& m : missing) out_.notes.push_back(m + " has no dump: its members get random values");
    }
    if (options_.data != DataSource::kDump) return;
    if (out_.dumped_operands.empty()) {
      throw Refusal("there are no usable operand dumps of call " + std::to_string(call_.seq) + " next to " + trace_.path() +
                    " (" + dump_path(trace_.path(), call_.seq, "a", ".npy") +
                    " ...): record them with `cublasspy run --dump failing` (or --dump all)");
    }
    attach_program_results(output, results, from_dump);
  }

  static std::string fallback(bool grouped, const std::string& name) {
    return grouped ? ": the group's " + name + " gets random values" : "";
  }

  // The program's result of each group whose inputs all came from its dumps (C too, unless beta is
  // 0), for --verify to compare the replay's with; a note for the groups that cannot be.
  void attach_program_results(OperandPlan* output, const std::vector<std::optional<DumpPiece>>& results,
                              const std::vector<std::set<std::string>>& from_dump) {
    if (output == nullptr) return;
    const bool grouped = results.size() > 1;
    std::vector<std::string> not_compared;
    for (size_t g = 0; g < results.size(); ++g) {
      if (!results[g]) continue;
      const bool beta_zero = p_.kind == CallKind::kGemmGrouped && !p_.groups.empty()
                                 ? groups_beta_known_ && p_.groups[g].beta == 0
                                 : (call_.rec().flags & format::kFlagBetaKnown) && p_.beta == std::array<double, 2>{0, 0};
      std::string lacking;
      for (const OperandPlan& o : p_.operands) {
        if (o.null || !o.same_memory_as.empty() || from_dump[g].count(o.name)) continue;
        if (o.name == "c" ? beta_zero : &o == output) continue;  // not read: C with beta 0, cuBLASLt's D
        if (o.name == "c") {
          lacking = "beta is not 0 and C's values before the call were not dumped";
        } else if (lacking.empty()) {
          lacking = o.name + " has no usable dump";
        }
      }
      if (lacking.empty()) {
        output->program_result.push_back(*results[g]);
      } else {
        not_compared.push_back((grouped ? "group " + std::to_string(g) + ": " : "") + lacking);
      }
    }
    if (!not_compared.empty() && options_.verify) {
      std::string text;
      for (const std::string& n : not_compared) text += (text.empty() ? "" : "; ") + n;
      out_.notes.push_back("--verify does not compare the replay's result with the program's (dumped) result (" + text + ")");
    }
  }

  const TraceFile& trace_;
  const CallView& call_;
  const PlanOptions& options_;
  PlanResult& out_;
  ReplayPlan p_;
  bool groups_alpha_known_ = true, groups_beta_known_ = true;  // every recorded group's scalar
  std::vector<std::pair<uint64_t, std::string>> seen_;
};

}  // namespace

std::string byte_text(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char text[32];
  if (u == 0) std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
  else std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
  return text;
}

ToleranceInputs tolerance_inputs_for(const ReplayPlan& p) {
  ToleranceInputs t;
  const OperandPlan* out = p.operand(p.kind == CallKind::kLtMatmul ? "d" : "c");
  t.output_type = out ? out->data_type : kR32F;
  t.input_type = p.operand("a") ? p.operand("a")->data_type : kR32F;
  t.compute_type = p.compute_type;
  t.math_mode = p.math_mode;
  // Hgemm-style entry points: half elements, and no compute type to widen the sums.
  t.half_accumulate = p.compute_type == -1 && t.input_type == kR16F && p.kind != CallKind::kLtMatmul;
  t.k = p.k;
  for (const GroupPlan& g : p.groups) t.k = std::max(t.k, g.k);  // grouped: the longest sums
  return t;
}

std::optional<uint64_t> workspace_before(const TraceFile& trace, uint64_t handle, uint64_t seq) {
  std::optional<uint64_t> found;
  trace.for_each_call([&](const CallView& c) {
    if (c.seq >= seq || c.failed() || c.in_flight()) return;
    // cublasSetWorkspace: the handle call that sets a workspace's size.
    if (c.function == nullptr || c.function->family != static_cast<uint16_t>(Family::kHandle)) return;
    if (c.arg(ArgRole::kHandle).value_or(0) != handle) return;
    auto bytes = c.arg(ArgRole::kWorkspaceBytes);
    if (bytes && *bytes != format::kArgUnset) found = *bytes;
  });
  return found;
}

PlanResult build_plan(const TraceFile& trace, const CallView& call, const PlanOptions& options) {
  PlanResult out;
  try {
    out.plan = Builder(trace, call, options, out).build();
  } catch (const Refusal& r) {
    out.plan.reset();
    out.refusal = r.what();
  }
  return out;
}

}  // namespace cublasspy::replay
