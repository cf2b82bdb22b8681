#include "machine/nvml_reader.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace cublasspy {
namespace {

template <typename Fn>
void find(NvmlReader::FindSymbol find_symbol, void* library, Fn& out, const char* name) {
  out = reinterpret_cast<Fn>(find_symbol(library, name));
}

}  // namespace

bool NvmlReader::open(OpenLibrary open_library, FindSymbol find_symbol) {
  // RTLD_LOCAL: NVML's symbols stay out of the program's namespace; RTLD_NOW: a library that
  // cannot be bound fails here, not at a call made at the failure.
  void* library = open_library("libnvidia-ml.so.1", RTLD_LOCAL | RTLD_NOW);
  if (library == nullptr) {
    std::snprintf(why_, sizeof why_, "no libnvidia-ml.so.1");
    return false;
  }
  find(find_symbol, library, api_.init, "nvmlInit_v2");
  find(find_symbol, library, api_.get_count, "nvmlDeviceGetCount_v2");
  find(find_symbol, library, api_.by_index, "nvmlDeviceGetHandleByIndex_v2");
  find(find_symbol, library, api_.by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  find(find_symbol, library, api_.event_set_create, "nvmlEventSetCreate");
  find(find_symbol, library, api_.register_events, "nvmlDeviceRegisterEvents");
  find(find_symbol, library, api_.event_set_wait, "nvmlEventSetWait_v2");
  find(find_symbol, library, api_.total_ecc_errors, "nvmlDeviceGetTotalEccErrors");
  find(find_symbol, library, api_.retired_pages, "nvmlDeviceGetRetiredPages");
  find(find_symbol, library, api_.retired_pages_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
  find(find_symbol, library, api_.remapped_rows, "nvmlDeviceGetRemappedRows");
  // The library is kept open for the process's life: its handles stay valid until then.
  if (api_.init == nullptr || api_.get_count == nullptr || api_.by_index == nullptr) {
    std::snprintf(why_, sizeof why_, "libnvidia-ml.so.1 lacks nvmlInit_v2 or the device functions");
    api_.init = nullptr;
    return false;
  }
  const nvml::Return r = api_.init();
  if (r != nvml::kSuccess) {
    std::snprintf(why_, sizeof why_, "nvmlInit_v2 returned %d", r);
    return false;
  }
  initialized_ = true;
  return true;
}

void NvmlReader::select(const char* pci_bus_id) {
  if (!opened()) return;
  device_count_ = 0;
  nvml::Device device = nullptr;
  if (pci_bus_id != nullptr && api_.by_pci_bus_id != nullptr &&
      api_.by_pci_bus_id(pci_bus_id, &device) == nvml::kSuccess) {
    devices_[0].handle = device;
    std::snprintf(devices_[0].label, sizeof devices_[0].label, "%s", pci_bus_id);
    device_count_ = 1;
    return;
  }
  unsigned int count = 0;
  if (api_.get_count(&count) != nvml::kSuccess) return;
  for (unsigned int i = 0; i < count && device_count_ < kMaxDevices; ++i) {
    if (api_.by_index(i, &device) != nvml::kSuccess) continue;
    devices_[device_count_].handle = device;
    std::snprintf(devices_[device_count_].label, sizeof devices_[0].label, "index %u", i);
    ++device_count_;
  }
}

void NvmlReader::watch() {
  if (!opened() || events_ != nullptr || device_count_ == 0) return;
  if (api_.event_set_create == nullptr || api_.register_events == nullptr || api_.event_set_wait == nullptr) return;
  nvml::EventSet set = nullptr;
  if (api_.event_set_create(&set) != nvml::kSuccess || set == nullptr) return;
  // Registered apart: a device without ECC (most consumer GPUs) refuses the ECC events with
  // NOT_SUPPORTED, which must not cost the Xid events.
  bool xid = false, ecc = false;
  for (int i = 0; i < device_count_; ++i) {
    xid = api_.register_events(devices_[i].handle, nvml::kEventXid, set) == nvml::kSuccess || xid;
    ecc = api_.register_events(devices_[i].handle, nvml::kEventDoubleBitEcc | nvml::kEventSingleBitEcc, set) ==
              nvml::kSuccess || ecc;
  }
  if (!xid && !ecc) return;  // the set is left to NVML's shutdown: nothing watches through it
  events_ = set;
  std::snprintf(watched_, sizeof watched_, "%s", xid && ecc ? "xid+ecc" : xid ? "xid" : "ecc");
}

const char* NvmlReader::label_of(nvml::Device device) const {
  for (int i = 0; i < device_count_; ++i) {
    if (devices_[i].handle == device) return devices_[i].label;
  }
  return "other";
}

void NvmlReader::collect_events(EvidenceSink& sink) {
  if (events_ == nullptr) return;
  char value[kEvidenceValueMax];
  int listed = 0, more = 0;
  // Drained without waiting: a timeout of 0 returns NVML_ERROR_TIMEOUT once none is left. The
  // bound guards against a library that keeps answering.
  for (int round = 0; round < 1024; ++round) {
    nvml::EventData e{};
    const nvml::Return r = api_.event_set_wait(events_, &e, 0);
    if (r == nvml::kErrorGpuIsLost) {
      sink.add("machine.gpu_event", "*\tgpu-lost");
      break;
    }
    if (r != nvml::kSuccess) break;
    if (listed == kMaxEvents) {
      ++more;
      continue;
    }
    const char* label = label_of(e.device);
    if ((e.event_type & nvml::kEventXid) != 0) {
      std::snprintf(value, sizeof value, "%s\txid\t%llu", label, e.event_data);
    } else if ((e.event_type & nvml::kEventDoubleBitEcc) != 0) {
      std::snprintf(value, sizeof value, "%s\tecc-double-bit", label);
    } else if ((e.event_type & nvml::kEventSingleBitEcc) != 0) {
      std::snprintf(value, sizeof value, "%s\tecc-single-bit", label);
    } else {
      continue;
    }
    sink.add("machine.gpu_event", value);
    ++listed;
  }
  if (more > 0) {
    std::snprintf(value, sizeof value, "*\tmore\t%d", more);
    sink.add("machine.gpu_event", value);
  }
}

void NvmlReader::collect_counts(const Selected& device, EvidenceSink& sink) {
  char value[kEvidenceValueMax];
  bool lost = false;
  auto seen = [&](nvml::Return r) {
    lost = lost || r == nvml::kErrorGpuIsLost;
    return r == nvml::kSuccess;
  };
  if (api_.total_ecc_errors != nullptr) {
    unsigned long long counts[4] = {};
    bool known[4] = {};
    const int kinds[4][2] = {{nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc},
                             {nvml::kMemoryErrorUncorrected, nvml::kAggregateEcc},
                             {nvml::kMemoryErrorCorrected, nvml::kVolatileEcc},
                             {nvml::kMemoryErrorCorrected, nvml::kAggregateEcc}};
    for (int k = 0; k < 4; ++k) known[k] = seen(api_.total_ecc_errors(device.handle, kinds[k][0], kinds[k][1], &counts[k]));
    if (known[0] || known[1] || known[2] || known[3]) {
      char field[4][24];
      for (int k = 0; k < 4; ++k) {
        if (known[k]) std::snprintf(field[k], sizeof field[k], "%llu", counts[k]);
        else std::snprintf(field[k], sizeof field[k], "-");
      }
      std::snprintf(value, sizeof value, "%s\t%s\t%s\t%s\t%s", device.label, field[0], field[1], field[2], field[3]);
      sink.add("machine.ecc", value);
    }
  }
  if (api_.retired_pages != nullptr) {
    // A count of 0 with no buffer asks how many (NVML_ERROR_INSUFFICIENT_SIZE when any).
    unsigned int single_bit = 0, double_bit = 0;
    const nvml::Return rs = api_.retired_pages(device.handle, nvml::kRetiredMultipleSingleBit, &single_bit, nullptr);
    const nvml::Return rd = api_.retired_pages(device.handle, nvml::kRetiredDoubleBit, &double_bit, nullptr);
    const bool ok_s = seen(rs) || rs == nvml::kErrorInsufficientSize;
    const bool ok_d = seen(rd) || rd == nvml::kErrorInsufficientSize;
    if (ok_s && ok_d) {
      int pending = 0;
      const bool pending_known = api_.retired_pages_pending != nullptr &&
                                 seen(api_.retired_pages_pending(device.handle, &pending));
      std::snprintf(value, sizeof value, "%s\t%u\t%u\t%s", device.label, single_bit, double_bit,
                    !pending_known ? "-" : pending != 0 ? "pending" : "none-pending");
      sink.add("machine.retired_pages", value);
    }
  }
  if (api_.remapped_rows != nullptr) {
    unsigned int correctable = 0, uncorrectable = 0, pending = 0, failed = 0;
    if (seen(api_.remapped_rows(device.handle, &correctable, &uncorrectable, &pending, &failed))) {
      std::snprintf(value, sizeof value, "%s\t%u\t%u\t%s\t%s", device.label, correctable, uncorrectable,
                    pending != 0 ? "pending" : "none-pending", failed != 0 ? "failed" : "none-failed");
      sink.add("machine.remapped_rows", value);
    }
  }
  if (lost) {
    std::snprintf(value, sizeof value, "%s\tgpu-lost", device.label);
    sink.add("machine.gpu_event", value);
  }
}

void NvmlReader::collect(EvidenceSink& sink) {
  if (!opened()) {
    add_unavailable(sink);
    return;
  }
  char value[kEvidenceValueMax];
  int at = std::snprintf(value, sizeof value, "read\t%s\t", watched_);
  for (int i = 0; i < device_count_ && at > 0 && static_cast<size_t>(at) < sizeof value; ++i) {
    at += std::snprintf(value + at, sizeof value - static_cast<size_t>(at), "%s%s", i == 0 ? "" : ",", devices_[i].label);
  }
  sink.add("machine.nvml", value);
  collect_events(sink);
  for (int i = 0; i < device_count_; ++i) collect_counts(devices_[i], sink);
}

void NvmlReader::add_unavailable(EvidenceSink& sink) const {
  char value[kEvidenceValueMax];
  std::snprintf(value, sizeof value, "unavailable\t%s", why_[0] != '\0' ? why_ : "not opened");
  sink.add("machine.nvml", value);
}

}  // namespace cublasspy
