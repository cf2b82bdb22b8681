// Failed loads the program went on without: a probe for an optional library (PyTorch asks for
// libnvidia-ml.so.1 on every start and carries on without NVML) is no failure of the run, so
// the report's "first failure" and `cublasspy run`'s summary pass over it, and the report keeps
// it as a note. The rule (docs/CONTRACT.md, "Failures the program shrugged off"):
//
//   a failed dlopen is shrugged off when no call that needs the library it asked for failed
//   after it, and after it a CUDA call succeeded or the process exited with status 0.
//
// A library's calls: libcuda's are every CUDA call (runtime, driver, cuBLAS and cuBLASLt all
// run on the driver), libcudart's the runtime's, libcublas's cuBLAS's, libcublasLt's cuBLASLt's
// and cuBLAS's (which calls it); libnvidia-ml and libcudnn have none that the shim records. A
// call "fails" here when it returned an error or its real function could not be found.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/process_end.h"
#include "trace/trace_reader.h"

namespace cublasspy::tools {

class ShruggedOffLoads {
 public:
  // Every call of one trace, in the order for_each_call visits them (start time).
  void add(const CallView& call);
  // After the last add: whether `call` is a failed load the program went on without, and why
  // (the words the report shows), given how the process ended.
  std::optional<std::string> why(const CallView& call, const ProcessEnd& end) const;

 private:
  // The latest start of a failed call of each library (format::Library), and of a successful
  // CUDA call.
  std::map<uint8_t, uint64_t> last_failure_ns_;
  std::optional<uint64_t> last_success_ns_;
};

// Whether `call` is a failed dlopen at all (the only kind of failure that can be shrugged off).
bool is_failed_load(const CallView& call);

}  // namespace cublasspy::tools
