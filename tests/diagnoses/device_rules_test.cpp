// Device enumeration on the stand-in: a failing cudaGetDeviceCount (error 2 on multi-GPU hosts,
// 999 and 3 of "CUDA unknown error"; docs/DIAGNOSES.md), CUDA_VISIBLE_DEVICES naming devices
// that do not exist, and a machine whose driver works but shows no GPU.
#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TEST(DeviceEnumerationFailed, Error2GetsTheMultiGpuAdvice) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT_ERROR", "2"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "device-enumeration-failed");
  EXPECT_TRUE(contains(d.summary, "cudaErrorMemoryAllocation (2)")) << explain(run, found);
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cudaGetDeviceCount");
  // The variables the advice names, and their values in this process.
  EXPECT_TRUE(contains(d.evidence, "CUDA_DEVICE_ORDER unset")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "CUDA_ERROR_OUT_OF_MEMORY")) << d.evidence;  // cuInit underneath
  for (const char* part : {"CUDA_DEVICE_ORDER=PCI_BUS_ID", "PYTORCH_NVML_BASED_CUDA_CHECK=1",
                           "CUDA_VISIBLE_DEVICES=0,1", "dmesg", "not GPU memory"}) {
    EXPECT_TRUE(contains(d.advice, part)) << part << " missing from: " << d.advice;
  }
  EXPECT_FALSE(has_id(found, "no-device")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(DeviceEnumerationFailed, EvidenceShowsTheVariablesAlreadySet) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT_ERROR", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "device-enumeration-failed");
  EXPECT_TRUE(contains(d.evidence, "CUDA_DEVICE_ORDER=PCI_BUS_ID")) << d.evidence;
}

TEST(DeviceEnumerationFailed, UnknownErrorGetsTheSystemChecklist) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT_ERROR", "999"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "device-enumeration-failed");
  EXPECT_TRUE(contains(d.summary, "cudaErrorUnknown (999)")) << explain(run, found);
  EXPECT_TRUE(contains(d.advice, "fuser")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "/dev/nvidia*")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "PYTORCH_NVML_BASED_CUDA_CHECK")) << d.advice;
}

TEST(DeviceEnumerationFailed, InitializationError) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT_ERROR", "3"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "device-enumeration-failed");
  EXPECT_TRUE(contains(d.summary, "cudaErrorInitializationError (3)")) << explain(run, found);
}

TEST(InvalidVisibleDevices, IndexBeyondTheDevices) {
  TracedRun run = run_workload({{"CUDA_VISIBLE_DEVICES", "5"}});  // the stand-in has one device
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-visible-devices");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "CUDA_VISIBLE_DEVICES=5")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "cudaErrorNoDevice (100)")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "nvidia-smi -L")) << d.advice;
  EXPECT_FALSE(has_id(found, "no-device")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "device-enumeration-failed")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
}

TEST(InvalidVisibleDevices, EmptyStringHidesEveryGpu) {
  TracedRun run = run_workload({{"CUDA_VISIBLE_DEVICES", ""}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-visible-devices");
  EXPECT_TRUE(contains(d.summary, "empty string")) << explain(run, found);
}

TEST(InvalidVisibleDevices, EntriesAfterAnInvalidOneAreIgnored) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT", "2"}, {"CUDA_VISIBLE_DEVICES", "0,5,1"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-visible-devices");
  EXPECT_EQ(d.severity, Severity::kWarning) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "'5'")) << d.evidence;
  EXPECT_TRUE(contains(d.summary, "3 devices but CUDA sees only 1")) << d.summary;
}

TEST(InvalidVisibleDevices, SelectingAHiddenDevice) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT", "2"}, {"CUDA_VISIBLE_DEVICES", "1"}}, {"--set-device", "1"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-visible-devices");
  ASSERT_TRUE(d.call && d.pid) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cudaSetDevice");
  EXPECT_TRUE(contains(d.evidence, "(device 1)")) << d.evidence;
}

TEST(InvalidVisibleDevices, ValidListIsFine) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT", "2"}, {"CUDA_VISIBLE_DEVICES", "1"}});
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 1u);
  EXPECT_TRUE(found.empty()) << explain(run, found);
}

TEST(NoDevice, DriverWorksButNoGpu) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT", "0"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "no-device");
  EXPECT_TRUE(contains(d.evidence, "cudaErrorNoDevice (100)")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "CUDA_VISIBLE_DEVICES unset")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "--gpus all")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "MIG")) << d.advice;
  EXPECT_FALSE(has_id(found, "invalid-visible-devices")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "no-driver")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(NoDevice, ErrorCodeFromTheDriver) {
  TracedRun run = run_workload({{"STANDIN_DEVICE_COUNT_ERROR", "100"}});
  auto found = run.diagnose();
  EXPECT_TRUE(has_id(found, "no-device")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "device-enumeration-failed")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
