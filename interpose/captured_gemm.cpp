#include "captured_gemm.h"

#include "gemm_view.h"
#include "graph_registry.h"
#include "handle_registry.h"
#include "hook_table.h"

namespace cublasspy {

void mark_if_captured(CallContext& ctx, format::RecordSlot& slot, uint64_t seq) {
  const uint64_t capture_id = capture_of(ctx.rec.stream);
  slot.capture_id = capture_id;
  if (capture_id == 0) return;
  using format::ArgRole;
  if (const GemmCall* g = gemm_view(ctx)) {
    constexpr ArgRole kRoles[4] = {ArgRole::kA, ArgRole::kB, ArgRole::kC, ArgRole::kD};
    for (int i = 0; i < 4; ++i) {
      if (i == 3 && g->output_is_c) break;
      const Matrix& m = g->op[i];
      const uint64_t address = m.ptr != 0 ? m.ptr : m.array_ptr;
      note_captured_operand(capture_id, {seq, address, static_cast<uint32_t>(kRoles[i])});
    }
  }
  // The workspace: a cuBLAS handle's (cublasSetWorkspace), or a cuBLASLt matmul's argument.
  uint64_t workspace = ctx.handle_state != nullptr ? ctx.handle_state->workspace.load(std::memory_order_relaxed) : 0;
  const format::FunctionEntry& fn = function_table()[ctx.rec.function_id];
  for (int i = 0; i < fn.arg_count && workspace == 0; ++i) {
    if (static_cast<ArgRole>(fn.args[i].role) == ArgRole::kWorkspace) workspace = ctx.rec.args[i];
  }
  note_captured_operand(capture_id, {seq, workspace, static_cast<uint32_t>(ArgRole::kWorkspace)});
}

}  // namespace cublasspy
