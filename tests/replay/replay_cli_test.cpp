// `cublasspy replay` end to end: the subject program (programs/replay_subjects.cpp) runs under
// the real shim on the CPU stand-in and leaves a trace; the real tool replays its calls through
// the real runner, on the stand-in (faults scripted with STANDIN_*) and on this machine's real,
// driverless CUDA libraries.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "replay/hook_signatures.h"
#include "support/tool_tests.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {
namespace {

using tools::testing::Env;
using tools::testing::ProcessResult;
using tools::testing::run_process;
using tools::testing::ScratchDir;

const std::string kTool = CUBLASSPY_TOOL;
const std::string kShim = CUBLASSPY_SHIM;
const std::string kStandin = STANDIN_DIR;
const std::string kSubjects = REPLAY_SUBJECTS;
const std::string kRunner = REPLAY_RUNNER;

Env merged(Env a, const Env& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

Env standin() { return {{"LD_LIBRARY_PATH", kStandin}}; }

// Runs the subject in `mode` under the shim on the stand-in and returns its one trace.
std::string trace_subject(const ScratchDir& dir, const std::string& mode, const Env& extra = {}) {
  // CUBLASSPY_KEEP=always: a clean run's trace is replayed too.
  Env env = merged(standin(), {{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", dir / "subject-%p.cbt"},
                                      {"CUBLASSPY_LOG", "off"}, {"CUBLASSPY_KEEP", "always"}});
  ProcessResult r = run_process({kSubjects, mode}, merged(env, extra));
  std::vector<std::string> traces = dir.files(".cbt");
  if (traces.size() != 1) {
    ADD_FAILURE() << "expected one trace from `replay_subjects " << mode << "`, found " << traces.size() << "\n"
                  << r.out << r.err;
    return "";
  }
  return traces.front();
}

struct Call {
  uint64_t seq;
  std::string function;
  bool nested;
  int status;
};

std::vector<Call> gemm_calls(const std::string& path) {
  std::string error;
  auto trace = TraceFile::open(path, error);
  EXPECT_TRUE(trace) << error;
  std::vector<Call> calls;
  if (!trace) return calls;
  trace->for_each_call([&](const CallView& c) {
    if (c.function && is_replayable_family(static_cast<Family>(c.function->family))) {
      calls.push_back({c.seq, c.function_name(), c.rec().depth > 0, c.in_flight() ? -1 : c.rec().status});
    }
  });
  return calls;
}

const Call* find_call(const std::vector<Call>& calls, const std::string& fn, int nth = 1) {
  for (const Call& c : calls) {
    if (c.function == fn && !c.nested && --nth == 0) return &c;
  }
  return nullptr;
}

struct Replay {
  ProcessResult process;
  nlohmann::json doc;
  const nlohmann::json& first() const { return doc["replays"][0]; }
};

// `cublasspy replay TRACE ARGS... --json` with `env`.
Replay replay(const std::string& trace, std::vector<std::string> args, const Env& env = standin()) {
  std::vector<std::string> argv = {kTool, "replay", trace};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  Replay r;
  r.process = run_process(argv, merged(env, {{"CUBLASSPY_REPLAY_RUNNER", kRunner}}));
  r.doc = nlohmann::json::parse(r.process.out, nullptr, false);
  EXPECT_FALSE(r.doc.is_discarded()) << "not JSON:\n" << r.process.out << r.process.err;
  if (r.doc.is_discarded()) r.doc = {{"replays", {nlohmann::json::object()}}};
  return r;
}

std::string verdict(const Replay& r) { return r.first()["verdict"].is_object() ? r.first()["verdict"]["id"].get<std::string>() : ""; }

// --- every GEMM entry point -----------------------------------------------------------------------

class EveryEntryPoint : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir();
    trace_ = trace_subject(*dir_, "every");
    calls_ = gemm_calls(trace_);
  }
  static void TearDownTestSuite() { delete dir_; }
  static ScratchDir* dir_;
  static std::string trace_;
  static std::vector<Call> calls_;
};
ScratchDir* EveryEntryPoint::dir_ = nullptr;
std::string EveryEntryPoint::trace_;
std::vector<Call> EveryEntryPoint::calls_;

// Each GEMM entry point of the hook list that the stand-in exports was called and recorded, and
// its replay (a fresh process, random data) succeeds and matches the host reference.
TEST_F(EveryEntryPoint, ReplaysAndVerifies) {
  ASSERT_FALSE(calls_.empty());
  std::set<std::string> expected, verified;
  for (const FunctionSignature& s : all_signatures()) {
    if (!is_replayable_family(s.family)) continue;
    if (s.name.rfind("cublasXt", 0) == 0 || s.name == "cublasUint8gemmBias") continue;  // not in the stand-in
    expected.insert(s.name);
  }
  for (const Call& c : calls_) {
    if (c.nested) continue;  // made inside cublasGemmEx: see NestedCallsAreRefusedWithAReason
    EXPECT_EQ(c.status, 0) << c.function << " failed in the subject itself";
    Replay r = replay(trace_, {"--call", std::to_string(c.seq), "--verify"});
    const nlohmann::json& one = r.first();
    EXPECT_EQ(r.process.exit_code, 0) << c.function << ":\n" << r.process.out << r.process.err;
    EXPECT_EQ(verdict(r), "succeeds") << c.function << ":\n" << one.dump(2);
    const nlohmann::json& verify = one["runs"][0]["verify"];
    if (verify.is_object() && verify.value("passed", false)) {
      EXPECT_GT(verify.value("checked", 0), 0) << c.function;
      verified.insert(c.function);
    } else {
      ADD_FAILURE() << c.function << " was not verified:\n" << one.dump(2);
    }
  }
  std::vector<std::string> missing;
  std::set_difference(expected.begin(), expected.end(), verified.begin(), verified.end(), std::back_inserter(missing));
  EXPECT_TRUE(missing.empty()) << "entry points not replayed and verified: " << ::testing::PrintToString(missing);
}

// cuBLASLt calls made inside cublasGemmEx (the stand-in, like the real library, builds their
// descriptors without the API) cannot be rebuilt: the replay says so and names the way out.
TEST_F(EveryEntryPoint, NestedCallsAreRefusedWithAReason) {
  const Call* nested = nullptr;
  for (const Call& c : calls_) {
    if (c.nested && c.function == "cublasLtMatmul") nested = &c;
  }
  ASSERT_NE(nested, nullptr) << "the subject's fp16 cublasGemmEx should have made a nested cublasLtMatmul";
  Replay r = replay(trace_, {"--call", std::to_string(nested->seq)});
  EXPECT_EQ(r.process.exit_code, 2);
  EXPECT_FALSE(r.first()["replayed"].get<bool>());
  EXPECT_NE(r.first()["refusal"].get<std::string>().find("replay the outer call"), std::string::npos) << r.first().dump(2);
}

// A grouped call is replayed with every group (the subject's: 5 x 4 x 3 of two problems, then
// 3 x 2 x 2 of one), and each group's result is checked: had the replay issued the first group
// only, the second's C would keep its initial values and fail the check.
TEST_F(EveryEntryPoint, GroupedCallsReplayAndVerifyEveryGroup) {
  for (const char* fn : {"cublasSgemmGroupedBatched", "cublasGemmGroupedBatchedEx"}) {
    const Call* grouped = find_call(calls_, fn);
    ASSERT_NE(grouped, nullptr) << fn;
    Replay r = replay(trace_, {"--call", std::to_string(grouped->seq), "--verify"});
    EXPECT_EQ(verdict(r), "succeeds") << fn << "\n" << r.first().dump(2);
    const nlohmann::json& verify = r.first()["runs"][0]["verify"];
    ASSERT_TRUE(verify.is_object() && verify["groups"].is_array()) << fn << "\n" << r.first().dump(2);
    ASSERT_EQ(verify["groups"].size(), 2u) << verify.dump(2);
    const uint64_t elements[2] = {5 * 4 * 2, 3 * 2 * 1};
    for (size_t g = 0; g < 2; ++g) {
      const nlohmann::json& one = verify["groups"][g];
      EXPECT_EQ(one.value("group", -1), static_cast<int>(g));
      EXPECT_TRUE(one.value("passed", false)) << one.dump(2);
      EXPECT_EQ(one.value("checked", uint64_t{0}), elements[g]) << one.dump(2);
      EXPECT_EQ(one.value("total", uint64_t{0}), elements[g]) << one.dump(2);
    }
    EXPECT_EQ(verify.value("checked", uint64_t{0}), elements[0] + elements[1]);
    const std::string notes = r.first()["notes"].dump();
    EXPECT_EQ(notes.find("first of 2 groups"), std::string::npos) << notes;
  }
}

// The C++ reproducer builds with the printed command against the real toolkit, fails honestly
// on this driverless machine, and succeeds on the stand-in.
TEST_F(EveryEntryPoint, EmittedCppBuildsAndRuns) {
  const std::pair<const char*, int> picks[] = {{"cublasSgemm_v2", 1},    {"cublasGemmStridedBatchedEx_64", 1},
                                               {"cublasHgemmBatched", 1}, {"cublasGemmGroupedBatchedEx", 1},
                                               {"cublasLtMatmul", 2},     {"cublasZgemm", 1}};
  for (const auto& [fn, nth] : picks) {
    const Call* c = find_call(calls_, fn, nth);
    ASSERT_NE(c, nullptr) << fn;
    const std::string source = *dir_ / (std::string("repro_") + fn + ".cpp");
    Replay r = replay(trace_, {"--call", std::to_string(c->seq), "--emit-cpp", source, "--no-run"});
    ASSERT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
    const std::string command = r.first()["emitted"]["build_command"].get<std::string>();
    if (std::string(fn) == "cublasGemmGroupedBatchedEx") {
      // Both groups, with their own sizes and scalars.
      const std::string text = tools::testing::read_file(source);
      EXPECT_NE(text.find("m_array[2] = {5, 3}"), std::string::npos) << text;
      EXPECT_NE(text.find("group_size[2] = {2, 1}"), std::string::npos) << text;
      EXPECT_NE(text.find("2  /* groups */"), std::string::npos) << text;
    }
    ProcessResult build = run_process({"sh", "-c", command});
    ASSERT_EQ(build.exit_code, 0) << fn << ": " << command << "\n" << build.err;
    const std::string binary = source.substr(0, source.size() - 4);
    ProcessResult real = run_process({binary}, {{"LD_LIBRARY_PATH", std::nullopt}});
    EXPECT_EQ(real.exit_code, 1) << fn << "\n" << real.out << real.err;
    EXPECT_NE(real.out.find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos) << fn << "\n" << real.out;
    ProcessResult fake = run_process({binary}, standin());
    EXPECT_EQ(fake.exit_code, 0) << fn << "\n" << fake.out << fake.err;
    EXPECT_NE(fake.out.find(std::string(fn) + ": CUBLAS_STATUS_SUCCESS"), std::string::npos) << fake.out;
  }
}

// The PyTorch reproducer of every replayable call is valid Python.
TEST_F(EveryEntryPoint, EmittedPythonCompiles) {
  std::vector<std::string> argv = {"python3", "-m", "py_compile"};
  for (const Call& c : calls_) {
    if (c.nested) continue;
    const std::string script = *dir_ / ("repro_" + std::to_string(c.seq) + ".py");
    Replay r = replay(trace_, {"--call", std::to_string(c.seq), "--emit-python", script, "--no-run"});
    ASSERT_EQ(r.process.exit_code, 0) << c.function << r.process.err;
    std::string text = tools::testing::read_file(script);
    EXPECT_NE(text.find("torch.as_strided"), std::string::npos) << c.function;
    argv.push_back(script);
  }
  ProcessResult compiled = run_process(argv);
  EXPECT_EQ(compiled.exit_code, 0) << compiled.out << compiled.err;
}

// --- what an outcome means ------------------------------------------------------------------------

// A failure the stand-in injects for one shape: the program's call fails; the replay with the
// same fault reproduces it with random data; without the fault it does not reproduce.
TEST(ReplayOutcome, FailureForAShapeReproduces) {
  ScratchDir dir;
  const Env fault = {{"STANDIN_FAIL_SHAPE", "16,8,4:13"}};
  std::string trace = trace_subject(dir, "shapes", fault);
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].status, 0);
  EXPECT_EQ(calls[1].status, 13);
  Replay reproduced = replay(trace, {"--call", std::to_string(calls[1].seq)}, merged(standin(), fault));
  EXPECT_EQ(reproduced.process.exit_code, 1) << reproduced.process.out;
  EXPECT_EQ(verdict(reproduced), "reproduced-random");
  EXPECT_EQ(reproduced.first()["runs"][0]["status_name"], "CUBLAS_STATUS_EXECUTION_FAILED");
  // The same fault leaves the other shapes alone.
  Replay other = replay(trace, {"--call", std::to_string(calls[0].seq)}, merged(standin(), fault));
  EXPECT_EQ(verdict(other), "succeeds");
  Replay gone = replay(trace, {"--call", std::to_string(calls[1].seq)});
  EXPECT_EQ(gone.process.exit_code, 0);
  EXPECT_EQ(verdict(gone), "not-reproduced");
  EXPECT_NE(gone.first()["verdict"]["advice"].get<std::string>().find("--sync"), std::string::npos);
  // --failing replays the failing call only.
  Replay failing = replay(trace, {"--failing"}, merged(standin(), fault));
  ASSERT_EQ(failing.doc["replays"].size(), 1u);
  EXPECT_EQ(failing.first()["call"], calls[1].seq);
  EXPECT_EQ(failing.doc["exit_status"], 1);
}

