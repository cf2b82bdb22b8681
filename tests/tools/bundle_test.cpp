// `cublasspy bundle`: the archive of a failing GEMM's trace (made under the real shim on the
// CPU stand-in) holds report.md, report.json, the trace, its dumps up to the cap, the C++ and
// PyTorch reproducers of the failing calls, doctor.json and a MANIFEST; no credential of either
// environment reaches a member; bad input gives report's exit statuses and never leaves an
// archive that looks complete; `run` prints the command after a failing run.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

namespace fs = std::filesystem;
using test_support::operator+;

// simple_gemm's Sgemm (m 4, n 3, k 2) and GemmEx fail with EXECUTION_FAILED on the stand-in,
// and their operands are dumped.
Env failing_gemms() {
  return on_standin() + Env{{"STANDIN_FAIL_SHAPE", "4,3,2:13"}, {"CUBLASSPY_DUMP", "failing"}};
}

std::vector<std::string> members_of(const std::string& archive) {
  ProcessResult r = run_process({"tar", "-tzf", archive});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  return out;
}

bool has(const std::vector<std::string>& members, const std::string& name) {
  return std::find(members.begin(), members.end(), name) != members.end();
}

std::string joined(const std::vector<std::string>& members) {
  std::string out;
  for (const std::string& m : members) out += m + "\n";
  return out;
}

// Extracts `archive` into `into`; returns the top folder.
std::string extract(const std::string& archive, const std::string& into) {
  fs::create_directories(into);
  ProcessResult r = run_process({"tar", "-xzf", archive, "-C", into});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return into + "/" + fs::path(archive).filename().string().substr(0, fs::path(archive).filename().string().size() - 7);
}

ProcessResult bundle(const std::vector<std::string>& args, const Env& env = {}) {
  std::vector<std::string> argv = {kTool, "bundle"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, env);
}

class FailingGemmBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = trace_simple_gemm(dir_, failing_gemms());
    ASSERT_FALSE(trace_.empty());
    name_ = fs::path(trace_).filename().string();
  }
  ScratchDir dir_;
  std::string trace_, name_;
};

TEST_F(FailingGemmBundle, HoldsTheReportTheTraceItsDumpsAndReproducers) {
  const std::string archive = dir_ / "issue.tar.gz";
  ProcessResult r = bundle({"-o", archive, trace_});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("wrote " + archive), std::string::npos) << r.out;
  const std::vector<std::string> members = members_of(archive);
  for (const std::string& m : std::vector<std::string>{"MANIFEST", "report.md", "report.json", "doctor.json", "traces/" + name_,
                               "traces/" + name_ + ".call16.a.npy", "traces/" + name_ + ".call16.c.json",
                               "traces/" + name_ + ".call23.b.npy", "reproducers/" + name_ + ".call16.cpp",
                               "reproducers/" + name_ + ".call16.py", "reproducers/" + name_ + ".call23.cpp",
                               "reproducers/" + name_ + ".call23.py"}) {
    EXPECT_TRUE(has(members, "issue/" + m)) << m << " not in\n" << joined(members);
  }
  EXPECT_FALSE(fs::exists(archive + ".partial-" + std::to_string(r.pid)));

  const std::string top = extract(archive, dir_ / "x");
  // The trace as it was, byte for byte.
  EXPECT_EQ(read_file(top + "/traces/" + name_), read_file(trace_));
  // report.md: the failing call with its arguments, the finding with evidence and advice, the
  // versions.
  const std::string md = read_file(top + "/report.md");
  for (const char* text : {"# cublasspy report", "### The failing call: `cublasSgemm_v2 -> CUBLAS_STATUS_EXECUTION_FAILED (13)`",
                           "m=4 n=3 k=2", "lda=4", "a_type=CUDA_R_32F", "`execution-failed`", "**Evidence:**",
                           "**Advice:**", "| CUDA driver | 13.0 (13000) |", "| CUDA runtime |", "libcublas.so",
                           "| Framework |", "| Traced by | cublasspy ", "## Reproducers",
                           "build in `reproducers/`: `g++ ", "Nothing was left out."}) {
    EXPECT_NE(md.find(text), std::string::npos) << text << " not in\n" << md;
  }
  // report.json is `report --json`.
  EXPECT_EQ(nlohmann::ordered_json::parse(read_file(top + "/report.json")), report_json({trace_}, false));
  // doctor.json is the doctor's document.
  nlohmann::json doctor = nlohmann::json::parse(read_file(top + "/doctor.json"));
  EXPECT_TRUE(doctor.contains("checks") && doctor.contains("diagnoses")) << doctor.dump(2);
  // The MANIFEST lists every member with its size.
  const std::string manifest = read_file(top + "/MANIFEST");
  EXPECT_NE(manifest.find("reproducers/" + name_ + ".call16.cpp"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find(std::to_string(fs::file_size(trace_)) + "  traces/" + name_), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("nothing was left out"), std::string::npos) << manifest;
}

