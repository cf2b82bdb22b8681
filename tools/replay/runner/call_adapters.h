// One typed call adapter per GEMM entry point of the hook list (src/spec/hook_list.h), generated
// by the same X-macro the shim's wrappers come from, and compiled against the CUDA headers: an
// adapter casts the dlsym'ed address to exactly the header's prototype and builds each argument
// from ArgValues by the parameter's name, so no call site is written by hand and none can drift
// from the headers (a prototype that differs does not compile).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "spec/hook_list.h"

namespace cublasspy::replay {

// Which library exports the entry point.
enum class AdapterLibrary { kCublas, kCublasLt, kOther };

// The values of a call's arguments, by the trace's slot names (src/spec/slot_names.h: slot_name).
// An adapter asks for each parameter in the map its C type calls for; a parameter the runner
// did not provide is an error, never a silent zero.
struct ArgValues {
  std::map<std::string, uint64_t> addresses;             // pointers: operands, handle, scalars
  std::map<std::string, int64_t> integers;               // ints and enums as recorded
  std::map<std::string, std::array<double, 2>> scalars;  // alpha/beta passed by value (v1 API)
  std::map<std::string, std::vector<int64_t>> arrays;    // per-group host arrays (grouped GEMMs)

  uint64_t address(const std::string& name) const { return get(addresses, name, "pointer"); }
  int64_t integer(const std::string& name) const { return get(integers, name, "integer"); }
  std::array<double, 2> scalar(const std::string& name) const { return get(scalars, name, "scalar"); }
  const std::vector<int64_t>* array(const std::string& name) const {
    auto it = arrays.find(name);
    return it == arrays.end() ? nullptr : &it->second;
  }

 private:
  template <typename Map>
  static typename Map::mapped_type get(const Map& map, const std::string& name, const char* what) {
    auto it = map.find(name);
    if (it == map.end()) throw std::runtime_error("the replay has no " + std::string(what) + " value for argument '" + name + "'");
    return it->second;
  }
};

struct CallAdapter {
  const char* name;
  Family family;
  AdapterLibrary library;
  // Calls `fn` (the real entry point) with the arguments; returns its status (0 for the v1
  // API's void functions: ask cublasGetError). Throws when an argument is missing.
  int (*call)(void* fn, const ArgValues& values);
};

// The adapter for entry point `name`, or nullptr when the hook list has no such GEMM.
const CallAdapter* find_adapter(const std::string& name);
// Every adapter (for the tests: one per GEMM entry of the hook list).
std::vector<const CallAdapter*> all_adapters();

}  // namespace cublasspy::replay
