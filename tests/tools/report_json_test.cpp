// `cublasspy report --json` on real traces: simple_gemm run under the shim against the real CUDA
// libraries (no driver here, so the calls fail for real) and against the CPU stand-in (the calls
// succeed and the scalars are read). The document must have docs/CONTRACT.md's shape and say what
// the program saw.
#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

using json = nlohmann::ordered_json;

// The handle setters, which the shim stamps once: a completed one has no duration.
bool stamped_once(const json& c) {
  for (const char* f : {"cublasSetStream_v2", "cublasSetPointerMode_v2", "cublasSetMathMode", "cublasSetWorkspace_v2"}) {
    if (c["function"] == f) return true;
  }
  return false;
}

// The contract's CALL object: every key, with its type.
void expect_call_shape(const json& c) {
  SCOPED_TRACE(c.dump());
  ASSERT_TRUE(c.is_object());
  EXPECT_TRUE(c["seq"].is_number_unsigned());
  EXPECT_TRUE(c["tid"].is_number_integer());
  EXPECT_TRUE(c["function"].is_string());
  ASSERT_TRUE(c["state"].is_string());
  bool done = c["state"] == "completed";
  EXPECT_TRUE(done || c["state"] == "in_flight");
  EXPECT_TRUE(done ? c["status"].is_number_integer() : c["status"].is_null());
  EXPECT_TRUE(done ? c["status_name"].is_string() : c["status_name"].is_null());
  EXPECT_TRUE(c["start_ns"].is_number_unsigned());
  EXPECT_TRUE(done && !stamped_once(c) ? c["duration_ns"].is_number_unsigned() : c["duration_ns"].is_null());
  EXPECT_TRUE(c["nested"].is_boolean());
  EXPECT_TRUE(c["args"].is_object());
  ASSERT_TRUE(c["checks"].is_array());
  for (const json& check : c["checks"]) {
    EXPECT_TRUE(check["id"].is_string());
    EXPECT_TRUE(check["message"].is_string());
  }
  EXPECT_TRUE(c["scan"].is_null() || c["scan"].is_object());
}

void expect_report_shape(const json& report) {
  ASSERT_TRUE(report["traces"].is_array());
  ASSERT_TRUE(report["diagnoses"].is_array());
  for (const json& t : report["traces"]) {
    EXPECT_TRUE(t["path"].is_string());
    EXPECT_TRUE(t["format_version"].is_number_integer());
    const json& p = t["process"];
    EXPECT_TRUE(p["pid"].is_number_integer());
    EXPECT_TRUE(p["ppid"].is_number_integer());
    EXPECT_TRUE(p["exe"].is_string());
    ASSERT_TRUE(p["cmdline"].is_array());
    for (const json& a : p["cmdline"]) EXPECT_TRUE(a.is_string());
    EXPECT_TRUE(p["host"].is_string());
    EXPECT_TRUE(p["rank"].is_null() || p["rank"].is_number_integer());
    EXPECT_TRUE(p["start_time"].is_string());
    const json& e = t["environment"];
    ASSERT_TRUE(e["vars"].is_object());
    for (const auto& v : e["vars"].items()) EXPECT_TRUE(v.value().is_string()) << v.key();
    ASSERT_TRUE(e["libraries"].is_array());
    for (const json& l : e["libraries"]) EXPECT_TRUE(l["path"].is_string());
    EXPECT_TRUE(e["cuda_driver_version"].is_null() || e["cuda_driver_version"].is_number_integer());
    EXPECT_TRUE(e["cuda_runtime_version"].is_null() || e["cuda_runtime_version"].is_number_integer());
    const json& end = t["end"];
    EXPECT_TRUE(end["state"] == "exited" || end["state"] == "signaled" || end["state"] == "unknown");
    EXPECT_TRUE(end["signal"].is_null() || end["signal"].is_number_integer());
    const json& totals = t["totals"];
    EXPECT_TRUE(totals["calls"].is_number_unsigned());
    EXPECT_TRUE(totals["failed"].is_number_unsigned());
    EXPECT_TRUE(totals["in_flight"].is_number_unsigned());
    ASSERT_TRUE(totals["by_function"].is_object());
    for (const auto& f : totals["by_function"].items()) EXPECT_TRUE(f.value().is_number_unsigned());
    if (!t["first_failure"].is_null()) expect_call_shape(t["first_failure"]);
    ASSERT_TRUE(t["in_flight"].is_array());
    for (const json& c : t["in_flight"]) expect_call_shape(c);
    ASSERT_TRUE(t["calls"].is_array());
    for (const json& c : t["calls"]) expect_call_shape(c);
  }
  for (const json& d : report["diagnoses"]) {
    EXPECT_TRUE(d["id"].is_string());
    EXPECT_TRUE(d["severity"] == "error" || d["severity"] == "warning" || d["severity"] == "info");
    for (const char* key : {"summary", "evidence", "advice"}) EXPECT_TRUE(d[key].is_string()) << key;
    EXPECT_TRUE(d["pid"].is_null() || d["pid"].is_number_integer());
    EXPECT_TRUE(d["call"].is_null() || d["call"].is_number_integer());
    if (d.contains("library_log")) {  // only where the library's own log explains the finding
      EXPECT_TRUE(d["library_log"]["file"].is_string());
      ASSERT_TRUE(d["library_log"]["lines"].is_array());
      EXPECT_FALSE(d["library_log"]["lines"].empty());
      for (const json& line : d["library_log"]["lines"]) EXPECT_TRUE(line.is_string());
    }
  }
}

