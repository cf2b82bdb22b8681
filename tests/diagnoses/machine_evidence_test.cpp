// The machine evidence (src/machine/machine_evidence.h) and the findings drawn from it
// (src/diagnose/machine_state.h): the collector on fake /proc and /dev trees, then real runs
// under the shim on the stand-in, each recorded on a fake machine (CUBLASSPY_MACHINE_ROOT) and
// diagnosed from its trace alone.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "diagnose/machine_state.h"
#include "doctor/python_env.h"
#include "support/diagnose_helpers.h"
#include "support/fake_tree.h"
#include "machine/machine_evidence.h"

namespace cublasspy::test {
namespace {

namespace fs = std::filesystem;
using Entries = std::vector<std::pair<std::string, std::string>>;

class VectorSink final : public EvidenceSink {
 public:
  void add(const char* key, const char* value) override { entries.emplace_back(key, value); }
  Entries entries;
};

Entries collect(const FakeTree& t, const char* (*get_var)(void*, const char*) = nullptr, const char* driver = nullptr) {
  MachineSource s;
  s.root = t.root.c_str();
  s.get_var = get_var;
  s.driver_library = driver;
  VectorSink sink;
  collect_machine_evidence(s, sink);
  return sink.entries;
}

std::vector<std::string> values(const Entries& e, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& [k, v] : e) {
    if (k == key) out.push_back(v);
  }
  return out;
}

bool any_contains(const std::vector<std::string>& items, const std::string& part) {
  for (const std::string& s : items) {
    if (contains(s, part)) return true;
  }
  return false;
}

const char* fake_vars(void*, const char* name) {
  return std::string(name) == "CUDA_VISIBLE_DEVICES" ? "1,0" : nullptr;
}

TEST(MachineEvidence, HealthyMachine) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.file("/dev/nvidia-caps/nvidia-cap1", "", 0400).file("/.dockerenv");
  const Entries e = collect(t, fake_vars, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.163.01");
  EXPECT_EQ(values(e, "machine.nvidia_version").at(0).find("NVRM version"), 0u);
  EXPECT_EQ(values(e, "machine.proc_modules"), std::vector<std::string>{"read"});
  const auto modules = values(e, "machine.module");
  ASSERT_EQ(modules.size(), 2u);  // nvidia_uvm and nvidia, not ext4
  EXPECT_EQ(modules[0].rfind("nvidia_uvm ", 0), 0u);
  const auto nodes = values(e, "machine.node");
  EXPECT_TRUE(any_contains(nodes, "/dev/nvidia0 -rw-rw-rw- uid")) << testing::PrintToString(nodes);
  EXPECT_TRUE(any_contains(nodes, "/dev/nvidiactl -rw-rw-rw-")) << testing::PrintToString(nodes);
  EXPECT_TRUE(any_contains(nodes, "/dev/nvidia-caps/nvidia-cap1 -r--------")) << testing::PrintToString(nodes);
  EXPECT_FALSE(any_contains(nodes, "missing")) << testing::PrintToString(nodes);
  EXPECT_EQ(values(e, "machine.container"), std::vector<std::string>{"/.dockerenv"});
  EXPECT_TRUE(any_contains(values(e, "machine.env"), "CUDA_VISIBLE_DEVICES=1,0"));
  EXPECT_TRUE(any_contains(values(e, "machine.env"), "NVIDIA_VISIBLE_DEVICES"));
  EXPECT_EQ(values(e, "machine.driver_library").at(0), "/usr/lib/x86_64-linux-gnu/libcuda.so.550.163.01");

  const diagnoses::MachineState m = diagnoses::machine_state_from(e);
  EXPECT_TRUE(m.module_loaded());
  EXPECT_TRUE(m.has_module("nvidia_uvm"));
  EXPECT_TRUE(m.any_gpu_node);
  // A working machine explains nothing, even with a failure to explain.
  auto found = diagnoses::machine_findings(m, diagnoses::SetupFailure{100, "cuInit returned 100", 1, false}, std::nullopt);
  EXPECT_TRUE(found.empty()) << found.front().id;
}

TEST(MachineEvidence, NoModuleNoNodes) {
  FakeTree t;
  t.file("/proc/modules", "ext4 1024000 1 - Live 0x0\n").file("/dev/null");
  const Entries e = collect(t);
  EXPECT_EQ(values(e, "machine.nvidia_version"), std::vector<std::string>{""});
  EXPECT_TRUE(values(e, "machine.module").empty());
  const auto nodes = values(e, "machine.node");
  EXPECT_TRUE(any_contains(nodes, "/dev/nvidiactl missing"));
  EXPECT_TRUE(any_contains(nodes, "/dev/nvidia<N> missing"));
  const diagnoses::MachineState m = diagnoses::machine_state_from(e);
  EXPECT_FALSE(m.module_loaded());
  auto found = diagnoses::machine_findings(m, diagnoses::SetupFailure{100, "cuInit returned 100", 1, false}, std::nullopt);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "kernel-module-not-loaded");
  EXPECT_TRUE(contains(found[0].advice, "modprobe nvidia")) << found[0].advice;
}

