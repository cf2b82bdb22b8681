// Tables expanded from the hook list: ids, names, libraries, and the trace's function table.
#pragma once

#include <cstdint>

#include "spec/hook_list.h"
#include "real_functions.h"
#include "trace/trace_format.h"

namespace cublasspy {

// FnId::k<name>: the function's position in the hook list.
#define CBS_ID_ENUM(lib_, ret_, fn_, fail_, family_, traits_, ...) k##fn_,
enum class FnId : uint16_t { CUBLASSPY_ALL_HOOKS(CBS_ID_ENUM) kCount };
#undef CBS_ID_ENUM

inline constexpr uint32_t kHookCount = static_cast<uint32_t>(FnId::kCount);
static_assert(kHookCount <= format::kMaxFunctions);

const format::FunctionEntry* function_table();  // filled on first use
uint32_t function_count();
const char* hook_name(uint16_t id);

// The id of the hook called `name`, or -1. Used by the dlsym redirect.
int find_hook(const char* name);
// The shim's own wrapper for hook `id`.
void* hook_address(uint16_t id);

}  // namespace cublasspy

namespace cublasspy {
// Each hook's family, known at compile time: intercept() gives only the grouped GEMMs the
// stack room their group table needs.
#define CBS_FAMILY_OF(lib_, ret_, fn_, fail_, family_, traits_, ...) format::Family::family_,
inline constexpr format::Family kHookFamilies[] = {CUBLASSPY_ALL_HOOKS(CBS_FAMILY_OF)};
#undef CBS_FAMILY_OF
constexpr bool is_grouped_hook(FnId id) {
  return kHookFamilies[static_cast<uint16_t>(id)] == format::Family::kGemmGrouped;
}
#define CBS_LIBRARY_OF(lib_, ret_, fn_, fail_, family_, traits_, ...) Library::lib_,
inline constexpr Library kHookLibraries[] = {CUBLASSPY_ALL_HOOKS(CBS_LIBRARY_OF)};
#undef CBS_LIBRARY_OF
// Each hook's traits as its entry names them (the function table adds those derived from the
// prototype, Trait::kInt32Sizes).
#define CBS_TRAITS_OF(lib_, ret_, fn_, fail_, family_, traits_, ...) static_cast<uint16_t>(traits_),
inline constexpr uint16_t kHookTraits[] = {CUBLASSPY_ALL_HOOKS(CBS_TRAITS_OF)};
#undef CBS_TRAITS_OF
static_assert(sizeof kHookFamilies / sizeof kHookFamilies[0] == kHookCount);
static_assert(sizeof kHookLibraries / sizeof kHookLibraries[0] == kHookCount);
static_assert(sizeof kHookTraits / sizeof kHookTraits[0] == kHookCount);
constexpr bool hook_has_trait(uint16_t id, uint16_t trait) { return (kHookTraits[id] & trait) != 0; }

// A hook's family and library from these small tables, not from the trace's function table
// (1.5 KiB an entry): every call asks, and in a program that does other work between its calls
// (PyTorch) a line of the big table is a cache miss each time.
inline format::Family hook_family(uint16_t id) { return kHookFamilies[id]; }
inline Library hook_library(uint16_t id) { return kHookLibraries[id]; }
}  // namespace cublasspy
