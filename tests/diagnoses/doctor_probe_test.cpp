// The doctor with its real probe (libcuda loaded and asked in a child process): on this
// driverless machine it must say no-driver with the evidence; on the stand-in, with its faults,
// it must see what a CUDA program would. And `cublasspy doctor` itself, once it is registered.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

using json = nlohmann::json;

struct DoctorRun {
  TracedRun run;
  json doc;
  std::vector<std::string> ids;
  const json* finding(const std::string& id) const {
    for (const json& d : doc["diagnoses"]) {
      if (d["id"] == id) return &d;
    }
    return nullptr;
  }
  const json* check(const std::string& name) const {
    for (const json& c : doc["checks"]) {
      if (c["name"] == name) return &c;
    }
    return nullptr;
  }
  std::string text() const { return run.output; }
};

DoctorRun doctor_on(Stack stack, std::map<std::string, std::string> env, std::vector<std::string> args = {}) {
  RunOptions o;
  o.stack = stack;
  o.env = std::move(env);
  o.args = std::move(args);
  o.preload_shim = false;
  DoctorRun r;
  r.run = run_traced(program_path("doctor_json"), o);
  auto at = r.run.output.find("{\n");
  r.doc = json::parse(at == std::string::npos ? "" : r.run.output.substr(at), nullptr, false);
  if (r.doc.is_object()) {
    for (const json& d : r.doc["diagnoses"]) r.ids.push_back(d["id"]);
  }
  return r;
}

bool has(const DoctorRun& r, const std::string& id) { return r.finding(id) != nullptr; }

TEST(DoctorProbe, ThisMachineHasNoDriver) {
  if (driver_installed()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  DoctorRun r = doctor_on(Stack::kRealLibraries, {});
  ASSERT_TRUE(r.doc.is_object()) << r.text();
  const json* d = r.finding("no-driver");
  ASSERT_NE(d, nullptr) << r.text();
  EXPECT_EQ((*d)["severity"], "error");
  const std::string evidence = (*d)["evidence"];
  EXPECT_TRUE(contains(evidence, "dlopen(\"libcuda.so.1\") failed")) << evidence;
  EXPECT_TRUE(contains(evidence, "kernel module")) << evidence;
  EXPECT_TRUE((*d)["pid"].is_null());
  EXPECT_TRUE((*d)["call"].is_null());
  for (const char* key : {"id", "severity", "summary", "evidence", "advice", "pid", "call"}) {
    EXPECT_TRUE(d->contains(key)) << key;
  }
  EXPECT_EQ((*r.check("driver library"))["status"], "problem");
  EXPECT_FALSE(r.doc["probe"]["loaded"].get<bool>());
}

TEST(DoctorProbe, StandinDriverWorks) {
  DoctorRun r = doctor_on(Stack::kStandin, {});
  ASSERT_TRUE(r.doc.is_object()) << r.text();
  EXPECT_TRUE(r.doc["probe"]["loaded"].get<bool>()) << r.text();
  EXPECT_EQ(r.doc["probe"]["driver_version"], 13000);
  EXPECT_EQ(r.doc["probe"]["device_count"], 1);
  EXPECT_EQ((*r.check("CUDA devices"))["status"], "ok") << r.text();
  for (const char* id : {"no-driver", "no-device", "device-enumeration-failed", "invalid-visible-devices", "driver-too-old"}) {
    EXPECT_FALSE(has(r, id)) << id << "\n" << r.text();
  }
  // The kernel side is absent here, but the driver answers: those lines are notes, not problems.
  EXPECT_EQ((*r.check("kernel module"))["status"], "info") << r.text();
}

TEST(DoctorProbe, StandinEnumerationError2) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"STANDIN_DEVICE_COUNT_ERROR", "2"}});
  const json* d = r.finding("device-enumeration-failed");
  ASSERT_NE(d, nullptr) << r.text();
  EXPECT_TRUE(contains((*d)["advice"], "CUDA_DEVICE_ORDER=PCI_BUS_ID")) << r.text();
  EXPECT_TRUE(contains((*d)["evidence"], "CUDA_DEVICE_ORDER=unset")) << r.text();
}

TEST(DoctorProbe, StandinVisibleDevicesBeyondTheGpus) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"CUDA_VISIBLE_DEVICES", "5"}});
  ASSERT_NE(r.finding("invalid-visible-devices"), nullptr) << r.text();
  EXPECT_FALSE(has(r, "no-device")) << r.text();
}

TEST(DoctorProbe, StandinWithoutDriver) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"STANDIN_NO_DRIVER", "1"}});
  ASSERT_NE(r.finding("no-driver"), nullptr) << r.text();
  EXPECT_FALSE(has(r, "no-device")) << r.text();
}