TEST(MachineEvidence, UnreadableModulesAreNotAbsentModules) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.remove("/proc/modules");
  const diagnoses::MachineState m = diagnoses::machine_state_from(collect(t));
  EXPECT_TRUE(m.module_loaded());  // the version file says so
  auto found = diagnoses::machine_findings(m, diagnoses::SetupFailure{999, "cuInit returned 999", 1, false}, std::nullopt);
  for (const Diagnosis& d : found) EXPECT_NE(d.id, "uvm-not-loaded");
}

// A node this process may not open: the collector asks with the effective ids, so the check runs
// in a child that drops root.
TEST(MachineEvidence, NodeThisUserMayNotOpen) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.file("/dev/nvidia0", "", 0660);
  chmod(t.root.c_str(), 0755);
  const auto seen = as_user(65534, {65534}, [&] {
    std::string text;
    for (const auto& [k, v] : collect(t)) text += k + "=" + v + "\n";
    return text;
  });
  ASSERT_TRUE(seen) << "the child could not drop root";
  const std::string& text = *seen;
  EXPECT_TRUE(contains(text, "/dev/nvidia0 -rw-rw---- uid 0 gid 0 denied")) << text;
  EXPECT_TRUE(contains(text, "/dev/nvidiactl -rw-rw-rw- uid 0 gid 0 open")) << text;

  Entries e;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    size_t eq = line.find('=');
    e.emplace_back(line.substr(0, eq), line.substr(eq + 1));
    pos = end + 1;
  }
  auto found = diagnoses::machine_findings(diagnoses::machine_state_from(e),
                                           diagnoses::SetupFailure{999, "cuInit returned 999", 1, false}, std::nullopt);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].id, "device-nodes-inaccessible");
  EXPECT_TRUE(contains(found[0].evidence, "/dev/nvidia0")) << found[0].evidence;
}

TEST(MachineEvidence, LibraryOrigin) {
  EXPECT_STREQ(library_origin("/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12", nullptr, "/"), "pip-wheel");
  EXPECT_STREQ(library_origin("/opt/conda/envs/x/lib/libcublas.so.12", "/opt/conda/envs/x", "/"), "conda");
  EXPECT_STREQ(library_origin("/usr/local/cuda/lib64/libcublas.so.13", nullptr, "/"), "system");
  EXPECT_STREQ(library_origin("/home/me/libs/libcublasLt.so.12", nullptr, "/"), "other");
  FakeTree t;
  t.file("/home/me/env/conda-meta/history").file("/home/me/env/lib/libcublas.so.12");
  EXPECT_STREQ(library_origin("/home/me/env/lib/libcublas.so.12", nullptr, t.root.c_str()), "conda");
  EXPECT_TRUE(is_ld_library_path_entry("/a/b", 4, "/x:/a/b/:/y"));
  EXPECT_FALSE(is_ld_library_path_entry("/a/b", 4, "/x:/a/bc"));
}

