// The report model and the text report on traces written here with the shim's own TraceWriter:
// the endings a real program rarely gives a test (a crash inside a call, calls left in flight,
// complex and non-finite scalars, scan summaries, check findings), each checked in the JSON and
// in the text.
#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>
#include <tuple>

#include <gtest/gtest.h>

#include "checks/check_ids.h"
#include "machine/process_info.h"
#include "present/call_text.h"
#include "report/report_model.h"
#include "report/report_text.h"
#include "support/tool_tests.h"
#include "trace/trace_writer.h"

namespace cublasspy::tools::testing {
namespace {

using json = nlohmann::ordered_json;
using format::ArgKind;
using R = format::ArgRole;

void describe(format::FunctionEntry& f, const char* name, ArgKind kind, R role) {
  format::ArgDescriptor& d = f.args[f.arg_count++];
  std::strncpy(d.name, name, sizeof d.name - 1);
  d.kind = static_cast<uint8_t>(kind);
  d.role = static_cast<uint8_t>(role);
}

// cudaGetDeviceCount(count) and cublasCgemm_v2 with the contract's names and the roles the
// shim gives them; the enum-valued arguments of cuBLASLt (an attribute id, an epilogue, an
// order) and the driver's cuInit.
std::vector<format::FunctionEntry> function_table() {
  std::vector<format::FunctionEntry> t(5);
  std::strcpy(t[0].name, "cudaGetDeviceCount");
  t[0].family = 1;
  t[0].library = static_cast<uint8_t>(format::Library::kCudart);
  describe(t[0], "count", ArgKind::kStatusOut, R::kDeviceCount);
  t[0].traits = format::Trait::kEnumeratesDevices | format::Trait::kSetupCall;
  std::strcpy(t[1].name, "cublasCgemm_v2");
  t[1].family = 3;
  t[1].library = static_cast<uint8_t>(format::Library::kCublas);
  for (auto [name, kind, role] : std::initializer_list<std::tuple<const char*, ArgKind, R>>{
           {"handle", ArgKind::kPointer, R::kHandle}, {"transa", ArgKind::kOperation, R::kTransA},
           {"transb", ArgKind::kOperation, R::kTransB}, {"m", ArgKind::kInt, R::kM}, {"n", ArgKind::kInt, R::kN},
           {"k", ArgKind::kInt, R::kK}, {"alpha", ArgKind::kPointer, R::kAlpha}, {"a", ArgKind::kPointer, R::kA},
           {"lda", ArgKind::kInt, R::kLda}, {"b", ArgKind::kPointer, R::kB}, {"ldb", ArgKind::kInt, R::kLdb},
           {"beta", ArgKind::kPointer, R::kBeta}, {"c", ArgKind::kPointer, R::kC}, {"ldc", ArgKind::kInt, R::kLdc}}) {
    describe(t[1], name, kind, role);
  }
  t[1].element_type = 4;  // CUDA_C_32F, as the shim's table says of cuComplex operands
  t[1].traits = format::Trait::kFixedElementType | format::Trait::kInt32Sizes;
  std::strcpy(t[2].name, "cublasLtMatmulDescSetAttribute");
  t[2].family = 8;
  t[2].library = static_cast<uint8_t>(format::Library::kCublasLt);
  describe(t[2], "matmulDesc", ArgKind::kPointer, R::kNone);
  describe(t[2], "attr", ArgKind::kLtAttribute, R::kNone);
  std::strcpy(t[3].name, "cublasLtMatmulAlgoGetHeuristic");
  t[3].family = 8;
  t[3].library = static_cast<uint8_t>(format::Library::kCublasLt);
  describe(t[3], "epilogue", ArgKind::kEpilogue, R::kEpilogue);
  describe(t[3], "a_order", ArgKind::kOrder, R::kAOrder);
  describe(t[3], "b_order", ArgKind::kOrder, R::kBOrder);
  std::strcpy(t[4].name, "cuInit");
  t[4].family = 1;
  t[4].library = static_cast<uint8_t>(format::Library::kCuda);
  describe(t[4], "flags", ArgKind::kUInt, R::kNone);
  t[4].traits = format::Trait::kEnumeratesDevices | format::Trait::kSetupCall;
  return t;
}

class SyntheticTrace {
 public:
  explicit SyntheticTrace(const std::string& path) : table_(function_table()) {
    KeyValueBlob info;
    info.add("pid", "4242");
    info.add("ppid", "1");
    info.add("exe", "/opt/app/train");
    info.add("argv", "/opt/app/train");
    info.add("argv", "--fast");
    info.add("host", "node7");
    info.add("rank", "3");
    info.add("start_time", "20250102-030405");
    info.add("env", "CUDA_VISIBLE_DEVICES=1");
    info.add("library", "/usr/lib/libcublas.so.13");
    info.add("future_key", "kept");
    OpenResult r = writer_.open(path, 16, table_.data(), static_cast<uint32_t>(table_.size()), info.bytes());
    EXPECT_TRUE(r.ok && r.file_backed) << r.warning;
  }

