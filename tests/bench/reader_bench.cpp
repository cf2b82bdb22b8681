// How fast the reader streams a trace (the goal: at least 5 million records a second,
// memory flat in the trace's length). A trace of N completed records is written with the real
// TraceWriter, then opened and walked with TraceFile::for_each_call; items_per_second is
// records read per second, anon_peak_mib the process's peak anonymous memory during a walk
// (measured in a walk of its own, untimed: compare the sizes). Two cases: the usual post-mortem one (the writer, a child
// process, has exited: the reader copies the ring in chunks) and a live trace (the writer is
// this process: the reader goes through the mapping under the seqlock).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "machine/process_info.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace {

using namespace cublasspy;

bool write_trace(const std::string& path, uint64_t records) {
  format::FunctionEntry fn{};
  std::strcpy(fn.name, "cublasSgemm_v2");
  fn.arg_count = 3;
  std::strcpy(fn.args[0].name, "m");
  fn.args[0].kind = static_cast<uint8_t>(format::ArgKind::kInt);
  std::strcpy(fn.args[1].name, "n");
  fn.args[1].kind = static_cast<uint8_t>(format::ArgKind::kInt);
  std::strcpy(fn.args[2].name, "k");
  fn.args[2].kind = static_cast<uint8_t>(format::ArgKind::kInt);
  TraceWriter writer;
  KeyValueBlob kv = collect_process_info(-1, start_time_text());
  OpenResult r = writer.open(path, records, &fn, 1, kv.bytes());
  if (!r.ok || !r.file_backed) return false;
  format::RecordSlot local;
  ClaimCursor cursor;
  for (uint64_t i = 0; i < records; ++i) {
    uint64_t seq;
    format::RecordSlot* slot = writer.claim(cursor, &seq, &local);
    slot->call.function_id = 0;
    slot->call.start_ns = i;
    slot->call.args[0] = i;
    slot->call.args[1] = 2 * i;
    slot->call.args[2] = 3 * i;
    writer.count_call(0, cursor);
    TraceWriter::publish_in_flight(slot, seq);
    writer.complete(slot, seq, false, cursor);
  }
  return true;
}

// `live`: written by this process, which goes on running; otherwise by a child that exits.
std::string make_trace(uint64_t records, bool live) {
  std::string path = "/tmp/cublasspy-reader-bench-" + std::to_string(getpid()) + "-" +
                     std::to_string(records) + ".cbt";
  unlink(path.c_str());
  if (live) return write_trace(path, records) ? path : "";
  pid_t child = fork();
  if (child == 0) _exit(write_trace(path, records) ? 0 : 1);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return "";
  return path;
}

// Anonymous (heap) memory now: what the reader itself holds. Mapped trace pages are page
// cache the kernel can drop, and are left out.
double anon_mib() {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  double kib = -1;
  while (fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "RssAnon:", 8) == 0) kib = std::atof(line + 8);
  }
  fclose(f);
  return kib / 1024.0;
}

void BM_ReadTrace(benchmark::State& state) {
  const uint64_t records = static_cast<uint64_t>(state.range(0));
  const bool live = state.range(1) != 0;
  std::string path = make_trace(records, live);
  if (path.empty()) {
    state.SkipWithError("cannot write the trace");
    return;
  }
  // Memory, in one untimed walk first: the process's anonymous memory, every 1024 records (its
  // peak; growth would hide memory the allocator kept from an earlier run).
  double anon_peak = anon_mib();
  {
    std::string error;
    auto trace = TraceFile::open(path, error);
    if (!trace || trace->quiescent() == live) {
      state.SkipWithError(trace ? "the reader chose the wrong way to read" : error.c_str());
      return;
    }
    uint64_t n = 0;
    trace->for_each_call([&](const CallView&) {
      if (++n % 1024 == 0) anon_peak = std::max(anon_peak, anon_mib());
    });
  }
  uint64_t sum = 0;
  for (auto _ : state) {
    std::string error;
    auto trace = TraceFile::open(path, error);
    trace->for_each_call([&](const CallView& c) { sum += c.rec().args[0]; });
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.counters["anon_peak_mib"] = anon_peak;
  unlink(path.c_str());
}
// The floor, in the same run: reading the same file's ring from the page cache in the reader's
// chunks (256 KiB), parsing nothing. No reader of the records can beat it.
void BM_ReadFileOnly(benchmark::State& state) {
  const uint64_t records = static_cast<uint64_t>(state.range(0));
  std::string path = make_trace(records, false);
  std::string error;
  auto trace = TraceFile::open(path, error);
  if (!trace) {
    state.SkipWithError(error.c_str());
    return;
  }
  const uint64_t ring_offset = trace->header().ring_offset;
  std::vector<char> chunk(256 * format::kRecordBytes);
  uint64_t sum = 0;
  for (auto _ : state) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    for (uint64_t at = 0; at < records * format::kRecordBytes; at += chunk.size()) {
      ssize_t n = pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(ring_offset + at));
      if (n <= 0) break;
      sum += static_cast<uint64_t>(chunk[0]);
    }
    ::close(fd);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  unlink(path.c_str());
}
BENCHMARK(BM_ReadFileOnly)->ArgName("records")->Arg(1 << 13)->Arg(1 << 14)->Arg(1 << 16)->Arg(1 << 18)
    ->Unit(benchmark::kMillisecond);

// What the writer side pays once per process: creating the trace file of the default ring
// (8192 records, 8.5 MB): reserving, filling and mapping it (TraceWriter::open).
void BM_CreateTrace(benchmark::State& state) {
  format::FunctionEntry fn{};
  std::strcpy(fn.name, "cublasSgemm_v2");
  const std::string path = "/tmp/cublasspy-create-bench-" + std::to_string(getpid()) + ".cbt";
  for (auto _ : state) {
    unlink(path.c_str());
    TraceWriter writer;
    OpenResult r = writer.open(path, 8192, &fn, 1, std::string("pid\0" "1\0", 6));
    if (!r.file_backed) {
      state.SkipWithError(r.warning.c_str());
      break;
    }
    state.PauseTiming();
    writer.abandon_after_fork();  // unmaps it
    state.ResumeTiming();
  }
  unlink(path.c_str());
}
BENCHMARK(BM_CreateTrace)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_ReadTrace)
    ->ArgNames({"records", "live"})
    ->ArgsProduct({{1 << 13, 1 << 14, 1 << 16, 1 << 18}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
