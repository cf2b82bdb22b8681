#include "replay/runner/replay_session.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "replay/runner/call_adapters.h"
#include "replay/runner/cuda_libraries.h"
#include "replay/runner/device_operands.h"
#include "replay/element_codec.h"
#include "replay/runner/event_log.h"
#include "replay/host_reference.h"
#include "replay/runner/lt_matmul_descriptors.h"

namespace cublasspy::replay {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

json complex_json(std::complex<double> v) { return json::array({v.real(), v.imag()}); }

json comparison_json(const Comparison& c) {
  json j = {{"event", "verify"}, {"available", c.available}};
  if (!c.available) {
    j["unavailable"] = c.unavailable;
    return j;
  }
  j.update({{"passed", c.passed},
            {"tolerance", c.tolerance},
            {"max_error", std::isfinite(c.max_error) ? json(c.max_error) : json("inf")},
            {"max_abs_error", c.max_abs_error},
            {"worst", {{"member", c.worst_member}, {"row", c.worst_row}, {"col", c.worst_col},
                       {"got", complex_json(c.worst_got)}, {"want", complex_json(c.worst_want)}}},
            {"mismatches", c.mismatches},
            {"checked", c.checked},
            {"total", c.total},
            {"sampled", c.sampled},
            {"outside_writes", c.outside_writes}});
  return j;
}

// The replay's result against the program's (its dump, taken after its call) element by element,
// bit for bit: the same inputs on the same library and GPU give the same bits; a difference says
// the program's call computed something else (other inputs, another algorithm, or a fault).
json program_comparison(const HostOperand& got, const HostOperand& want, int64_t members, int64_t m, int64_t n) {
  const DataType t = static_cast<DataType>(got.plan->data_type);
  const uint64_t elem = static_cast<uint64_t>(element_bytes(t));
  uint64_t compared = 0, identical = 0;
  double max_abs = 0;
  json first = nullptr;
  for (int64_t b = 0; b < members; ++b) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        const uint64_t at = got.plan->offset(i, j) * elem;
        ++compared;
        if (std::memcmp(got.member_base(b) + at, want.member_base(b) + at, elem) == 0) {
          ++identical;
          continue;
        }
        const std::complex<double> x = got.at(b, i, j), y = want.at(b, i, j);
        const double d = std::abs(x - y);
        if (!(d <= max_abs)) max_abs = d;  // NaN counts as the largest
        if (first.is_null()) {
          first = {{"member", b}, {"row", i}, {"col", j}, {"got", complex_json(x)}, {"program", complex_json(y)}};
        }
      }
    }
  }
  return {{"compared", compared},
          {"identical", identical},
          {"bitwise_equal", compared == identical},
          {"max_abs_difference", std::isfinite(max_abs) ? json(max_abs) : json("inf")},
          {"first_difference", first}};
}

class Session {
 public:
  explicit Session(const ReplayPlan& plan) : plan_(plan) {}
  ~Session() { teardown(); }

