// cuBLASLt's own words: the log the library writes when asked (CUBLASLT_LOG_MASK/LEVEL/FILE),
// quoted beside the finding of the call it explains, and the checks of cuBLASLt's own rules
// (batch-count-mismatch, epilogue-operand, fp8-layout). The refusals come from the stand-in,
// whose cuBLASLt writes its log in the real library's format (standin/cublaslt/lt_log.h); the
// real libcublasLt of this machine writes its own line for the handle it cannot create.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/diagnose_helpers.h"
#include "support/process.h"

namespace cublasspy::test {
namespace {

using test_support::in_directory;
using test_support::ProcessResult;
using test_support::ScratchDir;
using test_support::run_process;

// The report's text as one line: it wraps long evidence at any space.
std::string flat(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (!space || (!out.empty() && out.back() != ' ')) out += space ? ' ' : c;
  }
  return out;
}

TracedRun run_lt(const std::string& mode, std::map<std::string, std::string> env = {},
                 Stack stack = Stack::kStandin) {
  RunOptions o;
  o.stack = stack;
  o.env = std::move(env);
  o.args = {mode};
  return run_traced(program_path("diag_lt_words"), o);
}

// The log variables as `cublasspy run` sets them, the file in `dir`.
std::map<std::string, std::string> log_into(const ScratchDir& dir) {
  return {{"CUBLASLT_LOG_MASK", "5"}, {"CUBLASLT_LOG_FILE", dir / "cublaslt-%i.log"}};
}

TEST(LtWords, InvalidValueQuotesTheLibrarysLine) {
  ScratchDir logs;
  TracedRun run = run_lt("batch-mismatch", log_into(logs));
  auto found = run.diagnose();
  ASSERT_TRUE(contains(run.output, "cublasLtMatmul 7")) << run.output;
  const Diagnosis& d = the_finding(found, "invalid-value");
  EXPECT_TRUE(contains(d.evidence,
                       "cuBLASLt's log (" + logs.path() + "/cublaslt-" + std::to_string(run.pid) +
                           ".log) says: \"Input matrices batch counts mismatch: input B matrix batchCount (1) "
                           "must be equal to all other matrices batch counts, expected (2).\""))
      << d.evidence;
  ASSERT_EQ(d.library_log.size(), 1u) << explain(run, found);
  EXPECT_TRUE(contains(d.library_log[0], "][cublasLt][" + std::to_string(run.pid) + "][Error][cublasLtMatmul] Input"))
      << d.library_log[0];
  EXPECT_EQ(d.library_log_file, logs / ("cublaslt-" + std::to_string(run.pid) + ".log"));
  EXPECT_FALSE(contains(d.advice, "CUBLASLT_LOG_FILE")) << d.advice;  // the log is there: no need to ask
}

TEST(LtWords, NotSupportedQuotesTheLibrarysLine) {
  ScratchDir logs;
  TracedRun run = run_lt("types", log_into(logs));
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "configuration-not-supported");
  EXPECT_TRUE(contains(d.evidence, "says: \"Unsupported combination of types")) << explain(run, found);
  EXPECT_EQ(d.library_log.size(), 1u);
}

TEST(LtWords, WithoutTheLogTheAdviceSaysHowToGetIt) {
  TracedRun run = run_lt("batch-mismatch");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-value");
  EXPECT_TRUE(d.library_log.empty());
  for (const char* part : {"`cublasspy run`", "CUBLASLT_LOG_MASK=5", "CUBLASLT_LOG_FILE=cublaslt-%i.log"}) {
    EXPECT_TRUE(contains(d.advice, part)) << part << " missing from: " << d.advice;
  }
}

TEST(LtWords, ALogOnStdoutIsSaidToBeThere) {
  TracedRun run = run_lt("batch-mismatch", {{"CUBLASLT_LOG_LEVEL", "1"}});
  auto found = run.diagnose();
  EXPECT_TRUE(contains(run.output, "[Error][cublasLtMatmul] Input matrices batch counts mismatch")) << run.output;
  const Diagnosis& d = the_finding(found, "invalid-value");
  EXPECT_TRUE(contains(d.advice, "standard output")) << d.advice;
}