// The C++ reproducer builds with the command report.md gives, and fails the same way on the
// stand-in with the same fault; the PyTorch one is valid Python that reads the bundled dumps.
TEST_F(FailingGemmBundle, ReproducersBuildAndReproduce) {
  const std::string archive = dir_ / "repro.tar.gz";
  ASSERT_EQ(bundle({"-o", archive, trace_}).exit_code, 0);
  const std::string top = extract(archive, dir_ / "x");
  const std::string cpp = name_ + ".call16.cpp";
  const std::string source = read_file(top + "/reproducers/" + cpp);
  EXPECT_NE(source.find("cublasSgemm_v2"), std::string::npos) << source;
  ProcessResult build = run_process({"sh", "-c", "cd '" + top + "/reproducers' && g++ -std=c++17 -O1 " + cpp +
                                                     " -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcublas -lcublasLt -lcudart -o repro"});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  ProcessResult run = run_process({top + "/reproducers/repro"}, failing_gemms());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("CUBLAS_STATUS_EXECUTION_FAILED"), std::string::npos) << run.out;
  const std::string python = read_file(top + "/reproducers/" + name_ + ".call16.py");
  EXPECT_NE(python.find("TRACE = \"traces/" + name_ + "\""), std::string::npos) << python;
  ProcessResult compiled = run_process({"python3", "-m", "py_compile", top + "/reproducers/" + name_ + ".call16.py"});
  EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
}

