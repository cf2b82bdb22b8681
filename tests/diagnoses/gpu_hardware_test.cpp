// gpu-hardware-fault: a GEMM fails on the stand-in while the NVML stand-in (standin/nvml/, on
// LD_LIBRARY_PATH) reports the GPU's state; the shim reads it at the failure (interpose/
// gpu_health.cpp) and the rule ties it to the failing call.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

std::string nvml_dir() { return (std::filesystem::path(standin_dir()).parent_path() / "standin-nvml").string(); }

// The values of a process-section key in every trace of the run.
std::vector<std::string> entries(const TracedRun& run, const std::string& key) {
  std::vector<std::string> out;
  for (const TraceFile& t : run.opened) {
    for (const auto& [k, v] : t.process().entries) {
      if (k == key) out.push_back(v);
    }
  }
  return out;
}

const std::map<std::string, std::string> kFailingGemm{{"STANDIN_FAIL", "cublasSgemm_v2:1:13"}};

std::map<std::string, std::string> with_nvml(std::map<std::string, std::string> env) {
  env.insert(kFailingGemm.begin(), kFailingGemm.end());
  env["LD_LIBRARY_PATH"] = nvml_dir();
  return env;
}

TEST(GpuHardware, Xid79AtAFailingGemmIsTheFinding) {
  TracedRun run = run_workload(with_nvml({{"STANDIN_NVML_XID", "79"}}));
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "gpu-hardware-fault");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "Xid 79 on 00000000:01:00.0 (the GPU has fallen off the bus)")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "cublasSgemm_v2")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "reboot")) << d.advice;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  // Watched from the handle's creation: the device in use, by its PCI bus id.
  EXPECT_EQ(entries(run, "machine.nvml"), std::vector<std::string>{"read\txid+ecc\t00000000:01:00.0"});
  // The finding names the call, which explains it: no execution-failed checklist beside it.
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(GpuHardware, ACleanGpuGivesNoFinding) {
  TracedRun run = run_workload(with_nvml({}));
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "gpu-hardware-fault")) << explain(run, found);
  EXPECT_TRUE(has_id(found, "execution-failed")) << explain(run, found);
  EXPECT_EQ(entries(run, "machine.ecc"), std::vector<std::string>{"00000000:01:00.0\t0\t0\t0\t0"});
  EXPECT_EQ(entries(run, "machine.remapped_rows"),
            std::vector<std::string>{"00000000:01:00.0\t0\t0\tnone-pending\tnone-failed"});
}

TEST(GpuHardware, WithoutNvmlNothingIsFoundAndNothingFails) {
  TracedRun run = run_workload(kFailingGemm);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "gpu-hardware-fault")) << explain(run, found);
  EXPECT_TRUE(has_id(found, "execution-failed")) << explain(run, found);
  EXPECT_EQ(entries(run, "machine.nvml"), std::vector<std::string>{"unavailable\tno libnvidia-ml.so.1"});
}

TEST(GpuHardware, EccAndRetiredPagesWithoutAnXid) {
  TracedRun run = run_workload(with_nvml({{"STANDIN_NVML_ECC", "3,7,12,40"}, {"STANDIN_NVML_RETIRED", "0,2,1"}}));
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "gpu-hardware-fault");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "3 since the driver loaded, 7 in the GPU's life")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "2 for double-bit errors")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "a retirement pending")) << d.evidence;
}

// CUBLASSPY_NVML=failure: opened only at the failure, so the Xid that happened before is not
// seen (as on a real GPU: events reach only a set registered before them); counts are.
TEST(GpuHardware, OpenedAtTheFailureSeesCountsButNoEarlierXid) {
  TracedRun run = run_workload(
      with_nvml({{"CUBLASSPY_NVML", "failure"}, {"STANDIN_NVML_XID", "79"}, {"STANDIN_NVML_ECC", "1,1,0,0"}}));
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "gpu-hardware-fault");
  EXPECT_FALSE(contains(d.evidence, "Xid 79")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "opened only at the failure")) << d.evidence;
  EXPECT_EQ(entries(run, "machine.nvml"), std::vector<std::string>{"read\tnone\t00000000:01:00.0"});
}

TEST(GpuHardware, OffReadsNothing) {
  TracedRun run = run_workload(with_nvml({{"CUBLASSPY_NVML", "off"}, {"STANDIN_NVML_XID", "79"}}));
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "gpu-hardware-fault")) << explain(run, found);
  EXPECT_TRUE(entries(run, "machine.nvml").empty());
}

// A GPU without ECC (most consumer cards) refuses the ECC events: the Xid events still come.
TEST(GpuHardware, AGpuWithoutEccStillReportsXids) {
  TracedRun run = run_workload(with_nvml({{"STANDIN_NVML_ECC", "unsupported"}, {"STANDIN_NVML_XID", "95"}}));
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "gpu-hardware-fault");
  EXPECT_TRUE(contains(d.evidence, "Xid 95")) << d.evidence;
  EXPECT_EQ(entries(run, "machine.nvml"), std::vector<std::string>{"read\txid\t00000000:01:00.0"});
  EXPECT_TRUE(entries(run, "machine.ecc").empty());
}

// A forked child does not use the event set its parent registered (the stand-in says so on
// stderr when one is used in another process); its trace says why it read nothing.
TEST(GpuHardware, AForkedChildLeavesItsParentsEventSetAlone) {
  RunOptions o;
  o.env = {{"STANDIN_FAIL", "cublasSgemm_v2:*:13"}, {"STANDIN_NVML_XID", "79"}, {"LD_LIBRARY_PATH", nvml_dir()}};
  o.args = {"after-init"};
  TracedRun run = run_traced(program_path("diag_fork"), o);
  EXPECT_FALSE(contains(run.output, "standin-nvml: event set")) << run.output;
  const auto nvml = entries(run, "machine.nvml");
  ASSERT_EQ(run.opened.size(), 2u) << run.output;
  EXPECT_EQ(std::count(nvml.begin(), nvml.end(), "read\txid+ecc\t00000000:01:00.0"), 1) << run.output;
  EXPECT_EQ(std::count(nvml.begin(), nvml.end(), "not-read\tforked child of a process that had NVML open"), 1)
      << run.output;
}

}  // namespace
}  // namespace cublasspy::test
