// The report as Markdown, ready to paste into a GitHub issue: a view of the report document
// (report_model.h), like the text report (report_text.h), whose words it reuses. For each
// process what ran and how it ended, its CUDA driver, runtime, library and framework versions,
// the first failure with every argument and where the program made it (its Python line); then
// the findings with their evidence and advice.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cublasspy::tools {

std::string render_markdown(const nlohmann::ordered_json& report);

}  // namespace cublasspy::tools
