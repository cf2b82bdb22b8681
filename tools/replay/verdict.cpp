#include "replay/verdict.h"

#include <string.h>

#include <cinttypes>
#include <cstdio>

#include "common/cuda_names.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {
namespace {

// cublasStatus_t values with a meaning of their own for the advice.
constexpr int kNotInitialized = 1, kAllocFailed = 3, kInvalidValue = 7, kArchMismatch = 8, kNotSupported = 15;

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

const char* data_words(DataSource d) { return d == DataSource::kDump ? "with the captured operands" : "with random data"; }

// "got 1.0045 where the reference is 0.0045 (row 0, col 0)"
std::string verify_detail(const nlohmann::json& v) {
  if (!v.is_object() || !v.value("available", false)) return "";
  std::string text;
  char line[320], error[32] = "infinite";
  if (v["max_error"].is_number()) std::snprintf(error, sizeof error, "%.3g", v["max_error"].get<double>());
  const auto& worst = v["worst"];
  if (v.value("mismatches", uint64_t{0}) > 0) {
    std::snprintf(line, sizeof line, "%" PRIu64 " of %" PRIu64 " elements checked are beyond the tolerance; the worst, at row %" PRId64
                  ", col %" PRId64 "%s, is %.6g where the reference is %.6g (error %s, tolerance %.3g)",
                  v.value("mismatches", uint64_t{0}), v.value("checked", uint64_t{0}), worst.value("row", int64_t{0}),
                  worst.value("col", int64_t{0}),
                  worst.value("member", int64_t{0}) ? (", member " + std::to_string(worst.value("member", int64_t{0}))).c_str() : "",
                  worst["got"][0].get<double>(), worst["want"][0].get<double>(), error, v.value("tolerance", 0.0));
    text = line;
  }
  if (v.value("outside_writes", uint64_t{0}) > 0) {
    if (!text.empty()) text += "; ";
    text += "it wrote " + std::to_string(v.value("outside_writes", uint64_t{0})) +
            " elements outside its m x n result (between the rows and ld, or between batch members)";
  }
  return text;
}

std::string failure_text(const ReplayRun& r) {
  if (r.crashed) return "the replay died of " + signal_text(r.signal) + " in the call";
  if (r.timed_out) return "the call did not return within the time limit (a hang)";
  std::string text;
  if (r.status != 0) text = name_and_number(NameSet::kCublasStatus, r.status);
  if (r.sync_error != 0) {
    text += (text.empty() ? "" : ", then ") + name_and_number(NameSet::kCudaError, r.sync_error) + " when synchronizing";
  }
  if (r.failed_run && *r.failed_run > 0) {
    text += " at run " + std::to_string(*r.failed_run + 1) + " of " + std::to_string(r.requested);
  }
  return text;
}

// Why the library itself turned the call down, when the status says so.
std::string status_advice(int status) {
  switch (status) {
    case kInvalidValue:
      return "The library rejects these arguments (CUBLAS_STATUS_INVALID_VALUE): the call is wrong as written; check "
             "its sizes, leading dimensions, strides and types against the cuBLAS documentation of this entry point.";
    case kNotSupported:
      return "This library does not support the combination of types, compute type and algorithm "
             "(CUBLAS_STATUS_NOT_SUPPORTED) on this GPU: pick a supported one.";
    case kArchMismatch:
      return "The GPU lacks a feature the call needs (CUBLAS_STATUS_ARCH_MISMATCH).";
    case kAllocFailed:
      return "cuBLAS could not allocate memory it needs (CUBLAS_STATUS_ALLOC_FAILED): the device is short of memory.";
    default:
      return "";
  }
}

}  // namespace

