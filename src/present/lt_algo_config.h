// A cuBLASLt preset algorithm in words. A cublasLtMatmul record carries the 64 bytes of the
// cublasLtMatmulAlgo_t the program passed (RecordSlot::lt_algo); their layout is private to
// cuBLASLt, so only the library can read them. The shim used to ask it on every such matmul
// (every one PyTorch makes); the readers ask instead, afterwards: they load a cuBLASLt into the
// tool (dlopen, host code only: no driver, no GPU) and call its
// cublasLtMatmulAlgoConfigGetAttribute on the bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cublasspy {

// What the library reports of one algorithm; an attribute it does not report is absent. The
// layout is private to each cuBLASLt: another library (the host's, for a trace made where the
// traced program's own is out of reach, a stand-in's) reads the same bytes as other values.
// So a decoding says which library made it, and one whose enums fall outside cuBLASLt's
// ranges is refused: its values are dropped and `refused` says why.
struct LtAlgoConfig {
  std::optional<int64_t> id, tile, stages, splitk_num, reduction_scheme, cta_swizzling, custom_option, inner_shape,
      cluster_shape;
  // "libcublasLt.so.13 (this machine's; the traced program's /x/libcublasLt.so.12 could not be
  // loaded)", "/x/libcublasLt.so.12 (the traced program's)", "PATH (named with --cublaslt)".
  std::string decoded_by;
  std::string refused;  // "" when the values are consistent
};

// Turns decoding on (it is off until then: a reader that only checks a trace, the fuzzer
// among them, loads no CUDA library) and names the cuBLASLt to ask: `path` (the one the traced
// program loaded, from the trace's library list; "" for none) when it can be loaded, else the
// default (libcublasLt.so.13, then .12, as the loader finds them). The report calls it per
// trace; the last call wins. Thread-compatible.
void prefer_cublaslt_for_algorithms(const std::string& path);

// The library the user named (`cublasspy report --cublaslt PATH`): from then on only `path` is
// asked, whatever a trace names, with no fallback to the default sonames ("": back to the
// default). Turns decoding on.
void use_only_cublaslt_for_algorithms(const std::string& path);

// The same, with the libcublasLt that `trace`'s process loaded (its library list; none: "").
class TraceFile;
void prefer_cublaslt_of(const TraceFile& trace);

// The algorithm's configuration, or nullopt when decoding is off, no cuBLASLt could be loaded
// (then cublaslt_for_algorithms_error() says why) or it reads none of the attributes.
std::optional<LtAlgoConfig> decode_lt_algo(const uint64_t (&bytes)[8]);

// Why no cuBLASLt could be loaded ("" when one was, or none was tried yet), and how many
// algorithms were left undecoded for that reason since decoding was turned on.
std::string cublaslt_for_algorithms_error();
uint64_t undecoded_lt_algos();
// The library that decodes ("" when none).
std::string cublaslt_for_algorithms_path();

}  // namespace cublasspy