// A silent wrong result (the stand-in adds 1 to an element and returns success) passes unnoticed
// without --verify and is caught with it, at the run it happens in.
TEST(ReplayOutcome, VerifyCatchesAWrongResult) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "shapes");
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 3u);
  const std::string seq = std::to_string(calls[2].seq);
  const Env wrong = merged(standin(), {{"STANDIN_WRONG_RESULT", "cublasSgemm_v2:1"}});
  EXPECT_EQ(verdict(replay(trace, {"--call", seq}, wrong)), "succeeds");
  Replay caught = replay(trace, {"--call", seq, "--verify"}, wrong);
  EXPECT_EQ(caught.process.exit_code, 1);
  EXPECT_EQ(verdict(caught), "wrong-result");
  const nlohmann::json& v = caught.first()["runs"][0]["verify"];
  EXPECT_FALSE(v["passed"].get<bool>());
  EXPECT_GT(v["max_error"].get<double>(), v["tolerance"].get<double>());
  EXPECT_EQ(v["worst"]["row"], 0);
  EXPECT_EQ(v["worst"]["col"], 0);
  // In a stress loop, the third call goes wrong: the replay stops there.
  Replay stressed = replay(trace, {"--call", seq, "--verify", "--repeat", "10"},
                           merged(standin(), {{"STANDIN_WRONG_RESULT", "cublasSgemm_v2:3"}}));
  EXPECT_EQ(verdict(stressed), "wrong-result");
  EXPECT_EQ(stressed.first()["runs"][0]["failed_run"], 2);
  EXPECT_EQ(stressed.first()["runs"][0]["runs"], 3);
  Replay clean = replay(trace, {"--call", seq, "--verify", "--repeat", "10"});
  EXPECT_EQ(verdict(clean), "succeeds");
  EXPECT_EQ(clean.first()["runs"][0]["runs"], 10);
  EXPECT_TRUE(clean.first()["runs"][0]["time_ns"]["median"].is_number());
}