  int run() {
    emit_event({{"event", "start"}, {"function", plan_.function}, {"pid", static_cast<int64_t>(getpid())}});
    std::string error;
    if (!cuda_.load(error)) return cannot_run("load", error);
    int runtime_version = 0, driver_version = 0;
    cuda_.RuntimeGetVersion(&runtime_version);
    cuda_.DriverGetVersion(&driver_version);
    emit_event({{"event", "loaded"},
                {"cudart", cuda_.cudart_path},
                {"cublas", cuda_.cublas_path},
                {"cublaslt", cuda_.cublaslt_path},
                {"runtime_version", runtime_version},
                {"driver_version", driver_version}});

    adapter_ = find_adapter(plan_.function);
    if (adapter_ == nullptr) return cannot_run("resolve", "the replay has no call adapter for " + plan_.function);
    const bool lt = adapter_->library == AdapterLibrary::kCublasLt;
    entry_ = lt ? cuda_.cublaslt_symbol(plan_.function.c_str()) : cuda_.cublas_symbol(plan_.function.c_str());
    if (entry_ == nullptr) {
      return cannot_run("resolve", (lt ? cuda_.cublaslt_path : cuda_.cublas_path) + " does not export " + plan_.function);
    }

    if (int status = create_handle(); status != 0) return status;
    operands_.emplace(plan_, cuda_, plan_.kind == CallKind::kXtGemm);
    int cuda_error = 0;
    if (!operands_->setup(error, cuda_error)) {
      return cannot_run("memory", error, {{"cuda_error", cuda_error}});
    }
    if (int status = prepare_scalars(); status != 0) return status;
    if (plan_.kind == CallKind::kLtMatmul) {
      lt_.emplace(cuda_);
      std::string step;
      if (int s = lt_->build(plan_, *operands_, step); s != 0) {
        return cannot_run("descriptors", step + " failed", {{"status", s}});
      }
    }
    if (int status = prepare_workspaces(); status != 0) return status;
    build_arguments();
    plan_parts();
    emit_event({{"event", "ready"}, {"device_bytes", operands_->device_bytes()}});
    replay_loop();
    emit_event({{"event", "done"}});
    return kRunnerOk;
  }

 private:
  int cannot_run(const std::string& stage, const std::string& message, json extra = json::object()) {
    json e = {{"event", "error"}, {"stage", stage}, {"message", message}};
    e.update(extra);
    emit_event(e);
    return kRunnerCannotRun;
  }

  // The handle of the call's library, with the state the program's handle had.
  int create_handle() {
    auto handle_error = [&](const char* step, int status) {
      return cannot_run("handle", std::string(step) + " failed", {{"step", step}, {"status", status}});
    };
    if (plan_.own_stream) {
      if (int e = static_cast<int>(cuda_.StreamCreate(&stream_)); e != 0) {
        return cannot_run("handle", "cudaStreamCreate failed", {{"step", "cudaStreamCreate"}, {"cuda_error", e}});
      }
    }
    switch (plan_.kind) {
      case CallKind::kLegacyGemm:
        if (cuda_.LegacyInit == nullptr || cuda_.LegacyGetError == nullptr) {
          return cannot_run("resolve", cuda_.cublas_path + " does not export the v1 API (cublasInit, cublasGetError)");
        }
        if (int s = static_cast<int>(cuda_.LegacyInit()); s != 0) return handle_error("cublasInit", s);
        legacy_initialized_ = true;
        return 0;
      case CallKind::kXtGemm: {
        if (cuda_.XtCreate == nullptr || cuda_.XtDeviceSelect == nullptr) {
          return cannot_run("resolve", cuda_.cublas_path + " does not export cublasXtCreate/cublasXtDeviceSelect");
        }
        if (int s = static_cast<int>(cuda_.XtCreate(&xt_)); s != 0) return handle_error("cublasXtCreate", s);
        int devices[1] = {0};
        if (int s = static_cast<int>(cuda_.XtDeviceSelect(xt_, 1, devices)); s != 0) {
          return handle_error("cublasXtDeviceSelect", s);
        }
        return 0;
      }
      case CallKind::kLtMatmul:
        if (int s = static_cast<int>(cuda_.LtCreate(&lt_handle_)); s != 0) return handle_error("cublasLtCreate", s);
        return 0;
      default:
        break;
    }
    if (int s = static_cast<int>(cuda_.Create(&blas_)); s != 0) return handle_error("cublasCreate_v2", s);
    if (plan_.own_stream) {
      if (int s = static_cast<int>(cuda_.SetStream(blas_, stream_)); s != 0) return handle_error("cublasSetStream_v2", s);
    }
    // Grouped GEMMs take their scalars from host arrays whatever the mode.
    if (plan_.kind != CallKind::kGemmGrouped) {
      if (int s = static_cast<int>(cuda_.SetPointerMode(blas_, static_cast<cublasPointerMode_t>(plan_.pointer_mode))); s != 0) {
        return handle_error("cublasSetPointerMode_v2", s);
      }
    }
    if (plan_.math_mode >= 0) {
      if (int s = static_cast<int>(cuda_.SetMathMode(blas_, static_cast<cublasMath_t>(plan_.math_mode))); s != 0) {
        return handle_error("cublasSetMathMode", s);
      }
    }
    return 0;
  }

