#include "scan/gemm_scan.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <vector>

#include "cuda_driver/stream_wait.h"
#include "scan/host_scan.h"

namespace cublasspy {
namespace {

// An operand to scan in this phase.
struct Target {
  int index;         // 0..3: A, B, C, D (also its tally's place in a result slot)
  const Matrix* m;
  ElementKind kind;
  int64_t batch;     // members to scan: 1 for a broadcast (stride 0) operand
  CUfunction kernel = nullptr;
};

bool finite_scanned(const format::ScanSummary& s) {
  return was_scanned(s) && nonfinite_count(s) == 0;
}

class ScannerSink : public MatrixSink {
 public:
  explicit ScannerSink(HostScanner& scanner) : scanner_(scanner) {}
  bool consume(const void* data, uint64_t first, uint64_t count, uint64_t batch) override {
    scanner_.add_span(data, first, count, batch);
    return true;
  }

 private:
  HostScanner& scanner_;
};

// Bytes from the first element of member 0 to one past the last element of the last member;
// kExtentOverflow when the sizes overflow (then no range check can pass).
uint64_t strided_extent_bytes(const Target& t) {
  const auto later = static_cast<uint64_t>(t.batch - 1), stride = static_cast<uint64_t>(t.m->stride);
  uint64_t one = member_extent_elements(*t.m), more = 0, bytes = 0;
  if (one == kExtentOverflow || __builtin_mul_overflow(later, stride, &more) ||
      __builtin_add_overflow(one, more, &one) ||
      __builtin_mul_overflow(one, static_cast<uint64_t>(t.kind.bytes()), &bytes)) {
    return kExtentOverflow;
  }
  return bytes;
}

// The kernel reads device memory directly: only launch it on ranges the driver says lie in one
// allocation, with every element aligned for its loads, or a bad pointer would fault the
// program's context instead of failing a copy.
bool kernel_can_read(const DriverApi& api, const GemmCall& g, const Target& t, uint64_t chunk) {
  // The kernel reads (re, im) pairs: a planar complex operand (two planes) is read on the host,
  // where read_matrix interleaves its planes.
  if (t.m->planar()) return false;
  const uint64_t align = static_cast<uint64_t>(scan::format_bytes(t.kind.format));
  if (!g.pointer_arrays) {
    return t.m->ptr % align == 0 && device_range_ok(api, t.m->ptr, strided_extent_bytes(t));
  }
  const uint64_t count = static_cast<uint64_t>(t.batch);
  const uint64_t member_elements = member_extent_elements(*t.m);
  uint64_t member = 0;
  if (count > (kExtentOverflow >> 3) || t.m->array_ptr % sizeof(uint64_t) != 0 ||
      !device_range_ok(api, t.m->array_ptr, count * sizeof(uint64_t)) ||
      __builtin_mul_overflow(member_elements, static_cast<uint64_t>(t.kind.bytes()), &member)) {
    return false;
  }
  std::vector<uint64_t> pointers;
  for (uint64_t first = 0; first < count; first += pointer_chunk(chunk)) {
    uint64_t n = std::min<uint64_t>(pointer_chunk(chunk), count - first);
    if (read_pointer_array(api, t.m->array_ptr, first, n, pointers) != CUDA_SUCCESS) return false;
    for (uint64_t p : pointers) {
      if (p % align != 0 || !device_range_ok(api, p, member)) return false;
    }
  }
  return true;
}

class PhaseRunner {
 public:
  PhaseRunner(const DriverApi& api, KernelCache* kernels, const GemmCall& g,
              const GemmScanRequest& request, format::ScanSummary* summaries, GemmScanResult& result)
      : api_(api), kernels_(kernels), g_(g), request_(request), summaries_(summaries),
        result_(result) {}