// A cap that holds one call's dumps keeps them whole and leaves the other call's out, and says
// so; a cap below any leaves them all out.
TEST_F(FailingGemmBundle, DumpCapLeavesDumpsOutAndSaysSo) {
  uint64_t call16 = 0;
  for (const std::string& f : dir_.files("")) {
    if (f.find(".call16.") != std::string::npos) call16 += fs::file_size(f);
  }
  ASSERT_GT(call16, 0u);
  const std::string archive = dir_ / "capped.tar.gz";
  ASSERT_EQ(bundle({"-o", archive, "--max-dump-bytes", std::to_string(call16), trace_}).exit_code, 0);
  std::vector<std::string> members = members_of(archive);
  EXPECT_TRUE(has(members, "capped/traces/" + name_ + ".call16.a.npy")) << joined(members);
  EXPECT_FALSE(has(members, "capped/traces/" + name_ + ".call23.a.npy")) << joined(members);
  const std::string top = extract(archive, dir_ / "x");
  const std::string left = "the operand dumps of call #23 of " + name_ + " (6 files, ";
  const std::string why = "over the cap of " + std::to_string(call16) + " bytes for dumps (--max-dump-bytes)";
  for (const char* member : {"/MANIFEST", "/report.md"}) {
    const std::string text = read_file(top + member);
    EXPECT_NE(text.find(left), std::string::npos) << member << "\n" << text;
    EXPECT_NE(text.find(why), std::string::npos) << member << "\n" << text;
  }

  const std::string none = dir_ / "none.tar.gz";
  ASSERT_EQ(bundle({"-o", none, "--max-dump-bytes", "100", trace_}).exit_code, 0);
  members = members_of(none);
  EXPECT_EQ(std::count_if(members.begin(), members.end(), [](const std::string& m) { return m.find(".npy") != std::string::npos; }), 0)
      << joined(members);
  EXPECT_TRUE(has(members, "none/traces/" + name_)) << joined(members);
  const std::string manifest = read_file(extract(none, dir_ / "y") + "/MANIFEST");
  EXPECT_NE(manifest.find("operand dumps: 0 bytes kept of a cap of 100 bytes"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("call #16"), std::string::npos) << manifest;
}

// Credentials in the traced program's environment and command line, and in the environment of
// `cublasspy bundle` itself (which the doctor reads), reach no member: the trace redacted its
// own; the bundle redacts what it writes, and leaves out a trace that holds a value it knows.
TEST(BundleCredentials, NoMemberHoldsASecret) {
  ScratchDir dir;
  const std::vector<std::string> secrets = {"AKIAsecretAWSvalue99", "hf_TracedTokenValue", "urlPassw0rdTraced",
                                            "bundleOnlySecret77", "proxyPassw0rd42"};
  Env traced = failing_gemms() + traced_into(dir) +
               Env{{"AWS_SECRET_ACCESS_KEY", "AKIAsecretAWSvalue99"},
                   {"HF_TOKEN", "hf_TracedTokenValue"},
                   {"CUDA_CACHE_PATH", "https://me:urlPassw0rdTraced@cache.example.com/x"},
                   {"NCCL_IB_PASSWORD", "AKIAsecretAWSvalue99"}};
  ProcessResult program = run_process({kSimpleGemm, "--hf-token=hf_TracedTokenValue"}, traced);
  ASSERT_EQ(program.exit_code, 0) << program.err;
  std::vector<std::string> traces = dir.files();
  ASSERT_EQ(traces.size(), 1u);
  // A second trace whose recorded LD_LIBRARY_PATH holds a credential's value, as a path: the
  // trace's redaction cannot know it is one; the bundle, made where HF_TOKEN is set, does.
  ScratchDir other;
  Env leaky = failing_gemms() + traced_into(other) +
              Env{{"LD_LIBRARY_PATH", kStandinDir + ":/opt/hf_TracedTokenValue/lib"}};
  ASSERT_EQ(run_process({kSimpleGemm}, leaky).exit_code, 0);
  ASSERT_EQ(other.files().size(), 1u);
  const std::string leaky_trace = other.files().front();

  // The bundle's own environment: the same secrets, one of its own, and a proxy URL with a
  // password; the doctor lists LD_LIBRARY_PATH's entries that do not exist, these among them.
  Env here = {{"AWS_SECRET_ACCESS_KEY", "AKIAsecretAWSvalue99"},
              {"HF_TOKEN", "hf_TracedTokenValue"},
              {"MY_API_KEY", "bundleOnlySecret77"},
              {"HTTPS_PROXY", "http://me:proxyPassw0rd42@proxy.example.com:3128"},
              {"LD_LIBRARY_PATH", "/nonexistent/bundleOnlySecret77/lib:/nonexistent/https://u:proxyPassw0rd42@h/lib"}};
  const std::string archive = dir / "secrets.tar.gz";
  ProcessResult r = bundle({"-o", archive, traces.front(), leaky_trace}, here);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string top = extract(archive, dir / "x");
  std::vector<std::string> members = members_of(archive);
  ASSERT_TRUE(has(members, "secrets/doctor.json")) << joined(members);
  ASSERT_TRUE(has(members, "secrets/report.md")) << joined(members);
  for (const auto& entry : fs::recursive_directory_iterator(top)) {
    if (!entry.is_regular_file()) continue;
    const std::string bytes = read_file(entry.path().string());
    for (const std::string& secret : secrets) {
      EXPECT_EQ(bytes.find(secret), std::string::npos) << secret << " in " << entry.path();
    }
  }
  // What was redacted says so, and the leaky trace is left out with the reason.
  const std::string doctor = read_file(top + "/doctor.json");
  EXPECT_NE(doctor.find("/nonexistent/<redacted>/lib"), std::string::npos) << doctor;
  EXPECT_TRUE(has(members, "secrets/traces/" + fs::path(traces.front()).filename().string())) << joined(members);
  EXPECT_FALSE(has(members, "secrets/traces/" + fs::path(leaky_trace).filename().string())) << joined(members);
  const std::string manifest = read_file(top + "/MANIFEST");
  EXPECT_NE(manifest.find("traces/" + fs::path(leaky_trace).filename().string() + ": it holds the value of a credential"),
            std::string::npos)
      << manifest;
  EXPECT_NE(read_file(top + "/report.md").find("/opt/<redacted>/lib"), std::string::npos);
}

// Bad input: report's exit statuses and messages, and never an archive that looks complete.
TEST(BundleErrors, CorruptTraceEmptyDirectoryAndUnwritableOutput) {
  ScratchDir dir;
  const std::string corrupt = dir / "corrupt.cbt";
  write_file(corrupt, std::string(8192, 'x'));
  ProcessResult r = bundle({"-o", dir / "a.tar.gz", corrupt});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cublasspy bundle: " + corrupt + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("was not written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "a.tar.gz"));

  fs::create_directory(dir / "empty");
  r = bundle({"-o", dir / "b.tar.gz", dir / "empty"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir / "empty" + ": no .cbt trace in this directory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "b.tar.gz"));

  ScratchDir traced;
  const std::string trace = trace_simple_gemm(traced, failing_gemms());
  ASSERT_FALSE(trace.empty());
  r = bundle({"-o", dir / "no-such-dir/c.tar.gz", trace});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write " + dir / "no-such-dir/c.tar.gz"), std::string::npos) << r.err;
  // A readable trace beside a corrupt one: the bundle holds it, names the other, and says 2.
  r = bundle({"-o", dir / "e.tar.gz", trace, corrupt});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string top = extract(dir / "e.tar.gz", dir / "x");
  const std::string md = read_file(top + "/report.md");
  EXPECT_NE(md.find("## Traces that could not be read"), std::string::npos) << md;
  EXPECT_NE(md.find(corrupt), std::string::npos) << md;
  EXPECT_TRUE(fs::exists(top + "/traces/" + fs::path(trace).filename().string()));
  EXPECT_FALSE(fs::exists(top + "/traces/corrupt.cbt"));
}

// A failed write leaves nothing: the archive is written under a temporary name and renamed.
TEST(BundleErrors, AWriteThatFailsHalfWayLeavesNoArchive) {
  ScratchDir dir;
  const std::string trace = trace_simple_gemm(dir, failing_gemms());
  ASSERT_FALSE(trace.empty());
  // A file size limit stops the writes half-way, as a full disk would (SIGXFSZ ignored, so the
  // write fails with EFBIG instead of killing the tool).
  ProcessResult r = run_process({"sh", "-c", "trap '' XFSZ; ulimit -f 16; exec \"$0\" bundle -o \"$1\" \"$2\"", kTool,
                                 dir / "f.tar.gz", trace});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "f.tar.gz"));
  for (const std::string& f : dir.files(".tar.gz")) ADD_FAILURE() << "left behind: " << f;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find("f.tar.gz.partial"), std::string::npos) << entry.path();
  }
}

