#include "settings/path_template.h"

#include <charconv>
#include <string>

namespace cublasspy {

std::string expand_path_template(std::string_view tmpl, const TemplateValues& v,
                                 std::string* error) {
  std::string out;
  out.reserve(tmpl.size() + 16);
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c != '%' || i + 1 == tmpl.size()) {
      out += c;
      continue;
    }
    char k = tmpl[++i];
    switch (k) {
      case 'p': out += std::to_string(v.pid); break;
      case 'h': out += v.host; break;
      case 'r': out += std::to_string(v.rank < 0 ? 0 : v.rank); break;
      case 't': out += v.start_time; break;
      case '%': out += '%'; break;
      default:
        out += '%';
        out += k;
        if (error && error->empty()) {
          *error = std::string("unknown '%") + k + "' in the trace template (known: %p %h %r %t %%)";
        }
    }
  }
  return out;
}

int rank_from_environment(const char* (*getenv_fn)(const char*)) {
  for (const char* name : {"RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* v = getenv_fn(name);
    if (v == nullptr || *v == '\0') continue;
    int rank = 0;
    std::string_view s(v);
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), rank);
    if (ec == std::errc() && end == s.data() + s.size() && rank >= 0) return rank;
  }
  return -1;
}

}  // namespace cublasspy