TEST(LtWords, AnUnreadableLogIsNamed) {
  TracedRun run = run_lt("batch-mismatch", {{"CUBLASLT_LOG_MASK", "1"}, {"CUBLASLT_LOG_FILE", "/nonexistent/lt-%i.log"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-value");
  EXPECT_TRUE(contains(d.evidence, "/nonexistent/lt-" + std::to_string(run.pid) + ".log) cannot be read")) << d.evidence;
}

// The real libcublasLt on this driverless machine explains why it could not make a handle.
TEST(LtWords, TheRealLibrarysWordsForAHandleItCannotCreate) {
  if (driver_installed()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  ScratchDir logs;
  TracedRun run = run_lt("create", log_into(logs), Stack::kRealLibraries);
  auto found = run.diagnose();
  ASSERT_TRUE(contains(run.output, "cublasLtCreate 1")) << run.output;
  // The finding that explains it (no driver) quotes the library's line for its first failure.
  const Diagnosis& d = the_finding(found, "no-driver");
  ASSERT_EQ(d.library_log.size(), 1u) << explain(run, found);
  EXPECT_TRUE(contains(d.library_log[0], "][cublasLt][" + std::to_string(run.pid) +
                                             "][Error][cublasLtCreate] Failed to initialize CUDA"))
      << d.library_log[0];
  EXPECT_TRUE(contains(d.evidence, "cuBLASLt's log (" + logs.path() + "/cublaslt-")) << d.evidence;
}

// `cublasspy run` asks for the log beside the trace and the summary quotes it; the empty log of
// a clean process is removed.
TEST(LtWords, RunAsksForTheLogBesideTheTrace) {
  ScratchDir dir;
  test_support::Env env = {{"LD_LIBRARY_PATH", standin_dir()}, {"NO_COLOR", "1"}};
  for (const char* name : {"CUBLASLT_LOG_LEVEL", "CUBLASLT_LOG_MASK", "CUBLASLT_LOG_FILE"}) env[name] = std::nullopt;
  ProcessResult r = run_process({CBS_TEST_CLI, "run", "--", program_path("diag_lt_words"), "batch-mismatch"}, env,
                                in_directory(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(flat(r.err), "says: \"Input matrices batch counts mismatch")) << r.err;
  ASSERT_EQ(dir.files(".log").size(), 1u);
  // The report's JSON carries the line and its file.
  ProcessResult report = run_process({CBS_TEST_CLI, "report", "--json", dir.files().at(0)});
  auto doc = nlohmann::json::parse(report.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << report.out << report.err;
  bool quoted = false;
  for (const auto& d : doc["diagnoses"]) {
    if (!d.contains("library_log")) continue;
    quoted = true;
    EXPECT_EQ(d["library_log"]["file"], dir.files(".log").at(0));
    EXPECT_TRUE(contains(d["library_log"]["lines"].at(0).get<std::string>(), "[Error][cublasLtMatmul] Input"));
  }
  EXPECT_TRUE(quoted) << report.out;

  // The real library creates its file whatever it has to say; `run` removes it when empty,
  // the log of a process whose clean exit removed its trace too.
  ScratchDir clean;
  env["LD_LIBRARY_PATH"] = cuda_libdir();
  for (const char* keep : {"always", "incident"}) {
    ProcessResult ok = run_process({CBS_TEST_CLI, "run", "--keep", keep, "--", program_path("diag_lt_words"), "desc"},
                                   env, in_directory(clean.path()));
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_TRUE(contains(ok.out, "cublasLtMatmulDescCreate 0")) << ok.out;
    EXPECT_EQ(clean.files(".cbt").size(), 1u) << "kept under always, removed under incident: " << keep;
    EXPECT_TRUE(clean.files(".log").empty()) << "a clean run leaves no log (--keep " << keep << ")";
  }
}

// ---- the checks of cuBLASLt's rules ------------------------------------------------------------

TEST(LtWords, BatchCountMismatchIsChecked) {
  ScratchDir logs;
  auto env = log_into(logs);
  env["CUBLASSPY_CHECK"] = "1";
  TracedRun run = run_lt("batch-mismatch", env);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "batch-count-mismatch");
  EXPECT_TRUE(contains(d.evidence, "B's layout has CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT 1 but D's has 2")) << d.evidence;
  // The check's finding carries the library's words too, and no invalid-value repeats it.
  EXPECT_TRUE(contains(d.evidence, "says: \"Input matrices batch counts mismatch")) << d.evidence;
  EXPECT_FALSE(has_id(found, "invalid-value")) << explain(run, found);
}

// The evidence of the finding `id` that a check-mode run of `mode` gets ("" without one).
std::string checked_evidence(const std::string& mode, const std::string& id) {
  TracedRun run = run_lt(mode, {{"CUBLASSPY_CHECK", "1"}});
  auto found = run.diagnose();
  return the_finding(found, id).evidence;
}

TEST(LtWords, AMissingBiasIsChecked) {
  EXPECT_TRUE(contains(checked_evidence("bias-missing", "epilogue-operand"),
                       "CUBLASLT_EPILOGUE_BIAS reads or writes a bias vector, but CUBLASLT_MATMUL_DESC_BIAS_POINTER is "
                       "NULL"));
}

TEST(LtWords, AnAuxLdBelowItsRuleIsChecked) {
  EXPECT_TRUE(contains(checked_evidence("aux-ld", "epilogue-operand"),
                       "CUBLASLT_EPILOGUE_GELU_AUX_BIAS's CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD is 12: it must be a "
                       "multiple of 8"));
}

// The stand-in plays an sm_90 GPU and computes the NN fp8 matmul; the check says Hopper would not.
TEST(LtWords, Fp8OutsideTnOnHopperIsChecked) {
  EXPECT_TRUE(contains(checked_evidence("fp8-nn", "fp8-layout"), "transa=N, transb=N: on compute capability 9.0"));
}

TEST(LtWords, Fp8LdOfNoMultipleOf16IsChecked) {
  EXPECT_TRUE(contains(checked_evidence("fp8-ld", "fp8-layout"), "lda=24 is not a multiple of 16"));
}

}  // namespace
}  // namespace cublasspy::test
