// The GPU's own account of its health, read through NVML where libnvidia-ml.so.1 can be loaded:
// the Xid and ECC events since the reader started watching, the ECC error counts, the pages
// retired and the rows remapped. One reader serves the shim (the state of the GPU at the first
// failure, into the trace's process section) and `cublasspy doctor` (the GPU's state now).
//
// NVML is never linked: the caller opens it (the shim through the loader's own dlopen, not its
// hooked one) with RTLD_LOCAL | RTLD_NOW, so nothing of it is visible to the program. The reader
// allocates nothing and takes no lock of its own; NVML itself may do both, so the shim asks it
// only off the per-call path: once when it starts watching, once at the first failure. The
// entries it writes ("machine.nvml", "machine.gpu_event", "machine.ecc", "machine.retired_pages",
// "machine.remapped_rows") are described in docs/FORMAT.md ("Machine evidence").
#pragma once

#include "machine/machine_evidence.h"
#include "machine/nvml_api.h"

namespace cublasspy {

class NvmlReader {
 public:
  using OpenLibrary = void* (*)(const char* file, int flags);
  using FindSymbol = void* (*)(void* handle, const char* name);
  static constexpr int kMaxDevices = 16;
  static constexpr int kMaxEvents = 16;  // drained at a failure; more are counted, not listed

  // Loads libnvidia-ml.so.1, finds its functions and initializes it (nvmlInit_v2). False when
  // any of that fails; why() then says so ("no libnvidia-ml.so.1", "nvmlInit_v2 returned 9").
  bool open(OpenLibrary open_library, FindSymbol find_symbol);
  // The devices to read: the one at `pci_bus_id` ("00000000:3B:00.0", as CUDA gives it) when
  // NVML knows it, else every device NVML lists (at most kMaxDevices). After open().
  void select(const char* pci_bus_id);
  // Creates an event set and registers the selected devices' Xid events, and their ECC events
  // where the device has ECC. From then on, events are kept for collect(). After select().
  void watch();
  // Adds the entries: the events waiting (drained without waiting), then each device's ECC
  // counts, retired pages and remapped rows, each only where the device supports it.
  void collect(EvidenceSink& sink);
  // "machine.nvml unavailable <why>", for a caller that could not open NVML.
  void add_unavailable(EvidenceSink& sink) const;

  bool opened() const { return api_.init != nullptr && initialized_; }
  bool watching() const { return events_ != nullptr; }
  const char* why() const { return why_; }

 private:
  struct Api {
    nvml::Init init = nullptr;
    nvml::DeviceGetCount get_count = nullptr;
    nvml::DeviceGetHandleByIndex by_index = nullptr;
    nvml::DeviceGetHandleByPciBusId by_pci_bus_id = nullptr;
    nvml::EventSetCreate event_set_create = nullptr;
    nvml::DeviceRegisterEvents register_events = nullptr;
    nvml::EventSetWait event_set_wait = nullptr;
    nvml::DeviceGetTotalEccErrors total_ecc_errors = nullptr;
    nvml::DeviceGetRetiredPages retired_pages = nullptr;
    nvml::DeviceGetRetiredPagesPendingStatus retired_pages_pending = nullptr;
    nvml::DeviceGetRemappedRows remapped_rows = nullptr;
  };
  struct Selected {
    nvml::Device handle = nullptr;
    char label[40] = "";  // the PCI bus id CUDA gave, or "index N"
  };

  const char* label_of(nvml::Device device) const;
  void collect_events(EvidenceSink& sink);
  void collect_counts(const Selected& device, EvidenceSink& sink);

  Api api_;
  bool initialized_ = false;
  Selected devices_[kMaxDevices];
  int device_count_ = 0;
  nvml::EventSet events_ = nullptr;
  char watched_[16] = "none";  // "xid+ecc", "xid", "none"
  char why_[96] = "";
};

}  // namespace cublasspy
