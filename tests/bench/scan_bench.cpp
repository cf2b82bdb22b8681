// CUBLASSPY_SCAN's costs. Run: <build>/bin/scan_bench [--benchmark_filter=...]
//
//   HostScan/...        the host path (scan_matrix_host) over operands in host memory: the
//                       throughput, in bytes of operand per second, of the element rules on a CPU.
//                       On a real GPU the host path also pays the device-to-host copy; on the
//                       stand-in it is the whole cost.
//   ScanKernelModel/... the GPU kernel's expected memory traffic for typical shapes (no GPU here):
//                       counters `read_bytes` (each element once, plus pointer array and result),
//                       `sector_bytes` (the same in the 32-byte sectors DRAM actually moves: what
//                       a gap between rows and ld costs), `host_copy_bytes` (what the host path
//                       would copy instead) and `us_at_4_8TBps` (sector bytes at H200 bandwidth).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "scan/host_scan.h"
#include "scan/scan_kernel_body.h"

namespace cublasspy {
namespace {

// Finite values of the type, random bits within the finite range, so branches see real data.
std::vector<unsigned char> finite_operand(DataType type, uint64_t elements) {
  ElementKind kind = *element_kind_of(type);
  const int part = scan::format_bytes(kind.format);
  std::vector<unsigned char> bytes(elements * kind.bytes());
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < bytes.size(); i += part) {
    uint64_t v;
    do {
      v = rng() & ((part == 8) ? ~0ull : ((1ull << (8 * part)) - 1));
    } while (scan::classify(kind.format, v) != scan::ElementClass::kFinite);
    std::memcpy(&bytes[i], &v, part);
  }
  return bytes;
}

void HostScan(benchmark::State& state, DataType type, int64_t rows, int64_t cols, int64_t ld,
              double nonfinite_fraction) {
  ElementKind kind = *element_kind_of(type);
  uint64_t extent = static_cast<uint64_t>((cols - 1) * ld + rows);
  std::vector<unsigned char> data = finite_operand(type, extent);
  if (nonfinite_fraction >= 1) {
    std::memset(data.data(), 0xff, data.size());  // 0xff.. is NaN in every format
  } else if (nonfinite_fraction > 0) {
    std::mt19937 rng(5);
    uint64_t bad = static_cast<uint64_t>(nonfinite_fraction * rows * cols);
    for (uint64_t i = 0; i < bad; ++i) {
      std::memset(&data[(rng() % extent) * kind.bytes()], 0xff, kind.bytes());  // NaN in every format
    }
  }
  for (auto _ : state) {
    format::ScanSummary s = scan_matrix_host(data.data(), type, rows, cols, ld, 1, 0);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * rows * cols * kind.bytes());
}

void ScanKernelModel(benchmark::State& state, DataType type, uint64_t rows, uint64_t cols,
                     uint64_t ld, uint64_t batch, bool pointer_array) {
  const uint64_t eb = static_cast<uint64_t>(element_kind_of(type)->bytes());
  uint64_t sectors = 0;
  for (auto _ : state) {
    // Members and columns start where cudaMalloc'd, densely strided storage puts them.
    sectors = 0;
    for (uint64_t b = 0; b < batch; ++b) {
      uint64_t member = pointer_array ? 0 : b * ((cols - 1) * ld + rows) * eb;
      for (uint64_t c = 0; c < cols; ++c) {
        uint64_t start = member + c * ld * eb, end = start + rows * eb;
        sectors += (end + 31) / 32 - start / 32;
      }
    }
    benchmark::DoNotOptimize(sectors);
  }
  const double read = static_cast<double>(scan::scan_kernel_bytes(eb, rows, cols, batch, pointer_array));
  const double sector_bytes = static_cast<double>(sectors * 32 + sizeof(scan::ScanTally));
  state.counters["read_bytes"] = read;
  state.counters["sector_bytes"] = sector_bytes;
  state.counters["host_copy_bytes"] = static_cast<double>(((cols - 1) * ld + rows) * eb * batch);
  state.counters["us_at_4_8TBps"] = sector_bytes / 4.8e12 * 1e6;
}

void register_all() {
  struct Case {
    const char* name;
    DataType type;
  };
  const Case cases[] = {{"f32", DataType::kR32F}, {"f16", DataType::kR16F},
                        {"bf16", DataType::kR16BF}, {"f64", DataType::kR64F},
                        {"e4m3", DataType::kR8F_E4M3}, {"c32f", DataType::kC32F}};
  for (const Case& c : cases) {
    benchmark::RegisterBenchmark((std::string("HostScan/") + c.name + "/2048x2048").c_str(),
                                 HostScan, c.type, 2048, 2048, 2048, 0.0)
        ->Unit(benchmark::kMillisecond);
  }
  // 64 MiB: beyond the caches, what main memory allows.
  benchmark::RegisterBenchmark("HostScan/f16/8192x4096", HostScan, DataType::kR16F, 8192, 4096,
                               8192, 0.0)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("HostScan/f16/2000x2048_ld2048", HostScan, DataType::kR16F, 2000,
                               2048, 2048, 0.0)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("HostScan/f16/2048x2048_1pct_nan", HostScan, DataType::kR16F, 2048,
                               2048, 2048, 0.01)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("HostScan/f32/2048x2048_all_nan", HostScan, DataType::kR32F, 2048,
                               2048, 2048, 1.0)->Unit(benchmark::kMillisecond);

  benchmark::RegisterBenchmark("ScanKernelModel/f16/4096x4096", ScanKernelModel, DataType::kR16F,
                               4096, 4096, 4096, 1, false);
  benchmark::RegisterBenchmark("ScanKernelModel/f16/4000x4096_ld4096", ScanKernelModel,
                               DataType::kR16F, 4000, 4096, 4096, 1, false);
  benchmark::RegisterBenchmark("ScanKernelModel/bf16/8x4096_ld4096", ScanKernelModel,
                               DataType::kR16BF, 8, 4096, 4096, 1, false);
  benchmark::RegisterBenchmark("ScanKernelModel/f32/128x128x512_batched", ScanKernelModel,
                               DataType::kR32F, 128, 128, 128, 512, true);
  benchmark::RegisterBenchmark("ScanKernelModel/e4m3/8192x8192", ScanKernelModel,
                               DataType::kR8F_E4M3, 8192, 8192, 8192, 1, false);
}

}  // namespace
}  // namespace cublasspy

int main(int argc, char** argv) {
  cublasspy::register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
