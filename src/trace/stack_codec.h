// The data of the side area's stack entries (format::SideKind::kPythonStack, kNativeStack):
// the shim writes them with StackEncoder (fixed buffer, no allocation), readers decode them
// here, checking every length against the entry. Layout (little-endian, unaligned):
//
//   Python:  u16 frame_count, u16 more (1: the thread had more frames than were kept), then per
//            frame: i32 line, u16 file_len, u16 function_len, file bytes, function bytes.
//   native:  u16 frame_count, u16 flags (NativeStackFlags), u16 module_count, u16 0, then per
//            module: u16 path_len, path bytes; then per frame: u64 address (a return address;
//            at a signal frame 0 is the faulting PC), u64 offset (address - module base),
//            u16 module (index, kNoModule if unknown), u16 symbol_len, u32 symbol_offset
//            (address - the symbol's start), symbol bytes (as dladdr gives it: mangled).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace cublasspy {

inline constexpr uint32_t kMaxPythonFrames = 16;
inline constexpr uint32_t kMaxNativeFrames = 24;
inline constexpr uint32_t kMaxNativeModules = 16;
inline constexpr uint32_t kStackFileBytes = 160;      // a file's path keeps its last bytes
inline constexpr uint32_t kStackFunctionBytes = 80;
inline constexpr uint32_t kStackModuleBytes = 160;
inline constexpr uint32_t kStackSymbolBytes = 120;
inline constexpr uint16_t kNoModule = 0xffff;

enum NativeStackFlags : uint16_t {
  kNativeAtSignal = 1u << 0,  // taken in a fatal-signal handler: addresses only, not resolved
};

// Fills a fixed buffer; a piece that does not fit is refused and the encoder stays consistent
// (the caller stops adding frames). Async-signal-safe.
class StackEncoder {
 public:
  static constexpr uint32_t kBytes = 6144;
  bool put(const void* p, uint32_t n) {
    if (n > kBytes - used_) return false;
    std::memcpy(buf_ + used_, p, n);
    used_ += n;
    return true;
  }
  template <typename T>
  bool put_value(T v) { return put(&v, sizeof v); }
  template <typename T>
  void set_value(uint32_t at, T v) { std::memcpy(buf_ + at, &v, sizeof v); }
  uint32_t used() const { return used_; }
  void truncate(uint32_t to) { used_ = to; }
  const uint8_t* data() const { return buf_; }

 private:
  uint8_t buf_[kBytes];
  uint32_t used_ = 0;
};

struct PythonFrame {
  std::string file;
  int32_t line = 0;
  std::string function;
};
struct PythonStack {
  std::vector<PythonFrame> frames;  // innermost (the call's line) first
  bool more = false;                // outer frames were left out
};

struct NativeFrame {
  uint64_t address = 0;
  uint64_t offset = 0;       // within the module, when known
  std::string module;        // "" when unknown
  std::string symbol;        // as recorded (mangled), "" when unknown
  uint32_t symbol_offset = 0;
};
struct NativeStack {
  std::vector<NativeFrame> frames;  // innermost first
  bool at_signal = false;
};

// Decoded entries, or nullopt when the data does not hold together (a corrupt file).
std::optional<PythonStack> decode_python_stack(const std::vector<uint8_t>& data);
std::optional<NativeStack> decode_native_stack(const std::vector<uint8_t>& data);

// "made at train.py:42 in forward <- model.py:17 in __call__" (the file's last path element);
// `verb` in place of "made" ("launched", for a kernel launch).
std::string python_stack_text(const PythonStack& stack, const char* verb = "made");
// A C++ symbol demangled ("at::native::addmm_out_cuda_impl(...)"), others unchanged.
std::string demangled(const std::string& symbol);
// "at::cuda::blas::gemm<float> <- at::native::addmm_out_cuda_impl <- ...": symbols without
// their parameter lists, module+offset where there is no symbol.
std::string native_stack_text(const NativeStack& stack);

}  // namespace cublasspy
