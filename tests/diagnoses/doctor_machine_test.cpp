// The doctor's checks on fake machines: /proc, /dev, /etc and library directories built under a
// temporary root, the environment as a map, and (where a test needs the driver's answer) the
// probe's result as the driver would give it. Each check has a case where it finds the problem
// and one where it must not.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "doctor/doctor.h"
#include "support/diagnose_helpers.h"
#include "support/fake_tree.h"

namespace cublasspy::test {
namespace {

namespace fs = std::filesystem;
using doctor::CheckStatus;
using doctor::DoctorReport;
using doctor::DriverProbe;
using doctor::MachineView;

class FakeMachine : public FakeTree {
 public:
  FakeMachine() { view.root = root; }
  // A working driver as the kernel shows it: module, one GPU, device nodes, libcuda.
  FakeMachine& installed_driver(const std::string& module = "535.104.05", const std::string& library = "535.104.05") {
    file("/proc/driver/nvidia/version",
         "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + module + "  Sat Aug 19 01:15:15 UTC 2023\n");
    file("/proc/driver/nvidia/gpus/0000:17:00.0/information", "Model: \t\t NVIDIA A100-SXM4-80GB\nBus Location: \t 0000:17:00.0\n");
    file("/dev/nvidiactl", "", 0666).file("/dev/nvidia0", "", 0666).file("/dev/nvidia-uvm", "", 0666);
    file("/usr/lib/x86_64-linux-gnu/libcuda.so." + library);
    link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so." + library);
    return *this;
  }
  DoctorReport run() const { return doctor::run_doctor(view); }

  MachineView view;
};

const doctor::CheckResult* check_named(const DoctorReport& r, const std::string& name) {
  for (const auto& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string explain(const DoctorReport& r) {
  std::string out;
  for (const auto& c : r.checks) out += "  " + std::string(doctor::check_status_name(c.status)) + " " + c.name + ": " + c.detail + "\n";
  for (const auto& d : r.diagnoses) out += "  [" + std::string(severity_name(d.severity)) + "] " + d.id + ": " + d.summary + " | " + d.evidence + "\n";
  return out;
}

// A driver that answers: version, cuInit, devices at these PCI addresses.
DriverProbe answering_driver(const std::string& library, std::vector<std::string> cuda_bus_ids,
                             std::vector<std::string> nvml_bus_ids = {}) {
  DriverProbe p;
  p.ran = true;
  p.loaded = true;
  p.library_path = library;
  p.driver_version = 12020;
  p.init_status = 0;
  p.count_status = 0;
  p.device_count = static_cast<int>(cuda_bus_ids.size());
  p.cuda_bus_ids = cuda_bus_ids;
  p.cuda_names.assign(cuda_bus_ids.size(), "GPU");
  p.nvml_loaded = !nvml_bus_ids.empty();
  p.nvml_status = p.nvml_loaded ? 0 : -1;
  p.nvml_count = p.nvml_loaded ? static_cast<int>(nvml_bus_ids.size()) : -1;
  p.nvml_bus_ids = nvml_bus_ids;
  p.mig_modes.assign(nvml_bus_ids.size(), 0);
  return p;
}

TEST(DoctorMachine, NothingInstalledIsNoDriver) {
  FakeMachine m;
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "no-driver");
  EXPECT_TRUE(contains(d.evidence, "no libcuda.so.1 on the library search path")) << explain(r);
  EXPECT_TRUE(contains(d.evidence, "no nvidia kernel module")) << d.evidence;
  EXPECT_FALSE(d.pid) << "machine findings name no process";
  EXPECT_FALSE(d.call);
  EXPECT_EQ(check_named(r, "kernel module")->status, CheckStatus::kProblem);
  EXPECT_EQ(check_named(r, "device nodes")->status, CheckStatus::kProblem);
}

TEST(DoctorMachine, ContainerWithoutGpuDevices) {
  FakeMachine m;
  m.file("/.dockerenv");
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "no-driver");
  EXPECT_TRUE(contains(d.summary, "container")) << explain(r);
  EXPECT_TRUE(contains(d.advice, "--gpus all")) << d.advice;
  EXPECT_EQ(check_named(r, "container")->status, CheckStatus::kProblem);
}

TEST(DoctorMachine, KubernetesPodIsAContainer) {
  FakeMachine m;
  m.file("/proc/1/cgroup", "0::/kubepods/besteffort/pod123\n");
  DoctorReport r = m.run();
  EXPECT_TRUE(r.facts.container.in_container);
  EXPECT_TRUE(contains(r.facts.container.evidence, "kubepods"));
}

TEST(DoctorMachine, InstalledDriverIsFine) {
  FakeMachine m;
  m.installed_driver();
  DoctorReport r = m.run();
  EXPECT_TRUE(r.diagnoses.empty()) << explain(r);
  EXPECT_EQ(check_named(r, "kernel module")->status, CheckStatus::kOk) << explain(r);
  EXPECT_TRUE(contains(check_named(r, "kernel module")->detail, "535.104.05"));
  EXPECT_TRUE(contains(check_named(r, "kernel module")->detail, "0000:17:00.0"));
  EXPECT_EQ(check_named(r, "device nodes")->status, CheckStatus::kOk);
  EXPECT_EQ(r.facts.libraries.driver_release, "535.104.05");
  EXPECT_FALSE(r.facts.container.in_container);
}

TEST(DoctorMachine, KernelModuleAndLibraryOfDifferentReleases) {
  FakeMachine m;
  m.installed_driver("535.104.05", "550.54.14");  // upgraded, not rebooted
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "device-enumeration-failed");
  EXPECT_TRUE(contains(d.evidence, "535.104.05")) << explain(r);
  EXPECT_TRUE(contains(d.evidence, "550.54.14")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "reboot")) << d.advice;
}

// The doctor as another user: whether a node may be opened is the kernel's answer for this
// process (as for CUDA's own open()), so the doctor runs in a child that drops root to `uid`
// with `groups`, and sends back its "device nodes" line and its findings, one per line.
std::string doctor_as(const FakeMachine& m, uid_t uid, std::vector<gid_t> groups) {
  chmod(m.root.c_str(), 0755);  // mkdtemp made it 0700
  auto seen = as_user(uid, groups, [&] {
    DoctorReport r = m.run();
    std::string text;
    if (const auto* c = check_named(r, "device nodes")) text += std::string(doctor::check_status_name(c->status)) + " " + c->detail + "\n";
    for (const Diagnosis& d : r.diagnoses) text += d.id + " | " + d.summary + " | " + d.evidence + " | " + d.advice + "\n";
    return text;
  });
  return seen ? *seen : "the child could not drop root";
}

TEST(DoctorMachine, DeviceNodesThisUserCannotOpen) {
  FakeMachine m;
  m.installed_driver();
  m.file("/dev/nvidia0", "", 0660);  // root:root, no access for others
  const std::string seen = doctor_as(m, 4242, {4242});
  EXPECT_EQ(seen.rfind("problem this user cannot read and write /dev/nvidia0", 0), 0u) << seen;
  // The machine evidence's finding, with the report's id and words.
  EXPECT_EQ(seen.find("device-nodes-inaccessible | this process may not open the NVIDIA device nodes"), seen.find('\n') + 1) << seen;
  EXPECT_TRUE(contains(seen, "/dev/nvidia0 -rw-rw---- uid 0 gid 0 (may NOT open)")) << seen;
  EXPECT_TRUE(contains(seen, "usermod")) << seen;
  EXPECT_FALSE(contains(seen, "no-device")) << seen;
}

TEST(DoctorMachine, DeviceNodesOfTheUsersGroupAreFine) {
  FakeMachine m;
  m.installed_driver();
  m.file("/dev/nvidia0", "", 0660);
  struct stat st;
  ASSERT_EQ(stat(m.path("/dev/nvidia0").c_str(), &st), 0);
  const std::string seen = doctor_as(m, 4242, {st.st_gid});
  EXPECT_EQ(seen.rfind("ok ", 0), 0u) << seen;
  EXPECT_FALSE(contains(seen, "no-device")) << seen;
  EXPECT_FALSE(contains(seen, "device-nodes-inaccessible")) << seen;
}

// The doctor's module, node and container lines are the machine evidence's: what the shim
// records in a trace on this machine, read back the same way.
TEST(DoctorMachine, ChecksReadTheMachineEvidence) {
  FakeMachine m;
  m.installed_driver();
  m.file("/proc/1/cgroup", "0::/docker/0123abcd\n").file("/dev/nvidia-caps/nvidia-cap1", "", 0400);
  m.view.env["container"] = "podman";
  DoctorReport r = m.run();
  auto evidence = [&](const std::string& key) {
    std::vector<std::string> out;
    for (const auto& [k, v] : r.facts.evidence) {
      if (k == key) out.push_back(v);
    }
    return out;
  };
  EXPECT_EQ(evidence("machine.container"), (std::vector<std::string>{"/proc/1/cgroup mentions docker", "container=podman"}));
  EXPECT_EQ(r.facts.container.evidence, "/proc/1/cgroup mentions docker, container=podman");
  EXPECT_EQ(r.facts.module.version, "535.104.05");
  std::vector<std::string> paths;
  for (const doctor::DeviceNode& n : r.facts.nodes.nodes) paths.push_back(n.path);
  // The essential nodes only: the MIG capability node is evidence, not one every process opens.
  EXPECT_EQ(paths, (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0"}));
  EXPECT_FALSE(evidence("machine.node").empty());
}

// A MIG instance selected without its capability nodes: the judge's finding, as the report has it.
TEST(DoctorMachine, MigInstanceWithoutCapabilityNodes) {
  FakeMachine m;
  m.installed_driver();
  m.view.env["CUDA_VISIBLE_DEVICES"] = "MIG-4b2d9c3e-1f0a-5e6b-8c7d-0a1b2c3d4e5f";
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "device-nodes-inaccessible");
  EXPECT_TRUE(contains(d.summary, "MIG instance")) << explain(r);
  EXPECT_TRUE(contains(d.evidence, "no nvidia-cap node")) << d.evidence;
  m.file("/dev/nvidia-caps/nvidia-cap1", "", 0666);
  EXPECT_FALSE(has_id(m.run().diagnoses, "device-nodes-inaccessible")) << explain(m.run());
}

TEST(DoctorMachine, LdLibraryPathWithAnotherCudaVersion) {
  FakeMachine m;
  m.installed_driver();
  m.file("/opt/cuda-11.8/lib64/libcudart.so.11.8.89").file("/opt/cuda-11.8/lib64/libcublas.so.11.11.3.6");
  m.file("/usr/local/cuda-13.0/lib/libcudart.so.13").file("/usr/local/cuda-13.0/lib/libcublas.so.13");
  m.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  m.file("/etc/ld.so.conf.d/cuda.conf", "/usr/local/cuda-13.0/lib\n");
  m.view.env["LD_LIBRARY_PATH"] = "/opt/cuda-11.8/lib64:/usr/local/cuda-12.1/lib64";
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "mixed-cuda-libraries");
  EXPECT_TRUE(contains(d.evidence, "/opt/cuda-11.8/lib64/libcudart.so.11.8.89 (LD_LIBRARY_PATH)")) << explain(r);
  EXPECT_TRUE(contains(d.evidence, "/usr/local/cuda-13.0/lib/libcudart.so.13 (ld.so.conf)")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "CUDA versions")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "do not exist: /usr/local/cuda-12.1/lib64")) << d.evidence;
  EXPECT_EQ(check_named(r, "LD_LIBRARY_PATH")->status, CheckStatus::kWarning);
  EXPECT_EQ(check_named(r, "libcudart")->status, CheckStatus::kWarning);
}

