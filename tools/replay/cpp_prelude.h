// The helpers every C++ reproducer carries, as the text emit_cpp.cpp writes before its main():
// status printing, the seeded values (element_codec.cpp's generator and encoders, written out),
// device copies, operand dumps read back and results compared.
#pragma once

namespace cublasspy::replay {

extern const char* const kCppPrelude;

}  // namespace cublasspy::replay
