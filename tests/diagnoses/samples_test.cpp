// Correct programs shaped like NVIDIA's CUDALibrarySamples GEMMs (programs/diag_samples.cpp),
// run under CUBLASSPY_CHECK=1, CUBLASSPY_SCAN=all and CUBLASSPY_DUMP=all: no finding, scans
// that saw the matrices (not the pointer arrays that lead to them), dumps of the matrices.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <cublas_api.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/diagnose_helpers.h"
#include "support/process.h"
#include "dump/npy_writer.h"
#include "present/call_text.h"
#include "trace/gemm_groups.h"
#include "present/lt_algo_config.h"

namespace cublasspy::test {
namespace {

using test_support::ProcessResult;
using test_support::run_process;

TracedRun run_sample(const std::string& mode, std::map<std::string, std::string> extra = {}) {
  RunOptions o;
  o.env = {{"CUBLASSPY_CHECK", "1"}, {"CUBLASSPY_SCAN", "all"}, {"CUBLASSPY_DUMP", "all"}};
  o.env.insert(extra.begin(), extra.end());
  o.args = {mode};
  return run_traced(program_path("diag_samples"), o);
}

// The one call of `function` in the run's traces.
CallView the_call(const TracedRun& run, const std::string& function) {
  std::vector<CallView> found;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (function == c.function_name()) found.push_back(c);
    });
  }
  EXPECT_EQ(found.size(), 1u) << "calls of " << function;
  return found.empty() ? CallView{} : found.front();
}

// The dump's JSON for one operand of call `seq` ("" when absent).
nlohmann::json dump_meta(const TracedRun& run, uint64_t seq, char operand) {
  for (const std::string& trace : run.traces) {
    std::ifstream in(trace + ".call" + std::to_string(seq) + "." + operand + ".json");
    if (in) return nlohmann::json::parse(in);
  }
  return {};
}

// The group table of a grouped call (format version 5), from whichever trace holds it.
std::optional<GemmGroups> groups_of(const TracedRun& run, const CallView& call) {
  for (const TraceFile& t : run.opened) {
    if (auto g = gemm_groups_of(t, call)) return g;
  }
  return std::nullopt;
}

// The report's JSON entry of call `seq` (`cublasspy report --json --all`).
nlohmann::json reported_call(const TracedRun& run, uint64_t seq) {
  std::vector<std::string> argv = {CBS_TEST_CLI, "report", "--json", "--all"};
  argv.insert(argv.end(), run.traces.begin(), run.traces.end());
  const ProcessResult r = run_process(argv);
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  if (doc.is_discarded()) {
    ADD_FAILURE() << "report --json printed no JSON: " << r.out << r.err;
    return {};
  }
  for (const auto& trace : doc["traces"]) {
    for (const auto& call : trace["calls"]) {
      if (call["seq"] == seq) return call;
    }
  }
  ADD_FAILURE() << "call " << seq << " is not in the report";
  return {};
}

// A call's record, and the CUBLASSPY_CHECK bits of it, are clean; status 0.
void expect_succeeded(const TracedRun& run, const std::string& function) {
  const CallView call = the_call(run, function);
  EXPECT_EQ(call.rec().status, 0) << call_line(call);
}

void expect_clean(const TracedRun& run, const std::string& function) {
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
  const CallView call = the_call(run, function);
  EXPECT_EQ(call.rec().check_bits, 0u) << call_line(call);
  ASSERT_TRUE(call.rec().flags & format::kFlagScanned) << "the call was not scanned: " << call_line(call);
  for (int op = 0; op < 4; ++op) {
    const format::ScanSummary& s = call.slot.scan[op];
    EXPECT_EQ(s.nan_count + s.pos_inf_count + s.neg_inf_count, 0u) << "operand " << op << ": " << call_line(call);
  }
}

