// `cublasspy report` on damaged traces, the kinds a fuzzer makes: cut short anywhere, every
// header field set to values it should never hold, huge counts, garbage records. Each one is
// either reported (exit 0) or refused with exit 2 and one line naming the file and the
// problem; never a crash, a hang or a runaway allocation. The cases a refusal is certain for
// (the header's own consistency checks) are listed as such.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"
#include "trace/trace_format.h"

namespace cublasspy::integration {
namespace {

namespace fs = std::filesystem;
using format::FileHeader;

// The build's own CLI, or CUBLASSPY_REJECTS_TOOL: scripts/sanitize.sh points it at the CLI built
// with ASan+UBSan in the fuzz build (tests/fuzz), where the reader and the tools are instrumented.
std::string tool_path() {
  const char* tool = std::getenv("CUBLASSPY_REJECTS_TOOL");
  return tool != nullptr && *tool != '\0' ? tool : CUBLASSPY_TOOL_PATH;
}
const std::string kTool = tool_path();
// A real trace from the committed fuzz corpus: sgemm_loop with a 16-record ring.
const std::string kSeed = std::string(CUBLASSPY_FUZZ_CORPUS) + "/trace_reader/sgemm_loop_exited.cbt";

struct Field {
  const char* name;
  size_t offset;
  size_t bytes;
};

// Every header field, by offset (trace_format.h pins them).
const Field kFields[] = {
    {"endian_mark", offsetof(FileHeader, endian_mark), 4},
    {"format_version", offsetof(FileHeader, format_version), 4},
    {"header_bytes", offsetof(FileHeader, header_bytes), 4},
    {"record_bytes", offsetof(FileHeader, record_bytes), 4},
    {"word_bytes", offsetof(FileHeader, word_bytes), 4},
    {"function_count", offsetof(FileHeader, function_count), 4},
    {"process_offset", offsetof(FileHeader, process_offset), 8},
    {"process_bytes", offsetof(FileHeader, process_bytes), 8},
    {"functions_offset", offsetof(FileHeader, functions_offset), 8},
    {"counters_offset", offsetof(FileHeader, counters_offset), 8},
    {"first_failure_offset", offsetof(FileHeader, first_failure_offset), 8},
    {"ring_offset", offsetof(FileHeader, ring_offset), 8},
    {"ring_capacity", offsetof(FileHeader, ring_capacity), 8},
    {"file_bytes", offsetof(FileHeader, file_bytes), 8},
    {"next_seq", offsetof(FileHeader, next_seq), 8},
    {"next_ticket", offsetof(FileHeader, next_ticket), 8},
    {"first_failure_seq", offsetof(FileHeader, first_failure_seq), 8},
    {"end_state", offsetof(FileHeader, end_state), 4},
    {"end_signal", offsetof(FileHeader, end_signal), 4},
    {"exit_status", offsetof(FileHeader, exit_status), 4},
    {"header_complete", offsetof(FileHeader, header_complete), 4},
    {"dropped_records", offsetof(FileHeader, dropped_records), 8},
    {"first_async_seq", offsetof(FileHeader, first_async_seq), 8},
    {"first_async_error", offsetof(FileHeader, first_async_error), 4},
    {"driver_version", offsetof(FileHeader, driver_version), 4},
    {"runtime_version", offsetof(FileHeader, runtime_version), 4},
    {"forked_child", offsetof(FileHeader, forked_child), 4},
    {"parent_seq_at_fork", offsetof(FileHeader, parent_seq_at_fork), 8},
    {"process_used", offsetof(FileHeader, process_used), 8},
    {"parent_pid_at_fork", offsetof(FileHeader, parent_pid_at_fork), 8},
    {"parent_cuda_ready", offsetof(FileHeader, parent_cuda_ready), 4},
    {"counter_stripes", offsetof(FileHeader, counter_stripes), 4},
    {"claim_block", offsetof(FileHeader, claim_block), 4},
    {"claim_lag", offsetof(FileHeader, claim_lag), 4},
    {"parent_calls_at_fork", offsetof(FileHeader, parent_calls_at_fork), 8},
    {"skipped_count", offsetof(FileHeader, skipped_count), 8},
    {"skipped[0]", offsetof(FileHeader, skipped), 8},
    {"skipped[63]", offsetof(FileHeader, skipped) + 63 * 8, 8},
    // Version 4: the launch ring and kernel table, the side area (the seed has neither, so a
    // value here claims a section the file does not have).
    {"launch_offset", offsetof(FileHeader, launch_offset), 8},
    {"launch_capacity", offsetof(FileHeader, launch_capacity), 8},
    {"launch_next", offsetof(FileHeader, launch_next), 8},
    {"kernels_offset", offsetof(FileHeader, kernels_offset), 8},
    {"kernel_capacity", offsetof(FileHeader, kernel_capacity), 4},
    {"launch_entry_bytes", offsetof(FileHeader, launch_entry_bytes), 4},
    {"kernels_unnamed", offsetof(FileHeader, kernels_unnamed), 8},
    {"first_launch_error", offsetof(FileHeader, first_launch_error), 8},
    {"side_offset", offsetof(FileHeader, side_offset), 8},
    {"side_bytes", offsetof(FileHeader, side_bytes), 8},
    {"side_used", offsetof(FileHeader, side_used), 8},
    {"side_entries", offsetof(FileHeader, side_entries), 8},
    {"side_dropped", offsetof(FileHeader, side_dropped), 8},
    {"side_dropped_bytes", offsetof(FileHeader, side_dropped_bytes), 8},
    // Version 5: the launcher's wait status (read as absent in the version 4 seed).
    {"launcher_wait", offsetof(FileHeader, launcher_wait), 4},
    {"launcher_status", offsetof(FileHeader, launcher_status), 4},
    {"launcher_pid", offsetof(FileHeader, launcher_pid), 8},
    // Version 6: the launch count tables and ticket blocks (read as absent in the seed).
    {"launch_counts_offset", offsetof(FileHeader, launch_counts_offset), 8},
    {"launch_count_tables", offsetof(FileHeader, launch_count_tables), 4},
    {"launch_lag", offsetof(FileHeader, launch_lag), 4},
};

// Fields the reader checks against each other or against the file: any value but the right
// one is refused.
const std::set<std::string> kChecked = {"endian_mark",      "format_version", "header_bytes",
                                        "record_bytes",     "word_bytes",     "header_complete",
                                        "file_bytes"};

uint64_t get(const std::string& bytes, const Field& f) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + f.offset, f.bytes);
  return v;
}
void set(std::string& bytes, const Field& f, uint64_t v) { std::memcpy(bytes.data() + f.offset, &v, f.bytes); }

