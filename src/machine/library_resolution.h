// Which file the loader takes for a CUDA library's soname, and which other copies wait behind
// it: the library evidence of a load that failed because of another copy (a libcublasLt of
// another release found before the one beside libcublas). Read without loading anything, so
// it is safe after a failed dlopen in someone else's process: LD_LIBRARY_PATH, the ld.so cache
// (/etc/ld.so.cache, what ld.so.conf put there) and the default directories, in the loader's
// order. The shim records it into the trace ("load.library", docs/FORMAT.md) and `cublasspy
// doctor` asks it on the machine it runs on.
#pragma once

#include <string>
#include <vector>

namespace cublasspy {

struct LibraryCopy {
  std::string soname;   // "libcublasLt.so.12"
  std::string path;     // where it was found: "/x/libcublasLt.so.12"
  std::string version;  // from the real file's name ("libcublasLt.so.12.1.3.1" -> "12.1.3.1"); "" when it says no more than the soname
  std::string origin;   // library_origin(): "pip-wheel", "conda", "system", "other"
  std::string via;      // what put it there: "LD_LIBRARY_PATH", "ld.so.cache", "default", "beside DIR"
};

struct ResolutionSource {
  std::string root = "/";          // files are read under it (CUBLASSPY_MACHINE_ROOT, a test's tree)
  std::string ld_library_path;     // the variable's value, "" when unset
  std::string conda_prefix;
  // Directories of the libraries that need the soname: a library finds its own copy there
  // through its RUNPATH ($ORIGIN, as NVIDIA's libcublas has) when nothing came first.
  std::vector<std::string> beside;
};

// Every copy of `soname`, the one a load by that name takes first (LD_LIBRARY_PATH, then the
// ld.so cache, then /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64, /lib,
// /usr/lib), then the copies beside the libraries that need it. Each file once.
std::vector<LibraryCopy> resolve_soname(const std::string& soname, const ResolutionSource& source);

// The paths the ld.so cache (its bytes, the "glibc-ld.so.cache1.1" format, alone or after the
// old "ld.so-1.7.0" one) gives for `soname` on x86-64, in the cache's order.
std::vector<std::string> ld_cache_paths(const std::string& cache, const std::string& soname);

// The CUDA sonames a loader's error names ("/usr/lib/libcublas.so.12: undefined symbol: ...,
// version libcublasLt.so.12" -> libcublas.so.12, libcublasLt.so.12), with libcublasLt for a
// libcublas (the library it loads), each once.
std::vector<std::string> cuda_sonames_in(const std::string& text);

// The directories of the CUDA libraries a loader's error names by path, each once: where the
// library that needed a soname lives (its own copy is usually beside it).
std::vector<std::string> cuda_library_directories_in(const std::string& text);

// Whether a loader's error text names a CUDA library (libcuda, libcudart, libcublas,
// libcublasLt, libnvidia-ml, libcudnn).
bool names_cuda_library(const char* text);

// The "load.library" entry of the trace's process section, and back (false when malformed).
std::string library_copy_entry(const LibraryCopy& copy);
bool library_copy_from_entry(const std::string& entry, LibraryCopy& copy);

}  // namespace cublasspy
