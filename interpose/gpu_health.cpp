#include "gpu_health.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "driver_table.h"
#include "machine_record.h"
#include "machine/library_resolution.h"
#include "machine/nvml_reader.h"
#include "real_functions.h"

namespace cublasspy {
namespace {

enum State : int {
  kIdle,         // not opened yet
  kBusy,         // a thread is opening it
  kOpened,       // opened (watching or not): g_reader is usable
  kUnavailable,  // no NVML, or it did not initialize: g_reader.why() says why
  kInherited,    // a forked child of a process that had it open: not to be used
};

constinit std::atomic<int> g_state{kIdle};
constinit std::atomic<bool> g_recorded{false};
// Written by the one thread that moved g_state to kBusy, read after kOpened/kUnavailable is
// published (release/acquire).
NvmlReader g_reader;

// The PCI bus id of the device current on this thread, as NVML takes it ("00000000:3B:00.0");
// false when no context is current or the driver does not say.
bool current_pci_bus_id(char (&out)[32]) {
  DriverApi scratch;
  const DriverApi& d = driver_table(scratch);
  if (d.ctx_get_device == nullptr || d.device_get_attribute == nullptr) return false;
  CUdevice device = 0;
  if (d.ctx_get_device(&device) != CUDA_SUCCESS) return false;
  int domain = 0, bus = 0, slot = 0;
  if (d.device_get_attribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device) != CUDA_SUCCESS ||
      d.device_get_attribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device) != CUDA_SUCCESS ||
      d.device_get_attribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device) != CUDA_SUCCESS) {
    return false;
  }
  std::snprintf(out, sizeof out, "%08X:%02X:%02X.0", domain, bus, slot);
  return true;
}

// Every dl* call replaces the thread's pending dlerror(), and a failed one leaves its own text:
// a failed dlopen of NVML would hand a program that asks dlerror() about its own failed load our
// text instead. So NVML is looked for as the loader would look (LD_LIBRARY_PATH, the ld.so
// cache, the default directories; library_resolution.h, no dl* call) and opened by path only
// where it is.
void* open_nvml(const char* soname, int flags) {
  ResolutionSource source;
  if (const char* p = std::getenv("LD_LIBRARY_PATH")) source.ld_library_path = p;
  const std::vector<LibraryCopy> copies = resolve_soname(soname, source);
  return copies.empty() ? nullptr : real_dlopen(copies.front().path.c_str(), flags);
}

// Opens NVML and selects the device in use, watching it when asked; with g_state held at kBusy.
void open_reader(bool watch) {
  ThreadState& ts = thread_state();
  ts.internal++;  // the driver's questions pass straight through
  if (g_reader.open(open_nvml, real_dlsym)) {
    char pci_bus_id[32];
    g_reader.select(current_pci_bus_id(pci_bus_id) ? pci_bus_id : nullptr);
    if (watch) g_reader.watch();
    g_state.store(kOpened, std::memory_order_release);
  } else {
    g_state.store(kUnavailable, std::memory_order_release);
  }
  ts.internal--;
}

}  // namespace

void watch_gpu_health(Runtime& rt) {
  if (rt.config.nvml != NvmlMode::kEarly || g_state.load(std::memory_order_relaxed) != kIdle) return;
  int idle = kIdle;
  if (!g_state.compare_exchange_strong(idle, kBusy, std::memory_order_acquire)) return;
  open_reader(/*watch=*/true);
}

void record_gpu_health(Runtime& rt, std::atomic<bool>& process_section_busy) {
  if (rt.config.nvml == NvmlMode::kOff || g_recorded.load(std::memory_order_relaxed)) return;
  int state = g_state.load(std::memory_order_acquire);
  if (state == kIdle) {
    // Not opened before the failure (failure mode, or the failure came before any handle).
    if (!g_state.compare_exchange_strong(state, kBusy, std::memory_order_acquire)) return;
    open_reader(/*watch=*/false);
    state = g_state.load(std::memory_order_acquire);
  }
  if (state == kBusy) return;  // another thread is opening it: the next failure reads
  bool expected = false;
  if (!process_section_busy.compare_exchange_strong(expected, true)) return;  // next failure
  if (!g_recorded.exchange(true)) {
    ThreadState& ts = thread_state();
    ts.internal++;
    WriterSink sink(rt.writer);
    if (state == kOpened) {
      g_reader.collect(sink);
    } else if (state == kUnavailable) {
      g_reader.add_unavailable(sink);
    } else {
      sink.add("machine.nvml", "not-read\tforked child of a process that had NVML open");
    }
    ts.internal--;
  }
  process_section_busy.store(false);
}

void gpu_health_after_fork() {
  const int state = g_state.load();
  // A child forked while another thread was opening NVML cannot know how far it got.
  if (state == kOpened || state == kBusy) g_state.store(kInherited);
  g_recorded.store(false);
}

}  // namespace cublasspy
