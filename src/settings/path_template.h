// Expands a CUBLASSPY_TRACE template: %p pid, %h host, %r rank, %t start time, %% a percent.
#pragma once

#include <string>
#include <string_view>

namespace cublasspy {

struct TemplateValues {
  long pid = 0;
  std::string host;
  int rank = 0;
  std::string start_time;  // YYYYmmdd-HHMMSS
};

// Returns the expanded path; an unknown `%x` is kept as written and reported in `error`.
std::string expand_path_template(std::string_view tmpl, const TemplateValues& v,
                                 std::string* error = nullptr);

// The rank from RANK, LOCAL_RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID (first set and
// numeric); -1 when none is.
int rank_from_environment(const char* (*getenv_fn)(const char*));

}  // namespace cublasspy