  // alpha and beta in the scalar type, on the host or (device pointer mode) on the device.
  int prepare_scalars() {
    const DataType t = static_cast<DataType>(plan_.scalar_type);
    for (int part = 0; part < element_parts(t); ++part) {
      encode_part(t, host_alpha_, part, plan_.alpha[part]);
      encode_part(t, host_beta_, part, plan_.beta[part]);
    }
    alpha_ = host_alpha_;
    beta_ = host_beta_;
    const bool on_device = plan_.pointer_mode == 1 &&
                           (plan_.kind != CallKind::kLegacyGemm && plan_.kind != CallKind::kXtGemm &&
                            plan_.kind != CallKind::kGemmGrouped);
    if (!on_device) return 0;
    for (auto [host, device] : {std::pair{host_alpha_, &device_alpha_}, std::pair{host_beta_, &device_beta_}}) {
      int e = static_cast<int>(cuda_.Malloc(device, sizeof host_alpha_));
      if (e == 0) e = static_cast<int>(cuda_.Memcpy(*device, host, sizeof host_alpha_, cudaMemcpyHostToDevice));
      if (e != 0) return cannot_run("memory", "alpha/beta in device memory", {{"cuda_error", e}});
    }
    alpha_ = device_alpha_;
    beta_ = device_beta_;
    return 0;
  }

  int prepare_workspaces() {
    if (plan_.workspace_bytes > 0 && blas_ != nullptr) {
      int e = static_cast<int>(cuda_.Malloc(&workspace_, static_cast<size_t>(plan_.workspace_bytes)));
      if (e != 0) return cannot_run("memory", "the cuBLAS workspace", {{"cuda_error", e}});
      int s = static_cast<int>(cuda_.SetWorkspace(blas_, workspace_, static_cast<size_t>(plan_.workspace_bytes)));
      if (s != 0) return cannot_run("handle", "cublasSetWorkspace_v2 failed", {{"step", "cublasSetWorkspace_v2"}, {"status", s}});
    }
    if (plan_.kind == CallKind::kLtMatmul && plan_.lt.workspace_bytes > 0) {
      int e = static_cast<int>(cuda_.Malloc(&lt_workspace_, static_cast<size_t>(plan_.lt.workspace_bytes)));
      if (e != 0) return cannot_run("memory", "the cuBLASLt workspace", {{"cuda_error", e}});
    }
    return 0;
  }

  void build_arguments() {
    args_.integers = plan_.values;
    auto address = [&](const char* name, const void* p) { args_.addresses[name] = reinterpret_cast<uint64_t>(p); };
    for (const OperandPlan& o : plan_.operands) args_.addresses[o.name] = operands_->call_address(o.name);
    address("alpha", alpha_);
    address("beta", beta_);
    args_.scalars["alpha"] = plan_.alpha;
    args_.scalars["beta"] = plan_.beta;
    switch (plan_.kind) {
      case CallKind::kXtGemm: address("handle", xt_); break;
      case CallKind::kLtMatmul:
        address("handle", lt_handle_);
        address("compute_desc", lt_->matmul);
        address("adesc", lt_->layout[0]);
        address("bdesc", lt_->layout[1]);
        address("cdesc", lt_->layout[2]);
        address("ddesc", lt_->layout[3]);
        // The program's preset algorithm as recorded; without one, cuBLASLt picks.
        if (plan_.lt.algo.size() == 8) std::memcpy(&lt_algo_, plan_.lt.algo.data(), sizeof lt_algo_);
        address("algo", plan_.lt.algo.size() == 8 ? &lt_algo_ : nullptr);
        address("workspace", lt_workspace_);
        args_.integers["workspace_size_in_bytes"] = lt_workspace_ ? plan_.lt.workspace_bytes : 0;
        address("stream", stream_);
        break;
      default: address("handle", blas_); break;
    }
    if (plan_.kind == CallKind::kGemmGrouped) {
      // Every group of the plan: per-group host arrays of sizes and scalars.
      const DataType t = static_cast<DataType>(plan_.scalar_type);
      const size_t elem = static_cast<size_t>(element_bytes(t));
      group_alpha_.assign(plan_.groups.size() * elem, 0);
      group_beta_.assign(plan_.groups.size() * elem, 0);
      for (size_t i = 0; i < plan_.groups.size(); ++i) {
        const GroupPlan& g = plan_.groups[i];
        for (auto [name, v] : {std::pair{"transa", int64_t{g.transa}}, std::pair{"transb", int64_t{g.transb}},
                               std::pair{"m", g.m}, std::pair{"n", g.n}, std::pair{"k", g.k}, std::pair{"lda", g.lda},
                               std::pair{"ldb", g.ldb}, std::pair{"ldc", g.ldc}}) {
          args_.arrays[std::string(name) + "_array"].push_back(v);
        }
        args_.arrays["group_size"].push_back(g.size);
        encode_part(t, group_alpha_.data() + i * elem, 0, g.alpha);
        encode_part(t, group_beta_.data() + i * elem, 0, g.beta);
      }
      args_.integers["group_count"] = static_cast<int64_t>(plan_.groups.size());
      address("alpha_array", group_alpha_.data());
      address("beta_array", group_beta_.data());
    }
  }