const char* const kProgramFunctions[] = {"cudaGetDeviceCount", "cublasCreate_v2", "cublasSetStream_v2",
                                         "cublasSgemm_v2", "cublasGemmEx",
                                         "cublasDestroy_v2"};

TEST(ReportJson, RealLibrariesWithoutDriver) {
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir);
  ASSERT_FALSE(trace.empty());
  json report = report_json({trace});
  expect_report_shape(report);
  ASSERT_EQ(report["traces"].size(), 1u);
  const json& t = report["traces"][0];

  EXPECT_EQ(t["path"], trace);
  EXPECT_EQ(t["process"]["exe"], kSimpleGemm);
  EXPECT_EQ(t["process"]["cmdline"], json::array({kSimpleGemm}));
  EXPECT_EQ(t["environment"]["vars"]["LD_PRELOAD"], kShim);
  EXPECT_EQ(t["end"]["state"], "exited");
  EXPECT_EQ(t["end"]["exit_status"], 0);  // main returned 0 (the shim's on_exit handler)
  EXPECT_EQ(t["end"]["recorded_by"], "process");
  EXPECT_TRUE(t["end"]["signal"].is_null());
  for (const char* f : kProgramFunctions) {
    EXPECT_EQ(t["totals"]["by_function"][f], 1) << f;
    ASSERT_EQ(calls_to(t, f).size(), 1u) << f;
  }
  EXPECT_GE(t["totals"]["failed"].get<int>(), 7);

  // No driver: cudaErrorInsufficientDriver, and the count is left unwritten.
  json count = calls_to(t, "cudaGetDeviceCount")[0];
  EXPECT_EQ(count["status"], 35);
  EXPECT_EQ(count["status_name"], "cudaErrorInsufficientDriver");
  EXPECT_TRUE(count["args"]["count"].is_null());
  json create = calls_to(t, "cublasCreate_v2")[0];
  EXPECT_EQ(create["status"], 1);
  EXPECT_EQ(create["status_name"], "CUBLAS_STATUS_NOT_INITIALIZED");

  // The Sgemm on the null handle: NOT_INITIALIZED, every argument as the program passed it.
  json sgemm = calls_to(t, "cublasSgemm_v2")[0];
  EXPECT_EQ(sgemm["status"], 1);
  EXPECT_EQ(sgemm["status_name"], "CUBLAS_STATUS_NOT_INITIALIZED");
  const json& a = sgemm["args"];
  EXPECT_EQ(a["handle"], "0x0");
  EXPECT_EQ(a["transa"], "N");
  EXPECT_EQ(a["transb"], "N");
  EXPECT_EQ(a["m"], 4);
  EXPECT_EQ(a["n"], 3);
  EXPECT_EQ(a["k"], 2);
  EXPECT_EQ(a["lda"], 4);
  EXPECT_EQ(a["ldb"], 2);
  EXPECT_EQ(a["ldc"], 4);
  EXPECT_EQ(a["a_type"], "CUDA_R_32F");  // implied by the S of Sgemm
  for (const char* p : {"a", "b", "c", "stream"}) {
    ASSERT_TRUE(a[p].is_string()) << p;
    EXPECT_EQ(a[p].get<std::string>().rfind("0x", 0), 0u) << p;
  }
  // The unknown (null) handle has no pointer mode, so the scalars are not read.
  EXPECT_TRUE(a["alpha"].is_null());
  EXPECT_TRUE(a["beta"].is_null());

  json gemm_ex = calls_to(t, "cublasGemmEx")[0];
  const json& g = gemm_ex["args"];
  EXPECT_EQ(gemm_ex["status"], 1);
  EXPECT_EQ(g["transa"], "T");
  EXPECT_EQ(g["a_type"], "CUDA_R_16F");
  EXPECT_EQ(g["b_type"], "CUDA_R_16F");
  EXPECT_EQ(g["c_type"], "CUDA_R_16F");
  EXPECT_EQ(g["compute_type"], "CUBLAS_COMPUTE_32F");
  EXPECT_EQ(g["algo"], 99);
  EXPECT_EQ(g["algo_name"], "CUBLAS_GEMM_DEFAULT_TENSOR_OP");
  EXPECT_EQ(g["lda"], 2);

  // Calls are listed in sequence order; the first failure is the failing call that ended first
  // (a nested call fails before the call around it returns).
  uint64_t last = 0;
  uint64_t first_failed = 0, first_end = UINT64_MAX;
  for (const json& c : t["calls"]) {
    EXPECT_GT(c["seq"].get<uint64_t>(), last);
    last = c["seq"].get<uint64_t>();
    const uint64_t duration = c["duration_ns"].is_null() ? 0 : c["duration_ns"].get<uint64_t>();  // a setter: none
    uint64_t end = c["start_ns"].get<uint64_t>() + duration;
    if (c["failed"] == true && end < first_end) first_failed = last, first_end = end;
  }
  ASSERT_FALSE(t["first_failure"].is_null());
  EXPECT_EQ(t["first_failure"]["seq"], first_failed);
}