TEST(Samples, GroupedFp32RecordsScansAndDumpsEveryGroup) {
  TracedRun run = run_sample("--grouped-fp32");
  // C is full of NaN and every group's beta is 0: C is no input, so no finding.
  expect_clean(run, "cublasSgemmGroupedBatched");
  const CallView call = the_call(run, "cublasSgemmGroupedBatched");
  // Every group is scanned: A's largest element, 9, is in the second group. C is not read.
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 9.0) << call_line(call);
  EXPECT_LT(call.slot.scan[2].max_abs_finite, 0.0) << "C was scanned although every beta is 0: " << call_line(call);
  const std::optional<GemmGroups> groups = groups_of(run, call);
  ASSERT_TRUE(groups.has_value()) << "no group table for " << call_line(call);
  EXPECT_EQ(groups->group_count, 2);
  EXPECT_EQ(groups->problem_count, 3);
  ASSERT_EQ(groups->groups.size(), 2u);
  const int64_t dims[2] = {2, 3}, sizes[2] = {2, 1};
  const double alphas[2] = {1.0, 2.0};
  for (int i = 0; i < 2; ++i) {
    const format::GemmGroup& g = groups->groups[i];
    EXPECT_EQ(g.m, dims[i]);
    EXPECT_EQ(g.n, dims[i]);
    EXPECT_EQ(g.k, dims[i]);
    EXPECT_EQ(g.lda, dims[i]);
    EXPECT_EQ(g.ldc, dims[i]);
    EXPECT_EQ(g.size, sizes[i]);
    EXPECT_EQ(g.transa, 0);
    ASSERT_EQ(g.flags, format::kGroupAlphaKnown | format::kGroupBetaKnown) << "group " << i;
    EXPECT_EQ(g.alpha, alphas[i]);
    EXPECT_EQ(g.beta, 0.0);
  }
  // The report: every group in args.groups, the first group's values at the top level.
  const nlohmann::json args = reported_call(run, call.seq)["args"];
  ASSERT_TRUE(args["groups"].is_array()) << args.dump();
  ASSERT_EQ(args["groups"].size(), 2u) << args.dump();
  EXPECT_EQ(args["groups"][1]["m"], 3) << args.dump();
  EXPECT_EQ(args["groups"][1]["alpha"], 2.0) << args.dump();
  EXPECT_EQ(args["groups"][1]["beta"], 0.0) << args.dump();
  EXPECT_EQ(args["groups"][1]["size"], 1) << args.dump();
  EXPECT_EQ(args["groups"][1]["transa"], "N") << args.dump();
  EXPECT_EQ(args["problem_count"], 3) << args.dump();
  EXPECT_EQ(args["m"], 2) << args.dump();
  EXPECT_EQ(args["alpha"], 1.0) << args.dump();
  EXPECT_EQ(args["beta"], 0.0) << args.dump();
  EXPECT_FALSE(args.contains("groups_omitted")) << args.dump();
  // The dumps: the first group under the call's prefix, the second under .group1.
  const nlohmann::json a = dump_meta(run, call.seq, 'a');
  ASSERT_FALSE(a.is_null()) << "no dump of A";
  EXPECT_EQ(a["pointer_array"], true) << a.dump();
  EXPECT_EQ(a["batch"], 2) << a.dump();
  EXPECT_EQ(a["rows"], 2) << a.dump();
  nlohmann::json a1;
  for (const std::string& trace : run.traces) {
    std::ifstream in(trace + ".call" + std::to_string(call.seq) + ".group1.a.json");
    if (in) a1 = nlohmann::json::parse(in);
  }
  ASSERT_FALSE(a1.is_null()) << "no dump of the second group's A";
  EXPECT_EQ(a1["rows"], 3) << a1.dump();
  EXPECT_EQ(a1["batch"], 1) << a1.dump();
}

// Without a side area the trace keeps no group table, but the shim still reads every group:
// the scans skip C where beta is 0, and the first group stays in the record's slots.
TEST(Samples, GroupedWithoutSideAreaStillScansEveryGroup) {
  TracedRun run = run_sample("--grouped-fp32", {{"CUBLASSPY_SIDE_MB", "0"}});
  expect_clean(run, "cublasSgemmGroupedBatched");
  const CallView call = the_call(run, "cublasSgemmGroupedBatched");
  EXPECT_FALSE(groups_of(run, call).has_value());
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 9.0) << call_line(call);
  EXPECT_TRUE(contains(call_line(call), "m=2")) << call_line(call);
  EXPECT_TRUE(contains(call_line(call), "alpha=1")) << call_line(call);
}

TEST(Samples, GroupedFp16SeveralGroupsNaNCWithBetaZeroHasNoFinding) {
  TracedRun run = run_sample("--grouped-fp16");
  expect_clean(run, "cublasGemmGroupedBatchedEx");
  const CallView call = the_call(run, "cublasGemmGroupedBatchedEx");
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 1.0) << call_line(call);
  EXPECT_EQ(call.slot.scan[1].max_abs_finite, 1.0) << call_line(call);
  // The output: 4 in the first group's problems, 2 in the second's.
  EXPECT_EQ(call.slot.scan[3].max_abs_finite, 4.0) << call_line(call);
  const std::optional<GemmGroups> groups = groups_of(run, call);
  ASSERT_TRUE(groups.has_value()) << "no group table for " << call_line(call);
  ASSERT_EQ(groups->groups.size(), 2u);
  EXPECT_EQ(groups->problem_count, 3);
  EXPECT_EQ(groups->groups[1].m, 2);
  EXPECT_EQ(groups->groups[1].size, 1);
  // fp32 compute: the scalars are read as floats from the host arrays.
  EXPECT_TRUE(groups->groups[1].flags & format::kGroupAlphaKnown);
  EXPECT_EQ(groups->groups[1].alpha, 1.0);
}