  // Synchronizes what the call queued; the asynchronous error, if any.
  int synchronize() {
    int e = static_cast<int>(plan_.own_stream ? cuda_.StreamSynchronize(stream_) : cuda_.DeviceSynchronize());
    int last = static_cast<int>(cuda_.GetLastError());
    return e != 0 ? e : last;
  }

  const char* output_name() const { return plan_.kind == CallKind::kLtMatmul ? "d" : "c"; }

  // Times of call + synchronization: every one counts in min, max and total; the median is that
  // of the first kMedianSamples runs (a stress loop of a billion calls keeps 8 MiB, not 8 GiB).
  struct Timing {
    static constexpr size_t kMedianSamples = size_t{1} << 20;
    std::vector<int64_t> samples;
    int64_t min = 0, max = 0, total = 0, count = 0;
    void add(int64_t ns) {
      if (count == 0 || ns < min) min = ns;
      if (count == 0 || ns > max) max = ns;
      total += ns;
      ++count;
      if (samples.size() < kMedianSamples) samples.push_back(ns);
    }
    int64_t median() {
      std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2), samples.end());
      return samples[samples.size() / 2];
    }
  };

  void replay_loop() {
    Timing times;
    std::optional<int64_t> failed_run;
    std::string failure;
    for (int64_t run = 0; run < plan_.repeat; ++run) {
      if (plan_.verify && run > 0) operands_->upload(output_name());  // the same inputs each time
      const auto t0 = Clock::now();
      int status = adapter_->call(entry_, args_);
      if (plan_.kind == CallKind::kLegacyGemm) status = static_cast<int>(cuda_.LegacyGetError());
      const int sync_error = synchronize();
      const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
      times.add(ns);
      const bool call_failed = status != 0 || sync_error != 0;
      // The first result comes back to the host: its NaN/Inf count says whether the call (or its
      // data) produces non-finite values, as a scan of the program's call may have found.
      int copy_error = 0;
      if (!call_failed && (run == 0 || plan_.verify)) copy_error = operands_->download(output_name());
      if (run == 0 || call_failed || copy_error) {
        json e = {{"event", "run"}, {"run", run}, {"status", status}, {"sync_error", sync_error}, {"ns", ns}};
        if (!call_failed && copy_error == 0) e["nonfinite_output"] = nonfinite_output();
        if (copy_error) e["copy_back_error"] = copy_error;
        emit_event(e);
      }
      if (call_failed || copy_error) {
        failed_run = run;
        failure = call_failed ? "status" : "copy";
        break;
      }
      if (plan_.verify) {
        json c = verify();
        c["run"] = run;
        const bool passed = c.value("passed", false), available = c.value("available", false);
        if (run == 0 || !passed) emit_event(c);
        if (available && !passed) {
          failed_run = run;
          failure = "verify";
          break;
        }
      }
    }
    json summary = {{"event", "summary"}, {"runs", times.count}, {"requested", plan_.repeat}};
    summary["failed_run"] = failed_run ? json(*failed_run) : json(nullptr);
    summary["failure"] = failed_run ? json(failure) : json(nullptr);
    if (times.count > 0) {
      summary.update({{"min_ns", times.min}, {"median_ns", times.median()}, {"max_ns", times.max}, {"total_ns", times.total}});
    }
    emit_event(summary);
  }

  // What the result is checked as: the call itself, or each group of a grouped call (a plan of
  // its own, its operands' members the call's from `first`).
  struct Part {
    ReplayPlan plan;
    int64_t first = 0;
    ReferenceCache reference;
  };
  void plan_parts() {
    if (plan_.kind != CallKind::kGemmGrouped || plan_.groups.empty()) {
      parts_.push_back({plan_, 0, {}});
      return;
    }
    for (size_t g = 0; g < plan_.groups.size(); ++g) {
      Part part;
      part.plan = group_plan(plan_, g, part.first);
      parts_.push_back(std::move(part));
    }
  }
  // The part's view of the call's operand: its plan, from its first member.
  static HostOperand part_view(const Part& part, const HostOperand& whole, const std::string& name) {
    const OperandPlan* p = part.plan.operand(name);
    if (whole.plan == nullptr || whole.bytes == nullptr || p == nullptr) return whole;
    return HostOperand{p, whole.member_base(part.first)};
  }

  // NaN and infinite elements of the result (every member's m x n), from the last download.
  uint64_t nonfinite_output() const {
    const HostOperand whole = operands_->current(output_name());
    if (whole.plan == nullptr || whole.bytes == nullptr || whole.plan->null) return 0;
    uint64_t count = 0;
    for (const Part& part : parts_) {
      const HostOperand out = part_view(part, whole, output_name());
      for (int64_t b = 0; b < part.plan.batch; ++b) {
        for (int64_t j = 0; j < part.plan.n; ++j) {
          for (int64_t i = 0; i < part.plan.m; ++i) {
            std::complex<double> v = out.at(b, i, j);
            if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) ++count;
          }
        }
      }
    }
    return count;
  }

  // The result against the reference: a grouped call's groups each (in `groups`), and together.
  json verify() {
    Comparison all;
    json groups = json::array();
    for (size_t g = 0; g < parts_.size(); ++g) {
      Part& part = parts_[g];
      ReferenceInputs in;
      in.a = part_view(part, operands_->initial("a"), "a");
      in.b = part_view(part, operands_->initial("b"), "b");
      in.c = part_view(part, operands_->initial("c"), "c");
      in.bias = operands_->initial("bias");
      const Comparison c =
          compare_with_reference(part.plan, in, part_view(part, operands_->initial(output_name()), output_name()),
                                 part_view(part, operands_->current(output_name()), output_name()),
                                 (uint64_t{1} << 31) / parts_.size(), &part.reference);
      json one = comparison_json(c);
      if (json program = program_result(part); !program.is_null()) {
        one["program_result"] = program;
        if (parts_.size() > 1) add_program(program, g);
      }
      if (parts_.size() == 1) return one;
      one["group"] = g;
      groups.push_back(one);
      if (g == 0) {
        all = c;
        continue;
      }
      // Together: unavailable if any is, the worst element of all, the counts summed.
      if (!c.available && all.available) all = c;
      if (!all.available) continue;
      if (c.max_error > all.max_error) {
        all.max_error = c.max_error;
        all.worst_member = c.worst_member + part.first;
        all.worst_row = c.worst_row, all.worst_col = c.worst_col;
        all.worst_got = c.worst_got, all.worst_want = c.worst_want;
      }
      all.max_abs_error = std::max(all.max_abs_error, c.max_abs_error);
      all.mismatches += c.mismatches;
      all.checked += c.checked;
      all.total += c.total;
      all.sampled = all.sampled || c.sampled;
      all.outside_writes += c.outside_writes;
      all.passed = all.passed && c.passed;
    }
    json j = comparison_json(all);
    if (!program_total_.is_null()) j["program_result"] = program_total_;
    program_total_ = nullptr;
    j["groups"] = groups;
    return j;
  }

  // The part's result against the program's, when the plan has the program's (from the dumps).
  json program_result(const Part& part) const {
    const OperandPlan* out = plan_.operand(output_name());
    if (out == nullptr) return nullptr;
    for (const DumpPiece& piece : out->program_result) {
      if (piece.first_member != part.first || piece.members != part.plan.batch) continue;
      std::string problem;
      const HostOperand want = operands_->program_result(output_name(), problem);
      if (want.plan == nullptr) return {{"available", false}, {"unavailable", problem}};
      json j = program_comparison(part_view(part, operands_->current(output_name()), output_name()),
                                  part_view(part, want, output_name()), part.plan.batch, part.plan.m, part.plan.n);
      j["available"] = true;
      return j;
    }
    return nullptr;
  }
  // The groups' comparisons together (verify's top level).
  void add_program(json one, size_t group) {
    if (!one.value("available", false)) return;
    if (one["first_difference"].is_object()) one["first_difference"]["group"] = group;
    if (program_total_.is_null()) {
      program_total_ = one;
      return;
    }
    program_total_["compared"] = program_total_["compared"].get<uint64_t>() + one["compared"].get<uint64_t>();
    program_total_["identical"] = program_total_["identical"].get<uint64_t>() + one["identical"].get<uint64_t>();
    program_total_["bitwise_equal"] = program_total_["compared"] == program_total_["identical"];
    const auto& a = program_total_["max_abs_difference"];
    const auto& b = one["max_abs_difference"];
    if (b.is_string() || (a.is_number() && b.get<double>() > a.get<double>())) program_total_["max_abs_difference"] = b;
    if (program_total_["first_difference"].is_null()) program_total_["first_difference"] = one["first_difference"];
  }

  void teardown() {
    lt_.reset();
    operands_.reset();
    if (device_alpha_) cuda_.Free(device_alpha_);
    if (device_beta_) cuda_.Free(device_beta_);
    if (workspace_) cuda_.Free(workspace_);
    if (lt_workspace_) cuda_.Free(lt_workspace_);
    if (blas_) cuda_.Destroy(blas_);
    if (lt_handle_) cuda_.LtDestroy(lt_handle_);
    if (xt_ && cuda_.XtDestroy) cuda_.XtDestroy(xt_);
    if (legacy_initialized_ && cuda_.LegacyShutdown) cuda_.LegacyShutdown();
    if (stream_) cuda_.StreamDestroy(stream_);
  }

  const ReplayPlan& plan_;
  CudaLibraries cuda_;
  const CallAdapter* adapter_ = nullptr;
  void* entry_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_handle_ = nullptr;
  cublasLtMatmulAlgo_t lt_algo_{};
  cublasXtHandle_t xt_ = nullptr;
  bool legacy_initialized_ = false;
  cudaStream_t stream_ = nullptr;
  std::optional<DeviceOperands> operands_;
  std::optional<LtDescriptors> lt_;
  alignas(16) unsigned char host_alpha_[16] = {};
  alignas(16) unsigned char host_beta_[16] = {};
  void* alpha_ = nullptr;
  void* beta_ = nullptr;
  void* device_alpha_ = nullptr;
  void* device_beta_ = nullptr;
  void* workspace_ = nullptr;
  void* lt_workspace_ = nullptr;
  ArgValues args_;
  std::vector<unsigned char> group_alpha_, group_beta_;  // grouped calls: alpha_array, beta_array
  std::vector<Part> parts_;
  json program_total_;  // verify(): the program-result comparisons of the groups so far
};

}  // namespace

int run_replay(const ReplayPlan& plan) {
  Session session(plan);
  return session.run();
}

}  // namespace cublasspy::replay
