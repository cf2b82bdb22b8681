// Traces of format version 2 (and 1) carry slot names but no roles and no libraries; the reader
// derives them (trace/roles_from_names.h), so every consumer reads old traces as it reads new
// ones. A version 3 trace rewritten as version 2 (the version byte, and the role and library
// bytes that were padding then, zeroed) must give the same GEMMs, text and status names, call
// for call; and the committed version 2 traces still read, their GEMMs whole.
#include <cstddef>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spec/hook_list.h"
#include "present/call_text.h"
#include "trace/gemm_groups.h"
#include "trace/trace_reader.h"

namespace cublasspy {
namespace {

const std::string kCorpus = std::string(CUBLASSPY_FUZZ_CORPUS) + "/trace_reader/";

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `bytes` (a version 3 trace) as its version 2 writer would have left it.
std::string as_version_2(std::string bytes) {
  format::FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.format_version = 2;
  std::memcpy(bytes.data(), &h, sizeof h);
  for (uint32_t f = 0; f < h.function_count; ++f) {
    char* entry = bytes.data() + h.functions_offset + f * sizeof(format::FunctionEntry);
    entry[offsetof(format::FunctionEntry, library)] = 0;
    // Nor what a function means (version 11).
    std::memset(entry + offsetof(format::FunctionEntry, element_type), 0, 3);
    for (uint32_t a = 0; a < format::kMaxArgs; ++a) {
      entry[offsetof(format::FunctionEntry, args) + a * sizeof(format::ArgDescriptor) +
            offsetof(format::ArgDescriptor, role)] = 0;
    }
  }
  return bytes;
}

std::vector<CallView> calls_of(const TraceFile& t) {
  std::vector<CallView> out;
  t.for_each_call([&](const CallView& c) { out.push_back(c); });
  return out;
}

void expect_same_matrix(const Matrix& a, const Matrix& b, const std::string& what) {
  EXPECT_EQ(a.present, b.present) << what;
  EXPECT_EQ(a.ptr, b.ptr) << what;
  EXPECT_EQ(a.array_ptr, b.array_ptr) << what;
  EXPECT_EQ(a.type, b.type) << what;
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.ld, b.ld) << what;
  EXPECT_EQ(a.stride, b.stride) << what;
}

void expect_same_gemm(const GemmCall& a, const GemmCall& b, const std::string& what) {
  ASSERT_EQ(a.valid, b.valid) << what;
  EXPECT_EQ(a.trans_a, b.trans_a) << what;
  EXPECT_EQ(a.trans_b, b.trans_b) << what;
  EXPECT_EQ(a.m, b.m) << what;
  EXPECT_EQ(a.n, b.n) << what;
  EXPECT_EQ(a.k, b.k) << what;
  EXPECT_EQ(a.batch_count, b.batch_count) << what;
  EXPECT_EQ(a.pointer_arrays, b.pointer_arrays) << what;
  EXPECT_EQ(a.grouped, b.grouped) << what;
  EXPECT_EQ(a.host_operands, b.host_operands) << what;
  EXPECT_EQ(a.output_is_c, b.output_is_c) << what;
  EXPECT_EQ(a.compute_type, b.compute_type) << what;
  EXPECT_EQ(a.alpha_ptr, b.alpha_ptr) << what;
  EXPECT_EQ(a.beta_ptr, b.beta_ptr) << what;
  for (int i = 0; i < 4; ++i) expect_same_matrix(a.op[i], b.op[i], what + ", operand " + std::to_string(i));
}

class ReaderVersionTwo : public ::testing::TestWithParam<const char*> {};

TEST_P(ReaderVersionTwo, GivesWhatVersionThreeGives) {
  const std::string name = GetParam();
  const std::string v3_bytes = read_bytes(kCorpus + name);
  ASSERT_GT(v3_bytes.size(), sizeof(format::FileHeader)) << name;
  const std::string v2_path = ::testing::TempDir() + "/as-v2-" + name;
  std::ofstream(v2_path, std::ios::binary) << as_version_2(v3_bytes);

  std::string error;
  auto v3 = TraceFile::open(kCorpus + name, error);
  ASSERT_TRUE(v3) << error;
  ASSERT_EQ(v3->header().format_version, format::kFormatVersion) << name << " is a current trace (tests/fuzz/make_corpus.sh)";
  auto v2 = TraceFile::open(v2_path, error);
  ASSERT_TRUE(v2) << error;
  ASSERT_EQ(v2->header().format_version, 2u);

  const std::vector<CallView> new_calls = calls_of(*v3), old_calls = calls_of(*v2);
  ASSERT_EQ(new_calls.size(), old_calls.size()) << name;
  ASSERT_FALSE(new_calls.empty()) << name;
  int gemms = 0;
  for (size_t i = 0; i < new_calls.size(); ++i) {
    const CallView& n = new_calls[i];
    const CallView& o = old_calls[i];
    const std::string what = name + ": call #" + std::to_string(n.seq) + " " + n.function_name();
    ASSERT_EQ(n.seq, o.seq) << what;
    EXPECT_EQ(n.library(), o.library()) << what;
    EXPECT_NE(o.library(), format::Library::kUnknown) << what;
    EXPECT_EQ(n.status_name(), o.status_name()) << what;
    EXPECT_EQ(call_line(n), call_line(o)) << what;
    const GemmCall g = n.gemm();
    gemms += g.valid;
    expect_same_gemm(g, o.gemm(), what);
  }
  std::remove(v2_path.c_str());
  if (name.find("dlopen") == std::string::npos && name.find("no_driver") == std::string::npos) {
    EXPECT_GT(gemms, 0) << name << ": the comparison saw GEMMs";
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ReaderVersionTwo,
                         ::testing::Values("sgemm_loop_exited.cbt", "threads_checks_scans.cbt",
                                           "gemm_ex_half_nested.cbt", "lt_matmul_row_major.cbt",
                                           "dlopen_text_arguments.cbt", "no_driver.cbt"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(0, n.find('.'));
                         });

// Traces a version 2 writer wrote (tests/fuzz/corpus/trace_reader/v2-*.cbt): every function
// gets its library, every GEMM its shape, and the calls read as text.
TEST(ReaderVersions, FormatVersionTwoTracesStillRead) {
  for (const char* name : {"v2-sgemm_loop_exited.cbt", "v2-threads_checks_scans.cbt", "v2-gemm_ex_half_nested.cbt",
                           "v2-lt_matmul_row_major.cbt", "v2-dlopen_text_arguments.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 2u) << name;
    int gemms = 0, loads = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_NE(c.library(), format::Library::kUnknown) << name << ": " << c.function_name();
      EXPECT_EQ(call_line(c).rfind(std::string(c.function_name()) + "(", 0), 0u) << name << ": " << call_line(c);
      // A nested cuBLASLt matmul's descriptors are made inside cuBLAS, partly unknown to the
      // shim: only the GEMMs the program made are whole.
      if (format::is_gemm_family(c.function->family) && (c.rec().flags & format::kFlagNested) == 0) {
        const GemmCall g = c.gemm();
        ASSERT_TRUE(g.valid) << name << ": " << call_line(c);
        ++gemms;
        EXPECT_GT(g.m, 0) << name << ": " << call_line(c);
        EXPECT_GT(g.n, 0) << name;
        EXPECT_GT(g.k, 0) << name;
        for (int i = 0; i < 3; ++i) {
          EXPECT_TRUE(g.op[i].present) << name << ": operand " << i;
          EXPECT_GT(g.op[i].ld, 0) << name << ": operand " << i;
          EXPECT_NE(g.op[i].type, DataType::kUnknown) << name << ": operand " << i;
        }
      }
      if (c.function->family == static_cast<uint16_t>(format::Family::kLibraryLoad)) {
        ++loads;
        EXPECT_TRUE(c.arg(format::ArgRole::kFilename)) << name;
        EXPECT_TRUE(c.arg(format::ArgRole::kLoadFlags)) << name;
      }
    });
    if (std::string(name).find("dlopen") == std::string::npos) EXPECT_GT(gemms, 0) << name;
    else EXPECT_GT(loads, 0) << name;
  }
}

// Traces a version 4 writer wrote (tests/fuzz/corpus/trace_reader/v4-*.cbt, copies of the corpus
// of format 4): they read as before, with no group tables and no recorded cuBLASLt algorithm.
TEST(ReaderVersions, FormatVersionFourTracesStillRead) {
  for (const char* name : {"v4-sgemm_loop_exited.cbt", "v4-lt_matmul_row_major.cbt", "v4-located_failure.cbt",
                           "v4-threads_checks_scans.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 4u) << name;
    int gemms = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_EQ(call_line(c).rfind(std::string(c.function_name()) + "(", 0), 0u) << name << ": " << call_line(c);
      EXPECT_FALSE(gemm_groups_of(*trace, c).has_value()) << name << ": " << call_line(c);
      if (format::is_gemm_family(c.function->family) && (c.rec().flags & format::kFlagNested) == 0) {
        ASSERT_TRUE(c.gemm().valid) << name << ": " << call_line(c);
        ++gemms;
        EXPECT_FALSE(call_arguments(c).contains("algo_preset")) << name << ": " << call_line(c);
      }
    });
    EXPECT_GT(gemms, 0) << name;
  }
}

