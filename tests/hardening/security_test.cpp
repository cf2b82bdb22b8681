// What the shim writes, and where: files no wider than the umask allows, only in the requested
// directory, never through a link or over an existing file, no operand data unless dumps are
// asked for, and nothing at all in a set-user-ID program.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

namespace fs = std::filesystem;

constexpr char kSecret[] = "cublasspy-secret";  // secret_operands' matrices, repeated

std::vector<std::string> all_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  return out;
}

bool is_capture(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  return name.rfind("stdout-", 0) == 0 || name.rfind("stderr-", 0) == 0;
}

// The files the shim wrote under `dir` (everything but run_process's captured output).
std::vector<std::string> written_by_shim(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& f : all_files(dir)) {
    if (!is_capture(f)) out.push_back(f);
  }
  return out;
}

bool contains_secret(const std::string& path) {
  return read_file(path).find(kSecret) != std::string::npos;
}

class Security : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!standin_built()) GTEST_SKIP() << "the CPU stand-in is not built";
  }
  ScratchDir dir_;
};

TEST_F(Security, FilesAreNoWiderThanTheUmaskAllows) {
  for (const char* mask : {"027", "077", "022"}) {
    ScratchDir dir;
    ProcessResult r = run_process(
        {"sh", "-c", std::string("umask ") + mask + " && exec \"$0\"", program("hard_secret_operands")},
        traced(dir) + on_standin() + Env{{"CUBLASSPY_DUMP", "all"}}, isolated_in(dir));
    ASSERT_TRUE(r.exited_ok()) << r.describe();
    const mode_t expected = 0666 & ~static_cast<mode_t>(std::stoi(mask, nullptr, 8));
    std::vector<std::string> files = written_by_shim(dir.path());
    ASSERT_GE(files.size(), 3u) << "the trace and the dumps";
    for (const std::string& f : files) {
      struct stat st;
      ASSERT_EQ(stat(f.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 07777, expected) << f << " under umask " << mask;
    }
  }
}

TEST_F(Security, NoOperandDataUnlessDumpsAreAskedFor) {
  // Every setting that reads operands (checks, a synchronizing run, NaN/Inf scans) and none
  // that writes them: the program's data appears in no file the shim wrote.
  const Env readers = {{"CUBLASSPY_CHECK", "1"}, {"CUBLASSPY_SYNC", "1"}, {"CUBLASSPY_SCAN", "all"}};
  for (const Env& settings : {Env{}, readers}) {
    ScratchDir dir;
    ProcessResult r = run_process({program("hard_secret_operands")}, traced(dir) + on_standin() + settings, isolated_in(dir));
    ASSERT_TRUE(r.exited_ok()) << r.describe();
    std::vector<std::string> files = written_by_shim(dir.path());
    ASSERT_EQ(files.size(), 1u) << "the trace alone";
    EXPECT_FALSE(contains_secret(files[0])) << "operand bytes in " << files[0];
  }
  // The probe finds the data when it is there: with dumps, in the .npy files.
  ScratchDir dumped;
  ProcessResult r = run_process({program("hard_secret_operands")},
                                traced(dumped) + on_standin() + Env{{"CUBLASSPY_DUMP", "all"}}, isolated_in(dumped));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  int with_secret = 0;
  for (const std::string& f : written_by_shim(dumped.path())) {
    if (contains_secret(f)) {
      ++with_secret;
      EXPECT_EQ(fs::path(f).extension(), ".npy") << f;
    }
  }
  EXPECT_GE(with_secret, 2) << "A and B dumped";
}

TEST_F(Security, NoCredentialOfTheEnvironmentOrCommandLineReachesTheTrace) {
  // Traces get attached to bug reports: variables outside the allowlist stay out (Terraform's
  // TF_TOKEN_*, NGC's NVIDIA_API_KEY), credential-like names under a recorded prefix keep their
  // name with the value redacted, and so do such options on the command line. The CUDA settings
  // stay, value and all.
  const Env secrets = {{"TF_TOKEN_app_terraform_io", "secret-tf-token"},
                       {"NVIDIA_API_KEY", "secret-ngc-key"},
                       {"AWS_SECRET_ACCESS_KEY", "secret-aws"},
                       {"PYTORCH_HUB_TOKEN", "secret-hub-token"},
                       {"NCCL_IB_SECRET", "secret-nccl"},
                       {"CUDA_API_KEY", "secret-cuda-key"},
                       {"TORCH_DB_PASSWORD", "secret-torch-password"},
                       {"JAX_CoordinatorPassword", "secret-jax"},
                       {"MASTER_ADDR", "https://user:secret-url-password@example.org/x"},
                       {"CUDA_VISIBLE_DEVICES", "0,1"},
                       {"NCCL_DEBUG", "INFO"},
                       {"TF_CPP_MIN_LOG_LEVEL", "2"}};
  ProcessResult r = run_process(
      {"sh", "-c", "exec \"$0\" --hf-token=secret-argv-equals --api-key secret-argv-next --batch 8",
       program("hard_secret_operands")},
      traced(dir_) + on_standin() + secrets, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  std::vector<std::string> traces = dir_.files();
  ASSERT_EQ(traces.size(), 1u);
  const std::string bytes = read_file(traces[0]);
  for (const char* secret : {"secret-tf-token", "secret-ngc-key", "secret-aws", "secret-hub-token",
                             "secret-nccl", "secret-cuda-key", "secret-torch-password", "secret-jax",
                             "secret-url-password", "secret-argv-equals", "secret-argv-next"}) {
    EXPECT_EQ(bytes.find(secret), std::string::npos) << secret << " is in " << traces[0];
  }
  for (const char* kept : {"CUDA_VISIBLE_DEVICES=0,1", "NCCL_DEBUG=INFO", "TF_CPP_MIN_LOG_LEVEL=2",
                           "PYTORCH_HUB_TOKEN=<redacted>", "NCCL_IB_SECRET=<redacted>",
                           "MASTER_ADDR=https://<redacted>@example.org/x", "--hf-token=<redacted>",
                           "--batch"}) {
    EXPECT_NE(bytes.find(kept), std::string::npos) << kept << " is not in " << traces[0];
  }
  for (const char* left_out : {"TF_TOKEN_app_terraform_io", "NVIDIA_API_KEY", "AWS_SECRET_ACCESS_KEY"}) {
    EXPECT_EQ(bytes.find(left_out), std::string::npos) << left_out << " is not on the allowlist";
  }
}

TEST_F(Security, EverythingGoesIntoTheRequestedDirectoryOnly) {
  // Working directory, trace directory and $TMPDIR kept apart: the trace and the dumps land in
  // the trace directory, nothing anywhere else.
  ScratchDir work, tmp;
  const std::string wanted = dir_ / "traces";
  fs::create_directory(wanted);
  ProcessResult r = run_process(
      {program("hard_secret_operands")},
      traced(dir_) + on_standin() +
          Env{{"CUBLASSPY_TRACE", wanted + "/t-%p.cbt"}, {"TMPDIR", tmp.path()}, {"CUBLASSPY_DUMP", "all"}}, isolated_in(work));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.err;
  std::vector<std::string> files = written_by_shim(wanted);
  EXPECT_GE(files.size(), 3u);
  for (const std::string& f : files) {
    EXPECT_EQ(fs::path(f).parent_path().string(), wanted) << f;
    EXPECT_EQ(fs::path(f).filename().string().rfind("t-" + std::to_string(r.pid) + ".cbt", 0), 0u) << f;
  }
  EXPECT_TRUE(written_by_shim(work.path()).empty());
  EXPECT_TRUE(all_files(tmp.path()).empty());
  EXPECT_EQ(written_by_shim(dir_.path()).size(), files.size()) << "nothing beside the traces directory";
}

TEST_F(Security, DumpsNeverFollowALinkNorReplaceAFile) {
  // Learn the dump names from one run, then put a link or a file at each name for the next run
  // (the same fixed trace path, in a fresh directory): every one is left as it was.
  std::vector<std::string> names;
  {
    ScratchDir first;
    ProcessResult r = run_process({program("hard_secret_operands")},
                                  traced(first) + on_standin() +
                                      Env{{"CUBLASSPY_TRACE", first / "fixed.cbt"}, {"CUBLASSPY_DUMP", "all"}}, isolated_in(first));
    ASSERT_TRUE(r.exited_ok()) << r.describe();
    for (const std::string& f : written_by_shim(first.path())) {
      std::string name = fs::path(f).filename().string();
      if (name != "fixed.cbt") names.push_back(name);
    }
  }
  ASSERT_GE(names.size(), 4u) << "two operands or more, a .npy and a .json each";
  const std::string victim = dir_ / "victim";
  std::ofstream(victim) << "victim";
  std::set<std::string> links;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string at = dir_ / names[i];
    if (i % 2 == 0) {
      fs::create_symlink(victim, at);
      links.insert(at);
    } else {
      std::ofstream(at) << "precious";
    }
  }
  ProcessResult r = run_process({program("hard_secret_operands")},
                                traced(dir_) + on_standin() +
                                    Env{{"CUBLASSPY_TRACE", dir_ / "fixed.cbt"}, {"CUBLASSPY_DUMP", "all"}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(read_file(victim), "victim");
  for (const std::string& name : names) {
    std::string at = dir_ / name;
    if (links.count(at)) {
      EXPECT_TRUE(fs::is_symlink(at)) << at;
    } else {
      EXPECT_EQ(read_file(at), "precious") << at;
    }
  }
  EXPECT_NE(r.err.find("CUBLASSPY_DUMP"), std::string::npos) << "the skipped dumps are reported:\n" << r.err;
}

TEST_F(Security, SetUserIdProgramIsLeftAlone) {
  // A set-user-ID root program run by an unprivileged user (secure execution, AT_SECURE=1)
  // that loads the shim and makes a call: no trace anywhere, although its effective user could
  // write one. The same program run normally records the call (the control).
  if (geteuid() != 0) GTEST_SKIP() << "making a set-user-ID root program needs root";
  if (std::system("command -v setpriv >/dev/null 2>&1") != 0) GTEST_SKIP() << "no setpriv";
  chmod(dir_.path().c_str(), 0755);  // the unprivileged user must reach the program
  const std::string probe = dir_ / "secure_probe";
  fs::copy_file(program("hard_secure_probe"), probe);
  ASSERT_EQ(chown(probe.c_str(), 0, 0), 0);
  ASSERT_EQ(chmod(probe.c_str(), 04755), 0);
  const std::string traces = dir_ / "traces";
  fs::create_directory(traces);
  chmod(traces.c_str(), 0755);  // root may write here, the unprivileged user may not
  const Env env = {{"CUBLASSPY_TRACE", traces + "/t-%p.cbt"}, {"TMPDIR", traces}};

  ProcessResult control = run_process({probe, kShim}, env, isolated_in(dir_));
  ASSERT_TRUE(control.exited_ok()) << control.describe();
  ASSERT_NE(control.out.find("at_secure 0"), std::string::npos) << control.out;
  EXPECT_EQ(written_by_shim(traces).size(), 1u) << "the control run records the call";
  fs::remove_all(traces);
  fs::create_directory(traces);
  chmod(traces.c_str(), 0755);

  ProcessResult r = run_process(
      {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", probe, kShim}, env, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  if (r.out.find("at_secure 1") == std::string::npos) {
    GTEST_SKIP() << "set-user-ID has no effect here (a nosuid mount?):\n" << r.out;
  }
  EXPECT_NE(r.out.find("cudaGetDeviceCount"), std::string::npos) << "the call went through the shim";
  EXPECT_TRUE(written_by_shim(traces).empty()) << "a trace from a set-user-ID program";
  EXPECT_FALSE(fs::exists("/tmp/t-" + std::to_string(r.pid) + ".cbt"))
      << "secure execution drops TMPDIR: /tmp would be the fallback";
  EXPECT_TRUE(r.err.empty()) << "pure pass-through: not even a warning\n" << r.err;
}

}  // namespace
}  // namespace cublasspy::integration