TEST(Samples, LtPresetAlgorithmIsRecordedAndReplayed) {
  TracedRun run = run_sample("--lt-preset-algo");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
  for (const char* f : {"cublasLtMatmulAlgoGetIds", "cublasLtMatmulAlgoInit", "cublasLtMatmulAlgoConfigGetAttribute",
                        "cublasLtMatmulAlgoCapGetAttribute", "cublasLtMatmulAlgoCheck", "cublasLtMatmul"}) {
    expect_succeeded(run, f);
  }
  // The stand-in lists ids 0, 1, 6: the program takes the last.
  const CallView init = the_call(run, "cublasLtMatmulAlgoInit");
  EXPECT_TRUE(contains(call_line(init), "algo_id=6")) << call_line(init);
  const CallView get = the_call(run, "cublasLtMatmulAlgoConfigGetAttribute");
  EXPECT_TRUE(contains(call_line(get), "attr=CUBLASLT_ALGO_CONFIG_ID")) << call_line(get);
  EXPECT_TRUE(contains(call_line(get), "value=6")) << call_line(get);
  // Attribute values CUDA names print as names.
  const CallView epilogue = the_call(run, "cublasLtMatmulDescSetAttribute");
  EXPECT_TRUE(contains(call_line(epilogue), "attr=CUBLASLT_MATMUL_DESC_EPILOGUE")) << call_line(epilogue);
  EXPECT_TRUE(contains(call_line(epilogue), "value=CUBLASLT_EPILOGUE_DEFAULT")) << call_line(epilogue);
  const CallView order = the_call(run, "cublasLtMatrixLayoutSetAttribute");
  EXPECT_TRUE(contains(call_line(order), "attr=CUBLASLT_MATRIX_LAYOUT_ORDER")) << call_line(order);
  EXPECT_TRUE(contains(call_line(order), "value=CUBLASLT_ORDER_COL")) << call_line(order);
  const CallView ids = the_call(run, "cublasLtMatmulAlgoGetIds");
  EXPECT_TRUE(contains(call_line(ids), "return_algo_count=3")) << call_line(ids);
  const CallView matmul = the_call(run, "cublasLtMatmul");
  const nlohmann::json args = reported_call(run, matmul.seq)["args"];
  EXPECT_EQ(args["algo_id"], 6) << args.dump();
  EXPECT_EQ(args["algo_preset"], true) << args.dump();
  // The stand-in's algorithm: its magic ("SnStAlgo") first, then the id.
  EXPECT_EQ(matmul.slot.lt_algo[0], 0x6f676c4174536e53ull);
  EXPECT_EQ(matmul.slot.lt_algo[1] & 0xffffffffu, 6u);
  ASSERT_TRUE(args["algo_bytes"].is_string()) << args.dump();
  EXPECT_EQ(args["algo_bytes"].get<std::string>().substr(0, 16), "6f676c4174536e53") << args.dump();
  // Replay passes the same algorithm (the stand-in refuses one it did not make), and so does
  // the reproducer.
  const std::string source = run.dir + "/repro.cpp";
  const ProcessResult replay = run_process({CBS_TEST_CLI, "replay", run.traces.front(), "--call",
                                            std::to_string(matmul.seq), "--json", "--emit-cpp", source},
                                           {{"LD_LIBRARY_PATH", standin_dir()},
                                            {"CUBLASSPY_REPLAY_RUNNER", std::string(CBS_TEST_REPLAY_RUNNER)}});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_TRUE(contains(replay.out, "replayed as recorded")) << replay.out;
  std::ifstream in(source);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(contains(text.str(), "0x6f676c4174536e53ull")) << text.str();
  EXPECT_TRUE(contains(text.str(), "&algo")) << text.str();
}

// When no cuBLASLt can be loaded to read a preset algorithm's bytes (here the one named with
// --cublaslt does not exist, and naming one turns the fallback off), the report says so once,
// with the reason, and still shows the bytes; a loadable one decodes them.
TEST(Samples, PresetAlgorithmWithNoLoadableCublasLtIsShownAsBytes) {
  TracedRun run = run_sample("--lt-preset-algo");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CallView matmul = the_call(run, "cublasLtMatmul");
  const std::string missing = run.dir + "/no-such-dir/libcublasLt.so.13";
  auto report = [&](const std::string& cublaslt, bool json) {
    std::vector<std::string> argv = {CBS_TEST_CLI, "report", "--all", "--cublaslt", cublaslt};
    if (json) argv.push_back("--json");
    argv.insert(argv.end(), run.traces.begin(), run.traces.end());
    return run_process(argv);
  };
  const ProcessResult r = report(missing, true);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  ASSERT_TRUE(doc["notes"].is_array()) << r.out;
  ASSERT_EQ(doc["notes"].size(), 1u) << doc["notes"].dump();
  const std::string note = doc["notes"][0].get<std::string>();
  EXPECT_TRUE(contains(note, "no cuBLASLt could be loaded")) << note;
  EXPECT_TRUE(contains(note, missing)) << note;  // dlerror's reason names the file
  nlohmann::json args;
  for (const auto& call : doc["traces"][0]["calls"]) {
    if (call["seq"] == matmul.seq) args = call["args"];
  }
  EXPECT_EQ(args["algo_preset"], true) << args.dump();
  EXPECT_FALSE(args.contains("algo_config")) << args.dump();
  ASSERT_TRUE(args["algo_bytes"].is_string()) << args.dump();
  EXPECT_EQ(args["algo_bytes"].get<std::string>().substr(0, 16), "6f676c4174536e53") << args.dump();
  // The text: the note, and the matmul with its bytes (there is no id to show).
  const ProcessResult text = report(missing, false);
  EXPECT_TRUE(contains(text.out, "note: preset cuBLASLt algorithms are shown as bytes only")) << text.out;
  EXPECT_TRUE(contains(text.out, "algo_bytes=6f676c4174536e53")) << text.out;
  // Named and loadable: decoded by it, no note.
  const nlohmann::json decoded = nlohmann::json::parse(report(standin_dir() + "/libcublasLt.so.13", true).out);
  EXPECT_FALSE(decoded.contains("notes")) << decoded["notes"].dump();
  for (const auto& call : decoded["traces"][0]["calls"]) {
    if (call["seq"] == matmul.seq) { EXPECT_EQ(call["args"]["algo_config"]["id"], 6) << call.dump(); }
  }
}