// Traces a version 5 writer wrote (v5-*.cbt, copies of the corpus of format 5): their launch
// totals are in the kernel table and they count one ticket a launch (no count tables), and they
// have no first failed launch.
TEST(ReaderVersions, FormatVersionFiveTracesStillRead) {
  for (const char* name : {"v5-sgemm_loop_exited.cbt", "v5-launches_pending_error.cbt", "v5-located_failure.cbt",
                           "v5-threads_checks_scans.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 5u) << name;
    EXPECT_EQ(trace->header().launch_counts_offset, 0u) << name;
    EXPECT_FALSE(trace->first_failed_launch().has_value()) << name;
    EXPECT_EQ(trace->total_launches(), trace->header().launch_next) << name;
    uint64_t summed = 0;
    for (const auto& k : trace->kernel_totals()) summed += k.launches;
    EXPECT_LE(summed, trace->total_launches()) << name;
    if (std::string(name) == "v5-launches_pending_error.cbt") { EXPECT_GT(summed, 0u) << name; }
    int calls = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_EQ(call_line(c).rfind(std::string(c.function_name()) + "(", 0), 0u) << name << ": " << call_line(c);
      ++calls;
    });
    EXPECT_GT(calls, 0) << name;
  }
}

// Traces a version 6 writer wrote (v6-*.cbt, copies of the corpus of format 6): they hold no
// emulation settings (RecordSlot::lt_emulation, version 7), and their calls read as before.
TEST(ReaderVersions, FormatVersionSixTracesStillRead) {
  for (const char* name : {"v6-sgemm_loop_exited.cbt", "v6-launches_pending_error.cbt", "v6-located_failure.cbt",
                           "v6-threads_checks_scans.cbt", "v6-lt_matmul_row_major.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 6u) << name;
    int calls = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_EQ(c.slot.lt_emulation.flags, 0u) << name << ": " << call_line(c);
      EXPECT_EQ(call_line(c).find("emulation="), std::string::npos) << name << ": " << call_line(c);
      EXPECT_EQ(call_line(c).rfind(std::string(c.function_name()) + "(", 0), 0u) << name << ": " << call_line(c);
      ++calls;
    });
    EXPECT_GT(calls, 0) << name;
  }
}

