// Faults around the trace file: truncated or deleted under the running process, a full disk, a
// file-size limit, nowhere writable at all, a SIGBUS inside a call. In every case the program
// prints and ends exactly as it does without the shim.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"
#include "trace/trace_mapping.h"

namespace cublasspy::integration {
namespace {

namespace fs = std::filesystem;

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

uint64_t calls_to(const TraceFile& trace, const char* function) {
  int id = function_id(trace, function);
  return id < 0 ? 0 : trace.counters(static_cast<uint16_t>(id)).calls;
}

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

class TraceFileFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }

  // phased_calls: kBefore GEMMs, then `act` on the trace file while the program waits, then
  // kAfter GEMMs. Returns the traced run; its output and status must be the plain run's.
  static constexpr int kBefore = 5, kAfter = 20;
  ProcessResult run_phased(const std::function<void(const std::string& trace)>& act) {
    const std::string go = dir_ / "go";
    std::vector<std::string> argv = {program("hard_phased_calls"), std::to_string(kBefore), go,
                                     std::to_string(kAfter)};
    std::ofstream(go) << "";
    ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
    EXPECT_TRUE(plain.exited_ok()) << plain.describe();
    fs::remove(go);

    RunningProcess running = start_process(argv, traced(dir_) + on_standin(), isolated_in(dir_));
    const std::string path = trace_path(dir_, running.pid());
    bool reached = wait_until(
        [&] {
          std::string error;
          auto t = TraceFile::open(path, error);
          return t && calls_to(*t, "cublasSgemm_v2") == kBefore;
        },
        std::chrono::seconds(30));
    EXPECT_TRUE(reached) << "the first phase never showed in the trace";
    if (reached) act(path);
    std::ofstream(go) << "";
    ProcessResult r = running.wait();
    EXPECT_EQ(r.signal, plain.signal) << r.describe();
    EXPECT_EQ(r.exit_code, plain.exit_code) << r.describe();
    EXPECT_EQ(r.out, plain.out);
    return r;
  }

  ScratchDir dir_;
};