// An asynchronous fault of an earlier call makes a later, correct call fail in the program; on
// its own, the later call succeeds: the verdict sends the user to --sync.
TEST(ReplayOutcome, EarlierAsynchronousErrorIsNotReproduced) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "async", {{"STANDIN_ASYNC_ERROR", "cublasSgemm_v2:1:700"}});
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 2u);
  ASSERT_EQ(calls[1].status, 13) << "the sticky error should fail the second call";
  Replay r = replay(trace, {"--call", std::to_string(calls[1].seq), "--verify"});
  EXPECT_EQ(verdict(r), "not-reproduced") << r.first().dump(2);
  EXPECT_NE(r.first()["verdict"]["advice"].get<std::string>().find("cublasspy run --sync"), std::string::npos);
}

// A NaN in the program's A makes the result non-finite (a scan sees it); random data does not:
// with the dumps, the replay pins it on the data.
TEST(ReplayOutcome, NonFiniteResultReproducedOnlyWithTheCapturedData) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "nan", {{"CUBLASSPY_SCAN", "outputs"}, {"CUBLASSPY_DUMP", "all"}});
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 1u);
  Replay r = replay(trace, {"--call", std::to_string(calls[0].seq)});
  EXPECT_GT(r.first()["original"]["nonfinite_output"].get<uint64_t>(), 0u) << r.first().dump(2);
  EXPECT_EQ(verdict(r), "reproduced-captured-data") << r.first().dump(2);
  ASSERT_EQ(r.first()["runs"].size(), 2u);
  EXPECT_EQ(r.first()["runs"][0]["data"], "random");
  EXPECT_EQ(r.first()["runs"][0]["nonfinite_output"], 0);
  EXPECT_EQ(r.first()["runs"][1]["data"], "dump");
  EXPECT_GT(r.first()["runs"][1]["nonfinite_output"].get<uint64_t>(), 0u);
  // The dumps A and B were used; C's dump holds the result (taken after the call): not used.
  std::set<std::string> dumped = r.first()["dumped_operands"].get<std::set<std::string>>();
  EXPECT_EQ(dumped, (std::set<std::string>{"a", "b"}));
  // --data dump starts with the dumps.
  Replay from_dump = replay(trace, {"--call", std::to_string(calls[0].seq), "--data", "dump"});
  EXPECT_EQ(from_dump.first()["runs"][0]["data"], "dump");
  EXPECT_EQ(verdict(from_dump), "reproduced-captured-data");
  // Beta is 0.5 and C's dump holds the result: what C held before the call is unknown, so the
  // result is not compared with the program's, and a note says why.
  Replay verified = replay(trace, {"--call", std::to_string(calls[0].seq), "--data", "dump", "--verify"});
  EXPECT_NE(verified.first()["notes"].dump().find("beta is not 0 and C's values before the call were not dumped"),
            std::string::npos)
      << verified.first()["notes"].dump();
  EXPECT_FALSE(verified.first()["runs"][0]["verify"].contains("program_result")) << verified.first().dump(2);
}