  // Scans the operands `indices` into their summaries.
  void run(std::initializer_list<int> indices) {
    std::vector<Target> targets;
    for (int i : indices) {
      if (i < 0) continue;
      const Matrix& m = g_.op[i];
      std::optional<ElementKind> kind = element_kind_of(m.type);
      // Integer and unknown types are not scanned.
      if (!m.present || !kind) continue;
      if (m.rows < 0 || m.cols < 0 || m.ld < m.rows || g_.batch_count < 0 || m.stride < 0) {
        result_.failed_operands++;
        continue;
      }
      if (m.rows == 0 || m.cols == 0 || g_.batch_count == 0) {  // nothing to read: clean
        summaries_[i] = summarize(scan::ScanTally{}, *kind, 0, 0);
        continue;
      }
      int64_t batch = (m.stride == 0 && !g_.pointer_arrays) ? 1 : g_.batch_count;
      targets.push_back(Target{i, &m, *kind, batch});
    }
    if (targets.empty()) return;
    std::vector<Target> host;
    run_on_gpu(targets, host);
    run_on_host(host);
    for (const Target& t : targets) {
      if (was_scanned(summaries_[t.index]) && nonfinite_count(summaries_[t.index]) != 0) {
        result_.finding = true;
      }
    }
  }

 private:
  // Launches the kernel for every target it can take; the rest go to `host`.
  void run_on_gpu(std::vector<Target>& targets, std::vector<Target>& host) {
    ContextKernels* k = kernels_for_context();
    if (k == nullptr) {
      host = targets;
      return;
    }
    // A pointer array may still be being written by work queued on the stream.
    if (g_.pointer_arrays && api_.stream_synchronize(stream()) != CUDA_SUCCESS) {
      host = targets;
      return;
    }
    std::vector<Target> gpu;
    for (Target& t : targets) {
      int idx = scan::scan_kernel_index(t.kind.format, t.kind.complex);
      t.kernel = idx >= 0 ? k->functions[idx] : nullptr;
      if (t.kernel != nullptr && kernel_can_read(api_, g_, t, request_.chunk_bytes)) gpu.push_back(t);
      else host.push_back(t);
    }
    if (gpu.empty()) return;
    int slot = claim_slot(*k);
    if (slot < 0) {  // every slot busy: more concurrent scans than slots
      host.insert(host.end(), gpu.begin(), gpu.end());
      return;
    }
    const CUdeviceptr results = k->results + static_cast<uint64_t>(slot) * ContextKernels::kSlotBytes;
    CUresult r = api_.memset_d8_async(results, 0, ContextKernels::kSlotBytes, stream());
    std::vector<Target> launched;
    for (const Target& t : gpu) {
      if (r == CUDA_SUCCESS && launch(t, results) == CUDA_SUCCESS) launched.push_back(t);
      else host.push_back(t);
    }
    scan::ScanTally tallies[4] = {};
    CUresult copy = CUDA_SUCCESS;
    if (!launched.empty()) copy = api_.memcpy_dtoh_async(tallies, results, sizeof tallies, stream());
    CUresult sync = api_.stream_synchronize(stream());
    release_slot(*k, slot);
    for (const Target& t : launched) {
      if (sync != CUDA_SUCCESS) {
        // The context reports an error (perhaps from the program's own work): trust nothing.
        result_.failed_operands++;
        result_.kernel_reason = "the stream reported an error after it ran";
        result_.kernel_error = sync;
      } else if (copy != CUDA_SUCCESS) {
        result_.kernel_reason = "its result could not be read back";
        result_.kernel_error = copy;
        host.push_back(t);
      } else {
        summaries_[t.index] = summarize(tallies[t.index], t.kind, static_cast<uint64_t>(t.m->rows),
                                        static_cast<uint64_t>(t.m->cols));
        result_.kernel_operands++;
      }
    }
  }

