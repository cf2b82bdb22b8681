// A load that failed on a CUDA library, judged with the copies of the sonames it names: the
// NOT_INITIALIZED report's conda/pip/system CUDA mixed through LD_LIBRARY_PATH, in the form
// that stops `import torch` ("libcublas.so.12: undefined symbol: cublasLtHHHMatmul, version
// libcublasLt.so.12": the libcublasLt found first is of another release). One piece for the
// trace rule (rule_load_failure.cpp, the copies the shim recorded) and `cublasspy doctor
// --python` (the copies on the machine it runs on), so both say the same.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/diagnosis.h"
#include "machine/library_resolution.h"

namespace cublasspy::diagnoses {

// What a loader's error says, for the failures one library's copy explains.
struct LoadError {
  std::string object;    // the library that could not be relocated: "/usr/lib/.../libcublas.so.12"
  std::string symbol;    // what it needs: "cublasLtHHHMatmul" ("" for a whole version node)
  std::string provider;  // the soname that should have it: "libcublasLt.so.12"
  std::string provider_path;  // the file the loader named, when it named one
};

// "OBJECT: undefined symbol: NAME[, version SONAME]" and "FILE: version `SONAME' not found
// (required by OBJECT)", where a CUDA library is at fault; nullopt for anything else.
std::optional<LoadError> parse_load_error(const std::string& text);

// The finding: cublas-lt-mismatch when libcublas needs what the libcublasLt found first lacks,
// mixed-cuda-libraries for another CUDA library (error both). `copies`: every copy of the
// sonames the error names, each soname's in the loader's order (resolve_soname); `what`
// introduces the text ("import torch failed", "a dlopen failed"); `ld_library_path` is the
// variable's value at the failure (nullopt: not recorded).
std::optional<Diagnosis> load_failure_finding(const std::string& what, const std::string& text,
                                              const std::vector<LibraryCopy>& copies,
                                              const std::optional<std::string>& ld_library_path);

}  // namespace cublasspy::diagnoses
