// The operand dumps next to the trace, in a plan: which ones stand for the call's inputs, and
// which hold the program's result for --verify to compare with.
#include <algorithm>
#include <set>
#include <string>

#include "common/cuda_names.h"
#include "dump/npy_writer.h"
#include "replay/dump_files.h"
#include "replay/plan_steps.h"

namespace cublasspy::replay {

namespace {

std::string fallback(bool grouped, const std::string& name) {
  return grouped ? ": the group's " + name + " gets random values" : "";
}

}  // namespace

// The .npy dumps next to the trace, checked against the operands they claim to be: the call's
// own, or each group's of a grouped call (its members at the group's shape, docs/SCAN.md). A
// group whose dump of an operand is missing or unusable keeps seeded values there, and a note
// names it; the output's dump taken after a successful call is the program's result, which
// --verify compares the replay's with where every input came from the dumps.
void PlanBuilder::attach_dumps() {
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

// The program's result of each group whose inputs all came from its dumps (C too, unless beta is
// 0), for --verify to compare the replay's with; a note for the groups that cannot be.
void PlanBuilder::attach_program_results(OperandPlan* output, const std::vector<std::optional<DumpPiece>>& results,
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

}  // namespace cublasspy::replay
