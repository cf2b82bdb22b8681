// How fast the reader streams a trace (issue 5's goal: at least 5 million records a second,
// memory flat in the trace's length). A trace of N completed records is written with the real
// TraceWriter, then opened and walked with TraceFile::for_each_call; items_per_second is
// records read per second, and heap_growth_mib the growth of the process's anonymous memory while reading
// (heap_growth_mib: the reader's own anonymous memory while reading; compare the sizes).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "process_info.h"
#include "trace_reader.h"
#include "trace_writer.h"

namespace {

using namespace cublasspy;

std::string make_trace(uint64_t records) {
  std::string path = "/tmp/cublasspy-reader-bench-" + std::to_string(getpid()) + "-" + std::to_string(records) + ".cbt";
  unlink(path.c_str());
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
  KeyValueBlob kv;
  kv.add("pid", "1");
  OpenResult r = writer.open(path, records, &fn, 1, kv.bytes());
  if (!r.ok || !r.file_backed) return "";
  format::RecordSlot local;
  for (uint64_t i = 0; i < records; ++i) {
    uint64_t seq;
    format::RecordSlot* slot = writer.claim(&seq, &local);
    slot->call.function_id = 0;
    slot->call.args[0] = i;
    slot->call.args[1] = 2 * i;
    slot->call.args[2] = 3 * i;
    writer.count_call(0, 0);
    TraceWriter::publish_in_flight(slot, seq);
    writer.complete(slot, seq, false, 0);
  }
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
  std::string path = make_trace(records);
  if (path.empty()) {
    state.SkipWithError("cannot write the trace");
    return;
  }
  uint64_t sum = 0;
  double anon_before = anon_mib();
  double anon_peak = anon_before;
  for (auto _ : state) {
    std::string error;
    auto trace = TraceFile::open(path, error);
    if (!trace) {
      state.SkipWithError(error.c_str());
      break;
    }
    trace->for_each_call([&](const CallView& c) {
      sum += c.rec().args[0];
      if ((sum & 0xffff) == 0) anon_peak = std::max(anon_peak, anon_mib());
    });
    anon_peak = std::max(anon_peak, anon_mib());
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.counters["heap_growth_mib"] = anon_peak - anon_before;
  unlink(path.c_str());
}
BENCHMARK(BM_ReadTrace)->Arg(1 << 14)->Arg(1 << 16)->Arg(1 << 18)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
