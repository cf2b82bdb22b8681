// A load that failed because of a CUDA library's copy, from the process section's "load.failed"
// and "load.library" entries (the shim records them from dlerror, docs/FORMAT.md): the failure
// that stops `import torch` before any CUDA call, so often the trace's only event. The words
// are load_failure.h's, the same as `cublasspy doctor --python`'s.
#include "diagnose/load_failure.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {

void rule_load_failure(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    std::vector<LibraryCopy> copies;
    std::optional<std::string> ld_library_path;
    for (const auto& [key, value] : f.trace->process().entries) {
      LibraryCopy copy;
      if (key == "load.library" && library_copy_from_entry(value, copy)) copies.push_back(std::move(copy));
      if (key == "machine.env" && value.rfind("LD_LIBRARY_PATH=", 0) == 0 && !ld_library_path) {
        ld_library_path = value.substr(16);
      }
    }
    for (const std::string& text : f.trace->process().all("load.failed")) {
      // A CUDA library the program loaded itself has its dlopen's record (the text cut to fit).
      std::string what = "a dlopen failed";
      std::optional<uint64_t> call;
      for (const LibraryLoad& load : f.loads) {
        if (!load.ok && !load.result.empty() && text.rfind(load.result, 0) == 0) {
          what = "dlopen(\"" + load.requested + "\") (call #" + std::to_string(load.seq) + ") failed";
          call = load.seq;
          break;
        }
      }
      std::optional<Diagnosis> d = load_failure_finding(what, text, copies, ld_library_path);
      if (!d) continue;
      d->pid = f.pid;
      d->call = call;
      if (ctx.found_for(f, {d->id.c_str()}) != nullptr) continue;  // one per id and process
      ctx.add(std::move(*d));
    }
  }
}

}  // namespace cublasspy::diagnoses