// CUDA_VISIBLE_DEVICES naming a MIG instance needs its capability nodes: judged from the
// evidence of a fake tree.
const char* mig_vars(void*, const char* name) {
  return std::string(name) == "CUDA_VISIBLE_DEVICES" ? "MIG-4b2d9c3e-1f0a-5e6b-8c7d-0a1b2c3d4e5f" : nullptr;
}

std::vector<Diagnosis> findings_at_999(const Entries& e) {
  return diagnoses::machine_findings(diagnoses::machine_state_from(e),
                                     diagnoses::SetupFailure{999, "cuInit returned 999", 1, false}, std::nullopt);
}

TEST(MachineEvidence, MigInstanceWithoutCapabilityNodes) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.file("/.dockerenv");
  auto found = findings_at_999(collect(t, mig_vars));
  const Diagnosis& d = the_finding(found, "device-nodes-inaccessible");
  EXPECT_TRUE(contains(d.summary, "MIG instance")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "CUDA_VISIBLE_DEVICES=MIG-4b2d9c3e")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "no nvidia-cap node")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "container (/.dockerenv)")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "nvidia-modprobe")) << d.advice;
}

// In a container the runtime's variable selects the instance; CUDA_VISIBLE_DEVICES is unset.
TEST(MachineEvidence, MigInstanceByTheContainerRuntimesVariable) {
  FakeTree t;
  write_healthy_machine(t.root);
  auto vars = [](void*, const char* name) -> const char* {
    return std::string(name) == "NVIDIA_VISIBLE_DEVICES" ? "MIG-4b2d9c3e-1f0a-5e6b-8c7d-0a1b2c3d4e5f" : nullptr;
  };
  auto found = findings_at_999(collect(t, vars));
  const Diagnosis& d = the_finding(found, "device-nodes-inaccessible");
  EXPECT_TRUE(contains(d.evidence, "NVIDIA_VISIBLE_DEVICES=MIG-4b2d9c3e")) << d.evidence;
}

TEST(MachineEvidence, MigCapabilityNodeThisUserMayNotOpen) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.file("/dev/nvidia-caps/nvidia-cap1", "", 0400);  // root's only, as nvidia-modprobe makes them
  chmod(t.root.c_str(), 0755);
  const auto seen = as_user(65534, {65534}, [&] {
    std::string text;
    for (const Diagnosis& d : findings_at_999(collect(t, mig_vars))) text += d.id + " | " + d.summary + " | " + d.evidence + "\n";
    return text;
  });
  ASSERT_TRUE(seen) << "the child could not drop root";
  EXPECT_TRUE(contains(*seen, "device-nodes-inaccessible | a MIG instance is selected but this process may not open")) << *seen;
  EXPECT_TRUE(contains(*seen, "may NOT open /dev/nvidia-caps/nvidia-cap1 (-r-------- uid 0 gid 0)")) << *seen;
}

TEST(MachineEvidence, MigCapabilityNodesThisUserMayOpen) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.file("/dev/nvidia-caps/nvidia-cap1", "", 0666).file("/dev/nvidia-caps/nvidia-cap2", "", 0666);
  EXPECT_FALSE(has_id(findings_at_999(collect(t, mig_vars)), "device-nodes-inaccessible"));
  // Whole GPUs need no capability node.
  t.remove("/dev/nvidia-caps/nvidia-cap1").remove("/dev/nvidia-caps/nvidia-cap2");
  EXPECT_FALSE(has_id(findings_at_999(collect(t, fake_vars)), "device-nodes-inaccessible"));
}

TEST(MachineEvidence, NvswitchNodesNamedAt802) {
  FakeTree t;
  write_healthy_machine(t.root);
  t.file("/dev/nvidia-nvswitch0", "", 0666).file("/dev/nvidia-nvswitch1", "", 0666);
  auto found = diagnoses::machine_findings(diagnoses::machine_state_from(collect(t)),
                                           diagnoses::SetupFailure{802, "cuInit returned 802", 1, false}, std::nullopt);
  const Diagnosis& d = the_finding(found, "fabric-manager-not-running");
  EXPECT_TRUE(contains(d.evidence, "/dev/nvidia-nvswitch0, /dev/nvidia-nvswitch1")) << d.evidence;
  t.remove("/dev/nvidia-nvswitch0").remove("/dev/nvidia-nvswitch1");
  found = diagnoses::machine_findings(diagnoses::machine_state_from(collect(t)),
                                      diagnoses::SetupFailure{802, "cuInit returned 802", 1, false}, std::nullopt);
  EXPECT_TRUE(contains(the_finding(found, "fabric-manager-not-running").evidence, "No NVSwitch was seen"));
}

