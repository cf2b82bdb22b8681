#include "trace/stack_codec.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>

namespace cublasspy {
namespace {

// Reads values and byte strings off an entry's data, never past its end.
class Cursor {
 public:
  explicit Cursor(const std::vector<uint8_t>& d) : data_(d) {}
  template <typename T>
  bool get(T& out) {
    if (sizeof(T) > data_.size() - at_) return false;
    std::memcpy(&out, data_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool get_text(uint32_t n, std::string& out) {
    if (n > data_.size() - at_) return false;
    out.assign(reinterpret_cast<const char*>(data_.data()) + at_, n);
    at_ += n;
    return true;
  }
  bool at_end() const { return at_ == data_.size(); }

 private:
  const std::vector<uint8_t>& data_;
  size_t at_ = 0;
};

std::string last_path_element(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "ns::f<int>(float, int) const" -> "ns::f<int>": the name without its parameter list.
std::string without_parameters(const std::string& name) {
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(' && depth == 0 && i > 0) return name.substr(0, i);
  }
  return name;
}

}  // namespace

std::optional<PythonStack> decode_python_stack(const std::vector<uint8_t>& data) {
  Cursor c(data);
  uint16_t count = 0, more = 0;
  if (!c.get(count) || !c.get(more) || count > kMaxPythonFrames) return std::nullopt;
  PythonStack s;
  s.more = more != 0;
  for (uint16_t i = 0; i < count; ++i) {
    PythonFrame f;
    uint16_t file_len = 0, function_len = 0;
    if (!c.get(f.line) || !c.get(file_len) || !c.get(function_len) || !c.get_text(file_len, f.file) ||
        !c.get_text(function_len, f.function)) {
      return std::nullopt;
    }
    s.frames.push_back(std::move(f));
  }
  if (!c.at_end()) return std::nullopt;
  return s;
}

std::optional<NativeStack> decode_native_stack(const std::vector<uint8_t>& data) {
  Cursor c(data);
  uint16_t count = 0, flags = 0, module_count = 0, zero = 0;
  if (!c.get(count) || !c.get(flags) || !c.get(module_count) || !c.get(zero) || count > kMaxNativeFrames ||
      module_count > kMaxNativeModules) {
    return std::nullopt;
  }
  std::vector<std::string> modules(module_count);
  for (std::string& m : modules) {
    uint16_t len = 0;
    if (!c.get(len) || !c.get_text(len, m)) return std::nullopt;
  }
  NativeStack s;
  s.at_signal = (flags & kNativeAtSignal) != 0;
  for (uint16_t i = 0; i < count; ++i) {
    NativeFrame f;
    uint16_t module = 0, symbol_len = 0;
    if (!c.get(f.address) || !c.get(f.offset) || !c.get(module) || !c.get(symbol_len) ||
        !c.get(f.symbol_offset) || !c.get_text(symbol_len, f.symbol)) {
      return std::nullopt;
    }
    if (module != kNoModule) {
      if (module >= modules.size()) return std::nullopt;
      f.module = modules[module];
    }
    s.frames.push_back(std::move(f));
  }
  if (!c.at_end()) return std::nullopt;
  return s;
}

std::string python_stack_text(const PythonStack& stack, const char* verb) {
  std::string out = std::string(verb) + " at ";
  for (size_t i = 0; i < stack.frames.size(); ++i) {
    const PythonFrame& f = stack.frames[i];
    if (i != 0) out += " <- ";
    out += last_path_element(f.file) + ":" + std::to_string(f.line) + " in " + f.function;
  }
  if (stack.more) out += " <- ...";
  return out;
}

std::string demangled(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) != 0) return symbol;
  int status = 0;
  char* d = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return symbol;
  std::string out(d);
  std::free(d);
  return out;
}

std::string native_stack_text(const NativeStack& stack) {
  std::string out;
  for (size_t i = 0; i < stack.frames.size(); ++i) {
    const NativeFrame& f = stack.frames[i];
    if (i != 0) out += " <- ";
    char hex[32];
    if (!f.symbol.empty()) {
      out += without_parameters(demangled(f.symbol));
    } else if (!f.module.empty()) {
      std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(f.offset));
      out += last_path_element(f.module) + hex;
    } else {
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(f.address));
      out += hex;
    }
  }
  return out;
}

}  // namespace cublasspy