TEST(ReportJson, WithoutAllTheCallsAreNotListed) {
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir);
  ASSERT_FALSE(trace.empty());
  json report = report_json({trace}, /*all=*/false);
  expect_report_shape(report);
  EXPECT_TRUE(report["traces"][0]["calls"].empty());
  EXPECT_FALSE(report["traces"][0]["first_failure"].is_null());
  EXPECT_GE(report["traces"][0]["totals"]["calls"].get<int>(), 7);
}

TEST(ReportJson, StandinCallsSucceedAndScalarsAreRead) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir, on_standin());
  ASSERT_FALSE(trace.empty());
  json report = report_json({trace});
  expect_report_shape(report);
  const json& t = report["traces"][0];
  for (const char* f : kProgramFunctions) {
    ASSERT_EQ(calls_to(t, f).size(), 1u) << f;
    EXPECT_EQ(calls_to(t, f)[0]["status"], 0) << f;
  }
  // The program sets the pointer mode a new handle already has: counted, not recorded.
  EXPECT_TRUE(calls_to(t, "cublasSetPointerMode_v2").empty());
  EXPECT_EQ(t["totals"]["by_function"].value("cublasSetPointerMode_v2", 0), 1);
  EXPECT_EQ(t["totals"]["unchanged_by_function"].value("cublasSetPointerMode_v2", 0), 1);
  EXPECT_EQ(t["totals"]["unchanged"], 1);
  json count = calls_to(t, "cudaGetDeviceCount")[0];
  ASSERT_TRUE(count["args"]["count"].is_number_integer());
  EXPECT_GE(count["args"]["count"].get<int>(), 1);
  std::string handle = calls_to(t, "cublasCreate_v2")[0]["args"]["handle"];
  EXPECT_NE(handle, "0x0");

  json sgemm = calls_to(t, "cublasSgemm_v2")[0];
  EXPECT_EQ(sgemm["status_name"], "CUBLAS_STATUS_SUCCESS");
  const json& a = sgemm["args"];
  EXPECT_EQ(a["handle"], handle);
  EXPECT_EQ(a["alpha"], 1.5);
  EXPECT_EQ(a["beta"], 0.5);
  EXPECT_EQ(a["pointer_mode"], "host");
  EXPECT_EQ(a["math_mode"], "CUBLAS_DEFAULT_MATH");
  EXPECT_NE(a["stream"], "0x0");  // the stream the program set
  EXPECT_EQ(a["stream"], calls_to(t, "cublasSetStream_v2")[0]["args"]["stream"]);
  EXPECT_NE(a["a"], "0x0");

  json gemm_ex = calls_to(t, "cublasGemmEx")[0];
  EXPECT_EQ(gemm_ex["args"]["alpha"], 1.0);
  EXPECT_EQ(gemm_ex["args"]["beta"], 0.0);
  EXPECT_EQ(gemm_ex["args"]["algo"], 99);
  EXPECT_EQ(gemm_ex["args"]["algo_name"], "CUBLAS_GEMM_DEFAULT_TENSOR_OP");
}