  void run_on_host(const std::vector<Target>& host) {
    if (host.empty()) return;
    // Copies go through the legacy stream; wait for the call's stream first.
    CUresult r = api_.stream_synchronize(stream());
    for (const Target& t : host) {
      if (r == CUDA_SUCCESS) {
        HostScanner scanner(t.kind, static_cast<uint64_t>(t.m->rows),
                            static_cast<uint64_t>(t.m->cols), static_cast<uint64_t>(t.m->ld));
        ScannerSink sink(scanner);
        CUresult read =
            read_matrix(api_, *t.m, t.batch, g_.pointer_arrays, request_.chunk_bytes, sink);
        if (read == CUDA_SUCCESS) {
          summaries_[t.index] = scanner.summary();
          result_.host_operands++;
          continue;
        }
        if (result_.copy_error == CUDA_SUCCESS) result_.copy_error = read;
      } else if (result_.copy_error == CUDA_SUCCESS) {
        result_.copy_error = r;
      }
      result_.failed_operands++;
    }
  }

  ContextKernels* kernels_for_context() {
    if (kernels_ == nullptr) return unavailable("this build of the shim has no GPU kernel (no nvcc)");
    if (!api_.can_launch()) return unavailable("the driver lacks entry points the kernel needs");
    CUcontext context = nullptr;
    CUresult r = api_.ctx_get_current(&context);
    if (r != CUDA_SUCCESS || context == nullptr) return unavailable("no current CUDA context", r);
    CUresult error = CUDA_SUCCESS;
    ContextKernels* k = kernels_->get(api_, context, &error);
    if (k != nullptr) return k;
    if (error == CUDA_ERROR_NOT_READY) return unavailable("another thread is loading it", error);
    if (error == CUDA_ERROR_OUT_OF_MEMORY && kernels_->full()) {
      return unavailable("more CUDA contexts than the scan keeps kernels for", error);
    }
    return unavailable("the driver did not load it", error);
  }

  ContextKernels* unavailable(const char* reason, CUresult error = CUDA_SUCCESS) {
    result_.kernel_reason = reason;
    result_.kernel_error = error;
    return nullptr;
  }

  CUresult launch(const Target& t, CUdeviceptr results) {
    scan::ScanKernelParams p{};
    p.base = g_.pointer_arrays ? 0 : t.m->ptr;
    p.ptr_array = g_.pointer_arrays ? t.m->array_ptr : 0;
    p.rows = static_cast<uint64_t>(t.m->rows);
    p.cols = static_cast<uint64_t>(t.m->cols);
    p.batch = static_cast<uint64_t>(t.batch);
    p.ld = static_cast<uint64_t>(t.m->ld);
    p.stride = static_cast<uint64_t>(t.m->stride);
    p.result = results + static_cast<uint64_t>(t.index) * sizeof(scan::ScanTally);
    unsigned blocks = scan::prepare_launch(p);
    void* args[] = {&p};
    return api_.launch_kernel(t.kernel, blocks, 1, 1, scan::kScanBlockThreads, 1, 1, 0,
                              reinterpret_cast<CUstream>(stream()), args, nullptr);
  }

  static int claim_slot(ContextKernels& k) {
    uint32_t busy = k.busy.load(std::memory_order_relaxed);
    while (busy != 0xffffffffu) {
      int slot = __builtin_ctz(~busy);
      if (k.busy.compare_exchange_weak(busy, busy | (1u << slot), std::memory_order_acquire)) {
        return slot;
      }
    }
    return -1;
  }
  static void release_slot(ContextKernels& k, int slot) {
    k.busy.fetch_and(~(1u << slot), std::memory_order_release);
  }

  CUstream stream() const { return reinterpret_cast<CUstream>(request_.stream); }