// Traces a version 7 writer wrote (v7-*.cbt, copies of the corpus of format 7): they hold no
// graphs (RecordSlot::capture_id, FileHeader::stale_replay_*, version 8), and a synchronization's
// status is read as before: only an asynchronous error is a fault.
TEST(ReaderVersions, FormatVersionSevenTracesStillRead) {
  for (const char* name : {"v7-sgemm_loop_exited.cbt", "v7-launches_pending_error.cbt", "v7-located_failure.cbt",
                           "v7-threads_checks_scans.cbt", "v7-async_error_synced.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 7u) << name;
    EXPECT_EQ(trace->header().stale_replay_launch, 0u) << name;
    EXPECT_EQ(trace->header().stale_replays, 0u) << name;
    int calls = 0, faults = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_EQ(c.slot.capture_id, 0u) << name << ": " << call_line(c);
      EXPECT_EQ(call_line(c).rfind(std::string(c.function_name()) + "(", 0), 0u) << name << ": " << call_line(c);
      faults += c.async_fault();
      ++calls;
    });
    EXPECT_GT(calls, 0) << name;
    // The one trace whose GEMM's work faulted (STANDIN_ASYNC_ERROR=...:700 under CUBLASSPY_SYNC=1).
    EXPECT_EQ(faults > 0, std::string(name) == "v7-async_error_synced.cbt") << name;
  }
}

// Traces a version 8 writer wrote (v8-*.cbt, copies of the corpus of format 8): they have no
// failure-site table (version 9), so a failure counts by the records the ring holds, and a
// failed record names no site.
TEST(ReaderVersions, FormatVersionEightTracesStillRead) {
  for (const char* name : {"v8-sgemm_loop_exited.cbt", "v8-launches_pending_error.cbt", "v8-located_failure.cbt",
                           "v8-threads_checks_scans.cbt", "v8-graph_replay_freed.cbt", "v8-first_failure_wrapped.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 8u) << name;
    EXPECT_EQ(trace->header().failure_sites_offset, 0u) << name;
    EXPECT_TRUE(trace->failure_sites().empty()) << name;
    int calls = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_EQ(c.slot.failure_site, 0u) << name << ": " << call_line(c);
      ++calls;
    });
    EXPECT_GT(calls, 0) << name;
  }
  // The graph trace still has its graph launch found to use freed memory.
  std::string error;
  auto graphs = TraceFile::open(kCorpus + "v8-graph_replay_freed.cbt", error);
  ASSERT_TRUE(graphs) << error;
  EXPECT_NE(graphs->header().stale_replay_launch, 0u);
}

