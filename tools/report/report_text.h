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
// The pieces the other views of the report (the Markdown of report_markdown.h, run's summary)
// say exactly as the text does:
// "12.4 (12040)" of a CUDA version number, "0 (none)", "unknown" for null.
std::string cuda_version_text(const nlohmann::ordered_json& version);
// A trace's end object in words: "exited with status 1", "killed by signal 11 (SIGSEGV)", ...
std::string ending_text(const nlohmann::ordered_json& end);
// "process 812 on node3, rank 2: /usr/bin/python3".
std::string process_title(const nlohmann::ordered_json& trace);
// A CALL object as the text report's block: "#6 cublasGemmEx -> ...  tid 812, 2.1 us", then its
// locations (the native ones with `native`), its arguments wrapped, its scan and check findings.
std::string call_block_text(const nlohmann::ordered_json& call, bool native);
// "812 ns", "3.4 us", "12.0 ms", "1.25 s".
std::string duration_text(uint64_t ns);

}  // namespace cublasspy::tools