ReplayRun summarize_run(const RunnerOutcome& o, DataSource data) {
  ReplayRun r;
  r.data = data;
  r.stderr_text = o.stderr_text;
  if (!o.started) {
    r.setup_stage = "start";
    r.setup_message = "cannot start the replay runner: " + o.start_error;
    return r;
  }
  if (const auto* e = o.event("loaded")) r.loaded = *e;
  if (const auto* e = o.event("error")) {
    r.setup_stage = e->value("stage", "internal");
    r.setup_message = e->value("message", "");
    if (e->contains("status")) r.setup_status = (*e)["status"].get<int>();
    if (e->contains("cuda_error")) r.setup_cuda_error = (*e)["cuda_error"].get<int>();
    return r;
  }
  if (o.event("ready") == nullptr) {
    if (o.timed_out) {
      r.setup_stage = "timeout";
      r.setup_message = "the runner did not finish setting up within the time limit";
    } else if (o.signal) {
      r.setup_stage = "crash";
      r.setup_message = "the runner died of " + signal_text(o.signal) + " while setting up (loading the libraries, "
                        "creating the handle or copying the operands)";
    } else {
      r.setup_stage = "internal";
      r.setup_message = "the runner ended without an answer (exit status " + std::to_string(o.exit_code) + ")";
    }
    return r;
  }
  r.ran = true;
  bool have_status = false;
  for (const nlohmann::json& e : o.events) {
    const std::string name = e.value("event", "");
    if (name == "run") {
      const int status = e.value("status", 0), sync = e.value("sync_error", 0);
      if (!have_status || status != 0 || sync != 0) {
        r.status = status;
        r.sync_error = sync;
        have_status = true;
      }
      if (status != 0 || sync != 0) r.call_failed = true;
      if (e.value("run", int64_t{-1}) == 0) r.nonfinite_output = e.value("nonfinite_output", uint64_t{0});
    } else if (name == "verify") {
      const bool failed = e.value("available", false) && !e.value("passed", true);
      if (r.verify.is_null() || failed) r.verify = e;
      if (failed) r.wrong_result = true;
    } else if (name == "summary") {
      r.runs = e.value("runs", int64_t{0});
      r.requested = e.value("requested", int64_t{0});
      if (e.contains("failed_run") && e["failed_run"].is_number()) r.failed_run = e["failed_run"].get<int64_t>();
      if (e.contains("min_ns")) {
        r.time_ns = {{"min", e["min_ns"]}, {"median", e["median_ns"]}, {"max", e["max_ns"]}, {"total", e["total_ns"]}};
      }
    }
  }
  if (o.event("summary") == nullptr) {
    // It got ready and then never reported the end: the call (or the synchronization) took
    // the process down or did not return.
    r.timed_out = o.timed_out;
    r.crashed = !o.timed_out;
    r.signal = o.signal;
  }
  return r;
}