// Traces a version 9 writer wrote (v9-*.cbt, copies of the corpus of format 9): every handle
// setter has its record (no unchanged setters' counts, version 10), and no GEMM record carries
// the handle's workspace.
TEST(ReaderVersions, FormatVersionNineTracesStillRead) {
  for (const char* name : {"v9-sgemm_loop_exited.cbt", "v9-launches_pending_error.cbt", "v9-located_failure.cbt",
                           "v9-threads_checks_scans.cbt", "v9-failure_sites_storm.cbt", "v9-first_failure_wrapped.cbt"}) {
    std::string error;
    auto trace = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(trace) << error;
    EXPECT_EQ(trace->header().format_version, 9u) << name;
    EXPECT_EQ(trace->header().unchanged_offset, 0u) << name;
    int calls = 0;
    trace->for_each_call([&](const CallView& c) {
      EXPECT_EQ(c.slot.call.flags & (format::kFlagWorkspaceKnown | format::kFlagUnchangedSetter), 0u) << name;
      EXPECT_EQ(c.slot.workspace, 0u) << name;
      ++calls;
    });
    EXPECT_GT(calls, 0) << name;
    for (uint16_t id = 0; id < trace->function_count(); ++id) EXPECT_EQ(trace->unchanged(id), 0u) << name;
  }
  // The storm's sites are still read.
  std::string error;
  auto storm = TraceFile::open(kCorpus + "v9-failure_sites_storm.cbt", error);
  ASSERT_TRUE(storm) << error;
  EXPECT_FALSE(storm->failure_sites().empty());
}

// Traces a version 10 writer wrote (v10-*.cbt, copies of the corpus of format 10) say nothing of
// what their functions mean: the reader derives the traits and element types from the names
// (trace/roles_from_names.h), and they must be what a version 11 writer writes for the same
// functions (the corpus trace of the same name, written anew), and what the hook list's traits
// column says.
#define CBS_LISTED_TRAITS(lib_, ret_, fn_, fail_, family_, traits_, ...) {#fn_, static_cast<uint16_t>(traits_)},
const std::map<std::string, uint16_t> kListedTraits = {CUBLASSPY_ALL_HOOKS(CBS_LISTED_TRAITS)};
#undef CBS_LISTED_TRAITS

TEST(ReaderVersions, FormatVersionTenTracesHaveTheirTraitsDerived) {
  int compared = 0, with_traits = 0, with_element = 0;
  for (const char* name : {"sgemm_loop_exited.cbt", "launches_pending_error.cbt", "located_failure.cbt",
                           "threads_checks_scans.cbt", "no_driver.cbt", "lt_matmul_row_major.cbt",
                           "gemm_ex_half_nested.cbt"}) {
    std::string error;
    auto old = TraceFile::open(kCorpus + "v10-" + name, error);
    ASSERT_TRUE(old) << error;
    EXPECT_EQ(old->header().format_version, 10u) << name;
    auto now = TraceFile::open(kCorpus + name, error);
    ASSERT_TRUE(now) << error;
    EXPECT_EQ(now->header().format_version, format::kFormatVersion) << name;
    std::map<std::string, const format::FunctionEntry*> written;
    for (uint16_t id = 0; id < now->function_count(); ++id) {
      const format::FunctionEntry& e = now->function(id);
      if (e.name[0] == '\0') continue;
      written[e.name] = &e;
      // The writer's traits are the list's, with those the prototype gives.
      auto listed = kListedTraits.find(e.name);
      ASSERT_NE(listed, kListedTraits.end()) << e.name;
      EXPECT_EQ(e.traits & ~(format::Trait::kInt32Sizes | format::Trait::kFixedElementType), listed->second) << e.name;
    }
    for (uint16_t id = 0; id < old->function_count(); ++id) {
      const format::FunctionEntry& e = old->function(id);
      auto it = written.find(e.name);
      if (e.name[0] == '\0' || it == written.end()) continue;
      EXPECT_EQ(e.traits, it->second->traits) << name << ": " << e.name;
      EXPECT_EQ(e.element_type, it->second->element_type) << name << ": " << e.name;
      compared++;
      with_traits += e.traits != 0;
      with_element += format::fixed_element_type(e) >= 0;
    }
  }
  // Enough of the table to mean something: the GEMMs' element types and sizes, the set-up calls.
  EXPECT_GT(compared, 100);
  EXPECT_GT(with_traits, 20);
  EXPECT_GT(with_element, 10);
}

}  // namespace
}  // namespace cublasspy
