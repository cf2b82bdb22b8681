// async-error: an error that happened on the GPU after the call that launched the work had
// returned success, reported by a later call (a synchronization, a copy, the next GEMM). The
// EXECUTION_FAILED field report's last resort (docs/DIAGNOSES.md): CUDA_LAUNCH_BLOCKING=1 finds
// the real culprit; CUBLASSPY_SYNC=1 (`run --sync`) does the same per intercepted call and pins
// the error to it in the trace.
#include <algorithm>

#include <fmt/format.h>

#include "checks/check_ids.h"
#include "common/cuda_errors.h"
#include "diagnose/kernel_causes.h"
#include "diagnose/rule.h"
#include "trace/graph_summary.h"

namespace cublasspy::diagnoses {
namespace {

// "#16 cublasSgemm_v2 (m=4 ...), flagged by CUBLASSPY_CHECK: pointer-mode-mismatch": a suspect
// the argument checks already found wrong is the likely culprit.
std::string suspect_text(const TraceFile& trace, const CallView& call) {
  std::string text = call_with_shape(trace, call);
  std::string flagged;
  for (int bit = 0; bit < kCheckCount; ++bit) {
    if ((call.rec().check_bits & (1u << bit)) == 0) continue;
    if (const char* name = check_id_name(static_cast<CheckId>(bit))) flagged += (flagged.empty() ? "" : ", ") + std::string(name);
  }
  return flagged.empty() ? text : text + ", flagged by CUBLASSPY_CHECK: " + flagged;
}

std::string error_name(int code) { return name_and_number(NameSet::kCudaError, code); }

std::string what_it_means(int code) {
  switch (code) {
    case 700: return "a kernel read or wrote an address outside any allocation";
    case 701: return "a kernel asked for more resources than the GPU has";
    case 702: return "a kernel ran past the watchdog's time limit";
    case 710: return "a device-side assert failed";
    case 714: case 715: case 716: case 717: return "a kernel executed an invalid instruction or access";
    case 718: return "an invalid program counter in a kernel";
    case 719: return "a kernel failed (the context is now unusable)";
    case 720: return "a cooperative launch exceeded the GPU's limits";
    default: return "the GPU reported an error";
  }
}

// Later failures the sticky error explains (every call after it fails until the process ends).
uint64_t failures_from(const TraceFacts& f, uint64_t seq) {
  uint64_t n = 0;
  for (const auto& [key, group] : f.failures) {
    if (group.first.seq >= seq) n += group.count;
  }
  return n;
}

// Advice for a GEMM among the suspects: its operands.
const char* kGemmOperandAdvice =
    "Check the operands of that call: each must be a live device allocation large enough for its "
    "shape (ld * columns elements, times the batch stride and count), with lda/ldb/ldc at least the "
    "rows they span; `cublasspy run --check` validates this before each call. ";
// Several suspects, none pinned, launches among them.
const char* kNotPinnedAdvice =
    "The culprit is not pinned: rerun with `cublasspy run --sync all -- ...` (CUBLASSPY_SYNC=all), "
    "which synchronizes after each GEMM and each launch the shim records and names the one that "
    "failed. ";
// For any fault on the device.
const char* kDeviceAdvice =
    "`compute-sanitizer --tool memcheck` names the faulting kernel and address. On a GPU that "
    "works for other programs, also look at `sudo dmesg | grep -i NVRM` (Xid errors: hardware, "
    "temperature, power).";

// The advice for the suspects: launches (kernels, copies, memsets) and GEMM calls.
std::string suspects_advice(const std::vector<LaunchView>& launches, bool gemms) {
  std::string advice = gemms ? kGemmOperandAdvice : "";
  if (!launches.empty() || !gemms) advice += launches_advice(launches);
  return advice + kDeviceAdvice;
}

// GEMMs among the suspects that can have put work on the device: those that returned success
// (a GEMM that returned a failure checked its launch and found the error already there), and
// any beyond the ones kept.
uint64_t working_gemms(const std::vector<CallView>& calls, uint64_t total) {
  uint64_t n = total > calls.size() ? total - calls.size() : 0;
  for (const CallView& c : calls) n += c.rec().status == 0 ? 1 : 0;
  return n;
}

// The only work recorded since the last clean synchronization, when it is one launch and no
// GEMM: that launch faulted. nullptr when there are several suspects, or none.
const LaunchView* only_suspect(const std::vector<LaunchView>& launches, uint64_t total, uint64_t gemms) {
  return total == 1 && launches.size() == 1 && gemms == 0 ? &launches.front() : nullptr;
}

// The advice when that one launch is the culprit: what it was given, no rerun to pin it down.
std::string culprit_advice(const LaunchView& l) {
  return "That launch is the culprit (the only work recorded since the last clean synchronization). " +
         launches_advice({l}) + kDeviceAdvice;
}

// " It is one of the 3 launches made since the last clean synchronization after call #4: a; b; c",
// or for the culprit, " Only one launch was made since the last clean synchronization after call
// #4, so it is the culprit: a".
std::string suspects_text(const std::vector<LaunchView>& launches, uint64_t n, const std::string& since,
                          const char* verb, bool culprit) {
  std::string list;
  for (const LaunchView& l : launches) list += (list.empty() ? "" : "; ") + launch_text(l);
  if (culprit) {
    return fmt::format(" Only one launch was {} since the last clean synchronization{}, so it is the culprit: {}",
                       verb, since, list);
  }
  const uint64_t more = n > launches.size() ? n - launches.size() : 0;
  return fmt::format(" It is one of the {} launch{} {} since the last clean synchronization{}: {}{}", n,
                     n == 1 ? "" : "es", verb, since, list, more ? fmt::format(" (and {} earlier)", more) : std::string());
}

// The launches made before the point where the error surfaced (TraceFacts::surfaced_launches).
std::string surfaced_suspects_text(const TraceFacts& f, bool culprit) {
  if (f.surfaced_launches.empty()) return "";
  std::string text = f.surfaced_launches_other_streams
                         ? " Nothing the shim records was launched on its stream since the last clean "
                           "synchronization; the error is the device's, so it came from another stream."
                         : "";
  return text + suspects_text(f.surfaced_launches, f.surfaced_launches_total, "", "made before it", culprit) + ".";
}

// " GPU work launched since the last successful synchronization: #5 cublasSgemm_v2 (...)".
std::string gemm_suspects_text(const TraceFile& trace, const std::vector<CallView>& calls, uint64_t total) {
  if (calls.empty()) return "";
  std::string list;
  for (const CallView& s : calls) list += (list.empty() ? "" : "; ") + suspect_text(trace, s);
  const uint64_t more = total > calls.size() ? total - calls.size() : 0;
  return fmt::format(" GPU work launched since the last successful synchronization: {}{}.", list,
                     more ? fmt::format(" and {} earlier", more) : std::string());
}

// The GEMMs captured into the graph a graph launch ran: " The graph runs the GEMMs captured
// into it: #12 cublasSgemm_v2 (...); ...". Empty for another launch, or a graph with none held.
std::string captured_gemms_text(const TraceFile& trace, const LaunchView& l) {
  const std::optional<GraphSummary> g = graph_of(trace, l);
  if (!g || g->captured_calls.empty()) return "";
  std::string list;
  trace.for_each_call([&](const CallView& c) {
    if (c.slot.capture_id != 0 && c.slot.capture_id == g->capture_id) {
      list += (list.empty() ? "" : "; ") + call_with_shape(trace, c);
    }
  });
  return fmt::format(" The graph runs the GEMM{} captured into it: {}.", g->captured_calls.size() == 1 ? "" : "s", list);
}

// Beside the culprit, the GEMMs since it, which all returned a failure: " #15 cublasSgemm_v2 (...)
// returned a failure, so it launched no work."
std::string failed_gemms_text(const TraceFile& trace, const std::vector<CallView>& calls) {
  if (calls.empty()) return "";
  std::string list;
  for (const CallView& s : calls) list += (list.empty() ? "" : "; ") + suspect_text(trace, s);
  return fmt::format(" {} returned a failure, so {} launched no work.", list, calls.size() == 1 ? "it" : "they");
}

// CUBLASSPY_SYNC=all synchronized after a launch and found the error: that launch faulted.
Diagnosis pinned_launch(const TraceFacts& f, const LaunchView& l) {
  const int code = l.entry.async_status;
  Diagnosis d = finding(ids::kAsyncError, Severity::kError, f);
  d.launch = l.ticket + 1;  // the report adds the line that launched it (format version 6)
  if (const std::optional<format::GraphWords> w = graph_words(l)) {
    d.summary = fmt::format("the GPU work of CUDA graph {:#x} (its launch {}) failed with {}", w->graph, w->launch,
                            error_name(code));
    d.evidence = fmt::format("{} returned {}, then synchronizing its stream (CUBLASSPY_SYNC=all) reported {}: {}.",
                             launch_text(l), status_text_for(l.library(), l.entry.status), error_name(code),
                             what_it_means(code));
    d.evidence += captured_gemms_text(*f.trace, l);
    d.advice = "The fault is in the graph's replay of its captured work: a graph runs it with the addresses and "
               "sizes it was captured with, so check that every tensor and workspace the captured calls use is "
               "still allocated and still holds what the graph expects (`cublasspy run --check` looks before "
               "each graph launch), and that the captured kernels' indices are in range. ";
    d.advice += kDeviceAdvice;
    return d;
  }
  d.summary = fmt::format("the GPU work launched by {} failed with {}", l.kernel.empty() ? l.function_name() : l.kernel,
                          error_name(code));
  d.evidence = fmt::format("{} returned {}, then synchronizing its stream (CUBLASSPY_SYNC=all) reported {}: {}.",
                           launch_text(l), status_text_for(l.library(), l.entry.status), error_name(code),
                           what_it_means(code));
  if (uint64_t later = failures_from(f, 0); later > 0) {
    d.evidence += fmt::format(" The error is sticky: {} call{} failed because of it.", later, plural(later));
  }
  d.advice = "That work is the culprit (launched by the program, not by cuBLAS). ";
  d.advice += launches_advice({l}) + kDeviceAdvice;
  return d;
}

// How to pin down work the shim synchronized around only at GEMMs: --sync all waits after each
// recorded launch as well; work the shim does not record needs CUDA_LAUNCH_BLOCKING=1.
std::string pin_down_advice(const TraceFacts& f) {
  if (f.sync_all()) {
    return "CUBLASSPY_SYNC=all synchronized after every launch the shim records, so the failing "
           "work was launched by something it does not record: run with CUDA_LAUNCH_BLOCKING=1 "
           "(every kernel launch then reports its own error) or under `compute-sanitizer`, which "
           "names the faulting kernel. ";
  }
  return "To pin down the work that faulted, rerun with `cublasspy run --sync all -- ...` "
         "(CUBLASSPY_SYNC=all): it also synchronizes after every kernel launch, copy and memset "
         "the shim records and names the one that failed (CUDA_LAUNCH_BLOCKING=1 does the same "
         "for every kernel, without the record). ";
}

// CUBLASSPY_SYNC found the error pending before a GEMM ran: the GEMM did not cause it.
Diagnosis pending_before_call(const TraceFacts& f) {
  const CallView& call = *f.pending_at;
  const int code = call.slot.pending_error;
  Diagnosis d = finding(ids::kAsyncError, Severity::kError, f);
  d.call = call.seq;
  d.summary = fmt::format("an asynchronous GPU error ({}) was already pending before {}: the GEMM did not cause it",
                          error_name(code), call_name(call));
  d.evidence = fmt::format("CUBLASSPY_SYNC synchronized the stream before {} ran, and it reported {}: "
                           "{}, in work launched earlier.",
                           call_name(call), error_name(code), what_it_means(code));
  const std::string since = f.pending_clean_wait ? fmt::format(" after {}", launch_text(*f.pending_clean_wait))
                            : f.pending_clean_sync ? fmt::format(" after call #{}", f.pending_clean_sync->seq)
                                                   : "";
  // GEMMs made since the synchronization that bounds the launches.
  std::vector<CallView> gemms = f.pending_suspects;
  uint64_t gemms_total = f.pending_suspects_total;
  if (f.pending_clean_wait) drop_cleared(gemms, gemms_total, f.pending_clean_wait->entry.start_ns);
  const LaunchView* culprit =
      only_suspect(f.pending_launches, f.pending_launches_total, working_gemms(gemms, gemms_total));
  if (!f.pending_launches.empty()) {
    if (f.pending_launches_other_streams) {
      d.evidence += fmt::format(" Nothing the shim records was launched on its stream ({:#x}) since the last clean "
                                "synchronization; the error is the device's, not the stream's, so it came from "
                                "another stream.",
                                call.rec().stream);
    }
    d.evidence += suspects_text(f.pending_launches, f.pending_launches_total, since, "made", culprit != nullptr) + ".";
  } else if (!f.pending_suspects.empty()) {
    std::string list;
    for (const CallView& s : f.pending_suspects) list += (list.empty() ? "" : "; ") + suspect_text(*f.trace, s);
    const uint64_t n = f.pending_suspects_total;
    const uint64_t more = n > f.pending_suspects.size() ? n - f.pending_suspects.size() : 0;
    d.evidence += fmt::format(" It is one of the {} launch{} recorded since the last clean synchronization{}: {}{}.",
                              n, n == 1 ? "" : "es", since, list, more ? fmt::format(" and {} earlier", more) : std::string());
  } else {
    d.evidence += fmt::format(" No work the shim records was launched since the last clean synchronization{}: the "
                              "failing work was launched by something it does not record (a kernel of the "
                              "program's own, another library).",
                              since);
  }
  if (uint64_t later = failures_from(f, call.seq); later > 0) {
    d.evidence += fmt::format(" The error is sticky: {} call{} from there on failed because of it.", later, plural(later));
  }
  d.advice = culprit != nullptr ? culprit_advice(*culprit)
                                : pin_down_advice(f) + suspects_advice(f.pending_launches, f.pending_launches.empty() &&
                                                                                             !f.pending_suspects.empty());
  return d;
}

}  // namespace

void rule_async_error(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const format::FileHeader& h = f.header();
    // Pinned to a launch by CUBLASSPY_SYNC=all: the kernel itself.
    if (f.launch_error && is_asynchronous_cuda_error(f.launch_error->entry.async_status) &&
        (f.async_pinned.empty() || f.launch_error->entry.start_ns < f.async_pinned.front().rec().start_ns)) {
      ctx.add(pinned_launch(f, *f.launch_error));
      continue;
    }
    // Found pending before a GEMM, unless a call before it was pinned as its cause.
    if (f.pending_at && (f.async_pinned.empty() || !began_before(f.async_pinned.front(), *f.pending_at))) {
      ctx.add(pending_before_call(f));
      continue;
    }
    if (!f.async_pinned.empty()) {
      const CallView& call = f.async_pinned.front();
      const int code = call.rec().async_status;
      Diagnosis d = finding(ids::kAsyncError, Severity::kError, f);
      d.call = call.seq;
      d.summary = fmt::format("the GPU work launched by {} failed with {}", call_name(call), error_name(code));
      d.evidence = fmt::format("{} returned {}, then synchronizing its stream (CUBLASSPY_SYNC) "
                               "reported {}: {}.",
                               suspect_text(*f.trace, call), status_text(call), error_name(code), what_it_means(code));
      if (uint64_t later = failures_from(f, call.seq + 1); later > 0) {
        d.evidence += fmt::format(" The error is sticky: {} later call{} failed because of it.", later, plural(later));
      }
      d.advice = std::string(kGemmOperandAdvice) + kDeviceAdvice;
      ctx.add(std::move(d));
      continue;
    }

    // Not pinned: where it surfaced, and the work launched since the last clean sync.
    std::optional<CallView> surfaced = f.async_surfaced_at;
    int code = h.first_async_seq != 0 ? h.first_async_error : 0;
    if (!surfaced) {  // a trace without the header mark: the first failure with such a code
      for (const auto& key : f.failure_order) {
        const CallView& c = f.failures.at(key).first;
        if (is_asynchronous_cuda_error(c.rec().status) && (!surfaced || began_before(c, *surfaced))) surfaced = c;
      }
      if (surfaced) code = surfaced->rec().status;
    }
    // It surfaced first in the launch ring (an asynchronous copy, a wait or a query returning
    // it): no call record names it.
    if (f.launch_error && !is_asynchronous_cuda_error(f.launch_error->entry.async_status) &&
        (code == 0 || (surfaced && f.launch_error->entry.start_ns < surfaced->rec().start_ns))) {
      const LaunchView& l = *f.launch_error;
      Diagnosis d = finding(ids::kAsyncError, Severity::kError, f);
      d.launch = l.ticket + 1;
      d.summary = fmt::format("an asynchronous GPU error ({}) surfaced at {}", error_name(l.entry.status), l.function_name());
      d.evidence = fmt::format("{} returned {}: {}; it reports work launched earlier, not its own.", launch_text(l),
                               status_text_for(l.library(), l.entry.status), what_it_means(l.entry.status));
      const uint64_t gemms = working_gemms(f.surfaced_calls, f.surfaced_calls_total);
      const LaunchView* culprit = only_suspect(f.surfaced_launches, f.surfaced_launches_total, gemms);
      d.evidence += surfaced_suspects_text(f, culprit != nullptr);
      d.evidence += culprit != nullptr ? failed_gemms_text(*f.trace, f.surfaced_calls)
                                       : gemm_suspects_text(*f.trace, f.surfaced_calls, f.surfaced_calls_total);
      d.advice = culprit != nullptr ? culprit_advice(*culprit)
                                    : (f.sync_mode() ? pin_down_advice(f) : std::string(kNotPinnedAdvice)) +
                                          suspects_advice(f.surfaced_launches, gemms > 0);
      if (const uint64_t later = failures_from(f, 0); later > 0) {
        d.evidence += fmt::format(" {} later call{} failed because of it (the error is sticky).", later, plural(later));
      }
      ctx.add(std::move(d));
      continue;
    }
    if (code == 0) continue;

    Diagnosis d = finding(ids::kAsyncError, Severity::kError, f);
    d.summary = fmt::format("an asynchronous GPU error ({}) surfaced{}", error_name(code),
                            surfaced ? " at " + call_name(*surfaced) : std::string());
    d.evidence = surfaced ? fmt::format("{} returned {}: {}; it reports work launched earlier, not "
                                        "its own.",
                                        call_name(*surfaced), status_text(*surfaced), what_it_means(code))
                          : fmt::format("The trace recorded asynchronous error {} after call #{}.",
                                        error_name(code), h.first_async_seq);
    if (surfaced) d.call = surfaced->seq;
    const uint64_t gemms = working_gemms(f.async_suspects, f.async_suspects_total);
    const LaunchView* culprit = only_suspect(f.surfaced_launches, f.surfaced_launches_total, gemms);
    d.evidence += surfaced_suspects_text(f, culprit != nullptr);
    d.evidence += culprit != nullptr ? failed_gemms_text(*f.trace, f.async_suspects)
                                     : gemm_suspects_text(*f.trace, f.async_suspects, f.async_suspects_total);
    const uint64_t from = surfaced ? surfaced->seq + 1 : h.first_async_seq + 1;
    if (uint64_t later = failures_from(f, from); later > 0) {
      d.evidence += fmt::format(" {} later call{} failed because of it (the error is sticky).", later, plural(later));
    }
    if (culprit != nullptr) {
      d.advice = culprit_advice(*culprit);
    } else if (f.sync_mode()) {
      d.evidence += " CUBLASSPY_SYNC was on and no intercepted call was found failing, so the "
                    "failing work was launched by something the shim does not intercept (a custom "
                    "kernel, another library).";
      d.advice = pin_down_advice(f);
      d.advice += suspects_advice(f.surfaced_launches, gemms > 0);
    } else {
      // Kernels, copies or memsets among the suspects: --sync all waits after those too.
      d.advice = f.surfaced_launches.empty()
                     ? "The culprit is not pinned: rerun with `cublasspy run --sync ...` (or "
                       "CUBLASSPY_SYNC=1), which synchronizes after each intercepted call and names the "
                       "call whose GPU work failed (CUDA_LAUNCH_BLOCKING=1 does the same for every "
                       "kernel, without the record). "
                     : kNotPinnedAdvice;
      d.advice += suspects_advice(f.surfaced_launches, gemms > 0);
    }
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
