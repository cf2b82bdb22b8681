// libFuzzer target: a trace file from anywhere, through everything `cublasspy report` does with
// it: TraceFile::open (validation), the streaming walk, the first failure, the report model with
// its diagnoses, the text report, the JSON and the Perfetto export. Any input must either be
// refused with one line naming the file and the problem (the CLI then exits 2) or be reported;
// never a crash, a hang or an allocation that grows with a number read from the file.
//
// The reader opens a path, so the bytes go into a memfd opened through /proc/self/fd: no disk.
// A custom mutator spends most mutations on the small parts that steer parsing (the header,
// the ring's used slots, the first-failure copy) rather than on the 100s of KiB of function
// table a real trace carries.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "report/perfetto_export.h"
#include "report/report_model.h"
#include "report/report_text.h"
#include "trace/trace_format.h"
#include "trace/gemm_groups.h"
#include "trace/trace_reader.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "trace_reader_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// One memfd for the whole run, rewritten for every input.
const std::string& input_path(const uint8_t* data, size_t size) {
  static int fd = memfd_create("cublasspy-fuzz.cbt", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ftruncate(fd, 0) != 0) fail("memfd", std::strerror(errno));
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) fail("memfd write", std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cublasspy;
  const std::string& path = input_path(data, size);
  std::string error;
  std::optional<TraceFile> trace = TraceFile::open(path, error);
  if (!trace) {
    // What the CLI prints before exiting 2: "<path>: <problem>", one line.
    if (error.rfind(path + ": ", 0) != 0 || error.size() <= path.size() + 2 ||
        error.find('\n') != std::string::npos) {
      fail("refusal without a proper message", error);
    }
    return 0;
  }
  uint64_t seen = 0;
  trace->for_each_call([&](const CallView& call) {
    if (call.function == nullptr) fail("record without a function", std::to_string(call.seq));
    (void)call.args();
    for (const SideEntryView& e : trace->side_entries(call)) {
      if (e.kind == 0 || e.bytes.size() > format::kMaxSideEntryBytes) fail("side entry unchecked", std::to_string(call.seq));
      // Version 5: a grouped GEMM's group table, every count from the file.
      if (e.kind == static_cast<uint32_t>(format::SideKind::kGemmGroups)) {
        if (auto groups = decode_gemm_groups(e.bytes);
            groups && (groups->groups.size() > format::kMaxRecordedGroups ||
                       static_cast<int64_t>(groups->groups.size()) > groups->group_count)) {
          fail("group table unchecked", std::to_string(call.seq));
        }
      }
    }
    ++seen;
  });
  if (seen > trace->header().ring_capacity) fail("more records than slots", std::to_string(seen));
  (void)trace->first_failure();
  // Version 4: the launch ring and the kernel table, every offset and index from the file.
  uint64_t launches = 0;
  trace->for_each_launch([&](const LaunchView& l) {
    if (l.function == nullptr) fail("launch without a function", std::to_string(l.ticket));
    ++launches;
  });
  if (launches > trace->header().launch_capacity) fail("more launches than entries", std::to_string(launches));
  (void)trace->kernel_totals();
  (void)trace->first_launch_error();
  (void)trace->total_launches();
  (void)trace->total_calls();
  (void)trace->total_failed();

  tools::ReportOptions options;
  options.all_calls = true;
  nlohmann::ordered_json report = tools::build_report({&*trace}, options);
  tools::TextOptions text;
  text.all_calls = true;
  (void)tools::render_text(report, text);
  (void)report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  (void)tools::perfetto_trace(report).dump(-1, ' ', false,
                                           nlohmann::ordered_json::error_handler_t::replace);
  return 0;
}

#ifdef CUBLASSPY_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

uint64_t read_u64(const uint8_t* data, size_t size, size_t offset) {
  uint64_t v = 0;
  if (offset + sizeof v <= size) std::memcpy(&v, data + offset, sizeof v);
  return v;
}

}  // namespace

// Most mutations land where the parser makes decisions; one in eight mutates the whole input
// (which may change its size: truncation, growth).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  using namespace cublasspy::format;
  const uint64_t ring = read_u64(data, size, offsetof(FileHeader, ring_offset));
  const uint64_t failure = read_u64(data, size, offsetof(FileHeader, first_failure_offset));
  struct Region {
    uint64_t offset, bytes;
  } regions[] = {
      {0, sizeof(FileHeader)},                 // the header's fields
      {ring, 4 * uint64_t{kRecordBytes}},      // the first ring slots
      {failure, kRecordBytes},                 // the first-failure copy
      {kHeaderBytes, 512},                     // the start of the process section
  };
  unsigned pick = seed % 8;
  if (pick < 4) {
    const Region& r = regions[pick];
    if (r.offset < size) {
      size_t bytes = static_cast<size_t>(std::min<uint64_t>(r.bytes, size - r.offset));
      LLVMFuzzerMutate(data + r.offset, bytes, bytes);
      return size;
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif
