#include "spec/slot_names.h"

#include <cctype>

namespace cublasspy {

namespace {
char lower(char ch) { return static_cast<char>(std::tolower(static_cast<unsigned char>(ch))); }
}  // namespace

std::string slot_name(const std::string& n) {
  if (n == "lightHandle") return "handle";
  // Atype and Aarray: the operand's letter alone names it (a_type, a), like the other slots.
  if (n.size() == 5 && n.compare(1, 4, "type") == 0) return std::string(1, lower(n[0])) + "_type";
  if (n.size() == 6 && n.compare(1, 5, "array") == 0) return std::string(1, lower(n[0]));
  std::string out;
  for (size_t i = 0; i < n.size(); ++i) {
    char ch = n[i];
    if (std::isupper(static_cast<unsigned char>(ch))) {
      if (i > 0 && n[i - 1] != '_') out += '_';
      out += lower(ch);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace cublasspy
