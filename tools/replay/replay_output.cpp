#include "replay/replay_output.h"

#include <cinttypes>
#include <cstdio>

#include "common/cuda_names.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {
namespace {

const char* data_name(DataSource d) { return d == DataSource::kDump ? "dump" : "random"; }

std::string original_text(const OriginalCall& o) {
  if (o.crashed) return "crashed in the call";
  if (o.in_flight) return "never returned (the process died or hung in the call)";
  std::string text = o.status == 0 ? "returned success" : "returned " + name_and_number(NameSet::kCublasStatus, o.status);
  if (o.async_status != 0) text += "; an asynchronous error followed: " + name_and_number(NameSet::kCudaError, o.async_status);
  if (o.nonfinite_output) text += "; a scan found " + std::to_string(o.nonfinite_output) + " NaN/Inf values in its result";
  return text;
}

std::string run_line(const ReplayRun& r, uint64_t seed) {
  std::string head = r.data == DataSource::kDump ? "with the captured operands" : "with random data (seed " + std::to_string(seed) + ")";
  if (!r.ran) return head + ": could not run: " + r.setup_message;
  std::string text;
  if (r.crashed) {
    text = "the runner died in the call";
    if (r.signal) text += " (signal " + std::to_string(r.signal) + ")";
  } else if (r.timed_out) {
    text = "the call did not return (timed out)";
  } else {
    text = r.status == 0 ? "CUBLAS_STATUS_SUCCESS" : name_and_number(NameSet::kCublasStatus, r.status);
    if (r.sync_error != 0) text += ", then " + name_and_number(NameSet::kCudaError, r.sync_error) + " when synchronizing";
    if (r.nonfinite_output) text += "; the result holds " + std::to_string(r.nonfinite_output) + " NaN/Inf values";
  }
  if (r.requested > 1) {
    text += "; " + std::to_string(r.runs) + " of " + std::to_string(r.requested) + " runs made";
    if (r.failed_run) text += ", run " + std::to_string(*r.failed_run + 1) + " failed";
  }
  if (r.time_ns.is_object()) {
    if (r.runs > 1) {
      text += "; call + sync: min " + duration_text(r.time_ns["min"].get<int64_t>()) + ", median " +
              duration_text(r.time_ns["median"].get<int64_t>()) + ", max " + duration_text(r.time_ns["max"].get<int64_t>());
    } else {
      text += " in " + duration_text(r.time_ns["min"].get<int64_t>());
    }
  }
  return head + ": " + text;
}

std::string verify_line(const nlohmann::json& v, const std::string& basis) {
  if (!v.is_object()) return "";
  if (!v.value("available", false)) return "not verified: " + v.value("unavailable", std::string("?"));
  char text[320], error[32] = "infinite";
  const auto& mx = v["max_error"];
  if (mx.is_number()) std::snprintf(error, sizeof error, "%.3g", mx.get<double>());
  std::snprintf(text, sizeof text, "%s: largest error %s (tolerance %.3g: %s) over %" PRIu64 "%s elements",
                v.value("passed", false) ? "matches the host reference" : "WRONG RESULT", error, v.value("tolerance", 0.0),
                basis.c_str(), v.value("checked", uint64_t{0}), v.value("sampled", false) ? " sampled" : "");
  std::string line = text;
  if (v.value("outside_writes", uint64_t{0}) > 0) {
    line += "; " + std::to_string(v.value("outside_writes", uint64_t{0})) + " elements written outside the result";
  }
  // A grouped call: each group's elements checked and verdict ("group 0: 40 ok, group 1: 6 WRONG").
  if (v.contains("groups") && v["groups"].is_array()) {
    line += " (";
    for (size_t g = 0; g < v["groups"].size(); ++g) {
      const auto& one = v["groups"][g];
      line += (g ? ", group " : "group ") + std::to_string(g) + ": " + std::to_string(one.value("checked", uint64_t{0})) +
              (one.value("passed", false) ? " ok" : " WRONG");
    }
    line += ")";
  }
  // The program's own result, from the dumps: the same bits, or where it differs.
  if (const auto* program = v.contains("program_result") ? &v["program_result"] : nullptr; program && program->is_object()) {
    if (!program->value("available", false)) {
      line += "; the program's result (dumped) could not be read: " + program->value("unavailable", std::string("?"));
    } else {
      const uint64_t compared = program->value("compared", uint64_t{0}), same = program->value("identical", uint64_t{0});
      line += "; the program's result (dumped): " + std::to_string(same) + " of " + std::to_string(compared) +
              " elements identical" + (same == compared ? ", bit for bit" : "");
      if (same != compared) {
        const auto& mx = (*program)["max_abs_difference"];
        char diff[32] = "infinite";
        if (mx.is_number()) std::snprintf(diff, sizeof diff, "%.3g", mx.get<double>());
        line += std::string(" (largest difference ") + diff + ")";
      }
    }
  }
  return line;
}

nlohmann::ordered_json run_json(const ReplayRun& r) {
  nlohmann::ordered_json j;
  j["data"] = data_name(r.data);
  j["ran"] = r.ran;
  if (!r.ran) {
    j["setup_error"] = {{"stage", r.setup_stage}, {"message", r.setup_message}};
    if (r.setup_status) {
      j["setup_error"]["status"] = *r.setup_status;
      j["setup_error"]["status_name"] = name_or_unknown(NameSet::kCublasStatus, *r.setup_status);
    }
    if (r.setup_cuda_error) {
      j["setup_error"]["cuda_error"] = *r.setup_cuda_error;
      j["setup_error"]["cuda_error_name"] = name_or_unknown(NameSet::kCudaError, *r.setup_cuda_error);
    }
  }
  j["libraries"] = r.loaded.is_object() ? nlohmann::ordered_json{{"cudart", r.loaded.value("cudart", "")},
                                                                  {"cublas", r.loaded.value("cublas", "")},
                                                                  {"cublaslt", r.loaded.value("cublaslt", "")},
                                                                  {"runtime_version", r.loaded.value("runtime_version", 0)},
                                                                  {"driver_version", r.loaded.value("driver_version", 0)}}
                                        : nlohmann::ordered_json(nullptr);
  j["status"] = r.status;
  j["status_name"] = name_or_unknown(NameSet::kCublasStatus, r.status);
  j["sync_error"] = r.sync_error;
  j["sync_error_name"] = name_or_unknown(NameSet::kCudaError, r.sync_error);
  j["failed"] = r.failed();
  j["crashed"] = r.crashed;
  j["signal"] = r.signal ? nlohmann::ordered_json(r.signal) : nlohmann::ordered_json(nullptr);
  j["timed_out"] = r.timed_out;
  j["nonfinite_output"] = r.nonfinite_output;
  j["runs"] = r.runs;
  j["requested"] = r.requested;
  j["failed_run"] = r.failed_run ? nlohmann::ordered_json(*r.failed_run) : nlohmann::ordered_json(nullptr);
  j["time_ns"] = r.time_ns.is_null() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.time_ns);
  j["verify"] = r.verify.is_null() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.verify);
  if (!r.stderr_text.empty()) j["stderr"] = r.stderr_text;
  return j;
}

}  // namespace