TEST(ReplayOutcome, DataDumpWithoutDumpsIsRefused) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "shapes");
  Replay r = replay(trace, {"--call", std::to_string(gemm_calls(trace)[0].seq), "--data", "dump"});
  EXPECT_EQ(r.process.exit_code, 2);
  EXPECT_NE(r.first()["refusal"].get<std::string>().find("--dump failing"), std::string::npos);
}

// --- grouped calls and their per-group dumps -------------------------------------------------------

// `replay_subjects grouped` under CUBLASSPY_DUMP=all: an fp32 and an fp16 grouped call, each of
// two groups (5 x 4 x 3 of two problems, 3 x 2 x 4 of three), every group's A, B and C dumped
// (TRACE.call<SEQ>.<a|b|c>.npy for group 0, TRACE.call<SEQ>.group1.<a|b|c>.npy for group 1).
class GroupedDumps : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = trace_subject(dir_, "grouped", {{"CUBLASSPY_DUMP", "all"}});
    for (const Call& c : gemm_calls(trace_)) seqs_[c.function] = c.seq;
    ASSERT_EQ(seqs_.count("cublasSgemmGroupedBatched"), 1u);
    ASSERT_EQ(seqs_.count("cublasGemmGroupedBatchedEx"), 1u);
  }
  std::string dump(const std::string& fn, int group, const std::string& operand) const {
    return trace_ + ".call" + std::to_string(seqs_.at(fn)) + (group ? ".group" + std::to_string(group) : "") + "." +
           operand + ".npy";
  }
  Replay replay_from_dumps(const std::string& fn, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"--call", std::to_string(seqs_.at(fn)), "--data", "dump", "--verify"};
    args.insert(args.end(), extra.begin(), extra.end());
    return replay(trace_, args);
  }
  static std::string notes(const Replay& r) { return r.first()["notes"].dump(); }

  static constexpr uint64_t kElements[2] = {5 * 4 * 2, 3 * 2 * 3};  // each group's m x n x problems
  static constexpr const char* kFunctions[2] = {"cublasSgemmGroupedBatched", "cublasGemmGroupedBatchedEx"};
  ScratchDir dir_;
  std::string trace_;
  std::map<std::string, uint64_t> seqs_;
};