Verdict decide(const OriginalCall& original, const ReplayRun* random, const ReplayRun* dump, bool dumps_exist,
               const std::string& command) {
  Verdict v;
  for (const ReplayRun* r : {random, dump}) {
    if (r == nullptr || r->ran) continue;
    v.id = "cannot-run";
    v.exit_status = 3;
    std::string detail = r->setup_message;
    if (r->setup_status) detail += ": " + name_and_number(NameSet::kCublasStatus, *r->setup_status);
    if (r->setup_cuda_error) detail += ": " + name_and_number(NameSet::kCudaError, *r->setup_cuda_error);
    v.summary = "The replay could not run: " + detail + ".";
    if (r->setup_stage == "load") {
      v.advice = "The CUDA libraries cannot be loaded here: point LD_LIBRARY_PATH at the directory the program used, "
                 "and see `cublasspy doctor`.";
    } else if (r->setup_stage == "handle") {
      v.advice = r->setup_status == kNotInitialized
                     ? "cuBLAS cannot start on this machine (no driver, no device, or one it cannot use): see "
                       "`cublasspy doctor`, and replay on the machine that ran the program."
                     : "Creating the handle with the captured state failed: see `cublasspy doctor`.";
    } else if (r->setup_stage == "resolve") {
      v.advice = "The library here is not the one the program used (another cuBLAS version?): replay with the "
                 "program's LD_LIBRARY_PATH.";
    } else if (r->setup_stage == "memory") {
      v.advice = "The device memory for the operands could not be had: free device memory, or replay on a larger GPU.";
    } else if (r->setup_stage == "descriptors") {
      v.advice = "cuBLASLt refused the descriptors rebuilt from the record: this library may not support them.";
    } else {
      v.advice = "See the runner's messages above; `cublasspy doctor` checks the CUDA set-up.";
    }
    return v;
  }

  // A run reproduces the program's trouble when it fails, or, for a call whose result a scan
  // found non-finite, when its result holds NaN/Inf too.
  auto reproduces = [&](const ReplayRun* r) {
    return r && (r->failed() || (original.nonfinite_output && r->nonfinite_output));
  };
  const bool random_failed = reproduces(random);
  const bool dump_failed = reproduces(dump);
  const ReplayRun* failing = random_failed ? random : dump_failed ? dump : nullptr;
  if (failing != nullptr) {
    v.exit_status = 1;
    const bool only_wrong = failing->wrong_result && !failing->call_failed && !failing->crashed && !failing->timed_out;
    const bool only_nonfinite = !failing->failed();
    const std::string rerun = "`" + command + " --emit-cpp repro.cpp` writes it as a standalone program for a bug report.";
    if (only_wrong) {
      v.id = "wrong-result";
      v.summary = std::string("Wrong result ") + data_words(failing->data) + ": the call returns success, but " +
                  verify_detail(failing->verify) + ".";
      v.advice = failing->data == DataSource::kRandom
                     ? "A silent wrong result with random inputs points at the library, the driver or the hardware. "
                       "Repeat it (--repeat 100) to see whether it is intermittent (then suspect the GPU), try another "
                       "GPU or library version, and report it: " + rerun
                     : "Random data of the same shapes gives the right result: suspect the captured values (NaN/Inf, "
                       "values beyond the output type's range) before the library.";
      return v;
    }
    if (!original.failed()) {
      v.id = "fails-on-replay";
      v.summary = "The call succeeded in the program but fails here " + std::string(data_words(failing->data)) + ": " +
                  failure_text(*failing) + ".";
      v.advice = "This machine's library, driver or GPU differ from the program's, or the failure is intermittent "
                 "(--repeat shows which). " + status_advice(failing->status);
      return v;
    }
    const std::string what = only_nonfinite
                                 ? "its result holds " + std::to_string(failing->nonfinite_output) + " NaN/Inf values"
                                 : failure_text(*failing);
    if (random_failed) {
      v.id = "reproduced-random";
      v.summary = "Reproduced with random data: the call " + std::string(only_nonfinite ? "itself turns finite inputs into NaN/Inf (" : "fails on its own (") +
                  what + "), whatever its operands hold.";
      std::string why = only_nonfinite ? "" : status_advice(random->status);
      v.advice = !why.empty() ? why + " " + rerun
                              : "The arguments alone make it fail on this library, driver and GPU: suspect the library, "
                                "the driver or the hardware, not your data. " + rerun;
    } else {
      v.id = "reproduced-captured-data";
      v.summary = "Reproduced only with the captured operands (" + what + "); random data of the same shapes runs fine.";
      v.advice = "Suspect the data: NaN/Inf or extreme values in the inputs (`cublasspy run --scan inputs` finds "
                 "them), or values the output type cannot hold.";
    }
    return v;
  }

  v.exit_status = 0;
  const ReplayRun* ran = random ? random : dump;
  std::string checked;
  if (ran && ran->verify.is_object() && ran->verify.value("available", false)) {
    char text[160];
    const auto& mx = ran->verify["max_error"];
    std::snprintf(text, sizeof text, ", and its result matches the host reference (largest error %.3g, tolerance %.3g)",
                  mx.is_number() ? mx.get<double>() : 0.0, ran->verify.value("tolerance", 0.0));
    checked = text;
  }
  if (original.failed()) {
    v.id = "not-reproduced";
    v.summary = std::string("Not reproduced: the call succeeds on its own") +
                (random && dump ? " with random data and with the captured operands" : dump ? " with the captured operands" : " with random data") +
                checked + ".";
    if (original.nonfinite_output && !dump) {
      v.advice = "The NaN/Inf in the program's result did not come from the call itself: most likely from its inputs "
                 "(`cublasspy run --scan inputs` shows which operand). Recording the operands (--dump failing) lets the "
                 "replay test your data.";
    } else {
      v.advice = "The failure came from outside the call: most often an earlier asynchronous error (a previous kernel's "
                 "fault surfacing here) or memory the program freed or overran. Rerun the program under "
                 "`cublasspy run --sync --check -- ...` to pin the error on the call that caused it.";
      if (!dumps_exist) v.advice += " Recording the operands as well (--dump failing) lets the replay test your data too.";
    }
  } else {
    v.id = "succeeds";
    v.summary = "The call succeeds" + checked + ".";
    v.advice = checked.empty() ? "Add --verify to compare its result with a host reference." : "";
  }
  return v;
}

}  // namespace cublasspy::replay