// The stand-in's preset algorithm read by this machine's real cuBLASLt (the traced program's
// own named with --cublaslt, or out of reach): its layout is another, the values it reads are
// none cuBLASLt gives, and the report refuses them instead of printing them as the algorithm.
TEST(Samples, PresetAlgorithmOfAnotherLibraryIsNotShownAsFact) {
  TracedRun run = run_sample("--lt-preset-algo");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CallView matmul = the_call(run, "cublasLtMatmul");
  auto report = [&](const std::string& cublaslt, bool json) {
    std::vector<std::string> argv = {CBS_TEST_CLI, "report", "--all", "--cublaslt", cublaslt};
    if (json) argv.push_back("--json");
    argv.insert(argv.end(), run.traces.begin(), run.traces.end());
    return run_process(argv);
  };
  auto algo_config = [&](const std::string& cublaslt) {
    const nlohmann::json doc = nlohmann::json::parse(report(cublaslt, true).out, nullptr, false);
    for (const auto& call : doc.is_discarded() ? nlohmann::json::array() : doc["traces"][0]["calls"]) {
      if (call["seq"] == matmul.seq) return call["args"].value("algo_config", nlohmann::json());
    }
    return nlohmann::json();
  };
  const nlohmann::json host = algo_config("libcublasLt.so.13");
  ASSERT_TRUE(host.is_object()) << host.dump();
  EXPECT_FALSE(host.contains("id")) << host.dump();
  EXPECT_FALSE(host.contains("tile")) << host.dump();
  EXPECT_TRUE(contains(host.value("refused", ""), "outside cuBLASLt's ranges")) << host.dump();
  EXPECT_EQ(host.value("decoded_by", ""), "libcublasLt.so.13 (named with --cublaslt)") << host.dump();
  // The stand-in's own library reads them, and says it did.
  const nlohmann::json own = algo_config(standin_dir() + "/libcublasLt.so.13");
  EXPECT_EQ(own.value("id", -1), 6) << own.dump();
  EXPECT_TRUE(contains(own.value("decoded_by", ""), standin_dir())) << own.dump();
  // The text has no impossible value either.
  const ProcessResult text = report("libcublasLt.so.13", false);
  EXPECT_FALSE(contains(text.out, "1951624787")) << text.out;
  EXPECT_FALSE(contains(text.out, "1869048897")) << text.out;
  EXPECT_TRUE(contains(text.out, "refused=")) << text.out;
}

// NVIDIA's LtDgemmPresetAlgo presets algorithm 10 with split-K 256 without asking AlgoGetIds
// (it aborted on the stand-in, which listed no 10); it runs with no finding and the record keeps
// the algorithm.
TEST(Samples, LtDgemmPresetAlgoSplitKHasNoFinding) {
  TracedRun run = run_sample("--lt-dgemm-preset-algo");
  expect_clean(run, "cublasLtMatmul");
  expect_succeeded(run, "cublasLtMatmulAlgoInit");
  const CallView init = the_call(run, "cublasLtMatmulAlgoInit");
  EXPECT_TRUE(contains(call_line(init), "algo_id=10")) << call_line(init);
  EXPECT_TRUE(contains(call_line(init), "compute_type=CUBLAS_COMPUTE_64F")) << call_line(init);
  const CallView matmul = the_call(run, "cublasLtMatmul");
  const nlohmann::json args = reported_call(run, matmul.seq)["args"];
  EXPECT_EQ(args["algo_id"], 10) << args.dump();
  EXPECT_EQ(args["algo_preset"], true) << args.dump();
  EXPECT_EQ(args["k"], 20000) << args.dump();
}

// LtIgemmTensor's tiled orders: COL32 and COL4_4R2_8C operands in allocations of exactly their
// documented size are in bounds (the checks measured them column-major: a false
// operand-out-of-bounds), and the transforms are recorded.
TEST(Samples, LtIgemmTensorTiledOrdersHaveNoFinding) {
  TracedRun run = run_sample("--lt-igemm-tensor");
  expect_clean(run, "cublasLtMatmul");
  const CallView matmul = the_call(run, "cublasLtMatmul");
  EXPECT_TRUE(contains(call_line(matmul), "a_order=CUBLASLT_ORDER_COL32")) << call_line(matmul);
  EXPECT_TRUE(contains(call_line(matmul), "b_order=CUBLASLT_ORDER_COL4_4R2_8C")) << call_line(matmul);
  int transforms = 0;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (std::string(c.function_name()) == "cublasLtMatrixTransform") {
        ++transforms;
        EXPECT_EQ(c.rec().status, 0) << call_line(c);
      }
    });
  }
  EXPECT_EQ(transforms, 3);
}

TEST(Samples, GemmExAutotuneIsAccepted) {
  TracedRun run = run_sample("--gemm-autotune");
  expect_clean(run, "cublasGemmEx");
  const CallView call = the_call(run, "cublasGemmEx");
  EXPECT_TRUE(contains(call_line(call), "algo=CUBLAS_GEMM_AUTOTUNE")) << call_line(call);
}

TEST(Samples, LtHeuristicAutotuningLoopHasNoFinding) {
  TracedRun run = run_sample("--lt-autotune");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
  // Each candidate's timed runs and the final one: every matmul got the heuristic's algorithm,
  // whose id the stand-in's cuBLASLt reads from the recorded bytes (the shim records only them).
  prefer_cublaslt_for_algorithms(standin_dir() + "/libcublasLt.so.13");
  int matmuls = 0;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (std::string(c.function_name()) != "cublasLtMatmul") return;
      ++matmuls;
      EXPECT_EQ(c.rec().status, 0) << call_line(c);
      EXPECT_TRUE(contains(call_line(c), "algo_id=0")) << call_line(c);
    });
  }
  EXPECT_GE(matmuls, 4);
}