// A driver call's status is a CUresult and is named as one, in the JSON and in the text: the
// stand-in with no visible GPU, where cuInit returns CUDA_ERROR_NO_DEVICE.
TEST(ReportJson, DriverStatusesAreNamedAsCUresults) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  Env no_gpu = on_standin();
  no_gpu["CUDA_VISIBLE_DEVICES"] = "";
  std::string trace = trace_simple_gemm(dir, no_gpu);
  ASSERT_FALSE(trace.empty());
  json report = report_json({trace});
  expect_report_shape(report);
  const json& t = report["traces"][0];
  std::vector<json> inits = calls_to(t, "cuInit");
  ASSERT_FALSE(inits.empty());
  EXPECT_EQ(inits[0]["status"], 100);
  EXPECT_EQ(inits[0]["status_name"], "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(calls_to(t, "cudaGetDeviceCount")[0]["status_name"], "cudaErrorNoDevice");
  ProcessResult text = run_process({kTool, "report", "--all", trace}, {{"NO_COLOR", "1"}});
  EXPECT_NE(text.out.find("-> CUDA_ERROR_NO_DEVICE (100)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("CUresult"), std::string::npos) << text.out;
}

TEST(ReportJson, SeveralTracesMakeOneDocumentInStartOrder) {
  ScratchDir dir;
  Env env = traced_into(dir);
  ASSERT_EQ(run_process({kSimpleGemm}, env).exit_code, 0);
  ASSERT_EQ(run_process({kSimpleGemm}, env).exit_code, 0);
  std::vector<std::string> traces = dir.files();
  ASSERT_EQ(traces.size(), 2u);
  // Given in either order, the report lists the processes as they started.
  json forward = report_json({traces[0], traces[1]}, false);
  json backward = report_json({traces[1], traces[0]}, false);
  expect_report_shape(forward);
  ASSERT_EQ(forward["traces"].size(), 2u);
  EXPECT_EQ(forward["traces"][0]["path"], backward["traces"][0]["path"]);
  EXPECT_EQ(forward["traces"][1]["path"], backward["traces"][1]["path"]);
  EXPECT_NE(forward["traces"][0]["process"]["pid"], forward["traces"][1]["process"]["pid"]);
  EXPECT_LE(forward["traces"][0]["first_failure"]["start_ns"], forward["traces"][1]["first_failure"]["start_ns"]);
}


// dlopen's outcome is a word, not a number: "failed" with dlerror()'s text (the real runtime
// loading libcuda.so.1 where there is no driver), "loaded" with the path (the stand-in's).
TEST(ReportJson, LoadsReadLoadedOrFailed) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  for (bool standin : {false, true}) {
    ScratchDir dir;
    std::string trace = trace_simple_gemm(dir, standin ? on_standin() : Env{});
    ASSERT_FALSE(trace.empty());
    std::vector<json> loads = calls_to(report_json({trace})["traces"][0], "dlopen");
    ASSERT_FALSE(loads.empty()) << standin;
    const json& load = loads[0];
    EXPECT_EQ(load["status_name"], standin ? "loaded" : "failed") << load.dump();
    ProcessResult text = run_process({kTool, "report", "--all", trace}, {{"NO_COLOR", "1"}});
    // The calls list's line: "dlopen(filename=..., flags=..., result=...) -> loaded  <duration>".
    const size_t line = text.out.find("  dlopen(filename=");
    ASSERT_NE(line, std::string::npos) << text.out;
    const std::string first = text.out.substr(line, text.out.find('\n', line) - line);
    EXPECT_NE(first.find(standin ? ") -> loaded" : ") -> failed"), std::string::npos) << first;
    EXPECT_EQ(text.out.find("dlopen -> 0 (0)"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("dlopen -> 1 (1)"), std::string::npos) << text.out;
    if (!standin) {
      EXPECT_NE(text.out.find("cannot open shared object file"), std::string::npos) << text.out;
    }
  }
}

}  // namespace
}  // namespace cublasspy::tools::testing