// Each group's operands come from its own dumps, and each group's replayed result is the
// program's, bit for bit (the stand-in is deterministic); random operands would give other bits
// (see AnotherGroupsDataIsCaught).
TEST_F(GroupedDumps, ReplayReproducesEveryGroupFromItsDumps) {
  for (const char* fn : kFunctions) {
    for (int g = 0; g < 2; ++g) {
      for (const char* operand : {"a", "b", "c"}) {
        struct stat st{};
        ASSERT_EQ(::stat(dump(fn, g, operand).c_str(), &st), 0) << dump(fn, g, operand);
      }
    }
    Replay r = replay_from_dumps(fn);
    EXPECT_EQ(r.process.exit_code, 0) << fn << "\n" << r.process.out << r.process.err;
    EXPECT_EQ(verdict(r), "succeeds") << fn << "\n" << r.first().dump(2);
    EXPECT_EQ(r.first()["runs"][0]["data"], "dump");
    EXPECT_EQ(r.first()["dumped_operands"].get<std::set<std::string>>(), (std::set<std::string>{"a", "b"})) << fn;
    EXPECT_EQ(notes(r).find("random values (the replay does not read"), std::string::npos) << notes(r);
    const nlohmann::json& verify = r.first()["runs"][0]["verify"];
    ASSERT_TRUE(verify["groups"].is_array() && verify["groups"].size() == 2u) << fn << "\n" << verify.dump(2);
    for (size_t g = 0; g < 2; ++g) {
      const nlohmann::json& one = verify["groups"][g];
      EXPECT_TRUE(one.value("passed", false)) << one.dump(2);
      ASSERT_TRUE(one["program_result"].is_object()) << fn << " group " << g << "\n" << one.dump(2);
      EXPECT_EQ(one["program_result"].value("compared", uint64_t{0}), kElements[g]) << one.dump(2);
      EXPECT_EQ(one["program_result"].value("identical", uint64_t{0}), kElements[g]) << one.dump(2);
      EXPECT_TRUE(one["program_result"].value("bitwise_equal", false)) << one.dump(2);
    }
    EXPECT_EQ(verify["program_result"].value("identical", uint64_t{0}), kElements[0] + kElements[1]) << verify.dump(2);
  }
  // The text says so too.
  ProcessResult plain = run_process({kTool, "replay", trace_, "--call", std::to_string(seqs_.at(kFunctions[0])), "--data",
                                     "dump", "--verify"},
                                    merged(standin(), {{"CUBLASSPY_REPLAY_RUNNER", kRunner}}));
  EXPECT_NE(plain.out.find("the program's result (dumped): 58 of 58 elements identical, bit for bit"), std::string::npos)
      << plain.out;
}