TEST(DoctorProbe, StandinNoGpu) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"STANDIN_DEVICE_COUNT", "0"}});
  ASSERT_NE(r.finding("no-device"), nullptr) << r.text();
  EXPECT_FALSE(has(r, "no-driver")) << r.text();
}

TEST(DoctorProbe, StandinOldDriver) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"STANDIN_DRIVER_VERSION", "12080"}});
  const json* d = r.finding("driver-too-old");
  ASSERT_NE(d, nullptr) << r.text();
  EXPECT_TRUE(contains((*d)["summary"], "12.8")) << r.text();
}

TEST(DoctorProbe, HangingDriverDoesNotHangTheDoctor) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"STANDIN_HANG", "cuInit:1"}}, {"--probe-timeout", "2"});
  ASSERT_TRUE(r.doc.is_object()) << r.text();
  EXPECT_TRUE(r.doc["probe"]["timed_out"].get<bool>()) << r.text();
  const json* d = r.finding("device-enumeration-failed");
  ASSERT_NE(d, nullptr) << r.text();
  EXPECT_TRUE(contains((*d)["summary"], "hangs")) << r.text();
}

// `cublasspy doctor` as users run it.
TEST(DoctorCli, JsonOnThisMachine) {
  if (driver_installed()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  o.preload_shim = false;
  o.args = {"doctor", "--json"};
  TracedRun run = run_traced(CBS_TEST_CLI, o);
  EXPECT_EQ(run.exit_code, 1) << "an error finding makes the exit status 1\n" << run.output;
  json doc = json::parse(run.output.substr(run.output.find('{')), nullptr, false);
  ASSERT_TRUE(doc.is_object()) << run.output;
  bool no_driver = false;
  for (const json& d : doc["diagnoses"]) no_driver = no_driver || d["id"] == "no-driver";
  EXPECT_TRUE(no_driver) << run.output;
}

// NVML's state (the NVML stand-in on LD_LIBRARY_PATH): the GPU-health line, and the finding a
// trace would give, from the same reader and the same words.
std::string nvml_standin_dir() {
  return (std::filesystem::path(standin_dir()).parent_path() / "standin-nvml").string();
}

TEST(DoctorProbe, RetiredPagesPendingAreAHardwareFault) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"LD_LIBRARY_PATH", nvml_standin_dir()}, {"STANDIN_NVML_RETIRED", "0,1,1"}});
  ASSERT_TRUE(r.doc.is_object()) << r.text();
  const json* d = r.finding("gpu-hardware-fault");
  ASSERT_NE(d, nullptr) << r.text();
  EXPECT_EQ((*d)["severity"], "error");
  EXPECT_TRUE(contains((*d)["evidence"], "retired pages on index 0: 1 for double-bit errors")) << r.text();
  const json* line = r.check("GPU health");
  ASSERT_NE(line, nullptr) << r.text();
  EXPECT_EQ((*line)["status"], "problem") << r.text();
}

TEST(DoctorProbe, AHealthyGpuHasAnOkHealthLineAndNoFinding) {
  DoctorRun r = doctor_on(Stack::kStandin, {{"LD_LIBRARY_PATH", nvml_standin_dir()}});
  ASSERT_TRUE(r.doc.is_object()) << r.text();
  EXPECT_FALSE(has(r, "gpu-hardware-fault")) << r.text();
  const json* line = r.check("GPU health");
  ASSERT_NE(line, nullptr) << r.text();
  EXPECT_EQ((*line)["status"], "ok") << r.text();
}

TEST(DoctorProbe, WithoutNvmlThereIsNoHealthLine) {
  DoctorRun r = doctor_on(Stack::kStandin, {});
  ASSERT_TRUE(r.doc.is_object()) << r.text();
  EXPECT_FALSE(has(r, "gpu-hardware-fault")) << r.text();
  EXPECT_EQ(r.check("GPU health"), nullptr) << r.text();
}

TEST(DoctorCli, TextOnTheStandinExitsZero) {
  RunOptions o;
  o.preload_shim = false;
  o.args = {"doctor", "--color", "never"};
  TracedRun run = run_traced(CBS_TEST_CLI, o);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "driver library")) << run.output;
  EXPECT_TRUE(contains(run.output, "CUDA devices")) << run.output;
}

TEST(DoctorCli, BadOptionIsAUsageError) {
  RunOptions o;
  o.preload_shim = false;
  o.args = {"doctor", "--no-such-option"};
  TracedRun run = run_traced(CBS_TEST_CLI, o);
  EXPECT_EQ(run.exit_code, 2) << run.output;
}

}  // namespace
}  // namespace cublasspy::test
