#include "kernel_image_record.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "driver_table.h"
#include "machine/machine_evidence.h"
#include "machine/object_fatbins.h"

namespace cublasspy {
namespace {

constinit std::atomic<bool> g_recorded{false};

// "image.device": "MAJOR.MINOR" of the device current on this thread, "unknown" when the
// driver cannot say (no context, no driver table).
void record_device(Runtime& rt) {
  DriverApi scratch;
  const DriverApi& d = driver_table(scratch);
  CUdevice device = -1;
  int major = -1, minor = -1;
  const bool known = d.ctx_get_device != nullptr && d.device_get_attribute != nullptr &&
                     d.ctx_get_device(&device) == CUDA_SUCCESS &&
                     d.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == CUDA_SUCCESS &&
                     d.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == CUDA_SUCCESS;
  char value[32];
  if (known) {
    std::snprintf(value, sizeof value, "%d.%d", major, minor);
  } else {
    std::snprintf(value, sizeof value, "unknown");
  }
  rt.writer.append_process_entry("image.device", value);
}

// "image.object": "PATH\tSTATE\tARCHS" of the object holding `code`: STATE `read`, `malformed`
// (ARCHS holds what was read before the part that did not parse), `none` (no .nv_fatbin
// section) or `unreadable`; PATH "?" when no loaded object holds `code`.
void record_object(Runtime& rt, const void* code) {
  Dl_info info;
  link_map* map = nullptr;
  char path[PATH_MAX] = "?";
  if (code != nullptr && dladdr1(code, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 && map != nullptr) {
    // The executable's link map has no name: its file is /proc/self/exe.
    const char* name = map->l_name != nullptr && map->l_name[0] != '\0' ? map->l_name : "/proc/self/exe";
    if (::realpath(name, path) == nullptr) std::snprintf(path, sizeof path, "%s", name);
  }
  const ObjectFatbins o = path[0] == '/' ? object_fatbins(path) : ObjectFatbins{};
  const char* state = !o.readable ? "unreadable" : !o.has_section ? "none" : o.archs.malformed ? "malformed" : "read";
  char archs[256];
  format_archs(o.archs, archs, sizeof archs);
  char value[kEvidenceValueMax];
  // The arches are the point: the path gives way when both do not fit.
  const int room = static_cast<int>(sizeof value) - static_cast<int>(std::strlen(state) + std::strlen(archs)) - 3;
  std::snprintf(value, sizeof value, "%.*s\t%s\t%s", room > 0 ? room : 0, path, state, archs);
  rt.writer.append_process_entry("image.object", value);
}

}  // namespace

void record_kernel_image(Runtime& rt, const void* code, std::atomic<bool>& process_section_busy) {
  if (g_recorded.load(std::memory_order_relaxed)) return;
  bool expected = false;
  if (!process_section_busy.compare_exchange_strong(expected, true)) return;  // next failure
  if (!g_recorded.exchange(true)) {
    ThreadState& ts = thread_state();
    ts.internal++;  // the driver's answers are the shim's questions
    record_device(rt);
    record_object(rt, code);
    ts.internal--;
  }
  process_section_busy.store(false);
}

void kernel_image_after_fork() { g_recorded.store(false); }

}  // namespace cublasspy