class ReportRejects : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = read_file(kSeed);
    ASSERT_GT(seed_.size(), sizeof(FileHeader)) << kSeed;
  }

  // Writes `bytes` as NAME.cbt and runs `cublasspy report --json --all` on it. Checks what holds
  // for every input: no signal, exit 0 with a report or exit 2 with the one-line refusal.
  ProcessResult report(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ / (name + ".cbt");
    std::ofstream(path, std::ios::binary) << bytes;
    ProcessResult r = run_process({kTool, "report", "--json", "--all", path}, {}, isolated_in(dir_, std::chrono::seconds(60)));
    EXPECT_FALSE(r.timed_out) << name;
    EXPECT_EQ(r.signal, 0) << name << ": " << r.describe();
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << name << ": " << r.describe();
    if (r.exit_code == 2) {
      const std::string prefix = "cublasspy report: " + path + ": ";
      EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << name << ": " << r.err;
      EXPECT_GT(r.err.size(), prefix.size() + 1) << name;
    } else if (r.exit_code == 0) {
      EXPECT_NE(r.out.find("\"traces\""), std::string::npos) << name;
    }
    fs::remove(path);
    return r;
  }

  std::string seed_;
  ScratchDir dir_;
};

TEST_F(ReportRejects, TheSeedItselfIsReported) {
  EXPECT_EQ(report("seed", seed_).exit_code, 0);
}