TEST(DoctorMachine, OneCudaOnTheSearchPathIsFine) {
  FakeMachine m;
  m.installed_driver();
  m.file("/usr/local/cuda-13.0/lib/libcudart.so.13").link("/usr/local/cuda-13.0/lib/libcudart.so", "libcudart.so.13");
  m.link("/usr/local/cuda", "cuda-13.0");
  m.file("/etc/ld.so.conf", "/usr/local/cuda-13.0/lib\n");
  // The same directory through a symlink is one copy, not two.
  m.view.env["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib";
  DoctorReport r = m.run();
  EXPECT_FALSE(has_id(r.diagnoses, "mixed-cuda-libraries")) << explain(r);
  EXPECT_EQ(check_named(r, "libcudart")->status, CheckStatus::kOk) << explain(r);
}

TEST(DoctorMachine, StubDirectoryOnLdLibraryPath) {
  FakeMachine m;
  m.installed_driver();
  m.file("/usr/local/cuda/lib64/stubs/libcuda.so");
  m.view.env["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64/stubs";
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "mixed-cuda-libraries");
  EXPECT_TRUE(contains(d.evidence, "stub libcuda")) << explain(r);
  EXPECT_EQ(check_named(r, "LD_LIBRARY_PATH")->status, CheckStatus::kProblem);
}

TEST(DoctorMachine, MalformedVisibleDevices) {
  FakeMachine m;
  m.installed_driver();
  m.view.env["CUDA_VISIBLE_DEVICES"] = "0,cuda:1";
  DoctorReport r = m.run();
  EXPECT_EQ(check_named(r, "CUDA_VISIBLE_DEVICES")->status, CheckStatus::kProblem) << explain(r);
  EXPECT_TRUE(contains(check_named(r, "CUDA_VISIBLE_DEVICES")->detail, "cuda:1"));
}

TEST(DoctorMachine, MigInstancesAndNoCudaDevice) {
  FakeMachine m;
  m.installed_driver();
  m.dir("/proc/driver/nvidia/capabilities/gpu0/mig/gi1");
  DriverProbe p = answering_driver(m.path("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), {});
  p.init_status = 100;  // CUDA_ERROR_NO_DEVICE
  m.view.probe_driver = [p] { return p; };
  DoctorReport r = m.run();
  EXPECT_TRUE(contains(check_named(r, "MIG")->detail, "enabled")) << explain(r);
  const Diagnosis& d = the_finding(r.diagnoses, "no-device");
  EXPECT_TRUE(contains(d.evidence, "MIG")) << explain(r);
}

TEST(DoctorMachine, NvmlSeesMoreGpusThanCuda) {
  FakeMachine m;
  m.installed_driver();
  m.view.probe_driver = [lib = m.path("/usr/lib/x86_64-linux-gnu/libcuda.so.1")] {
    return answering_driver(lib, {"0000:17:00.0", "0000:31:00.0", "0000:b1:00.0"},
                            {"0000:17:00.0", "0000:31:00.0", "0000:b1:00.0", "0000:ca:00.0"});
  };
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "device-enumeration-failed");
  EXPECT_TRUE(contains(d.summary, "4 GPUs are installed but CUDA initializes only 3")) << explain(r);
  EXPECT_TRUE(contains(d.advice, "CUDA_DEVICE_ORDER=PCI_BUS_ID")) << d.advice;
}

TEST(DoctorMachine, CudaOrderDiffersFromNvidiaSmi) {
  FakeMachine m;
  m.installed_driver();
  m.view.probe_driver = [lib = m.path("/usr/lib/x86_64-linux-gnu/libcuda.so.1")] {
    return answering_driver(lib, {"0000:31:00.0", "0000:17:00.0"}, {"0000:17:00.0", "0000:31:00.0"});
  };
  DoctorReport r = m.run();
  const doctor::CheckResult* order = check_named(r, "device order");
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(order->status, CheckStatus::kWarning) << explain(r);
  EXPECT_TRUE(contains(order->detail, "not nvidia-smi's GPU")) << order->detail;
  EXPECT_TRUE(r.diagnoses.empty()) << explain(r);  // nothing fails; the line warns
}

TEST(DoctorMachine, CudaOrderMatchingNvidiaSmiIsFine) {
  FakeMachine m;
  m.installed_driver();
  m.view.env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  m.view.probe_driver = [lib = m.path("/usr/lib/x86_64-linux-gnu/libcuda.so.1")] {
    return answering_driver(lib, {"0000:17:00.0", "0000:31:00.0"}, {"0000:17:00.0", "0000:31:00.0"});
  };
  DoctorReport r = m.run();
  EXPECT_EQ(check_named(r, "device order")->status, CheckStatus::kInfo) << explain(r);
  EXPECT_TRUE(contains(check_named(r, "device order")->detail, "matches")) << explain(r);
  EXPECT_TRUE(r.diagnoses.empty()) << explain(r);
}

TEST(DoctorMachine, MigWithIndexSelection) {
  FakeMachine m;
  m.installed_driver();
  m.view.env["CUDA_VISIBLE_DEVICES"] = "0";
  m.view.probe_driver = [lib = m.path("/usr/lib/x86_64-linux-gnu/libcuda.so.1")] {
    DriverProbe p = answering_driver(lib, {"0000:17:00.0"}, {"0000:17:00.0"});
    p.mig_modes = {1};
    return p;
  };
  DoctorReport r = m.run();
  const Diagnosis& d = the_finding(r.diagnoses, "invalid-visible-devices");
  EXPECT_TRUE(contains(d.summary, "MIG")) << explain(r);
}

}  // namespace
}  // namespace cublasspy::test
