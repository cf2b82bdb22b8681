#include "diagnose/trace_facts.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "gemm/gemm_call.h"
#include "trace/graph_summary.h"
#include "scan/host_scan.h"

namespace cublasspy::diagnoses {
namespace {

constexpr size_t kKeepFindings = 64;  // calls with findings kept per kind (the rest counted)
constexpr size_t kKeepSuspects = 8;   // asynchronous-error suspects named in evidence
constexpr size_t kKeepLtFailures = 256;  // failing cuBLASLt calls whose log line is looked up
constexpr int kExecutionFailed = 13;  // CUBLAS_STATUS_EXECUTION_FAILED

// A text argument: the bytes from its slot to the end of the record's argument area.
std::string text_arg(const CallView& call, format::ArgRole role) {
  if (call.function == nullptr) return "";
  const int i = slot_with_role(*call.function, role);
  if (i < 0 || static_cast<format::ArgKind>(call.function->args[i].kind) != format::ArgKind::kText) return "";
  const char* begin = reinterpret_cast<const char*>(&call.rec().args[i]);
  size_t room = (format::kMaxArgs - i) * sizeof(uint64_t);
  return std::string(begin, strnlen(begin, room));
}

using format::has_trait;
namespace Trait = format::Trait;

bool has_nonfinite(const format::RecordSlot& slot) {
  if ((slot.call.flags & format::kFlagScanned) == 0) return false;
  for (const format::ScanSummary& s : slot.scan) {
    if (was_scanned(s) && (nonfinite_count(s) != 0 || s.overflow != 0)) return true;
  }
  return false;
}

// cudaStreamSynchronize, cudaMemcpy and friends: a successful one means every earlier launch on
// that stream (for cudaMemcpy: the legacy stream, which waits for all) finished cleanly.
bool is_sync_point(const CallView& call) { return family_of(call) == format::Family::kSync; }

}  // namespace

bool LibraryLoad::probe() const { return (flags & RTLD_NOLOAD) != 0; }

std::optional<std::string> TraceFacts::env_value(const std::string& name) const {
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

std::string TraceFacts::env_text(const std::string& name) const {
  auto v = env_value(name);
  return v ? fmt::format("{}={}", name, v->empty() ? "\"\"" : *v) : name + " unset";
}

const CallView* TraceFacts::first_failed_call() const {
  const CallView* first = nullptr;
  for (const auto& key : failure_order) {
    const CallView& c = failures.at(key).first;
    if (first == nullptr || began_before(c, *first)) first = &c;
  }
  return first;
}

bool TraceFacts::sync_mode() const {
  auto v = env_value("CUBLASSPY_SYNC");
  return v && *v != "0" && !v->empty();
}

bool TraceFacts::sync_all() const { return env_value("CUBLASSPY_SYNC") == "all"; }

format::Family family_of(const CallView& call) {
  return call.function ? static_cast<format::Family>(call.function->family) : format::Family::kOther;
}

bool is_cublas_call(const CallView& call) {
  return call.library() == format::Library::kCublas || call.library() == format::Library::kCublasLt;
}

bool launches_device_work(const CallView& call) {
  return call.function != nullptr && format::is_gemm_family(call.function->family);
}

void drop_cleared(std::vector<CallView>& suspects, uint64_t& total, uint64_t cleared_ns) {
  const size_t kept = suspects.size();
  std::erase_if(suspects, [&](const CallView& c) { return c.rec().start_ns <= cleared_ns; });
  total -= std::min<uint64_t>(total, kept - suspects.size());
}

FactsGatherer::FactsGatherer(const TraceFile& trace) {
  TraceFacts& f = f_;
  f.trace = &trace;
  const ProcessInfo& p = trace.process();
  if (std::string pid = p.get("pid"); !pid.empty()) {
    try {
      f.pid = std::stoll(pid);
    } catch (...) {
    }
  }
  f.exe = p.get("exe");
  for (const std::string& entry : p.all("env")) {
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    f.env.emplace(entry.substr(0, eq), entry.substr(eq + 1));  // emplace keeps the first
  }
  for (const std::string& lib : p.all("library")) {
    bool seen = false;
    for (const std::string& l : f.libraries) seen = seen || l == lib;
    if (!seen) f.libraries.push_back(lib);
  }
  const std::optional<LaunchView> ring_error = trace.first_launch_error();
  if (ring_error && !is_asynchronous_cuda_error(ring_error->entry.async_status)) {
    ring_surfaced_ns_ = ring_error->entry.start_ns;
  }
}

void FactsGatherer::take_surfaced_calls() {
  f_.surfaced_calls.assign(since_sync_.begin(), since_sync_.end());
  f_.surfaced_calls_total = since_sync_total_;
  ring_surfaced_ns_.reset();
}

void FactsGatherer::add(const CallView& call) {
  TraceFacts& f = f_;
  const format::FileHeader& h = f.header();
  const format::Record& rec = call.rec();
  const format::Family family = family_of(call);
  f.last_activity_ns = std::max(f.last_activity_ns, rec.start_ns + (call.in_flight() ? 0 : rec.duration_ns));
  // The first call after the launch ring's error: the suspects are those made before it.
  if (ring_surfaced_ns_ && rec.start_ns > *ring_surfaced_ns_) take_surfaced_calls();
  if (family == format::Family::kLibraryLoad) {
    LibraryLoad load;
    load.seq = call.seq;
    load.requested = text_arg(call, format::ArgRole::kFilename);
    load.flags = static_cast<int>(call.arg(format::ArgRole::kLoadFlags).value_or(0));
    load.ok = call.state == format::RecordState::kCompleted && rec.status == 0;
    load.result = text_arg(call, format::ArgRole::kLoadResult);
    f.loads.push_back(std::move(load));
    if (call.in_flight()) f.in_flight.push_back(call);
    return;
  }
  // An exec (format version 9) is no CUDA work and no failure to explain (its errno is in the
  // record, and the image went on); the one left in flight when the trace says the image was
  // replaced ended it, and was not cut short.
  if (family == format::Family::kExec) {
    const bool ended_the_image = h.end_state == static_cast<uint32_t>(format::EndState::kExecuted);
    if (call.in_flight() && !ended_the_image) f.in_flight.push_back(call);
    return;
  }
  f.any_cuda_call = true;
  if (call.in_flight()) f.in_flight.push_back(call);
  if (family == format::Family::kErrorText && f.reported_errors.size() < kKeepFindings) {
    f.reported_errors.push_back(call);
  }
  if (family == format::Family::kDevice) f.device_calls.push_back(call);
  if (has_trait(call.function, Trait::kCreatesHandle)) {
    f.handle_creates.push_back(call);
  }
  // Findings are read through the function's argument table: a record without one (a torn or
  // foreign function id) cannot be interpreted, only counted as a call.
  if (rec.check_bits != 0 && call.function != nullptr) {
    if (f.checked.size() < kKeepFindings) f.checked.push_back(call);
    f.checked_total++;
  }
  if ((rec.flags & format::kFlagScanned) && call.function != nullptr) {
    f.scanned_total++;
    if (has_nonfinite(call.slot)) {
      if (f.scanned_nonfinite.size() < kKeepFindings) f.scanned_nonfinite.push_back(call);
      f.scanned_nonfinite_total++;
    }
  }
  if ((rec.flags & format::kFlagAsyncPinned) && call.async_fault() &&
      f.async_pinned.size() < kKeepFindings) {
    f.async_pinned.push_back(call);
  }
  if (call.slot.pending_error != 0 && !f.pending_at) {
    // Before this call joins the suspects: it is the one the error was found pending at.
    f.pending_at = call;
    f.pending_suspects.assign(since_sync_.begin(), since_sync_.end());
    f.pending_suspects_total = since_sync_total_;
    f.pending_clean_sync = last_clean_sync_;
  }
  if (call.state != format::RecordState::kCompleted) return;

  if (launches_device_work(call)) {
    if (rec.status == 0 && !call.async_fault()) f.successful_work++;
    since_sync_total_++;
    since_sync_.push_back(call);
    if (since_sync_.size() > kKeepSuspects) since_sync_.pop_front();
  }
  if (h.first_async_seq != 0 && call.seq == h.first_async_seq && !f.async_surfaced_at) {
    f.async_surfaced_at = call;
    f.async_suspects.assign(since_sync_.begin(), since_sync_.end());
    // The call that surfaced the error is no suspect of its own unless it launched work.
    if (!f.async_suspects.empty() && f.async_suspects.back().seq == call.seq && !launches_device_work(call)) {
      f.async_suspects.pop_back();
    }
    f.async_suspects_total = since_sync_total_;
  }
  // A GEMM synchronized cleanly after it under CUBLASSPY_SYNC is a clean sync point too.
  const bool synced_clean = (rec.flags & format::kFlagSynced) && rec.async_status == 0 && rec.status == 0;
  if ((is_sync_point(call) && rec.status == 0) || synced_clean) {
    since_sync_.clear();
    since_sync_total_ = 0;
    last_clean_sync_ = call;
    // cudaStreamSynchronize and a synced GEMM wait for their stream; cudaMemcpy for the legacy one.
    const bool waits_for_stream = has_trait(call.function, Trait::kWaitsForStream) || synced_clean;
    clean_waits_.push_back({rec.start_ns, rec.stream, !waits_for_stream || rec.stream == 0});
  }

  if (rec.status != 0) {
    f.failed_total++;
    if (has_trait(call.function, Trait::kAllocatesDevice) && f.failed_memory.size() < kKeepFindings) {
      f.failed_memory.push_back(call);
    }
    if (call.library() == format::Library::kCublasLt) {
      uint32_t& count = f.lt_failure_counts[call.function_name()];
      if (f.lt_failures.size() < kKeepLtFailures) f.lt_failures[call.seq] = LtFailure{call.function_name(), count};
      count++;
    }
    auto key = std::make_pair(std::string(call.function_name()), static_cast<int>(rec.status));
    auto [it, fresh] = f.failures.try_emplace(key, FailureGroup{call, 0});
    it->second.count++;
    if (fresh) f.failure_order.push_back(key);
  }
}

namespace {

// How the launch ring's waits and queries (family kSync) bear on the suspects of an error.
bool waits_for_device(const LaunchView& l) { return has_trait(l.function, Trait::kWaitsForDevice); }
// A query that found the stream done bounds the suspects as a wait does.
bool waits_for_stream(const LaunchView& l) { return has_trait(l.function, Trait::kWaitsForStream | Trait::kQueriesStream); }
bool is_ring_wait(const LaunchView& l) {
  return l.function != nullptr && static_cast<format::Family>(l.function->family) == format::Family::kSync;
}
// A kernel, copy or memset, or a graph's launch (which runs the work captured into it); not a
// capture's beginning or end, nor an instantiation.
bool puts_work(const LaunchView& l) {
  if (l.function == nullptr) return false;
  const auto family = static_cast<format::Family>(l.function->family);
  if (family == format::Family::kGraph) return runs_graph(l);
  return family == format::Family::kLaunch;
}

// Whether work on stream `work` can have run before work on stream `at` ran: the same stream, or
// either one the legacy default stream (0), which serializes with every blocking stream. Streams
// created non-blocking are not told apart (docs/DIAGNOSES.md).
bool ordered_before(uint64_t work, uint64_t at) { return work == at || work == 0 || at == 0; }

struct LaunchSuspects {
  std::vector<LaunchView> recent;  // the last few
  uint64_t total = 0;
  bool other_streams = false;
  std::optional<LaunchView> bound;  // the ring's clean wait that bounds them, when it does
};

// The launches that put work on the device before `to_ns` and after the last clean wait that
// covers their stream (`waits`: the call records'; the ring's are added here), on a stream
// ordered before `stream` (nullopt: the whole device). None there: those of every stream.
LaunchSuspects launch_suspects(const TraceFile& trace, const std::vector<CleanWait>& call_waits, uint64_t to_ns,
                               std::optional<uint64_t> stream, const LaunchView* before) {
  // Only what was launched before `before` (when given), in launch order.
  auto too_late = [&](const LaunchView& l) { return before != nullptr && !launched_before(l, *before); };
  uint64_t last_all = 0;
  std::map<uint64_t, uint64_t> last_on;  // stream -> start of its last clean wait before to_ns
  for (const CleanWait& w : call_waits) {
    if (w.start_ns > to_ns) continue;
    if (w.all) last_all = std::max(last_all, w.start_ns);
    else last_on[w.stream] = std::max(last_on[w.stream], w.start_ns);
  }
  LaunchSuspects out;
  trace.for_each_launch([&](const LaunchView& l) {
    if (!is_ring_wait(l) || l.entry.status != 0 || l.entry.start_ns > to_ns || too_late(l)) return;
    const bool all = waits_for_device(l) || (waits_for_stream(l) && l.entry.stream == 0);
    if (!all && !waits_for_stream(l)) return;  // event waits and error queries: the stream is unknown
    uint64_t& last = all ? last_all : last_on[l.entry.stream];
    last = std::max(last, l.entry.start_ns);
    const bool covers = all || (stream && l.entry.stream == *stream);
    if (covers && (!out.bound || l.entry.start_ns >= out.bound->entry.start_ns)) out.bound = l;
  });
  auto collect = [&](bool any_stream) {
    std::deque<LaunchView> recent;
    trace.for_each_launch([&](const LaunchView& l) {
      if (!puts_work(l) || l.entry.start_ns > to_ns || too_late(l)) return;
      auto on = last_on.find(l.entry.stream);
      const uint64_t cleared = std::max(last_all, on == last_on.end() ? 0 : on->second);
      if (cleared != 0 && l.entry.start_ns <= cleared) return;
      if (!any_stream && !ordered_before(l.entry.stream, *stream)) return;
      out.total++;
      recent.push_back(l);
      if (recent.size() > kKeepSuspects) recent.pop_front();
    });
    out.recent.assign(recent.begin(), recent.end());
  };
  collect(!stream);
  if (out.total == 0 && stream) {
    collect(true);
    out.other_streams = out.total != 0;
  }
  return out;
}

}  // namespace

namespace {

// Version 9: failures counted by site, whatever the ring still holds (a storm's first failures
// are long overwritten by its later ones): a group's count is its sites' total, and its first
// call the earliest kept, in the ring or beside it.
void merge_failure_sites(TraceFacts& f) {
  std::map<std::pair<std::string, int>, uint64_t> counted;
  uint64_t total = 0;
  for (const FailureSiteView& site : f.trace->failure_sites()) {
    // Loads and execs are no CUDA failures (FactsGatherer::add leaves them out of the groups too).
    if (site.function == nullptr) continue;
    const auto family = static_cast<format::Family>(site.function->family);
    if (family == format::Family::kLibraryLoad || family == format::Family::kExec) continue;
    total += site.count;
    // A site of calls that succeeded and whose work faulted after them (CUBLASSPY_SYNC) is no
    // failing status: the ring's groups hold only returned statuses.
    if (site.first && site.first->rec().status == 0) continue;
    const auto key = std::make_pair(std::string(site.function_name()), static_cast<int>(site.status));
    counted[key] += site.count;
    if (!site.first) continue;
    auto [it, fresh] = f.failures.try_emplace(key, FailureGroup{*site.first, 0});
    if (fresh) f.failure_order.push_back(key);
    else if (began_before(*site.first, it->second.first)) it->second.first = *site.first;
  }
  for (auto& [key, group] : f.failures) {
    if (auto c = counted.find(key); c != counted.end()) group.count = std::max(group.count, c->second);
  }
  f.failed_total = std::max(f.failed_total, total);
  std::stable_sort(f.failure_order.begin(), f.failure_order.end(), [&](const auto& a, const auto& b) {
    return began_before(f.failures.at(a).first, f.failures.at(b).first);
  });
}

}  // namespace

TraceFacts FactsGatherer::finish() {
  TraceFacts& f = f_;
  if (ring_surfaced_ns_) take_surfaced_calls();
  merge_failure_sites(f);
  f.launch_error = f.trace->first_launch_error();
  if (f.pending_at) {
    // The work launched before the GEMM that found the error pending, since the last clean wait
    // of its stream (start times are one clock in the ring and the records).
    LaunchSuspects s = launch_suspects(*f.trace, clean_waits_, f.pending_at->rec().start_ns,
                                       f.pending_at->rec().stream, nullptr);
    f.pending_launches = std::move(s.recent);
    f.pending_launches_total = s.total;
    f.pending_launches_other_streams = s.other_streams;
    if (s.bound && (!f.pending_clean_sync || s.bound->entry.start_ns > f.pending_clean_sync->rec().start_ns)) {
      f.pending_clean_wait = s.bound;
    }
  }
  // Where the error surfaced first: in the ring (a stream's wait or query names the stream;
  // anything else, a device wait, an event, the last error, the whole device) or at a call
  // (its stream; cudaMemcpy's is the legacy one, ordered with all).
  const bool in_ring = f.launch_error && !is_asynchronous_cuda_error(f.launch_error->entry.async_status) &&
                       (!f.async_surfaced_at || f.launch_error->entry.start_ns < f.async_surfaced_at->rec().start_ns);
  std::optional<LaunchSuspects> surfaced;
  if (in_ring) {
    const LaunchView& l = *f.launch_error;
    std::optional<uint64_t> stream;
    if (puts_work(l) || waits_for_stream(l)) stream = l.entry.stream;
    surfaced = launch_suspects(*f.trace, clean_waits_, l.entry.start_ns, stream, &l);
  } else if (f.async_surfaced_at) {
    surfaced = launch_suspects(*f.trace, clean_waits_, f.async_surfaced_at->rec().start_ns,
                               f.async_surfaced_at->rec().stream, nullptr);
  }
  // The first handle create that failed, and the first GEMM that returned EXECUTION_FAILED.
  auto launches_before = [&](const CallView& c) {
    LaunchSuspects s = launch_suspects(*f.trace, clean_waits_, c.rec().start_ns, std::nullopt, nullptr);
    return LaunchesBefore{c.seq, std::move(s.recent), s.total};
  };
  for (const CallView& c : f.handle_creates) {
    if (c.state != format::RecordState::kCompleted || c.rec().status == 0) continue;
    f.before_failed_create = launches_before(c);
    break;
  }
  const CallView* failed_gemm = nullptr;
  for (const auto& [key, group] : f.failures) {
    const CallView& c = group.first;
    if (key.second == kExecutionFailed && launches_device_work(c) && (!failed_gemm || began_before(c, *failed_gemm))) {
      failed_gemm = &c;
    }
  }
  if (failed_gemm != nullptr) f.before_failed_gemm = launches_before(*failed_gemm);
  if (surfaced) {
    f.surfaced_launches = std::move(surfaced->recent);
    f.surfaced_launches_total = surfaced->total;
    f.surfaced_launches_other_streams = surfaced->other_streams;
    // A clean wait of the ring after a GEMM clears it too.
    if (in_ring && surfaced->bound) drop_cleared(f.surfaced_calls, f.surfaced_calls_total, surfaced->bound->entry.start_ns);
  }
  if (!in_ring) {
    f.surfaced_calls.clear();
    f.surfaced_calls_total = 0;
  }
  return std::move(f_);
}

TraceFacts gather_facts(const TraceFile& trace) {
  FactsGatherer gatherer(trace);
  trace.for_each_call([&](const CallView& call) { gatherer.add(call); });
  return gatherer.finish();
}

std::string call_name(const CallView& call) {
  return fmt::format("{} (call #{})", call.function_name(), call.seq);
}

std::string status_text(const CallView& call, int status) { return status_text_for(call.library(), status); }

std::string status_text(const CallView& call) { return status_text(call, call.rec().status); }

std::string gemm_shape_text(const TraceFile&, const CallView& call) {
  if (call.function == nullptr) return "";
  GemmCall g = call.gemm();
  if (!g.valid) return "";
  std::string text = fmt::format("m={} n={} k={}", g.m, g.n, g.k);
  static const char* const kLd[] = {"lda", "ldb", "ldc", "ldd"};
  for (int i = 0; i < 3; ++i) {
    if (g.op[i].present) text += fmt::format(" {}={}", kLd[i], g.op[i].ld);
  }
  if (g.batch_count != 1) text += fmt::format(" batch={}", g.batch_count);
  return text;
}

std::string call_with_shape(const TraceFile& trace, const CallView& call) {
  std::string shape = gemm_shape_text(trace, call);
  if (shape.empty()) return fmt::format("#{} {}", call.seq, call.function_name());
  return fmt::format("#{} {} ({})", call.seq, call.function_name(), shape);
}

// "at::native::fill_kernel<float> (cudaLaunchKernel, grid 4x1x1, block 256x1x1, stream 0x0,
// launch #12)" or "cudaMemsetAsync (48 bytes, stream 0x5581..., launch #3)".
std::string launch_text(const LaunchView& l) {
  const format::LaunchEntry& e = l.entry;
  const std::string where = fmt::format("stream {:#x}, launch #{}", e.stream, l.ticket + 1);
  // A graph's launch: "cudaGraphLaunch of graph 0x55... (its launch 3, stream 0x0, launch #12)".
  if (const std::optional<format::GraphWords> w = graph_words(l)) {
    return fmt::format("{} of graph {:#x} (its launch {}, {})", l.function_name(), w->graph, w->launch, where);
  }
  // A wait or a query (CUBLASSPY_SURFACE_HOOKS): "cudaDeviceSynchronize (launch #7)".
  if (l.function != nullptr && static_cast<format::Family>(l.function->family) == format::Family::kSync) {
    return fmt::format("{} (launch #{})", l.function_name(), l.ticket + 1);
  }
  if (e.bytes != 0 || (e.grid[0] == 0 && e.block[0] == 0)) {
    return fmt::format("{} ({} bytes, {})", l.function_name(), e.bytes, where);
  }
  return fmt::format("{} ({}, grid {}x{}x{}, block {}x{}x{}, {})", l.kernel.empty() ? "an unnamed kernel" : l.kernel,
                     l.function_name(), e.grid[0], e.grid[1], e.grid[2], e.block[0], e.block[1], e.block[2], where);
}


bool LaunchesBefore::any_kernel() const {
  for (const LaunchView& l : recent) {
    const bool launch = l.function != nullptr && static_cast<format::Family>(l.function->family) == format::Family::kLaunch;
    if (launch && l.entry.bytes == 0 && l.entry.grid[0] != 0) return true;
  }
  return false;
}

std::string launch_name(const LaunchView& l) { return l.kernel.empty() ? std::string(l.function_name()) : l.kernel; }

std::string launches_before_text(const LaunchesBefore& before) {
  if (before.total == 0) return "";
  std::string list;
  for (const LaunchView& l : before.recent) list += (list.empty() ? "" : "; ") + launch_text(l);
  const uint64_t more = before.total > before.recent.size() ? before.total - before.recent.size() : 0;
  return fmt::format(" Since the last clean synchronization, {} launch{} put work on the device before it: {}{}.",
                     before.total, before.total == 1 ? "" : "es", list,
                     more ? fmt::format(" (and {} earlier)", more) : std::string());
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace cublasspy::diagnoses