TEST_F(ReportRejects, CutShortAnywhere) {
  const uint64_t ring = get(seed_, kFields[11]);
  for (uint64_t size : {uint64_t{0}, uint64_t{1}, uint64_t{8}, uint64_t{sizeof(FileHeader) - 1},
                        uint64_t{sizeof(FileHeader)}, uint64_t{format::kHeaderBytes}, ring, ring + 1,
                        uint64_t{seed_.size() - 4096}, uint64_t{seed_.size() - 1}}) {
    ProcessResult r = report("cut-" + std::to_string(size), seed_.substr(0, size));
    EXPECT_EQ(r.exit_code, 2) << "a trace cut to " << size << " bytes";
    EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  }
  // Longer than the header says: refused as well (the size is part of the format).
  EXPECT_EQ(report("grown", seed_ + std::string(4096, '\0')).exit_code, 2);
}

TEST_F(ReportRejects, EveryHeaderFieldAtTheExtremes) {
  int refused = 0, reported = 0;
  for (const Field& f : kFields) {
    const uint64_t original = get(seed_, f);
    const uint64_t all_ones = f.bytes == 8 ? ~uint64_t{0} : 0xffffffffu;
    for (uint64_t value : {uint64_t{0}, uint64_t{1}, all_ones, all_ones >> 1, original + 1,
                           original - 1, original * 4096}) {
      value &= all_ones;
      if (value == original) continue;
      const bool readable_version = f.name == std::string("format_version") &&
                                    value >= format::kOldestReadableVersion && value <= format::kFormatVersion;
      if (readable_version) continue;  // another version the reader reads: not an extreme
      std::string bytes = seed_;
      set(bytes, f, value);
      ProcessResult r = report(std::string(f.name) + "-" + std::to_string(value), bytes);
      if (r.exit_code == 2) ++refused;
      if (r.exit_code == 0) ++reported;
      if (kChecked.count(f.name)) {
        EXPECT_EQ(r.exit_code, 2) << f.name << " = " << value;
      }
    }
  }
  RecordProperty("refused", refused);
  RecordProperty("reported", reported);
  EXPECT_GT(refused, 0);
  EXPECT_GT(reported, 0);
}

TEST_F(ReportRejects, ALauncherWaitStatusThatIsNoneIsRefused) {
  // Version 5's launcher record: a kind it does not know, or a status that is neither an exit
  // nor a death by signal (0x7f is a stopped child), is refused; a real one is read.
  const Field version{"format_version", offsetof(FileHeader, format_version), 4};
  const Field wait{"launcher_wait", offsetof(FileHeader, launcher_wait), 4};
  const Field status{"launcher_status", offsetof(FileHeader, launcher_status), 4};
  std::string v5 = seed_;
  set(v5, version, 5);
  std::string bad_kind = v5, stopped = v5, exited = v5;
  set(bad_kind, wait, 3);
  set(stopped, wait, 1);
  set(stopped, status, 0x137f);
  set(exited, wait, 1);
  set(exited, status, 127 << 8);
  for (const auto& [name, bytes] : {std::pair{"bad-kind", bad_kind}, std::pair{"stopped", stopped}}) {
    ProcessResult r = report(name, bytes);
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.describe();
    EXPECT_NE(r.err.find("corrupt header: launcher wait"), std::string::npos) << r.err;
  }
  EXPECT_EQ(report("exited-127", exited).exit_code, 0);
}

TEST_F(ReportRejects, AKernelTableWithoutALaunchRingIsRefused) {
  // Found by the fuzzer: the launch ring's fields zero, the kernel table's set. The table was
  // then taken as it stood and read from anywhere (TraceFile::kernel_totals).
  const Field capacity{"kernel_capacity", offsetof(FileHeader, kernel_capacity), 4};
  const Field offset{"kernels_offset", offsetof(FileHeader, kernels_offset), 8};
  ASSERT_EQ(get(seed_, Field{"launch_capacity", offsetof(FileHeader, launch_capacity), 8}), 0u)
      << "the seed has no launch ring";
  std::string bytes = seed_;
  set(bytes, capacity, 1024);
  set(bytes, offset, uint64_t{1} << 40);
  ProcessResult r = report("kernels-without-ring", bytes);
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("launch ring"), std::string::npos) << r.err;
}

