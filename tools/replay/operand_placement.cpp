// Where a plan's operands lie and what they cost: the program's addresses kept as far as they
// matter (null, alignment, shared memory), every extent checked against --max-bytes before a
// runner allocates anything.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "replay/plan_steps.h"

namespace cublasspy::replay {

namespace {

std::string byte_text_128(unsigned __int128 bytes) {
  if (bytes > static_cast<unsigned __int128>(UINT64_MAX)) return "more than 16 EiB";
  return byte_text(static_cast<uint64_t>(bytes));
}

}  // namespace

// A null operand the call must read or write makes the call fail whatever the library: the
// cause is before it (an allocation that failed, a pointer never set).
void PlanBuilder::check_null_operands() const {
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
void PlanBuilder::place(OperandPlan& o, uint64_t original, bool may_share) {
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
void PlanBuilder::add_operand(const OperandPlan& o) {
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

void PlanBuilder::check_total() const {
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

}  // namespace cublasspy::replay