// Group 1's A negated in its dump (other data, as random operands would be): group 0 still
// reproduces bit for bit, group 1 no longer does, and the comparison says so.
TEST_F(GroupedDumps, AnotherGroupsDataIsCaught) {
  const std::string fn = kFunctions[0];
  std::string group1 = tools::testing::read_file(dump(fn, 1, "a"));
  const size_t elements = 3 * 12;  // group 1's A: 3 members of 4 x 3, lda 4
  ASSERT_GT(group1.size(), elements * 4);
  const size_t data = group1.size() - elements * 4;
  for (size_t i = 0; i < elements; ++i) group1[data + i * 4 + 3] ^= '\x80';  // fp32's sign bit
  tools::testing::write_file(dump(fn, 1, "a"), group1);
  Replay r = replay_from_dumps(fn);
  const nlohmann::json& groups = r.first()["runs"][0]["verify"]["groups"];
  ASSERT_TRUE(groups.is_array() && groups.size() == 2u) << r.first().dump(2);
  EXPECT_TRUE(groups[0]["program_result"].value("bitwise_equal", false)) << groups.dump(2);
  EXPECT_FALSE(groups[1]["program_result"].value("bitwise_equal", true)) << groups.dump(2);
  EXPECT_LT(groups[1]["program_result"].value("identical", kElements[1]), kElements[1]) << groups.dump(2);
  EXPECT_TRUE(groups[1].value("passed", false)) << "the replay itself is right, with the values it got";
}

// A group without its dump: that group's operand gets random values, and a note names the group
// and the file; the other group still reproduces, and group 1 is not compared with the program.
TEST_F(GroupedDumps, MissingGroupDumpIsNamed) {
  const std::string fn = kFunctions[1];
  ASSERT_EQ(::unlink(dump(fn, 1, "a").c_str()), 0);
  Replay r = replay_from_dumps(fn);
  EXPECT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  EXPECT_NE(notes(r).find("group 1's a (" + dump(fn, 1, "a") + ") has no dump: its members get random values"),
            std::string::npos)
      << notes(r);
  EXPECT_NE(notes(r).find("group 1: a has no usable dump"), std::string::npos) << notes(r);
  const nlohmann::json& groups = r.first()["runs"][0]["verify"]["groups"];
  ASSERT_TRUE(groups.is_array() && groups.size() == 2u) << r.first().dump(2);
  EXPECT_TRUE(groups[0]["program_result"].value("bitwise_equal", false)) << groups.dump(2);
  EXPECT_FALSE(groups[1].contains("program_result")) << groups.dump(2);
  EXPECT_TRUE(groups[1].value("passed", false)) << groups.dump(2);
}

// A truncated dump (its data cut short), and one cut inside its header: one line each, naming the
// group and the file, and the replay goes on with random values for those members.
TEST_F(GroupedDumps, TruncatedGroupDumpIsNamed) {
  const std::string fn = kFunctions[0];
  const std::string b = tools::testing::read_file(dump(fn, 1, "b"));
  tools::testing::write_file(dump(fn, 1, "b"), b.substr(0, b.size() - 10));
  const std::string c = tools::testing::read_file(dump(fn, 0, "a"));
  tools::testing::write_file(dump(fn, 0, "a"), c.substr(0, 20));
  Replay r = replay_from_dumps(fn);
  EXPECT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  bool truncated = false, unreadable = false;
  for (const auto& note : r.first()["notes"]) {
    const std::string n = note.get<std::string>();
    EXPECT_EQ(n.find('\n'), std::string::npos) << n;
    if (n.rfind("group 1's dump of b (86 bytes", 0) == 0) {
      truncated = n.find("does not match the operand (96 bytes, CUDA_R_32F): not used: the group's b gets random values") !=
                  std::string::npos;
    }
    if (n.rfind("group 0's dump of a is unusable (" + dump(fn, 0, "a"), 0) == 0) unreadable = true;
  }
  EXPECT_TRUE(truncated) << notes(r);
  EXPECT_TRUE(unreadable) << notes(r);
  EXPECT_EQ(verdict(r), "succeeds") << r.first().dump(2);
}