// Was: output-aliases-input and operand-out-of-bounds on NVIDIA's LtFp8CustomFind, whose D is
// C's memory with C's type differing, and beta 0. The checks run before beta is read; once it
// is known to be 0 the call is checked again without C.
TEST(Samples, LtCIsDWithAnotherLayoutAndBetaZeroHasNoFinding) {
  TracedRun run = run_sample("--lt-c-is-d-beta-zero");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
  const CallView matmul = the_call(run, "cublasLtMatmul");
  EXPECT_EQ(matmul.rec().check_bits, 0u) << call_line(matmul);
  EXPECT_TRUE(contains(call_line(matmul), "ldc=8") && contains(call_line(matmul), "ldd=4") &&
              contains(call_line(matmul), "beta=0"))
      << call_line(matmul);
}

TEST(Samples, FailedAlgoInitBeforeAnAbortIsNamed) {
  TracedRun run = run_sample("--lt-bad-algo");
  EXPECT_NE(run.exit_code, 0) << run.output;
  const CallView init = the_call(run, "cublasLtMatmulAlgoInit");
  EXPECT_EQ(init.rec().status, CUBLAS_STATUS_INVALID_VALUE) << call_line(init);
  auto found = run.diagnose();
  std::vector<const Diagnosis*> named;
  for (const Diagnosis& d : found) {
    if (d.call == init.seq) named.push_back(&d);
  }
  ASSERT_EQ(named.size(), 1u) << explain(run, found);
  EXPECT_EQ(named[0]->id, "invalid-value") << explain(run, found);
  EXPECT_TRUE(contains(named[0]->summary, "cublasLtMatmulAlgoInit")) << named[0]->summary;
  EXPECT_TRUE(contains(named[0]->advice, "cublasLtMatmulAlgoGetIds")) << named[0]->advice;
}

TEST(Samples, LtPointerArrayBatchHasNoFinding) {
  TracedRun run = run_sample("--lt-pointer-array");
  expect_clean(run, "cublasLtMatmul");
  const CallView call = the_call(run, "cublasLtMatmul");
  EXPECT_EQ(call.arg(format::ArgRole::kBatchMode), std::optional<uint64_t>(1)) << call_line(call);
  EXPECT_TRUE(call.gemm().pointer_arrays) << call_line(call);
  // Member 1's A is all 2.0: the scan went through the array to both members.
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 2.0) << call_line(call);
  const nlohmann::json a = dump_meta(run, call.seq, 'a');
  ASSERT_FALSE(a.is_null()) << "no dump of A";
  EXPECT_EQ(a["pointer_array"], true) << a.dump();
  EXPECT_EQ(a["batch"], 2) << a.dump();
}

// LtNvfp4Matmul's call: E2M1 A, B and D (two elements a byte) with VEC16_UE4M3 block scales.
// No finding; the FP4 operands are measured and dumped as the bytes they occupy and not scanned
// (E2M1 has no NaN or Inf); C (bf16) is scanned.
TEST(Samples, LtNvfp4BlockScaledHasNoFinding) {
  TracedRun run = run_sample("--lt-nvfp4");
  expect_clean(run, "cublasLtMatmul");
  const CallView call = the_call(run, "cublasLtMatmul");
  EXPECT_EQ(call.rec().status, 0) << call_line(call);
  EXPECT_TRUE(contains(call_line(call), "CUDA_R_4F_E2M1")) << call_line(call);
  const GemmCall g = call.gemm();
  EXPECT_TRUE(g.op[0].packed_fp4);
  EXPECT_EQ(g.op[0].rows, 128);  // k = 256 elements: 128 bytes a column
  EXPECT_EQ(g.op[0].extent_bytes(), 256u * 64 / 2);
  EXPECT_EQ(g.op[3].extent_bytes(), 64u * 128 / 2);
  for (int op : {0, 1, 3}) EXPECT_LT(call.slot.scan[op].max_abs_finite, 0.0) << "operand " << op << " scanned";
  EXPECT_EQ(call.slot.scan[2].max_abs_finite, 2.0) << call_line(call);
  for (char operand : {'a', 'b', 'd'}) {
    const nlohmann::json meta = dump_meta(run, call.seq, operand);
    ASSERT_FALSE(meta.is_null()) << "no dump of " << operand;
    EXPECT_EQ(meta["type"], "CUDA_R_4F_E2M1") << meta.dump();
    EXPECT_EQ(meta["npy_dtype"], "|u1") << meta.dump();
    EXPECT_EQ(meta["raw_bits"], true) << meta.dump();
    EXPECT_TRUE(meta.contains("packing")) << meta.dump();
    EXPECT_EQ(meta["elements"], operand == 'd' ? 64 * 128 / 2 : (operand == 'a' ? 64 : 128) * 256 / 2) << meta.dump();
  }
}

TEST(Samples, LtMxfp8BlockScaledHasNoFinding) {
  TracedRun run = run_sample("--lt-mxfp8");
  expect_clean(run, "cublasLtMatmul");
  const CallView call = the_call(run, "cublasLtMatmul");
  // e4m3 A is scanned as e4m3 (its pattern's largest code, 0x4f, is 7.5): the block scales are not applied.
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 7.5) << call_line(call);
  EXPECT_GE(call.slot.scan[3].max_abs_finite, 0.0) << call_line(call);
  const nlohmann::json d = dump_meta(run, call.seq, 'd');
  ASSERT_FALSE(d.is_null()) << "no dump of D";
  EXPECT_EQ(d["type"], "CUDA_R_8F_E4M3") << d.dump();
}

