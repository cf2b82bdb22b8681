// What one replay does, decided by the tool from a trace record (plan_builder.h) and carried to
// the runner (a fresh process, tools/replay/runner) as JSON on its stdin. Everything the runner
// needs is here, already checked: it never sees the trace, and trusts only numbers the tool
// has bounded (plan_builder.cpp refuses what would not fit --max-bytes).
//
// Matrices are described as stored (before any transpose), column-major unless `row_order`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cublasspy::replay {

// How the entry point is driven: which handle, how operands are addressed.
enum class CallKind {
  kGemm,                 // cublas<T>gemm, GemmEx, ... (one problem)
  kGemmBatched,          // pointer arrays
  kGemmStridedBatched,   // one allocation per operand, members `stride` apart
  kGemmGrouped,          // per-group host arrays of sizes, pointer arrays of members
  kLtMatmul,             // cublasLtMatmul: descriptors rebuilt from the record
  kLegacyGemm,           // v1 API: no handle, scalars by value, status from cublasGetError
  kXtGemm,               // cublasXt: host memory, its own handle
};
const char* call_kind_name(CallKind kind);  // "gemm", "gemm_batched", ...
bool parse_call_kind(const std::string& text, CallKind& out);

// Where an operand's initial values come from.
enum class Fill { kRandom, kOnes, kDump };

// Values read from a dump file (docs/SCAN.md): `members` matrices of `member_bytes` each, back to
// back in the file from `offset`, into the operand's members from `first_member`. A plain or
// strided operand has one piece, its whole extent (`members` 1); a grouped call's operand one
// per group whose dump is usable (group g's file holds its members, each at the group's shape).
struct DumpPiece {
  std::string path;
  uint64_t offset = 0;
  int64_t first_member = 0;
  int64_t members = 1;
  uint64_t member_bytes = 0;
  uint64_t bytes() const { return member_bytes * static_cast<uint64_t>(members); }
};

struct OperandPlan {
  std::string name;          // "a", "b", "c", "d" (cuBLASLt), "bias", "a_scale", "b_scale", "d_scale"
  int data_type = 0;         // cudaDataType
  int64_t rows = 0, cols = 0, ld = 0;
  bool row_order = false;    // cuBLASLt CUBLASLT_ORDER_ROW: element (r, c) at r * ld + c
  int64_t stride = 0;        // elements from one batch member to the next (0: all share one)
  int64_t members = 1;       // batch members
  bool pointer_array = false;  // members allocated apart, passed as a device array of pointers
  // Pointer arrays: elements allocated per member when more than one matrix spans (a grouped
  // call's members are as large as its largest group's, so one layout serves every group).
  uint64_t member_capacity = 0;
  bool null = false;         // the program passed a null pointer, and so will the replay
  uint32_t misalignment = 0; // the program's address modulo 256, kept so alignment bugs replay
  std::string same_memory_as;  // an earlier operand the program passed the same address for
  bool output = false;       // written by the call (C of cuBLAS, D of cuBLASLt)
  Fill fill = Fill::kRandom;
  // Fill::kDump: where the values come from; members no piece covers keep seeded values (a
  // grouped call's group without a usable dump).
  std::vector<DumpPiece> dump;
  // The output: the program's result as dumped after its call, for --verify to compare the
  // replay's with, where the inputs it came from are all known (every input from its dump).
  std::vector<DumpPiece> program_result;

  uint64_t member_elements() const;  // one matrix: first element to one past the last
  uint64_t extent_elements() const;  // the allocation: every member (pointer arrays: one, at capacity)
  uint64_t bytes() const;            // extent_elements() * element size (0 for unknown types)
  // Element (r, c) of member b, in elements from the start of the member's allocation.
  uint64_t offset(int64_t r, int64_t c) const {
    return static_cast<uint64_t>(row_order ? r * ld + c : r + c * ld);
  }
};

// The cuBLASLt matmul descriptor, as recorded.
struct LtPlan {
  int compute_type = 0;
  int scale_type = 0;
  int epilogue = 1;          // CUBLASLT_EPILOGUE_DEFAULT
  int64_t workspace_bytes = 0;
  // The program's preset algorithm (RecordSlot::lt_algo, format version 5): passed back to
  // cublasLtMatmul as it was; empty when the program let cuBLASLt pick, or the trace is older.
  std::vector<uint64_t> algo;
};

// One group of a grouped GEMM, as the program passed it (its scalars: 1, 1 when not recorded).
struct GroupPlan {
  int transa = 0, transb = 0;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  int64_t size = 0;          // problems in the group
  double alpha = 1, beta = 1;
};

struct ReplayPlan {
  std::string function;      // exported name, resolved by dlsym in the runner
  bool quantized = false;    // biases, a multiplier and a shift in place of alpha and beta
                             // (cublasUint8gemmBias: Trait::kQuantized)
  CallKind kind = CallKind::kGemm;
  uint64_t call_seq = 0;     // for messages

  // Integer and enum arguments by the trace's slot names (m, lda, transa, a_type, algo, ...),
  // exactly as the program passed them.
  std::map<std::string, int64_t> values;

  // Handle state at the time of the call.
  int pointer_mode = 0;      // 0 host, 1 device (cuBLASLt: the descriptor's)
  int math_mode = -1;        // -1: unknown, leave the library's default
  bool own_stream = false;   // the program used a stream other than the default one
  int64_t workspace_bytes = -1;  // cublasSetWorkspace on the handle; -1: not set

  // alpha and beta: their storage type (cudaDataType) and values.
  int scalar_type = 0;
  std::array<double, 2> alpha{1, 0}, beta{0, 0};

  // The GEMM (of the first group, for grouped calls): what the reference computes.
  int transa = 0, transb = 0;
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;         // members (grouped: the first group's size)
  int compute_type = -1;     // cublasComputeType_t; -1 for the typed entry points
  std::vector<OperandPlan> operands;
  LtPlan lt;
  // Grouped calls: every group the replay issues, in order; their problems are the members of
  // A, B and C one after the other. The fields above describe the first group.
  std::vector<GroupPlan> groups;

  // Execution.
  uint64_t seed = 1;
  int64_t repeat = 1;
  bool verify = false;
  double tolerance = 0;      // largest accepted error relative to the magnitudes involved
  double timeout_s = 0;      // informational: the tool enforces it

  const OperandPlan* operand(const std::string& name) const;
  OperandPlan* operand(const std::string& name);
  uint64_t total_bytes() const;  // every allocation the runner makes, workspaces included
};

// Operand o ("a", "b" or "c") as stored in group g: its rows, cols and leading dimension.
void set_group_shape(OperandPlan& o, const GroupPlan& g);

// Group `g` of a grouped plan as a plan of its own (its shape, scalars and size; A, B and C its
// members, at the grouped operands' capacity), for the reference and the output scan; `first`
// gets the index of its first member among the call's.
ReplayPlan group_plan(const ReplayPlan& p, size_t g, int64_t& first);

void to_json(nlohmann::json& j, const OperandPlan& p);
void from_json(const nlohmann::json& j, OperandPlan& p);
void to_json(nlohmann::json& j, const ReplayPlan& p);
void from_json(const nlohmann::json& j, ReplayPlan& p);

}  // namespace cublasspy::replay
