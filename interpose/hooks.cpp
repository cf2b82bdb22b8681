// The exported wrappers of the v2 API, cuBLASLt and CUDA, and the tables every other part of
// the shim reads, all expanded from hook_list.h. Nothing here is written per function.
#include "spec/per_thread_runtime.h"  // first: the _ptsz forms, declared by the CUDA headers (see there)

#include <cstring>
#include <string>

#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "hook_expansion.h"
#include "prototype_traits.h"
#include "shim_guard.h"
#include "spec/slot_names.h"

CUBLASSPY_HOOKS(CBS_DEFINE_WRAPPER)

namespace cublasspy {

// The v1 API's wrappers live in hooks_legacy.cpp (cublas.h cannot meet cublas_v2.h), the
// loader's in dlopen_hook.cpp.
extern const HookInfo kLegacyHooks[];
extern const HookInfo kLoaderHooks[];
extern const HookInfo kLaunchHooks[];  // launch_hooks.cpp
extern const HookInfo kExecHooks[];    // exec_hooks.cpp
extern const HookInfo kErrorTextHooks[];  // error_text_hooks.cpp

namespace {

#define CBS_COUNT(...) +1
constexpr uint32_t kMainHooks = 0 CUBLASSPY_HOOKS(CBS_COUNT);
constexpr uint32_t kLegacyCount = 0 CUBLASSPY_LEGACY_HOOKS(CBS_COUNT);
constexpr uint32_t kLoaderCount = 0 CUBLASSPY_LOADER_HOOKS(CBS_COUNT);
constexpr uint32_t kLaunchCount = 0 CUBLASSPY_LAUNCH_HOOKS(CBS_COUNT);
constexpr uint32_t kExecCount = 0 CUBLASSPY_EXEC_HOOKS(CBS_COUNT);
#undef CBS_COUNT

const HookInfo kHooks[] = {CUBLASSPY_HOOKS(CBS_HOOK_INFO)};
static_assert(sizeof(kHooks) / sizeof(kHooks[0]) == kMainHooks);

const HookInfo& info(uint16_t id) {
  if (id < kMainHooks) return kHooks[id];
  if (id < kMainHooks + kLegacyCount) return kLegacyHooks[id - kMainHooks];
  if (id < kMainHooks + kLegacyCount + kLoaderCount) return kLoaderHooks[id - kMainHooks - kLegacyCount];
  const uint32_t launch = id - kMainHooks - kLegacyCount - kLoaderCount;
  if (launch < kLaunchCount) return kLaunchHooks[launch];
  if (launch < kLaunchCount + kExecCount) return kExecHooks[launch - kLaunchCount];
  return kErrorTextHooks[launch - kLaunchCount - kExecCount];
}

void describe_param(format::FunctionEntry& entry, const char* c_name, format::ArgKind kind, format::ArgRole role) {
  tags::describe_derived(entry, slot_name(c_name).c_str(), kind, role);
}

// An exec's int is a status (-1 when it returned: it failed), the record's own: no "returned"
// slot (exec_hooks.cpp).
constexpr bool is_exec_family(Family family) { return family == Family::kExec; }

format::FunctionEntry g_table[kHookCount];
std::atomic<bool> g_table_ready{false};

#define CBS_DESCRIBE(type, name, tag) \
  describe_param(entry, #name, tags::tag::kind, tags::tag::role),        \
      tags::describe_placeholders(entry, tags::tag::kSlots - 1)
#define CBS_DESCRIBE_DERIVED(type, name, tag) tags::tag::describe(entry, #name)
#define CBS_DESCRIBE_PROTOTYPE(type, name, tag) describe_prototype<type, tags::tag>(entry)
#define CBS_FILL(lib_, ret_, fn_, fail_, family_, traits_, ...)                       \
  {                                                                          \
    format::FunctionEntry& entry = g_table[index++];                         \
    std::strncpy(entry.name, #fn_, sizeof entry.name - 1);                   \
    entry.family = static_cast<uint16_t>(Family::family_);                   \
    entry.library = static_cast<uint8_t>(format::Library::lib_);             \
    entry.traits = static_cast<uint16_t>(traits_);                           \
    CBS_MAP_SEMI(CBS_DESCRIBE_PROTOTYPE, __VA_ARGS__)                        \
    CBS_MAP_SEMI(CBS_DESCRIBE, __VA_ARGS__)                                  \
    CBS_MAP_SEMI(CBS_DESCRIBE_DERIVED, __VA_ARGS__)                          \
    if constexpr (kReturnsValue<ret_> && !is_exec_family(Family::family_)) { \
      tags::describe_derived(entry, "returned", format::ArgKind::kUInt, format::ArgRole::kNone); \
    }                                                                        \
  }

// Runs once, on the thread that opens the first trace (under the open lock).
void fill_table() {
  int index = 0;
  CUBLASSPY_ALL_HOOKS(CBS_FILL)
}

}  // namespace

namespace tags {
void describe_derived(format::FunctionEntry& entry, const char* name, ArgKind kind, ArgRole role) {
  if (entry.arg_count >= format::kMaxArgs) return;
  format::ArgDescriptor& d = entry.args[entry.arg_count++];
  std::strncpy(d.name, name, sizeof d.name - 1);
  d.kind = static_cast<uint8_t>(kind);
  d.role = static_cast<uint8_t>(role);
}
void describe_placeholders(format::FunctionEntry& entry, int count) {
  for (int i = 0; i < count; ++i) describe_derived(entry, "", ArgKind::kNone, ArgRole::kNone);
}
}  // namespace tags

const format::FunctionEntry* function_table() {
  if (!g_table_ready.load(std::memory_order_acquire)) {
    fill_table();
    g_table_ready.store(true, std::memory_order_release);
  }
  return g_table;
}
uint32_t function_count() { return kHookCount; }
const char* hook_name(uint16_t id) { return info(id).name; }
void* hook_address(uint16_t id) { return info(id).address; }

int find_hook(const char* name) {
  for (uint32_t i = 0; i < kHookCount; ++i) {
    if (std::strcmp(info(static_cast<uint16_t>(i)).name, name) == 0) return static_cast<int>(i);
  }
  return -1;
}

void warn_unresolved(uint16_t id) {
  shim_guarded([id] {
    log_warning_once(info(id).name, std::string("cannot find the real ") + info(id).name +
                                        " in any loaded CUDA library; the call returns its "
                                        "failure status");
  });
}

}  // namespace cublasspy