std::string duration_text(int64_t ns) {
  char text[32];
  if (ns < 10000) std::snprintf(text, sizeof text, "%" PRId64 " ns", ns);
  else if (ns < 1000000) std::snprintf(text, sizeof text, "%.1f us", static_cast<double>(ns) / 1e3);
  else if (ns < 10000000000) std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(ns) / 1e6);
  else std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ns) / 1e9);
  return text;
}

std::string shape_text(const ReplayPlan& p) {
  const char* ops = "NTC";
  std::string text = "m " + std::to_string(p.m) + ", n " + std::to_string(p.n) + ", k " + std::to_string(p.k) + ", " +
                     ops[p.transa % 3] + "/" + ops[p.transb % 3];
  if (p.batch > 1) text += ", batch " + std::to_string(p.batch);
  if (const OperandPlan* a = p.operand("a")) text += ", " + name_or_number(NameSet::kDataType, a->data_type);
  const OperandPlan* out = p.operand(p.kind == CallKind::kLtMatmul ? "d" : "c");
  if (out && p.operand("a") && out->data_type != p.operand("a")->data_type) text += " -> " + name_or_number(NameSet::kDataType, out->data_type);
  if (p.compute_type >= 0) text += ", " + compute_type_text(p.compute_type);
  return text;
}