  const DriverApi& api_;
  KernelCache* kernels_;
  const GemmCall& g_;
  const GemmScanRequest& request_;
  format::ScanSummary* summaries_;
  GemmScanResult& result_;
};

}  // namespace

ContextKernels* KernelCache::get(const DriverApi& api, CUcontext context, CUresult* error) {
  const auto key = reinterpret_cast<uintptr_t>(context);
  for (ContextKernels& e : entries_) {
    uintptr_t owner = e.context.load(std::memory_order_acquire);
    // Entries are claimed in order, so a context already present is met before a free entry.
    if (owner == 0 && e.context.compare_exchange_strong(owner, key, std::memory_order_acq_rel)) {
      load(api, e);
      owner = key;
    }
    if (owner != key) continue;
    int state = e.state.load(std::memory_order_acquire);
    if (state == ContextKernels::kReady) return &e;
    *error = state == ContextKernels::kLoading ? CUDA_ERROR_NOT_READY : e.error;
    return nullptr;
  }
  *error = CUDA_ERROR_OUT_OF_MEMORY;  // more contexts than entries: host path for the rest
  return nullptr;
}

bool KernelCache::full() const {
  return entries_[kContexts - 1].context.load(std::memory_order_acquire) != 0;
}

void KernelCache::load(const DriverApi& api, ContextKernels& e) {
  CUresult r = image_ == nullptr ? CUDA_ERROR_NOT_FOUND : api.module_load_data(&e.module, image_);
  if (r == CUDA_SUCCESS) {
    for (int i = 0; i < scan::kScanKernelCount; ++i) {
      const char* name = scan::scan_kernel_name(i);
      if (api.module_get_function(&e.functions[i], e.module, name) != CUDA_SUCCESS) {
        e.functions[i] = nullptr;  // that type goes to the host path
      }
    }
    r = api.mem_alloc(&e.results, ContextKernels::kSlots * ContextKernels::kSlotBytes);
  }
  e.error = r;
  e.state.store(r == CUDA_SUCCESS ? ContextKernels::kReady : ContextKernels::kUnavailable,
                std::memory_order_release);
}

GemmScanResult scan_gemm(const DriverApi& api, KernelCache* kernels, const GemmCall& g,
                         const GemmScanRequest& request, format::ScanSummary summaries[4]) {
  GemmScanResult result;
  const bool inputs = request.mode == ScanMode::kInputs || request.mode == ScanMode::kAll;
  const bool outputs = request.mode == ScanMode::kOutputs || request.mode == ScanMode::kAll;
  if (!g.valid || !api.can_copy() || (request.before_call ? !inputs : !outputs)) return result;
  if (stream_is_capturing(api, request.stream)) {
    result.skipped_capture = true;
    return result;
  }
  // Its waits, copies and launches never count against another thread's global capture.
  const RelaxedCaptureMode relaxed(api);
  if (!request.summaries_ready) {
    for (int i = 0; i < 4; ++i) summaries[i] = unscanned_summary();
  }
  result.scanned = true;
  PhaseRunner runner(api, kernels, g, request, summaries, result);
  const int a = request.alpha_zero ? -1 : 0, b = request.alpha_zero ? -1 : 1;
  const int c = request.beta_zero ? -1 : 2;
  if (request.before_call) {
    runner.run({a, b, c});
  } else {
    runner.run({3});
    const format::ScanSummary& d = summaries[3];
    if (was_scanned(d) && nonfinite_count(d) != 0) {
      // Attribute the bad output: scan the inputs that are still intact and not yet scanned.
      auto unscanned = [&](int i) { return i >= 0 && !was_scanned(summaries[i]) ? i : -1; };
      runner.run({unscanned(a), unscanned(b), g.output_is_c ? -1 : unscanned(c)});
    }
    if (summaries[3].overflow) {
      auto finite = [&](int i) { return i < 0 || !g.op[i].present || finite_scanned(summaries[i]); };
      if (!(finite(a) && finite(b) && finite(c))) summaries[3].overflow = 0;
    }
  }
  for (int i = 0; i < 3; ++i) summaries[i].overflow = 0;  // only a result can overflow
  return result;
}

}  // namespace cublasspy
