// What the real libcudart's cudaGetErrorString says for each code it knows (from
// tools/gen_error_texts.sh); the driver prints the same text for the codes the two share. The
// names of the codes are the headers' (cuda_enum_names.h).
#pragma once

namespace standin {

inline const char* runtime_error_text(int code) {
  struct Text {
    int code;
    const char* text;
  };
  static constexpr Text kTexts[] = {
#define STANDIN_CUDA_ERROR_TEXT(c, text) {c, text},
#include "cudart_error_texts.inc"
#undef STANDIN_CUDA_ERROR_TEXT
  };
  for (const Text& t : kTexts)
    if (t.code == code) return t.text;
  return nullptr;
}

}  // namespace standin