  // Writes one call; `done` false leaves it in flight.
  uint64_t call(uint16_t function, int status, bool done, void (*fill)(format::RecordSlot&) = nullptr) {
    uint64_t seq = 0;
    format::RecordSlot* slot = writer_.claim(cursor_, &seq, &scratch_);
    format::Record& rec = slot->call;
    rec.function_id = function;
    rec.tid = 4243;
    rec.start_ns = 1000000 * seq;
    rec.pointer_mode = 0;
    rec.math_mode = 3;
    rec.stream = 0xabc0;
    for (uint64_t& a : rec.args) a = 0;
    if (fill) fill(*slot);
    writer_.count_call(function, cursor_);
    TraceWriter::publish_in_flight(slot, seq);
    if (done) {
      rec.status = status;
      rec.duration_ns = 2500;
      writer_.complete(slot, seq, status != 0 || rec.async_status != 0, cursor_);
    }
    return seq;
  }
  TraceWriter& writer() { return writer_; }

 private:
  std::vector<format::FunctionEntry> table_;
  TraceWriter writer_;
  format::RecordSlot scratch_{};
  ClaimCursor cursor_;
};

void gemm_args(format::RecordSlot& s) {
  format::Record& r = s.call;
  uint64_t values[] = {0x5000, 2, 0, 8, 8, 8, 0x7ff0, 0x1000, 8, 0x2000, 8, 0x7ff8, 0x3000, 8};
  std::memcpy(r.args, values, sizeof values);
  r.handle = 0x5000;
}

json report_of(const std::string& path, bool all = true) {
  OpenedTraces opened = open_traces({path});
  EXPECT_TRUE(opened.errors.empty()) << opened.errors.front();
  ReportOptions o;
  o.all_calls = all;
  return build_report(opened.pointers(), o);
}

TEST(SyntheticTrace, CrashInsideACall) {
  ScratchDir dir;
  std::string path = dir / "crash.cbt";
  {
    SyntheticTrace t(path);
    t.call(0, 0, true, [](format::RecordSlot& s) { s.call.args[0] = 2; });
    t.call(1, 0, false, [](format::RecordSlot& s) {
      gemm_args(s);
      s.call.flags |= format::kFlagCrashed | format::kFlagAlphaKnown | format::kFlagBetaKnown;
      s.call.alpha[0] = 1.0, s.call.alpha[1] = -2.0;
      s.call.beta[0] = std::numeric_limits<double>::quiet_NaN();
    });
    t.writer().mark_signaled(SIGSEGV);
  }
  json report = report_of(path);
  const json& trace = report["traces"][0];
  EXPECT_EQ(trace["process"]["pid"], 4242);
  EXPECT_EQ(trace["process"]["rank"], 3);
  EXPECT_EQ(trace["process"]["cmdline"], json::array({"/opt/app/train", "--fast"}));
  EXPECT_EQ(trace["process"]["other"]["future_key"], json::array({"kept"}));
  EXPECT_EQ(trace["environment"]["vars"]["CUDA_VISIBLE_DEVICES"], "1");
  EXPECT_TRUE(trace["environment"]["cuda_driver_version"].is_null());
  EXPECT_EQ(trace["end"]["state"], "signaled");
  EXPECT_EQ(trace["end"]["signal"], SIGSEGV);
  EXPECT_EQ(trace["totals"]["calls"], 2);
  EXPECT_EQ(trace["totals"]["failed"], 0);
  EXPECT_EQ(trace["totals"]["in_flight"], 1);
  EXPECT_TRUE(trace["first_failure"].is_null());
  EXPECT_EQ(trace["calls"][0]["args"]["count"], 2);

  ASSERT_EQ(trace["in_flight"].size(), 1u);
  const json& c = trace["in_flight"][0];
  EXPECT_EQ(c["state"], "in_flight");
  EXPECT_TRUE(c["status"].is_null());
  EXPECT_TRUE(c["duration_ns"].is_null());
  EXPECT_EQ(c["crashed"], true);
  const json& a = c["args"];
  EXPECT_EQ(a["transa"], "C");
  EXPECT_EQ(a["a_type"], "CUDA_C_32F");
  EXPECT_EQ(a["alpha"], json::array({1.0, -2.0}));  // complex: [re, im]
  EXPECT_EQ(a["alpha_ptr"], "0x7ff0");
  EXPECT_TRUE(a["beta"][0].is_null());               // NaN has no JSON number...
  EXPECT_NE(a["beta_text"].get<std::string>().find("nan"), std::string::npos);  // ...its text says it
  EXPECT_EQ(a["pointer_mode"], "host");
  EXPECT_EQ(a["math_mode"], "CUBLAS_TF32_TENSOR_OP_MATH");
  EXPECT_EQ(a["stream"], "0xabc0");

  TextOptions text;
  std::string out = render_text(report, text);
  EXPECT_NE(out.find("process 4242 on node7, rank 3: /opt/app/train"), std::string::npos) << out;
  EXPECT_NE(out.find("killed by signal 11 (SIGSEGV)"), std::string::npos) << out;
  EXPECT_NE(out.find("in flight when the trace ended"), std::string::npos) << out;
  EXPECT_NE(out.find("#2 cublasCgemm_v2 -> in flight, crashed"), std::string::npos) << out;
  EXPECT_NE(out.find("alpha=(1,-2)"), std::string::npos) << out;
  EXPECT_EQ(out.find("\033["), std::string::npos) << "colour was not asked for";
  text.color = true;
  EXPECT_NE(render_text(report, text).find("\033["), std::string::npos);
}

TEST(SyntheticTrace, FailureScanAndChecks) {
  ScratchDir dir;
  std::string path = dir / "fail.cbt";
  {
    SyntheticTrace t(path);
    t.call(1, 0, true, gemm_args);
    t.call(1, 13, true, [](format::RecordSlot& s) {
      gemm_args(s);
      s.call.flags |= format::kFlagScanned;
      s.scan[0].nan_count = 3;
      s.scan[0].first_row = 1, s.scan[0].first_col = 2;
      s.call.check_bits = check_bit(CheckId::kInvalidLeadingDimension);
      s.call.args[8] = 1;  // lda below m
      CheckDetail detail;  // the finding's numbers are about A
      detail.present = true;
      detail.id = CheckId::kInvalidLeadingDimension;
      detail.operand = CheckOperand::kA;
      pack_check_detail(detail, s.call.check_detail);
    });
    t.writer().mark_exited(0);
  }
  json report = report_of(path, false);
  const json& trace = report["traces"][0];
  EXPECT_EQ(trace["end"]["state"], "exited");
  EXPECT_TRUE(trace["calls"].empty());  // not asked for
  EXPECT_EQ(trace["totals"]["failed"], 1);
  EXPECT_EQ(trace["totals"]["failed_by_function"]["cublasCgemm_v2"], 1);
  const json& f = trace["first_failure"];
  ASSERT_FALSE(f.is_null());
  EXPECT_EQ(f["seq"], 2);
  EXPECT_EQ(f["status_name"], "CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(f["scan"]["a"]["nan"], 3);
  EXPECT_EQ(f["scan"]["a"]["first"]["row"], 1);
  EXPECT_EQ(f["scan"]["a"]["first"]["col"], 2);
  EXPECT_TRUE(f["scan"]["b"]["first"].is_null());
  ASSERT_EQ(f["checks"].size(), 1u);
  EXPECT_EQ(f["checks"][0]["id"], "invalid-leading-dimension");
  EXPECT_EQ(f["checks"][0]["operand"], "A");  // named in the JSON, not only in the message
  EXPECT_FALSE(f["checks"][0]["message"].get<std::string>().empty());

  std::string out = render_text(report, TextOptions{});
  EXPECT_NE(out.find("first failure"), std::string::npos) << out;
  EXPECT_NE(out.find("#2 cublasCgemm_v2 -> CUBLAS_STATUS_EXECUTION_FAILED (13)"), std::string::npos) << out;
  EXPECT_NE(out.find("check invalid-leading-dimension"), std::string::npos) << out;
  EXPECT_NE(out.find("scan a: 3 NaN, 0 +Inf, 0 -Inf, first at row 1, col 2, batch 0"), std::string::npos) << out;
  EXPECT_EQ(out.find("scan b"), std::string::npos) << "a clean operand adds no line\n" << out;
  EXPECT_NE(out.find("exited"), std::string::npos) << out;
}

// Values CUDA names are printed by name, in the enum of the call's API: statuses (a driver
// call's CUresult too), cuBLASLt attributes (by descriptor), epilogues and orders. JSON keeps the
// number and adds `<arg>_name`, null for a value no toolkit names; the text shows the name.
TEST(SyntheticTrace, CudaValuesAreNamed) {
  ScratchDir dir;
  std::string path = dir / "names.cbt";
  {
    SyntheticTrace t(path);
    t.call(4, 100, true);    // CUDA_ERROR_NO_DEVICE
    t.call(4, 12345, true);  // no toolkit's
    t.call(2, 0, true, [](format::RecordSlot& s) { s.call.args[1] = 7; });  // ..._DESC_EPILOGUE
    t.call(3, 0, true, [](format::RecordSlot& s) {
      s.call.args[0] = 6;   // CUBLASLT_EPILOGUE_RELU_BIAS
      s.call.args[1] = 1;   // CUBLASLT_ORDER_ROW
      s.call.args[2] = 77;  // no order
    });
    t.writer().mark_exited(0);
  }
  json report = report_of(path);
  const json& calls = report["traces"][0]["calls"];
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0]["status"], 100);
  EXPECT_EQ(calls[0]["status_name"], "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(calls[1]["status_name"], "unknown CUresult");
  EXPECT_EQ(calls[2]["args"]["attr"], 7);
  EXPECT_EQ(calls[2]["args"]["attr_name"], "CUBLASLT_MATMUL_DESC_EPILOGUE");
  const json& h = calls[3]["args"];
  EXPECT_EQ(h["epilogue"], 6);
  EXPECT_EQ(h["epilogue_name"], "CUBLASLT_EPILOGUE_RELU_BIAS");
  EXPECT_EQ(h["a_order_name"], "CUBLASLT_ORDER_ROW");
  EXPECT_EQ(h["b_order"], 77);
  EXPECT_TRUE(h.contains("b_order_name") && h["b_order_name"].is_null());
  EXPECT_EQ(report["traces"][0]["first_failure"]["status_name"], "CUDA_ERROR_NO_DEVICE");

  TextOptions text;
  text.all_calls = true;
  std::string out = render_text(report, text);
  EXPECT_NE(out.find("#1 cuInit -> CUDA_ERROR_NO_DEVICE (100)"), std::string::npos) << out;
  EXPECT_NE(out.find("cuInit(flags=0) -> unknown CUresult (12345)"), std::string::npos) << out;
  EXPECT_NE(out.find("cublasLtMatmulDescSetAttribute(matmulDesc=0x0, attr=CUBLASLT_MATMUL_DESC_EPILOGUE)"),
            std::string::npos) << out;
  EXPECT_NE(out.find("(epilogue=CUBLASLT_EPILOGUE_RELU_BIAS, a_order=CUBLASLT_ORDER_ROW, b_order=77)"),
            std::string::npos) << out;
  EXPECT_EQ(out.find("_name"), std::string::npos) << "the names stand in for the numbers\n" << out;
}

TEST(SyntheticTrace, DiagnosesAreOrderedBySeverityInTheText) {
  json report = {{"traces", json::array()},
                 {"diagnoses", json::array({
                      {{"id", "misaligned-operand"}, {"severity", "warning"}, {"summary", "w"}, {"evidence", ""},
                       {"advice", ""}, {"pid", nullptr}, {"call", nullptr}},
                      {{"id", "no-driver"}, {"severity", "error"}, {"summary", "e"}, {"evidence", "libcuda.so.1"},
                       {"advice", "install a driver"}, {"pid", 7}, {"call", 1}},
                  })}};
  std::string out = render_text(report, TextOptions{});
  auto error_at = out.find("no-driver");
  auto warning_at = out.find("misaligned-operand");
  ASSERT_NE(error_at, std::string::npos) << out;
  ASSERT_NE(warning_at, std::string::npos) << out;
  EXPECT_LT(error_at, warning_at);
  EXPECT_NE(out.find("(pid 7, call #1)"), std::string::npos) << out;
  EXPECT_NE(out.find("advice:   install a driver"), std::string::npos) << out;
}

// call_line() and the report's call list are one formatter (present/call_text.h): the same
// line either way, and the status named in its library's words.
TEST(SyntheticTrace, CallTextIsTheReportsLine) {
  ScratchDir dir;
  std::string path = dir / "text.cbt";
  {
    SyntheticTrace t(path);
    t.call(0, 0, true, [](format::RecordSlot& s) { s.call.args[0] = 2; });
    t.call(1, 13, true, [](format::RecordSlot& s) {
      gemm_args(s);
      s.call.flags |= format::kFlagAlphaKnown | format::kFlagBetaKnown;
      s.call.alpha[0] = 1.5;
      s.call.async_status = 700;
    });
    t.call(1, 0, false, gemm_args);
  }
  json report = report_of(path);
  std::vector<std::string> from_json;
  for (const json& c : report["traces"][0]["calls"]) {
    from_json.push_back(c["function"].get<std::string>() + call_arguments_text(c) + " -> " + call_outcome_text(c));
  }
  OpenedTraces opened = open_traces({path});
  ASSERT_EQ(opened.traces.size(), 1u);
  std::vector<std::string> from_views, status_names;
  opened.traces[0].for_each_call([&](const CallView& c) {
    from_views.push_back(call_line(c));
    status_names.push_back(c.status_name());
  });
  ASSERT_EQ(from_views.size(), 3u);
  EXPECT_EQ(from_views, from_json);
  EXPECT_EQ(from_views[0], "cudaGetDeviceCount(count=2) -> cudaSuccess (0)");
  EXPECT_NE(from_views[1].find("alpha=(1.5,0)"), std::string::npos) << from_views[1];
  EXPECT_NE(from_views[1].find(") -> CUBLAS_STATUS_EXECUTION_FAILED (13), then asynchronous cudaErrorIllegalAddress (700)"),
            std::string::npos)
      << from_views[1];
  EXPECT_NE(from_views[2].find(" -> in flight"), std::string::npos) << from_views[2];
  EXPECT_EQ(status_names[0], "cudaSuccess");
  EXPECT_EQ(status_names[1], "CUBLAS_STATUS_EXECUTION_FAILED");
}

TEST(SyntheticTrace, ColourFollowsNoColorAndTheTerminal) {
  setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(use_color(1, ColorChoice::kAuto));
  EXPECT_TRUE(use_color(1, ColorChoice::kAlways));
  unsetenv("NO_COLOR");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_FALSE(use_color(fds[1], ColorChoice::kAuto));  // a pipe is no terminal
  EXPECT_FALSE(use_color(fds[1], ColorChoice::kNever));
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace cublasspy::tools::testing
