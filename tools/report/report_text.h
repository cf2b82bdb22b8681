// The human report: a view of the report document (report_model.h). What ran, how it ended, the
// totals, the first failure with all its arguments, the calls in flight, the diagnoses (most
// severe first) and, with --all, every call on one line. One screen by default.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cublasspy::tools {

enum class ColorChoice { kAuto, kAlways, kNever };
// Colour on a terminal unless NO_COLOR is set (https://no-color.org) or TERM is "dumb";
// plain in a pipe or a file.
bool use_color(int fd, ColorChoice choice);

struct TextOptions {
  bool color = false;
  bool all_calls = false;     // list every call held (the document must have been built with them)
  size_t max_in_flight = 8;   // per process, the rest is counted
  size_t max_diagnoses = 12;
};

std::string render_text(const nlohmann::ordered_json& report, const TextOptions& options);

// "cublasSgemm_v2(handle=0x55d0..., transa=N, ...) -> CUBLAS_STATUS_NOT_INITIALIZED (1)": a
// CALL object's arguments as name=value pairs and its outcome, in the words of
// present/call_text.h (which call_line() uses too).
std::string call_arguments_text(const nlohmann::ordered_json& call);
std::string call_outcome_text(const nlohmann::ordered_json& call);
// "812 ns", "3.4 us", "12.0 ms", "1.25 s".
std::string duration_text(uint64_t ns);

}  // namespace cublasspy::tools