// The bounds check measures E2M1 by its bytes: half of them missing is out of bounds (before,
// an FP4 operand had no size and was never checked).
TEST(Samples, LtNvfp4ShortOperandIsOutOfBounds) {
  TracedRun run = run_sample("--lt-nvfp4-short-a");
  const CallView call = the_call(run, "cublasLtMatmul");
  EXPECT_NE(call.rec().check_bits, 0u) << call_line(call);
  auto found = run.diagnose();
  ASSERT_TRUE(has_id(found, "operand-out-of-bounds")) << explain(run, found);
  for (const auto& d : found) {
    if (d.id == "operand-out-of-bounds") { EXPECT_TRUE(contains(d.evidence, "8192 bytes")) << d.evidence; }
  }
}

// An IEEE half's value (the tests' values are normal numbers and zeros; others read as NaN).
float half_to_float(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exponent == 0 && mantissa == 0) return sign * 0.0f;
  if (exponent == 0 || exponent == 0x1f) return std::numeric_limits<float>::quiet_NaN();
  return sign * std::ldexp(1.0f + mantissa / 1024.0f, exponent - 15);
}

// A dump's values as (re, im) pairs of a complex fp16 operand ("<f2" with a last axis of 2).
std::vector<std::pair<float, float>> complex_half_dump(const TracedRun& run, uint64_t seq, char operand) {
  std::vector<std::pair<float, float>> values;
  const std::string path = run.traces.front() + ".call" + std::to_string(seq) + "." + operand + ".npy";
  std::string error;
  const std::optional<NpyInfo> info = read_npy_header(path, &error);
  if (!info) {
    ADD_FAILURE() << path << ": " << error;
    return values;
  }
  EXPECT_EQ(info->descr, "<f2") << path;
  EXPECT_EQ(info->shape.size(), 2u) << path;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  for (size_t at = info->data_offset; at + 4 <= bytes.size(); at += 4) {
    uint16_t re = 0, im = 0;
    std::memcpy(&re, bytes.data() + at, 2);
    std::memcpy(&im, bytes.data() + at + 2, 2);
    values.emplace_back(half_to_float(re), half_to_float(im));
  }
  return values;
}

// NVIDIA's LtPlanarComplex: fp16 planes, the imaginary plane first (offsets of -32 bytes), C is
// D. The stand-in computes it; the checks measure both planes, the scans and dumps read both.
TEST(Samples, LtPlanarComplexHasNoFindingAndScansAndDumpsBothPlanes) {
  TracedRun run = run_sample("--lt-planar");
  expect_clean(run, "cublasLtMatmul");
  const CallView call = the_call(run, "cublasLtMatmul");
  for (int op = 0; op < 4; ++op) EXPECT_EQ(call.slot.plane_offset[op], -32) << "operand " << op;
  EXPECT_EQ(call.gemm().op[0].plane_offset, -32);
  EXPECT_TRUE(contains(call_line(call), "plane_offset_a=-32")) << call_line(call);
  EXPECT_EQ(reported_call(run, call.seq)["args"]["plane_offset_c"], -32);
  // A is 1+2i: its largest part is in the imaginary plane; B is 1-1i; D is 12+4i.
  EXPECT_EQ(call.slot.scan[0].max_abs_finite, 2.0) << call_line(call);
  EXPECT_EQ(call.slot.scan[1].max_abs_finite, 1.0) << call_line(call);
  EXPECT_EQ(call.slot.scan[3].max_abs_finite, 12.0) << call_line(call);
  // The dumps hold the complex values as (re, im) pairs; the JSON gives the plane offset.
  const nlohmann::json a = dump_meta(run, call.seq, 'a');
  ASSERT_FALSE(a.is_null()) << "no dump of A";
  EXPECT_EQ(a["plane_offset"], -32) << a.dump();
  EXPECT_EQ(a["type"], "CUDA_C_16F") << a.dump();
  EXPECT_EQ(a["elements"], 16) << a.dump();
  const auto a_values = complex_half_dump(run, call.seq, 'a');
  ASSERT_EQ(a_values.size(), 16u);
  for (const auto& v : a_values) EXPECT_EQ(v, std::make_pair(1.0f, 2.0f));
  const auto d_values = complex_half_dump(run, call.seq, 'c');  // D is C: the result
  ASSERT_EQ(d_values.size(), 16u);
  for (const auto& v : d_values) EXPECT_EQ(v, std::make_pair(12.0f, 4.0f));
  // The replay does not rebuild planar layouts: it says so in one line, rather than replaying
  // the call as an interleaved one.
  const ProcessResult replay = run_process({CBS_TEST_CLI, "replay", run.traces.front(), "--call",
                                            std::to_string(call.seq)},
                                           {{"LD_LIBRARY_PATH", standin_dir()},
                                            {"CUBLASSPY_REPLAY_RUNNER", std::string(CBS_TEST_REPLAY_RUNNER)}});
  EXPECT_NE(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_TRUE(contains(replay.out + replay.err,
                       "planar complex layouts (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) are not replayed"))
      << replay.out << replay.err;
}

// A NaN in the imaginary plane of A (a wrong program): the scan reads that plane and finds it,
// at the element it is in.
TEST(Samples, LtPlanarComplexNaNInTheImaginaryPlaneIsFound) {
  TracedRun run = run_sample("--lt-planar-nan");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CallView call = the_call(run, "cublasLtMatmul");
  const format::ScanSummary& a = call.slot.scan[0];
  EXPECT_EQ(a.nan_count, 1u) << call_line(call);
  EXPECT_EQ(a.first_row, 1u) << call_line(call);
  EXPECT_EQ(a.first_col, 2u) << call_line(call);
  EXPECT_EQ(call.slot.scan[1].nan_count, 0u) << call_line(call);
  auto found = run.diagnose();
  EXPECT_TRUE(has_id(found, "non-finite-input")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "operand-out-of-bounds")) << explain(run, found);
}

