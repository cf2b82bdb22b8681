// The report as Markdown (report_markdown.h): a view of the report's document, in the text
// report's words. A hand-made document stands for what a Python process's trace gives (a Python
// location, PyTorch's libraries), which no program on the stand-in records.
#include <gtest/gtest.h>

#include "report/report_markdown.h"

namespace cublasspy::tools::testing {
namespace {

// A Python location is the failing call's "Python" line and the finding's "Where", a framework's library names the framework, and Markdown in the
// recorded text cannot end a code span or a table cell early.
TEST(ReportMarkdown, PythonLineFrameworkAndEscaping) {
  nlohmann::ordered_json call = {{"seq", 7}, {"tid", 9}, {"function", "cublasGemmEx"}, {"library", "cublas"},
                                 {"state", "completed"}, {"status", 13}, {"status_name", "CUBLAS_STATUS_EXECUTION_FAILED"},
                                 {"failed", true}, {"duration_ns", 1200}, {"args", {{"m", 4}, {"n", 3}}},
                                 {"location", "made at train.py:42 in forward <- model.py:7 in step"}, {"checks", nlohmann::ordered_json::array()},
                                 {"scan", nullptr}};
  nlohmann::ordered_json trace = {
      {"writer_version", "0.1.0"},
      {"process", {{"pid", 812}, {"exe", "/usr/bin/python3"}, {"host", "node3"}, {"rank", nullptr},
                   {"cmdline", {"python3", "train.py", "--name=a|b`c"}}, {"start_time", "20260101-000000"}}},
      {"environment", {{"vars", {{"CUDA_VISIBLE_DEVICES", "0|1"}}},
                       {"libraries", {{{"path", "/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"}}}},
                       {"cuda_driver_version", 12040}, {"cuda_runtime_version", 12010}}},
      {"end", {{"state", "exited"}, {"exit_status", 1}, {"signal", nullptr}, {"recorded_by", "process"}}},
      {"totals", {{"calls", 10}, {"failed", 1}, {"in_flight", 0}}},
      {"first_failure", call}, {"first_async_error", nullptr}, {"in_flight", nlohmann::ordered_json::array()}};
  nlohmann::ordered_json report = {
      {"traces", {trace}},
      {"diagnoses", {{{"id", "execution-failed"}, {"severity", "error"}, {"summary", "cublasGemmEx returned it"},
                      {"pid", 812}, {"call", 7}, {"location", "made at train.py:42 in forward"},
                      {"evidence", "#7 returned 13."}, {"advice", "Rerun with --sync."}}}}};
  const std::string md = render_markdown(report);
  for (const char* text : {"## process 812 on node3: /usr/bin/python3", "- command: ``python3 train.py --name=a|b`c``",
                           "**Python:** `made at train.py:42 in forward <- model.py:7 in step`",
                           "### The failing call: `cublasGemmEx -> CUBLAS_STATUS_EXECUTION_FAILED (13)`",
                           "| CUDA driver | 12.4 (12040) |", "| CUDA runtime | 12.1 (12010) |",
                           "| Framework | PyTorch (`/venv/lib/python3.11/site-packages/torch/lib/`) |",
                           "`CUDA_VISIBLE_DEVICES=0\\|1`", "### error `execution-failed`: cublasGemmEx returned it (pid 812, call #7)",
                           "- **Where:** `made at train.py:42 in forward`", "- **Evidence:** #7 returned 13.",
                           "- **Advice:** Rerun with --sync.", "- ran: 20260101-000000 .. exited with status 1"}) {
    EXPECT_NE(md.find(text), std::string::npos) << text << " not in\n" << md;
  }
}

}  // namespace
}  // namespace cublasspy::tools::testing