// ---- real runs on the stand-in, each recorded on its own fake machine ----

struct Machine {
  FakeTree tree;
  Machine() { write_healthy_machine(tree.root); }
};

TracedRun run_on(const Machine& m, std::map<std::string, std::string> env, std::vector<std::string> args = {}) {
  RunOptions o;
  o.env = std::move(env);
  o.args = std::move(args);
  o.machine_root = m.tree.root;
  return run_traced(program_path("diag_workload"), o);
}

TEST(MachineDiagnoses, KernelModuleNotLoaded) {
  Machine m;
  m.tree.remove("/proc/driver/nvidia/version").file("/proc/modules", "ext4 1 0 - Live 0x0\n");
  TracedRun run = run_on(m, {{"STANDIN_DEVICE_COUNT_ERROR", "100"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "kernel-module-not-loaded");
  EXPECT_TRUE(contains(d.evidence, "cudaErrorNoDevice (100)")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "/proc/modules lists no nvidia module")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "libcuda")) << d.evidence;  // the stand-in's driver library
  EXPECT_FALSE(has_id(found, "no-device")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
}

// cudaGetDeviceCount failing with `status` on machine `m`: the finding `id` it proves, which takes
// the place of device-enumeration-failed's checklist.
Diagnosis status_finding(const Machine& m, int status, const std::string& id) {
  TracedRun run = run_on(m, {{"STANDIN_DEVICE_COUNT_ERROR", std::to_string(status)}});
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "device-enumeration-failed")) << explain(run, found);
  const Diagnosis d = the_finding(found, id);
  EXPECT_TRUE(contains(d.evidence, "(" + std::to_string(status) + ")")) << d.evidence;
  return d;
}

TEST(MachineDiagnoses, UvmNotLoadedOn999) {
  Machine m;
  m.tree.file("/proc/modules", "nvidia 60882944 0 - Live 0x0 (POE)\n");
  const Diagnosis d = status_finding(m, 999, "uvm-not-loaded");
  EXPECT_TRUE(contains(d.advice, "modprobe nvidia_uvm")) << d.advice;
  EXPECT_TRUE(contains(d.evidence, "cudaErrorUnknown (999)")) << d.evidence;
}

TEST(MachineDiagnoses, With999AndUvmLoadedTheChecklistStays) {
  Machine m;
  TracedRun run = run_on(m, {{"STANDIN_DEVICE_COUNT_ERROR", "999"}});
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "uvm-not-loaded")) << explain(run, found);
  EXPECT_TRUE(has_id(found, "device-enumeration-failed")) << explain(run, found);
}

TEST(MachineDiagnoses, FabricManagerOn802) {
  Machine m;
  m.tree.file("/proc/driver/nvidia-nvswitch/devices/0000:05:00.0", "").file("/dev/nvidia-nvswitch0", "", 0666);
  const Diagnosis d = status_finding(m, 802, "fabric-manager-not-running");
  EXPECT_TRUE(contains(d.evidence, "0000:05:00.0")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "/dev/nvidia-nvswitch0")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "nvidia-fabricmanager")) << d.advice;
}

TEST(MachineDiagnoses, ForwardCompatOn804) {
  Machine m;
  const Diagnosis d = status_finding(m, 804, "forward-compat-unsupported");
  EXPECT_TRUE(contains(d.advice, "compat")) << d.advice;
  EXPECT_TRUE(contains(d.evidence, "Kernel module: NVRM version")) << d.evidence;
}