// The stand-in's own refusal of a configuration (as cuBLASLt refuses a kernel it lacks): a
// preset algorithm set to split-K although it has none. The finding names the algorithm with
// its configuration as the library reads it, and points at the heuristic and AlgoCheck.
TEST(Samples, LtRefusedPresetAlgorithmIsConfigurationNotSupported) {
  TracedRun run = run_sample("--lt-refused-algo");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CallView matmul = the_call(run, "cublasLtMatmul");
  EXPECT_EQ(matmul.rec().status, CUBLAS_STATUS_NOT_SUPPORTED) << call_line(matmul);
  prefer_cublaslt_for_algorithms(standin_dir() + "/libcublasLt.so.13");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "configuration-not-supported");
  EXPECT_EQ(d.call, matmul.seq) << explain(run, found);
  EXPECT_TRUE(contains(d.summary, "cublasLtMatmul returned CUBLAS_STATUS_NOT_SUPPORTED")) << d.summary;
  for (const char* part : {"compute_type=CUBLAS_COMPUTE_32F", "a_type=CUDA_R_32F", "d_type=CUDA_R_32F",
                           "a_order=CUBLASLT_ORDER_COL", "epilogue=CUBLASLT_EPILOGUE_DEFAULT",
                           "batch_mode=CUBLASLT_BATCH_MODE_STRIDED", "the preset algorithm id 0", "splitk_num=4"}) {
    EXPECT_TRUE(contains(d.evidence, part)) << part << " missing from: " << d.evidence;
  }
  for (const char* part : {"cublasLtMatmulAlgoGetHeuristic", "cublasLtMatmulAlgoCheck", "AlgoCapGetAttribute"}) {
    EXPECT_TRUE(contains(d.advice, part)) << part << " missing from: " << d.advice;
  }
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
  // The report gives the same id, its evidence decoded by the trace's own cuBLASLt.
  std::vector<std::string> argv = {CBS_TEST_CLI, "report", "--json"};
  argv.insert(argv.end(), run.traces.begin(), run.traces.end());
  const ProcessResult r = run_process(argv);
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  bool reported = false;
  for (const auto& finding : doc["diagnoses"]) {
    if (finding["id"] != "configuration-not-supported") continue;
    reported = true;
    EXPECT_TRUE(contains(finding["evidence"].get<std::string>(), "splitk_num=4")) << finding.dump();
  }
  EXPECT_TRUE(reported) << r.out;
}

// A refusal the stand-in is told to give (STANDIN_FAIL) on a pointer-array batch: the batch
// mode is named, the library chose the algorithm, and ARCH_MISMATCH on the same call gets its id.
TEST(Samples, LtForcedRefusalsNameTheBatchMode) {
  for (const auto& [status, id] : {std::pair{15, "configuration-not-supported"}, std::pair{8, "arch-mismatch"}}) {
    TracedRun run = run_sample("--lt-pointer-array", {{"STANDIN_FAIL", "cublasLtMatmul:1:" + std::to_string(status)}});
    const CallView matmul = the_call(run, "cublasLtMatmul");
    EXPECT_EQ(matmul.rec().status, status) << call_line(matmul);
    auto found = run.diagnose();
    const Diagnosis& d = the_finding(found, id);
    EXPECT_EQ(d.call, matmul.seq) << explain(run, found);
    for (const char* part : {"batch_mode=CUBLASLT_BATCH_MODE_POINTER_ARRAY", "batch_count=2", "a_type=CUDA_R_16F",
                             "no preset algorithm"}) {
      EXPECT_TRUE(contains(d.evidence, part)) << part << " missing from: " << d.evidence;
    }
    EXPECT_TRUE(contains(d.advice, "CUBLASLT_BATCH_MODE_STRIDED")) << d.advice;
    EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
  }
}

// Every call of `function`, in order.
std::vector<CallView> calls_named(const TracedRun& run, const std::string& function) {
  std::vector<CallView> found;
  for (const TraceFile& t : run.opened) {
    t.for_each_call([&](const CallView& c) {
      if (function == c.function_name()) found.push_back(c);
    });
  }
  return found;
}