TEST_F(TraceFileFaults, TruncatedToNothingWhileRunning) {
  // Stores into pages past the new end of the file raise SIGBUS; the shim's handler swaps the
  // mapping for memory and the program goes on, with one warning.
  ProcessResult r = run_phased([](const std::string& trace) { ASSERT_EQ(truncate(trace.c_str(), 0), 0); });
  EXPECT_TRUE(r.exited_ok());
  EXPECT_EQ(count_of(r.err, "was truncated while the process ran"), 1) << r.err;
  std::string error;
  EXPECT_FALSE(TraceFile::open(trace_path(dir_, r.pid), error));
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

TEST_F(TraceFileFaults, TruncatedToItsHeaderWhileRunning) {
  // The header page stays; the ring's pages go: the fault comes from the first record store.
  ProcessResult r = run_phased([](const std::string& trace) { ASSERT_EQ(truncate(trace.c_str(), 4096), 0); });
  EXPECT_TRUE(r.exited_ok());
  EXPECT_EQ(count_of(r.err, "was truncated while the process ran"), 1) << r.err;
}

TEST_F(TraceFileFaults, DeletedWhileRunning) {
  // The mapping keeps the unlinked file alive: nothing faults, nothing to say.
  ProcessResult r = run_phased([](const std::string& trace) { ASSERT_EQ(unlink(trace.c_str()), 0); });
  EXPECT_TRUE(r.exited_ok());
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_FALSE(fs::exists(trace_path(dir_, r.pid)));
}

// The program, in a mount namespace where `mount_point` is a tmpfs of `bytes` (a disk that is
// full, or nearly). Needs unshare and user namespaces; the test skips without them.
std::vector<std::string> on_tiny_disk(const std::string& mount_point, uint64_t bytes,
                                      std::vector<std::string> argv) {
  std::vector<std::string> wrapped = {
      "unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
      "mount -t tmpfs -o size=" + std::to_string(bytes) + " tmpfs \"$0\" && exec \"$@\"", mount_point};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

bool tiny_disks_work() {
  static const bool works = have("unshare") &&
      std::system("unshare --user --map-root-user --mount sh -c "
                  "'mount -t tmpfs -o size=64k tmpfs /tmp' >/dev/null 2>&1") == 0;
  return works;
}

TEST_F(TraceFileFaults, FullDiskFallsBackToTmpdir) {
  ASSERT_TRUE(tiny_disks_work()) << "unshare with user and mount namespaces (util-linux) does not work here";
  const std::string full = dir_ / "full", fallback = dir_ / "fallback";
  fs::create_directory(full);
  fs::create_directory(fallback);
  std::vector<std::string> argv = {program("shim_sgemm_loop"), "3"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ProcessResult r = run_process(on_tiny_disk(full, 64 * 1024, argv),
                                traced(dir_) + on_standin() +
                                    Env{{"CUBLASSPY_TRACE", full + "/t-%p.cbt"}, {"TMPDIR", fallback}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  auto trace = open_trace(fallback + "/t-" + std::to_string(r.pid) + ".cbt");
  ASSERT_TRUE(trace);
  EXPECT_EQ(calls_to(*trace, "cublasSgemm_v2"), 3u);
}

// What a file takes on disk (its blocks, not its apparent size).
uint64_t disk_bytes(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? uint64_t(st.st_blocks) * 512 : 0;
}

TEST_F(TraceFileFaults, ATraceTakesTheDiskSpaceOfWhatWasWritten) {
  // A short run: the header and tables (the function table, the counters, the failure sites,
  // the kernel and launch count tables: 1.2 MiB by default) and the record ring's first step.
  ProcessResult few = run_process({program("shim_sgemm_loop"), "3"}, traced(dir_) + on_standin(), isolated_in(dir_));
  ASSERT_TRUE(few.exited_ok()) << few.describe();
  auto trace = open_trace(trace_path(dir_, few.pid));
  ASSERT_TRUE(trace);
  const format::FileHeader& h = trace->header();
  const uint64_t capacity = h.file_bytes, small = disk_bytes(trace_path(dir_, few.pid));
  const uint64_t fixed = h.ring_offset + (h.side_offset - h.kernels_offset);
  EXPECT_LE(small, fixed + TraceMapping::kReserveStep + 2 * 4096) << "of a file of " << capacity << " bytes";
  EXPECT_GT(capacity, 8u * small);
  // A run that goes round the record ring reserves all of it.
  ScratchDir many_dir;
  ProcessResult many = run_process({program("shim_sgemm_loop"), "9000"}, traced(many_dir) + on_standin(),
                                   isolated_in(many_dir));
  ASSERT_TRUE(many.exited_ok()) << many.describe();
  auto full = open_trace(trace_path(many_dir, many.pid));
  ASSERT_TRUE(full);
  EXPECT_GT(disk_bytes(trace_path(many_dir, many.pid)), full->header().ring_capacity * format::kRecordBytes);
  EXPECT_EQ(full->header().dropped_records, 0u);
}

TEST_F(TraceFileFaults, ARelativeTraceGrowsAndGoesAfterTheProgramChangesDirectory) {
  // CUBLASSPY_TRACE relative to the working directory (as the default, cublasspy-%p.cbt, is),
  // and a program that changes directory once its trace is open: the ring's later steps are
  // reserved in the same file, and the keep policy removes that file, not one of the new name.
  ScratchDir elsewhere;
  const Env relative = traced(dir_) + on_standin() +
                       Env{{"CUBLASSPY_TRACE", "t-%p.cbt"}, {"SGEMM_LOOP_CHDIR", elsewhere.path()}};
  ProcessResult many = run_process({program("shim_sgemm_loop"), "9000"}, relative, isolated_in(dir_));
  ASSERT_TRUE(many.exited_ok()) << many.describe();
  auto trace = open_trace(trace_path(dir_, many.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().dropped_records, 0u);
  EXPECT_GT(disk_bytes(trace_path(dir_, many.pid)), trace->header().ring_capacity * format::kRecordBytes);
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));

  ProcessResult clean = run_process({program("shim_sgemm_loop"), "3"},
                                    relative + Env{{"CUBLASSPY_KEEP", std::nullopt}}, isolated_in(dir_));
  ASSERT_TRUE(clean.exited_ok()) << clean.describe();
  EXPECT_FALSE(fs::exists(trace_path(dir_, clean.pid))) << "a clean run's trace stays";
}

TEST_F(TraceFileFaults, DiskFillingWhileRunningDropsRecordsNotTheProgram) {
  ASSERT_TRUE(tiny_disks_work()) << "unshare with user and mount namespaces (util-linux) does not work here";
  std::vector<std::string> argv = {program("shim_sgemm_loop"), "2000"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  // Room for what a short run reserves (the header, the tables, the ring's first step), not
  // for the steps 2000 records need.
  ProcessResult sized = run_process({program("shim_sgemm_loop"), "3"}, traced(dir_) + on_standin(), isolated_in(dir_));
  ASSERT_TRUE(sized.exited_ok()) << sized.describe();
  const uint64_t room = disk_bytes(trace_path(dir_, sized.pid));
  ASSERT_GT(room, 0u);

  const std::string full = dir_ / "full", kept = dir_ / "kept";
  fs::create_directory(full);
  fs::create_directory(kept);
  // The tmpfs goes with the namespace: the trace is copied out before it ends.
  std::vector<std::string> wrapped = {
      "unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
      "mount -t tmpfs -o size=" + std::to_string(room) + " tmpfs \"$0\" || exit 99; \"$@\"; status=$?; "
      "cp \"$0\"/t-*.cbt \"" + kept + "\"/ || exit 98; exit $status",
      full};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  ProcessResult r = run_process(wrapped, traced(dir_) + on_standin() + Env{{"CUBLASSPY_TRACE", full + "/t-%p.cbt"}},
                                isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(r.err.find("writing the trace to"), std::string::npos) << "the trace was created where asked:\n" << r.err;
  std::vector<std::string> copies;
  for (const auto& e : fs::directory_iterator(kept)) copies.push_back(e.path());
  ASSERT_EQ(copies.size(), 1u);
  auto trace = open_trace(copies.front());
  ASSERT_TRUE(trace);
  EXPECT_EQ(calls_to(*trace, "cublasSgemm_v2"), 2000u) << "the counters are in the tables, reserved at creation";
  EXPECT_GT(trace->header().dropped_records, 0u) << "the ring's next step did not fit";
  EXPECT_LT(calls_of(*trace, "cublasSgemm_v2").size(), 2000u);
  EXPECT_GT(calls_of(*trace, "cublasSgemm_v2").size(), 100u) << "the first step's records stay";
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kExited));
}

TEST_F(TraceFileFaults, FullDiskForTheDumpsSkipsThemWithAWarning) {
  ASSERT_TRUE(tiny_disks_work()) << "unshare with user and mount namespaces (util-linux) does not work here";
  std::vector<std::string> argv = {program("shim_sgemm_loop"), "3"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  // Room for the trace (the blocks it reserves, which the same run reserves again) and not a
  // page more.
  ProcessResult sized = run_process(argv, traced(dir_) + on_standin(), isolated_in(dir_));
  const uint64_t trace_bytes = disk_bytes(trace_path(dir_, sized.pid));
  ASSERT_GT(trace_bytes, 0u);

  const std::string full = dir_ / "full";
  fs::create_directory(full);
  ProcessResult r = run_process(on_tiny_disk(full, trace_bytes, argv),
                                traced(dir_) + on_standin() +
                                    Env{{"CUBLASSPY_TRACE", full + "/t-%p.cbt"}, {"CUBLASSPY_DUMP", "all"}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(count_of(r.err, "CUBLASSPY_DUMP: an operand could not be saved"), 1) << r.err;
  EXPECT_EQ(r.err.find("writing the trace to"), std::string::npos) << "the trace itself fitted:\n" << r.err;
}

TEST_F(TraceFileFaults, FileSizeLimitNeverKillsTheProgram) {
  // Growing a file past RLIMIT_FSIZE sends SIGXFSZ, which kills by default: the shim must not
  // even try, and keep its record in memory.
  ASSERT_TRUE(have("prlimit")) << "prlimit (util-linux) is missing";
  std::vector<std::string> argv = {"prlimit", "--fsize=65536", program("shim_sgemm_loop"), "3"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ProcessResult r = run_process(argv, traced(dir_) + on_standin(), isolated_in(dir_));
  EXPECT_EQ(r.signal, 0) << r.describe();
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.err.find("file-size limit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recording in memory only"), std::string::npos) << r.err;
  EXPECT_TRUE(dir_.files().empty()) << "no trace file anywhere";
}

TEST_F(TraceFileFaults, NowhereWritableKeepsTheRecordInMemory) {
  std::vector<std::string> argv = {program("shim_sgemm_loop"), "3"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ProcessResult r = run_process(argv,
                                traced(dir_) + on_standin() +
                                    Env{{"CUBLASSPY_TRACE", "/proc/nope/t-%p.cbt"}, {"TMPDIR", "/proc/nope"}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.err.find("recording in memory only"), std::string::npos) << r.err;
  EXPECT_TRUE(dir_.files().empty());
}

TEST_F(TraceFileFaults, SigbusInsideACallIsRecordedAndKillsAsBefore) {
  // A SIGBUS that is not about the trace (here raised inside the call) is the program's own.
  std::vector<std::string> argv = {program("shim_sgemm_loop"), "4"};
  Env fault = {{"STANDIN_CRASH", "cublasSgemm_v2:2:SIGBUS"}};
  ProcessResult plain = run_process(argv, on_standin() + fault, isolated_in(dir_));
  ProcessResult r = run_process(argv, traced(dir_) + on_standin() + fault, isolated_in(dir_));
  ASSERT_EQ(plain.signal, SIGBUS) << plain.describe();
  EXPECT_EQ(r.signal, SIGBUS) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  EXPECT_EQ(trace->header().end_signal, SIGBUS);
  int crashed = 0;
  for (const CallView& c : calls_of(*trace, "cublasSgemm_v2")) {
    if (c.in_flight()) {
      ++crashed;
      EXPECT_TRUE(c.rec().flags & format::kFlagCrashed);
      EXPECT_EQ(c.arg("ldc"), 4u + 1u) << "the second GEMM";
    }
  }
  EXPECT_EQ(crashed, 1);
}

}  // namespace
}  // namespace cublasspy::integration