TEST(MachineDiagnoses, OutOfMemoryAtCreate) {
  Machine m;
  TracedRun run = run_on(m, {{"STANDIN_FAIL", "cublasCreate_v2:1:3"}, {"STANDIN_DEVICE_MEMORY", "268435456"}},
                         {"--set-device", "0"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "out-of-memory-at-init");
  EXPECT_TRUE(contains(d.summary, "MiB free of 256 MiB")) << d.summary << "\n" << explain(run, found);
  EXPECT_TRUE(contains(d.advice, "XLA_PYTHON_CLIENT_PREALLOCATE")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "nvidia-smi")) << d.advice;
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
}

// The evidence is the recording machine's: this machine has no nvidia module, the trace's
// machine had one, and the findings follow the trace, before and after its machine is gone.
TEST(MachineDiagnoses, ReadOnAnotherMachine) {
  auto m = std::make_unique<Machine>();
  m->tree.file("/proc/modules", "nvidia 60882944 0 - Live 0x0 (POE)\n");
  TracedRun run = run_on(*m, {{"STANDIN_DEVICE_COUNT_ERROR", "999"}});
  const std::string before = ids_of(run.diagnose());
  m.reset();  // the recording machine's files are gone
  ASSERT_FALSE(fs::exists("/proc/driver/nvidia/version")) << "this test expects a machine without the module";
  std::vector<TraceFile> reread;
  for (const std::string& path : run.traces) {
    std::string error;
    auto t = TraceFile::open(path, error);
    ASSERT_TRUE(t) << error;
    reread.push_back(std::move(*t));
  }
  std::vector<const TraceFile*> pointers;
  for (const TraceFile& t : reread) pointers.push_back(&t);
  const auto after = diagnose(pointers);
  EXPECT_EQ(ids_of(after), before);
  EXPECT_TRUE(has_id(after, "uvm-not-loaded")) << ids_of(after);
  EXPECT_FALSE(has_id(after, "kernel-module-not-loaded")) << ids_of(after);
}

// libcublasLt.so.13 of `libdir` copied into a directory of its own under `tree` (returned).
std::string copy_of_cublas_lt(const std::string& libdir, FakeTree& tree) {
  tree.dir("/odd-lt");
  fs::copy_file(libdir + "/libcublasLt.so.13", tree.path("/odd-lt/libcublasLt.so.13"));
  return tree.path("/odd-lt");
}

// The commonest field cause: a libcublasLt of another directory first on LD_LIBRARY_PATH. The
// real CUDA 13 libraries, with a copy of libcublasLt.so.13 in a directory of its own.
TEST(MachineDiagnoses, CublasLtFromAnotherDirectory) {
  FakeTree other;
  const std::string lt = copy_of_cublas_lt(cuda_libdir(), other);
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  o.env = {{"LD_LIBRARY_PATH", lt + ":" + cuda_libdir()}};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-lt-mismatch");
  EXPECT_TRUE(contains(d.evidence, lt + "/libcublasLt.so.13")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, fs::canonical(cuda_libdir()).string()) || contains(d.evidence, cuda_libdir()))
      << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "LD_LIBRARY_PATH lists " + lt + " before")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "version 13.")) << d.evidence;  // as the libraries report it
}

// On a working GPU, mixed libraries show up as a GEMM's INVALID_VALUE after a cublasCreate that
// succeeded: the stand-in's libcublasLt copied to a directory of its own, first on
// LD_LIBRARY_PATH, and the first Sgemm failing. The libraries are recorded at that failure.
TEST(MachineDiagnoses, CublasLtMismatchFromAGemmFailure) {
  FakeTree other;
  const std::string lt = copy_of_cublas_lt(standin_dir(), other);
  RunOptions o;
  o.env = {{"LD_LIBRARY_PATH", lt}, {"STANDIN_FAIL", "cublasSgemm_v2:1:7"}};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  const auto& entries = run.opened[0].process().entries;
  auto has_key = [&](const std::string& key) {
    for (const auto& [k, v] : entries) {
      if (k == key) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_key("machine.library")) << explain(run, found);
  EXPECT_FALSE(has_key("machine.nvidia_version")) << "no set-up call failed: the machine's state is not recorded";
  EXPECT_TRUE(contains(run.output, "cublasCreate_v2 0")) << run.output;
  const Diagnosis& d = the_finding(found, "cublas-lt-mismatch");
  EXPECT_TRUE(contains(d.evidence, lt + "/libcublasLt.so.13")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "LD_LIBRARY_PATH lists " + lt + " before")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "cublasSgemm_v2")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "CUBLAS_STATUS_INVALID_VALUE")) << d.evidence;
  ASSERT_TRUE(d.call);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
}

