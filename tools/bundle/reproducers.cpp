#include "bundle/reproducers.h"

#include <fmt/format.h>

#include "replay/call_selection.h"
#include "replay/emitters.h"
#include "replay/plan_builder.h"

namespace cublasspy::tools::bundle {

std::vector<Reproducer> reproducers_of(const TraceFile& trace, const std::string& trace_member, size_t max,
                                       size_t& more) {
  std::vector<Reproducer> out;
  more = 0;
  std::string error;
  const std::string name = trace_member.substr(trace_member.rfind('/') + 1);
  for (const CallView& call : replay::select_calls(trace, std::nullopt, error)) {
    if (!call.function || !call.gemm().valid) continue;  // a GEMM is what replay reproduces
    if (out.size() == max) {
      ++more;
      continue;
    }
    Reproducer r;
    r.seq = call.seq;
    r.function = call.function_name();
    r.outcome = replay::original_outcome_text(replay::original_of(call));
    replay::PlanOptions options;
    // The reproducer allocates what the program did; the replay's guard against a corrupt
    // record's sizes stays, at a size no GPU has.
    options.max_bytes = uint64_t{1} << 40;
    replay::PlanResult plan = replay::build_plan(trace, call, options);
    if (!plan.plan) {
      r.refusal = plan.refusal;
      out.push_back(std::move(r));
      continue;
    }
    replay::EmitContext context;
    context.trace_path = trace_member;
    context.seq = call.seq;
    context.original_outcome = r.outcome;
    context.dumped_operands = plan.dumped_operands;
    context.notes = plan.notes;
    r.cpp_name = fmt::format("{}.call{}.cpp", name, call.seq);
    r.python_name = fmt::format("{}.call{}.py", name, call.seq);
    context.cpp_file_name = r.cpp_name;
    r.build_command = replay::cpp_build_command(r.cpp_name);
    r.cpp = replay::emit_cpp(*plan.plan, context);
    r.python = replay::emit_python(*plan.plan, context);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cublasspy::tools::bundle