int exit_status(const CallReplay& r) {
  if (!r.plan) return 2;
  return r.verdict ? r.verdict->exit_status : 0;
}

std::string render_text(const CallReplay& r, bool verbose) {
  std::string out = "call " + std::to_string(r.seq) + ": " + r.function;
  if (!r.shape.empty()) out += " (" + r.shape + ")";
  out += "\n  in the program: " + original_text(r.original) + "\n";
  if (!r.plan) {
    out += "  not replayed: " + r.refusal + "\n";
    return out;
  }
  for (const std::string& n : r.notes) out += "  note: " + n + "\n";
  for (const auto* run : {r.random ? &*r.random : nullptr, r.dump ? &*r.dump : nullptr}) {
    if (run == nullptr) continue;
    out += "  replayed " + run_line(*run, r.plan->seed) + "\n";
    std::string v = verify_line(run->verify, r.tolerance_basis);
    if (!v.empty()) out += "    " + v + "\n";
    if (verbose && run->loaded.is_object()) {
      out += "    libraries: " + run->loaded.value("cublas", std::string("?")) + ", " +
             run->loaded.value("cudart", std::string("?")) + " (runtime " +
             std::to_string(run->loaded.value("runtime_version", 0)) + ", driver " +
             std::to_string(run->loaded.value("driver_version", 0)) + ")\n";
    }
    if ((verbose || !run->ran || run->crashed) && !run->stderr_text.empty()) {
      out += "    the runner printed:\n";
      size_t start = 0;
      while (start < run->stderr_text.size()) {
        size_t end = run->stderr_text.find('\n', start);
        if (end == std::string::npos) end = run->stderr_text.size();
        out += "      " + run->stderr_text.substr(start, end - start) + "\n";
        start = end + 1;
      }
    }
  }
  if (r.verdict) {
    out += "  verdict (" + r.verdict->id + "): " + r.verdict->summary + "\n";
    if (!r.verdict->advice.empty()) out += "  what to do: " + r.verdict->advice + "\n";
  }
  if (!r.emitted_cpp.empty()) out += "  wrote " + r.emitted_cpp + "; build it with:\n    " + r.build_command + "\n";
  if (!r.emitted_python.empty()) out += "  wrote " + r.emitted_python + " (PyTorch; run it with python3)\n";
  return out;
}

nlohmann::ordered_json render_json(const CallReplay& r) {
  nlohmann::ordered_json j;
  j["call"] = r.seq;
  j["function"] = r.function;
  j["shape"] = r.shape;
  j["original"] = {{"status", r.original.status},
                   {"status_name", name_or_unknown(NameSet::kCublasStatus, r.original.status)},
                   {"async_status", r.original.async_status},
                   {"in_flight", r.original.in_flight},
                   {"crashed", r.original.crashed},
                   {"nonfinite_output", r.original.nonfinite_output},
                   {"failed", r.original.failed()}};
  j["replayed"] = r.plan.has_value();
  if (!r.plan) {
    j["refusal"] = r.refusal;
  } else {
    j["plan"] = {{"kind", call_kind_name(r.plan->kind)},
                 {"bytes", r.plan->total_bytes()},
                 {"seed", r.plan->seed},
                 {"repeat", r.plan->repeat},
                 {"verify", r.plan->verify},
                 {"tolerance", r.plan->tolerance},
                 {"tolerance_basis", r.tolerance_basis}};
  }
  j["notes"] = r.notes;
  j["dumped_operands"] = r.dumped_operands;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  if (r.random) runs.push_back(run_json(*r.random));
  if (r.dump) runs.push_back(run_json(*r.dump));
  j["runs"] = runs;
  j["verdict"] = r.verdict ? nlohmann::ordered_json{{"id", r.verdict->id}, {"summary", r.verdict->summary}, {"advice", r.verdict->advice}}
                           : nlohmann::ordered_json(nullptr);
  j["emitted"] = {{"cpp", r.emitted_cpp.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.emitted_cpp)},
                  {"build_command", r.build_command.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.build_command)},
                  {"python", r.emitted_python.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.emitted_python)}};
  j["exit_status"] = exit_status(r);
  return j;
}

}  // namespace cublasspy::replay