// The odd libcublasLt of another release: the versions as the libraries report them decide, and
// the finding is an error.
TEST(MachineDiagnoses, CublasLtOfAnotherReleaseFromAGemmFailure) {
  FakeTree other;
  const std::string lt = copy_of_cublas_lt(standin_dir(), other);
  RunOptions o;
  o.env = {{"LD_LIBRARY_PATH", lt}, {"STANDIN_FAIL", "cublasSgemm_v2:1:7"}, {"STANDIN_LT_VERSION", "120805"}};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-lt-mismatch");
  EXPECT_EQ(d.severity, Severity::kError) << explain(run, found);
  EXPECT_TRUE(contains(d.summary, "runs with libcublasLt 12.8.5")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "libcublasLt " + lt + "/libcublasLt.so.13 (version 12.8.5")) << d.evidence;
}

// A forked child's trace is its own: its first failed set-up call records the machine again, so
// the child's trace alone explains the child's failure.
TEST(MachineDiagnoses, ForkedChildRecordsItsOwnEvidence) {
  Machine m;
  m.tree.file("/proc/modules", "nvidia 60882944 0 - Live 0x0 (POE)\n");
  RunOptions o;
  o.args = {"after-init"};
  o.env = {{"STANDIN_DEVICE_COUNT_ERROR", "999"}};
  o.machine_root = m.tree.root;
  TracedRun run = run_traced(program_path("diag_fork"), o);
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 2u) << explain(run, found);
  for (const TraceFile& t : run.opened) {
    const diagnoses::MachineState state = diagnoses::machine_state_from(t.process().entries);
    EXPECT_TRUE(state.recorded) << (t.header().forked_child ? "child" : "parent") << "\n" << explain(run, found);
    EXPECT_EQ(state.modules, std::vector<std::string>{"nvidia"});
    if (!t.header().forked_child) continue;
    const auto alone = diagnose({&t});
    const Diagnosis& d = the_finding(alone, "uvm-not-loaded");
    ASSERT_TRUE(d.pid);
    EXPECT_EQ(std::to_string(*d.pid), t.process().get("pid"));
  }
}

// doctor --python: an interpreter that does not answer is killed at the time limit, with what it
// started (its own process group).
TEST(DoctorPython, HangingInterpreterIsKilled) {
  FakeTree t;
  t.file("/python", "#!/bin/sh\nsleep 300 &\necho $! > " + t.root + "/child\nsleep 300\n", 0755);
  const auto start = std::chrono::steady_clock::now();
  doctor::PythonEnv env = doctor::probe_python(t.root + "/python", 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(env.timed_out);
  EXPECT_TRUE(contains(env.error, "did not answer within 1 s")) << env.error;
  std::ifstream in(t.root + "/child");
  int grandchild = 0;
  in >> grandchild;
  ASSERT_GT(grandchild, 0);
  // Gone, or a zombie its new parent has not reaped yet (PID 1 in a container may never reap).
  auto alive = [&] {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string pid, comm, state;
    return static_cast<bool>(stat >> pid >> comm >> state) && state != "Z";
  };
  for (int i = 0; i < 100 && alive(); ++i) usleep(10000);
  EXPECT_FALSE(alive()) << "the interpreter's own child survived";
}

TEST(DoctorPython, AnswerWithoutTorch) {
  doctor::PythonEnv env = doctor::probe_python("python3", 60);
  ASSERT_TRUE(env.error.empty()) << env.error;
  EXPECT_FALSE(env.python_version.empty());
  EXPECT_TRUE(env.torch_version.empty() ? !env.torch_error.empty() : true);
  EXPECT_FALSE(doctor::python_env_from_json("not json").error.empty());
}

}  // namespace
}  // namespace cublasspy::test