// Names longer than ustar's 100 bytes keep their full name (a pax header).
TEST(BundleArchive, LongTraceNamesSurvive) {
  ScratchDir dir;
  const std::string name = std::string(110, 'r') + "-%p.cbt";
  Env env = failing_gemms() + Env{{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", dir / name}, {"CUBLASSPY_DUMP", "none"}};
  ASSERT_EQ(run_process({kSimpleGemm}, env).exit_code, 0);
  ASSERT_EQ(dir.files().size(), 1u);
  const std::string trace = dir.files().front();
  ASSERT_EQ(bundle({"-o", dir / "long.tar.gz", dir.path()}).exit_code, 0);
  EXPECT_TRUE(has(members_of(dir / "long.tar.gz"), "long/traces/" + fs::path(trace).filename().string()))
      << joined(members_of(dir / "long.tar.gz"));
}

// `run` ends a failing run's summary with the bundle command, which works as printed.
TEST(BundleFromRun, RunPrintsTheCommandAfterAFailingRun) {
  ScratchDir dir;
  ProcessResult r = run_process({kTool, "run", "-o", dir / "run-%p.cbt", "--", kSimpleGemm}, failing_gemms(),
                                test_support::in_directory(dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string marker = "bug report:  cublasspy bundle -o ";
  const size_t at = r.err.find(marker);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string command = r.err.substr(at + std::string("bug report:  cublasspy ").size(),
                                           r.err.find('\n', at) - at - std::string("bug report:  cublasspy ").size());
  EXPECT_NE(command.find(dir.files().front()), std::string::npos) << command;
  std::istringstream words(command);
  std::vector<std::string> argv = {kTool};
  for (std::string w; words >> w;) argv.push_back(w);
  ProcessResult made = run_process(argv, {}, test_support::in_directory(dir.path()));
  EXPECT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(dir.files(".tar.gz").size(), 1u);

  // A clean run prints no bundle command.
  ProcessResult clean = run_process({kTool, "run", "--summary", "always", "-o", dir / "clean-%p.cbt", "--", kSimpleGemm},
                                    on_standin(), test_support::in_directory(dir.path()));
  EXPECT_EQ(clean.err.find("cublasspy bundle"), std::string::npos) << clean.err;
}

}  // namespace
}  // namespace cublasspy::tools::testing