// The C++ reproducer of `--data dump` reads each group's dumps and, on the stand-in, computes
// the program's result bit for bit; the PyTorch script reads each group's.
TEST_F(GroupedDumps, EmittedCppUsesEveryGroupsDumps) {
  const std::string fn = kFunctions[1];
  const std::string source = dir_ / "repro_grouped.cpp";
  Replay r = replay(trace_, {"--call", std::to_string(seqs_.at(fn)), "--data", "dump", "--emit-cpp", source, "--no-run"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  const std::string text = tools::testing::read_file(source);
  EXPECT_NE(text.find(dump(fn, 1, "b")), std::string::npos) << text;
  ProcessResult build = run_process({"sh", "-c", r.first()["emitted"]["build_command"].get<std::string>()});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  ProcessResult run = run_process({source.substr(0, source.size() - 4)}, standin());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("a of group 1: 3 member(s) from " + dump(fn, 1, "a")), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("b of group 0: 2 member(s) from " + dump(fn, 0, "b")), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the program's result: 58 of 58 elements identical"), std::string::npos) << run.out;
  // The PyTorch script computes both groups, each from its own dumps.
  const std::string script = dir_ / "repro_grouped.py";
  Replay py = replay(trace_, {"--call", std::to_string(seqs_.at(fn)), "--emit-python", script, "--no-run"});
  ASSERT_EQ(py.process.exit_code, 0) << py.process.err;
  const std::string python = tools::testing::read_file(script);
  EXPECT_NE(python.find("A = operand(\"a\", torch.float16, 4, 3, 4, 3, -1, row_order=False, group=1)"), std::string::npos)
      << python;
  EXPECT_NE(python.find("DUMPED = {\"a\", \"b\"}"), std::string::npos) << python;
  ProcessResult compiled = run_process({"python3", "-m", "py_compile", script});
  EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
}

// A crash in the call: the program died in it; the replay dies too when the fault is there.
TEST(ReplayOutcome, CrashInTheCallReproduces) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "shapes", {{"STANDIN_CRASH", "cublasSgemm_v2:2"}});
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].status, -1) << "the crashing call stays in flight";
  Replay r = replay(trace, {"--call", std::to_string(calls[1].seq)},
                    merged(standin(), {{"STANDIN_CRASH", "cublasSgemm_v2:1"}}));
  EXPECT_EQ(verdict(r), "reproduced-random");
  EXPECT_TRUE(r.first()["runs"][0]["crashed"].get<bool>());
  EXPECT_EQ(r.first()["runs"][0]["signal"], 11);
}

TEST(ReplayOutcome, HangIsCutByTheTimeout) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "shapes");
  Replay r = replay(trace, {"--call", std::to_string(gemm_calls(trace)[0].seq), "--timeout", "2"},
                    merged(standin(), {{"STANDIN_HANG", "cublasSgemm_v2:1"}}));
  EXPECT_EQ(verdict(r), "fails-on-replay");
  EXPECT_TRUE(r.first()["runs"][0]["timed_out"].get<bool>());
}

// On this machine's real libraries (no driver) the replay cannot create a handle, and says so.
TEST(ReplayOutcome, RealLibrariesWithoutADriverCannotRun) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "shapes");
  Replay r = replay(trace, {"--call", std::to_string(gemm_calls(trace)[0].seq)}, {{"LD_LIBRARY_PATH", std::nullopt}});
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_EQ(verdict(r), "cannot-run");
  EXPECT_NE(r.first()["verdict"]["summary"].get<std::string>().find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos);
  EXPECT_NE(r.first()["runs"][0]["libraries"].dump(), "null") << "the real libraries were loaded";
}

// --- the handle's state and the bounds ------------------------------------------------------------

TEST(ReplayPlanning, HandleStateIsCarried) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "modes");
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 1u);
  Replay r = replay(trace, {"--call", std::to_string(calls[0].seq), "--verify"});
  EXPECT_EQ(verdict(r), "succeeds") << r.first().dump(2);
  const std::string notes = r.first()["notes"].dump();
  EXPECT_NE(notes.find("not recorded (device memory"), std::string::npos) << notes;
  EXPECT_GE(r.first()["plan"]["bytes"].get<uint64_t>(), uint64_t{1} << 20) << "the 1 MiB workspace";
  EXPECT_NE(r.first()["plan"]["tolerance_basis"].get<std::string>().find("TF32"), std::string::npos);
  // The reproducers carry the same state.
  const std::string py = dir / "modes.py", cpp = dir / "modes.cpp";
  replay(trace, {"--call", std::to_string(calls[0].seq), "--emit-python", py, "--emit-cpp", cpp, "--no-run"});
  std::string python = tools::testing::read_file(py), source = tools::testing::read_file(cpp);
  EXPECT_NE(python.find("allow_tf32 = True"), std::string::npos);
  EXPECT_NE(source.find("CUBLAS_POINTER_MODE_DEVICE"), std::string::npos);
  EXPECT_NE(source.find("cublasSetWorkspace(handle, workspace, 1048576)"), std::string::npos);
  EXPECT_NE(source.find("cublasSetStream(handle, stream)"), std::string::npos);
}