TEST_F(ReportRejects, AMisalignedLaunchRingIsRefused) {
  // Found by the fuzzer: a launch ring or kernel table moved off its 8-byte alignment was read
  // through misaligned atomic words (undefined behaviour, caught by UBSan).
  const std::string seed =
      read_file(std::string(CUBLASSPY_FUZZ_CORPUS) + "/trace_reader/launches_pending_error.cbt");
  const Field ring{"launch_offset", offsetof(FileHeader, launch_offset), 8};
  const Field kernels{"kernels_offset", offsetof(FileHeader, kernels_offset), 8};
  ASSERT_NE(get(seed, ring), 0u) << "the seed has a launch ring";
  ASSERT_EQ(report("aligned-ring", seed).exit_code, 0);
  for (const Field& f : {ring, kernels}) {
    for (uint64_t shift : {1, 4}) {
      std::string bytes = seed;
      set(bytes, f, get(seed, f) + shift);
      ProcessResult r = report(std::string("misaligned-") + f.name, bytes);
      EXPECT_EQ(r.exit_code, 2) << f.name << " + " << shift << ": " << r.describe();
      EXPECT_NE(r.err.find("misaligned"), std::string::npos) << r.err;
    }
  }
}

TEST_F(ReportRejects, HugeCountsAreRefusedOrReportedNeverAllocated) {
  // Sizes read from the file that would ask for terabytes if believed.
  struct Case {
    const char* field;
    uint64_t value;
  };
  for (Case c : {Case{"function_count", 1u << 31}, Case{"function_count", format::kMaxFunctions + 1},
                 Case{"ring_capacity", uint64_t{1} << 40}, Case{"ring_capacity", (uint64_t{1} << 32) + 1},
                 Case{"process_bytes", uint64_t{1} << 62}, Case{"process_used", uint64_t{1} << 62}}) {
    std::string bytes = seed_;
    for (const Field& f : kFields) {
      if (f.name == std::string(c.field)) set(bytes, f, c.value);
    }
    EXPECT_EQ(report(std::string("huge-") + c.field, bytes).exit_code, 2) << c.field << " = " << c.value;
  }
  // Counts that are only numbers to print: a report, with the numbers as they are.
  std::string bytes = seed_;
  for (const Field& f : kFields) {
    if (f.name == std::string("next_seq") || f.name == std::string("next_ticket") ||
        f.name == std::string("dropped_records")) {
      set(bytes, f, ~uint64_t{0});
    }
  }
  const uint64_t counters = get(seed_, kFields[9]);
  std::memset(bytes.data() + counters, 0xff, 16 * 4);  // calls and failures of four functions
  EXPECT_EQ(report("huge-counters", bytes).exit_code, 0);
}

TEST_F(ReportRejects, GarbageRecordsAreSkippedNotTrusted) {
  const uint64_t ring = get(seed_, kFields[11]), capacity = get(seed_, kFields[12]);
  for (int fill : {0x00, 0xff, 0x03, 0xaa}) {
    std::string bytes = seed_;
    std::memset(bytes.data() + ring, fill, capacity * format::kRecordBytes);
    const uint64_t failure = get(seed_, kFields[10]);
    std::memset(bytes.data() + failure, fill, format::kRecordBytes);
    EXPECT_EQ(report("records-" + std::to_string(fill), bytes).exit_code, 0) << fill;
  }
  // Function table entries with no terminator and absurd argument counts.
  std::string bytes = seed_;
  const uint64_t functions = get(seed_, kFields[8]);
  std::memset(bytes.data() + functions, 'x', sizeof(format::FunctionEntry) * 4);
  ProcessResult r = report("functions-garbage", bytes);
  EXPECT_EQ(r.exit_code, 2) << "an argument count of 0x7878 is refused";
  EXPECT_NE(r.err.find("corrupt function table"), std::string::npos) << r.err;

  // A name with a newline (found by the fuzzer): the refusal is still one line, the name escaped.
  bytes = seed_;
  auto* entry = reinterpret_cast<format::FunctionEntry*>(bytes.data() + functions);
  std::memcpy(entry->name, "bad\nname", 9);
  entry->arg_count = format::kMaxArgs + 1;
  r = report("function-name-newline", bytes);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("corrupt function table entry \"bad\\nname\""), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

}  // namespace
}  // namespace cublasspy::integration
