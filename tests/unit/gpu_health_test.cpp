// The Xid table and the gpu-hardware-fault finding over the NVML entries a trace carries.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/diagnosis_ids.h"
#include "diagnose/gpu_health.h"
#include "diagnose/xid_table.h"

namespace cublasspy::diagnoses {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kFailure = "cublasSgemm_v2 (call #3) returned CUBLAS_STATUS_EXECUTION_FAILED (13)";

Entries read_with(Entries more) {
  Entries e{{"machine.nvml", "read\txid+ecc\t00000000:01:00.0"},
            {"machine.ecc", "00000000:01:00.0\t0\t0\t0\t0"},
            {"machine.retired_pages", "00000000:01:00.0\t0\t0\tnone-pending"},
            {"machine.remapped_rows", "00000000:01:00.0\t0\t0\tnone-pending\tnone-failed"}};
  e.insert(e.end(), more.begin(), more.end());
  return e;
}

TEST(XidTable, TheCommonXidsAreThereWithTheirCause) {
  for (uint64_t xid : {48, 63, 64, 74, 79, 92, 94, 95, 119, 120}) {
    const XidInfo* info = xid_info(xid);
    ASSERT_NE(info, nullptr) << xid;
    EXPECT_EQ(info->cause, XidCause::kHardware) << xid;
    EXPECT_NE(std::string(info->advice), "") << xid;
  }
  for (uint64_t xid : {13, 31, 43}) {
    ASSERT_NE(xid_info(xid), nullptr) << xid;
    EXPECT_EQ(xid_info(xid)->cause, XidCause::kProgram) << xid;
  }
  EXPECT_TRUE(contains(xid_info(79)->meaning, "fallen off the bus"));
  EXPECT_TRUE(contains(xid_info(48)->meaning, "double-bit ECC"));
  EXPECT_EQ(xid_info(1), nullptr);
}

TEST(GpuHealth, Xid79IsAnErrorWithItsMeaningAndAdvice) {
  const GpuHealth h = gpu_health_from(read_with({{"machine.gpu_event", "00000000:01:00.0\txid\t79"}}));
  ASSERT_EQ(h.read, GpuHealth::Read::kRead);
  ASSERT_EQ(h.events.size(), 1u);
  auto d = gpu_hardware_finding(h, kFailure);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, ids::kGpuHardwareFault);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_TRUE(contains(d->evidence, "Xid 79 on 00000000:01:00.0 (the GPU has fallen off the bus)")) << d->evidence;
  EXPECT_TRUE(contains(d->evidence, kFailure)) << d->evidence;
  EXPECT_TRUE(contains(d->advice, "reboot")) << d->advice;
  EXPECT_TRUE(contains(d->advice, "administrator")) << d->advice;
}

TEST(GpuHealth, ACleanGpuGivesNoFinding) {
  EXPECT_FALSE(gpu_hardware_finding(gpu_health_from(read_with({})), kFailure));
}

TEST(GpuHealth, WithoutNvmlThereIsNoFinding) {
  const GpuHealth h = gpu_health_from({{"machine.nvml", "unavailable\tno libnvidia-ml.so.1"}});
  EXPECT_EQ(h.read, GpuHealth::Read::kUnavailable);
  EXPECT_EQ(h.why, "no libnvidia-ml.so.1");
  EXPECT_FALSE(gpu_hardware_finding(h, kFailure));
  EXPECT_FALSE(gpu_hardware_finding(gpu_health_from({}), kFailure));
}

// Xid 31 alone is the program's own illegal access: no hardware finding.
TEST(GpuHealth, AProgramsXidAloneIsNoHardwareFault) {
  EXPECT_FALSE(gpu_hardware_finding(gpu_health_from(read_with({{"machine.gpu_event", "00000000:01:00.0\txid\t31"}})),
                                    kFailure));
  // Beside a hardware one it is named, as the program's.
  auto d = gpu_hardware_finding(gpu_health_from(read_with({{"machine.gpu_event", "00000000:01:00.0\txid\t31"},
                                                           {"machine.gpu_event", "00000000:01:00.0\txid\t95"}})),
                                kFailure);
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains(d->evidence, "Xid 95 on 00000000:01:00.0 (uncontained ECC error")) << d->evidence;
  EXPECT_TRUE(contains(d->evidence, "Also Xid 31 (GPU memory page fault")) << d->evidence;
}

TEST(GpuHealth, UncorrectedEccNowIsAnErrorAndInThePastAWarning) {
  Entries now{{"machine.nvml", "read\txid+ecc\t00000000:01:00.0"}, {"machine.ecc", "00000000:01:00.0\t2\t5\t10\t40"}};
  auto d = gpu_hardware_finding(gpu_health_from(now), kFailure);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_TRUE(contains(d->evidence, "uncorrectable ECC errors on 00000000:01:00.0: 2 since the driver loaded, 5 in the GPU's life"))
      << d->evidence;
  Entries past{{"machine.nvml", "read\txid+ecc\t00000000:01:00.0"}, {"machine.ecc", "00000000:01:00.0\t0\t5\t-\t-"}};
  d = gpu_hardware_finding(gpu_health_from(past), kFailure);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->severity, Severity::kWarning);
}

TEST(GpuHealth, PendingRetirementAndFailedRemappingAreErrors) {
  Entries e{{"machine.nvml", "read\txid\tindex 0"},
            {"machine.retired_pages", "index 0\t1\t2\tpending"},
            {"machine.remapped_rows", "index 0\t3\t1\tnone-pending\tfailed"}};
  auto d = gpu_hardware_finding(gpu_health_from(e), "");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_TRUE(contains(d->evidence, "NVML reports: retired pages on index 0: 2 for double-bit errors, 1 for repeated "
                                    "single-bit errors, a retirement pending until the GPU is reset"))
      << d->evidence;
  EXPECT_TRUE(contains(d->evidence, "remapped rows on index 0: 1 for uncorrectable errors, 3 for correctable ones, and a "
                                    "remapping has failed"))
      << d->evidence;
  EXPECT_TRUE(contains(d->advice, "needs replacing")) << d->advice;
}

TEST(GpuHealth, ALostGpuIsAFault) {
  auto d = gpu_hardware_finding(gpu_health_from(read_with({{"machine.gpu_event", "*\tgpu-lost"}})), kFailure);
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains(d->evidence, "lost")) << d->evidence;
}

TEST(GpuHealth, MalformedEntriesAreSkipped) {
  const GpuHealth h = gpu_health_from({{"machine.nvml", "read\txid"},
                                       {"machine.gpu_event", "dev\txid\tseventy-nine"},
                                       {"machine.ecc", "dev\t1\t2"},
                                       {"machine.retired_pages", "dev\tx\t1\tpending"}});
  EXPECT_EQ(h.read, GpuHealth::Read::kNotRecorded);
  EXPECT_TRUE(h.events.empty());
  EXPECT_TRUE(h.ecc.empty());
  EXPECT_TRUE(h.retired.empty());
}

}  // namespace
}  // namespace cublasspy::diagnoses