TEST(ReplayPlanning, SizesBeyondMaxBytesAreRefused) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "huge");
  Replay r = replay(trace, {"--call", std::to_string(gemm_calls(trace)[0].seq)});
  EXPECT_EQ(r.process.exit_code, 2);
  const std::string why = r.first()["refusal"].get<std::string>();
  EXPECT_NE(why.find("16.0 GiB"), std::string::npos) << why;
  EXPECT_NE(why.find("--max-bytes 4.0 GiB"), std::string::npos) << why;
  // A small call, a smaller bound.
  ScratchDir other;
  std::string small = trace_subject(other, "shapes");
  // 8 x 8 x 8 fp32: A, B and C of 256 bytes each.
  const std::string seq = std::to_string(gemm_calls(small)[0].seq);
  Replay bounded = replay(small, {"--call", seq, "--max-bytes", "512"});
  EXPECT_EQ(bounded.process.exit_code, 2);
  EXPECT_NE(bounded.first()["refusal"].dump().find("need 768 B of device memory (a 256 B, b 256 B, c 256 B), above --max-bytes 512 B"),
            std::string::npos) << bounded.first()["refusal"];
  EXPECT_EQ(verdict(replay(small, {"--call", seq, "--max-bytes", "1KiB"})), "succeeds");
}

TEST(ReplayPlanning, InvalidLeadingDimensionIsRefusedAsTheBug) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "invalid");
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].status, 7);
  Replay r = replay(trace, {"--call", std::to_string(calls[0].seq)});
  EXPECT_EQ(r.process.exit_code, 2);
  EXPECT_NE(r.first()["refusal"].get<std::string>().find("lda 4 is below the 8 rows of a"), std::string::npos)
      << r.first()["refusal"];
}

// After an asynchronous error every cudaMalloc fails: the program's next GEMM gets null
// pointers. Replaying that would blame the library; the replay names the real cause instead.
TEST(ReplayPlanning, NullOperandsAreRefusedWithTheirCause) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "async-allocations", {{"STANDIN_ASYNC_ERROR", "cublasSgemm_v2:1:700"}});
  std::vector<Call> calls = gemm_calls(trace);
  ASSERT_EQ(calls.size(), 2u);
  Replay r = replay(trace, {"--call", std::to_string(calls[1].seq)});
  EXPECT_EQ(r.process.exit_code, 2);
  EXPECT_NE(r.first()["refusal"].get<std::string>().find("a, b and c are null pointers"), std::string::npos)
      << r.first()["refusal"];
}

TEST(ReplayCli, UsageErrors) {
  ScratchDir dir;
  std::string trace = trace_subject(dir, "shapes");
  ProcessResult no_call = run_process({kTool, "replay", trace});
  EXPECT_EQ(no_call.exit_code, 2);
  EXPECT_NE(no_call.err.find("--call SEQ"), std::string::npos);
  ProcessResult both = run_process({kTool, "replay", trace, "--call", "1", "--failing"});
  EXPECT_EQ(both.exit_code, 2);
  ProcessResult missing = run_process({kTool, "replay", trace, "--call", "99999"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("is not in the trace"), std::string::npos) << missing.err;
  ProcessResult not_gemm = run_process({kTool, "replay", trace, "--call", "1"}, {{"CUBLASSPY_REPLAY_RUNNER", kRunner}});
  EXPECT_EQ(not_gemm.exit_code, 2);
  EXPECT_NE(not_gemm.out.find("is not a GEMM"), std::string::npos) << not_gemm.out;
  ProcessResult bad_trace = run_process({kTool, "replay", dir / "nothing.cbt", "--call", "1"});
  EXPECT_EQ(bad_trace.exit_code, 2);
}

// Text output: what happened and what it means, in words.
TEST(ReplayCli, TextOutputExplains) {
  ScratchDir dir;
  const Env fault = {{"STANDIN_FAIL_SHAPE", "16,8,4:13"}};
  std::string trace = trace_subject(dir, "shapes", fault);
  ProcessResult r = run_process({kTool, "replay", trace, "--call", std::to_string(gemm_calls(trace)[1].seq)},
                                merged(merged(standin(), fault), {{"CUBLASSPY_REPLAY_RUNNER", kRunner}}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("in the program: returned CUBLAS_STATUS_EXECUTION_FAILED (13)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replayed with random data (seed 1): CUBLAS_STATUS_EXECUTION_FAILED (13)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict (reproduced-random)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("suspect the library, the driver or the hardware"), std::string::npos) << r.out;
}

// The runner loads CUDA at run time: neither it nor the tool names a CUDA library in DT_NEEDED.
TEST(ReplayCli, NeitherToolNorRunnerLinksCuda) {
  for (const std::string& binary : {kTool, kRunner}) {
    ProcessResult r = run_process({"readelf", "-d", binary});
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out.find("libcu"), std::string::npos) << binary << "\n" << r.out;
  }
}

}  // namespace
}  // namespace cublasspy::replay