TEST(Samples, LtEmulatedDgemmRecordsItsVersionsAndEmulationSettings) {
  TracedRun run = run_sample("--lt-emulated");
  expect_clean(run, "cublasLtMatmul");
  // The versions a program checks first: the value returned is on the record, status 0.
  const CallView version = the_call(run, "cublasLtGetVersion");
  EXPECT_EQ(version.rec().status, 0) << call_line(version);
  EXPECT_TRUE(contains(call_line(version), "returned=130")) << call_line(version);
  EXPECT_TRUE(contains(call_line(the_call(run, "cublasLtGetCudartVersion")), "returned=130")) << run.output;
  const CallView property = the_call(run, "cublasLtGetProperty");
  EXPECT_TRUE(contains(call_line(property), "value=13")) << call_line(property);
  // The emulation descriptor: initialized on the stack, each attribute named with its value.
  expect_succeeded(run, "cublasLtEmulationDescInit_internal");
  const std::vector<CallView> sets = calls_named(run, "cublasLtEmulationDescSetAttribute");
  ASSERT_EQ(sets.size(), 5u) << run.output;
  const char* const kExpected[] = {
      "attr=CUBLASLT_EMULATION_DESC_STRATEGY, buf=", "value=CUBLAS_EMULATION_STRATEGY_EAGER",
      "attr=CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT", "value=CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT",
      "attr=CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL", "value=CUDA_EMULATION_MANTISSA_CONTROL_FIXED",
      "attr=CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT", "value=55",
      "attr=CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET", "value=0"};
  for (size_t i = 0; i < sets.size(); ++i) {
    EXPECT_EQ(sets[i].rec().status, 0) << call_line(sets[i]);
    EXPECT_TRUE(contains(call_line(sets[i]), kExpected[2 * i])) << call_line(sets[i]);
    EXPECT_TRUE(contains(call_line(sets[i]), kExpected[2 * i + 1])) << call_line(sets[i]);
  }
  const CallView get = the_call(run, "cublasLtEmulationDescGetAttribute");
  EXPECT_TRUE(contains(call_line(get), "value=55")) << call_line(get);
  // The matmul descriptor takes it, and the matmul records the emulated compute type.
  bool attached = false;
  for (const CallView& c : calls_named(run, "cublasLtMatmulDescSetAttribute")) {
    attached = attached || contains(call_line(c), "attr=CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR");
  }
  EXPECT_TRUE(attached) << run.output;
  const CallView matmul = the_call(run, "cublasLtMatmul");
  EXPECT_TRUE(contains(call_line(matmul), "compute_type=CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT")) << call_line(matmul);
  // The settings it ran with are on the matmul's record (format version 7), by name.
  const format::LtEmulation& e = matmul.slot.lt_emulation;
  EXPECT_EQ(e.flags, format::kEmulationAttached | format::kEmulationKnown);
  EXPECT_EQ(e.strategy, CUBLAS_EMULATION_STRATEGY_EAGER);
  EXPECT_EQ(e.special_values, CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT);
  EXPECT_EQ(e.mantissa_control, CUDA_EMULATION_MANTISSA_CONTROL_FIXED);
  EXPECT_EQ(e.max_mantissa_bits, 55);
  EXPECT_EQ(e.mantissa_bit_offset, 0);
  EXPECT_EQ(e.mantissa_bit_count_pointer, 0u);
  EXPECT_TRUE(contains(call_line(matmul),
                       "emulation={strategy=CUBLAS_EMULATION_STRATEGY_EAGER "
                       "special_values=CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT "
                       "mantissa_control=CUDA_EMULATION_MANTISSA_CONTROL_FIXED max_mantissa_bits=55 "
                       "mantissa_bit_offset=0}"))
      << call_line(matmul);
  const nlohmann::json args = reported_call(run, matmul.seq)["args"];
  ASSERT_TRUE(args["emulation"].is_object()) << args.dump();
  EXPECT_EQ(args["emulation"]["strategy"], "CUBLAS_EMULATION_STRATEGY_EAGER") << args.dump();
  EXPECT_EQ(args["emulation"]["mantissa_control"], "CUDA_EMULATION_MANTISSA_CONTROL_FIXED") << args.dump();
  EXPECT_EQ(args["emulation"]["max_mantissa_bits"], 55) << args.dump();
  EXPECT_FALSE(args["emulation"].contains("mantissa_bit_count_pointer")) << args.dump();
}

// A descriptor whose emulation attributes are left at their defaults but for one: the record
// holds the defaults cublasLt.h gives (strategy DEFAULT, special values 0xFFFF, DYNAMIC
// mantissa control, 0 bits) and the one set; a matmul without emulation has no "emulation".
TEST(Samples, LtEmulationDefaultsAndNoneAreRecorded) {
  TracedRun run = run_sample("--lt-emulated-defaults");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_TRUE(found.empty()) << explain(run, found);
  const std::vector<CallView> matmuls = calls_named(run, "cublasLtMatmul");
  ASSERT_EQ(matmuls.size(), 2u) << run.output;
  const format::LtEmulation& e = matmuls[0].slot.lt_emulation;
  EXPECT_EQ(e.flags, format::kEmulationAttached | format::kEmulationKnown);
  EXPECT_EQ(e.strategy, CUBLAS_EMULATION_STRATEGY_DEFAULT);
  EXPECT_EQ(e.special_values, CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT);
  EXPECT_EQ(e.mantissa_control, CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC);
  EXPECT_EQ(e.max_mantissa_bits, 0);
  EXPECT_EQ(e.mantissa_bit_offset, 3);
  EXPECT_NE(e.mantissa_bit_count_pointer, 0u);
  EXPECT_TRUE(contains(call_line(matmuls[0]), "mantissa_bit_count_pointer=0x")) << call_line(matmuls[0]);
  // The second matmul's descriptor has its emulation descriptor detached again (NULL).
  EXPECT_EQ(matmuls[1].slot.lt_emulation.flags, 0u);
  EXPECT_FALSE(contains(call_line(matmuls[1]), "emulation=")) << call_line(matmuls[1]);
  EXPECT_FALSE(reported_call(run, matmuls[1].seq)["args"].contains("emulation"));
}

}  // namespace
}  // namespace cublasspy::test
