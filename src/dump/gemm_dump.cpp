#include "dump/gemm_dump.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <vector>

#include "common/cuda_names.h"
#include "cuda_driver/stream_wait.h"
#include "dump/npy_writer.h"

namespace cublasspy {
namespace {

constexpr const char* kOperandNames[4] = {"a", "b", "c", "d"};

class NpySink : public MatrixSink {
 public:
  NpySink(NpyFile& file, uint64_t element_bytes) : file_(file), element_bytes_(element_bytes) {}
  bool consume(const void* data, uint64_t, uint64_t count, uint64_t) override {
    return file_.append(data, count * element_bytes_);
  }

 private:
  NpyFile& file_;
  uint64_t element_bytes_;
};

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

const char* op_name(int op) { return op == 1 ? "T" : op == 2 ? "C" : "N"; }

// The JSON beside an operand's .npy: enough to rebuild the matrix view and to know what it is.
std::string metadata_json(const GemmCall& g, const GemmDumpRequest& request, int index,
                          const NpyDtype& dtype, uint64_t elements, uint64_t file_stride) {
  const Matrix& m = g.op[index];
  bool is_output = index == 3 || (index == 2 && g.output_is_c);
  bool raw_bits = m.type == DataType::kR16BF || m.type == DataType::kC16BF ||
                  m.type == DataType::kR8F_E4M3 || m.type == DataType::kR8F_E5M2 || m.packed_fp4;
  std::string j = "{\n";
  auto field = [&](const char* key, const std::string& value, bool last = false) {
    j += std::string("  \"") + key + "\": " + value + (last ? "\n" : ",\n");
  };
  auto text = [](const std::string& s) { return "\"" + s + "\""; };
  field("function", text(request.function));
  field("seq", std::to_string(request.seq));
  field("operand", text(kOperandNames[index]));
  const DataType stored = m.packed_fp4 ? DataType::kR4F_E2M1 : m.type;
  const char* type = cuda_name(NameSet::kDataType, static_cast<int>(stored));
  field("type", text(type ? type : "unknown"));
  // E2M1 is dumped as the bytes it occupies: rows, ld and strides below count bytes.
  if (m.packed_fp4) {
    field("packing", text("two CUDA_R_4F_E2M1 elements a byte, the first in the low nibble; "
                          "rows, ld and stride count bytes"));
  }
  field("npy_dtype", text(dtype.descr));
  field("raw_bits", raw_bits ? "true" : "false");
  field("element_bytes", std::to_string(element_bytes(m.type)));
  field("rows", std::to_string(m.rows));
  field("cols", std::to_string(m.cols));
  field("batch", std::to_string(g.batch_count));
  field("ld", std::to_string(m.ld));
  field("stride", std::to_string(file_stride));
  field("call_stride", std::to_string(m.stride));
  field("pointer_array", g.pointer_arrays ? "true" : "false");
  // cuBLASLt planar complex: the device held two planes; the file holds (re, im) pairs.
  field("plane_offset", std::to_string(m.plane_offset));
  field("elements", std::to_string(elements));
  field("layout", text("column-major: element (row r, col c, batch b) is flat[b*stride + c*ld + r]"));
  field("address", text(hex(g.pointer_arrays ? m.array_ptr : m.ptr)));
  field("m", std::to_string(g.m));
  field("n", std::to_string(g.n));
  field("k", std::to_string(g.k));
  field("transa", text(op_name(g.trans_a)));
  field("transb", text(op_name(g.trans_b)));
  field("is_output", is_output ? "true" : "false");
  field("captured", text(is_output ? "after the call: the result" : "after the call"));
  field("call_failed_or_flagged", request.failed ? "true" : "false", true);
  return j + "}\n";
}

}  // namespace

bool DumpBudget::reserve(uint64_t bytes) {
  uint64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ || used > limit_ - bytes) return false;
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

GemmDumpResult dump_gemm(const DriverApi& api, const GemmCall& g, const GemmDumpRequest& request,
                         DumpBudget& budget) {
  GemmDumpResult result;
  if (!g.valid || !api.can_copy()) return result;
  if (stream_is_capturing(api, request.stream)) {
    result.skipped_capture = true;
    return result;
  }
  // Its waits, copies and launches never count against another thread's global capture.
  const RelaxedCaptureMode relaxed(api);
  auto fail = [&](const std::string& why) {
    result.failed++;
    if (result.error.empty()) result.error = why;
  };
  CUresult sync = api.stream_synchronize(reinterpret_cast<CUstream>(request.stream));
  if (sync != CUDA_SUCCESS) {
    fail("the stream reports " + name_and_number(NameSet::kCuResult, sync));
    return result;
  }
  for (int i = 0; i < 4; ++i) {
    if (i == 3 && g.output_is_c) break;  // D is C: already written as "c"
    const Matrix& m = g.op[i];
    std::optional<NpyDtype> dtype = npy_dtype_for(m.type);
    uint64_t member = member_extent_elements(m);
    // cuBLASLt's row and tiled orders are not dumped: a column-major .npy would misrepresent
    // them. A planar complex operand is (its planes interleaved by read_matrix, docs/SCAN.md).
    if (!m.present || !dtype || member == 0 || g.batch_count < 1 || m.stride < 0 || !m.column_major()) {
      continue;
    }
    if ((g.pointer_arrays ? m.array_ptr : m.ptr) == 0) continue;
    const uint64_t batch = static_cast<uint64_t>(g.batch_count);
    // The file holds the exact extent: strided members with whatever lies between them, or the
    // members of a pointer array one after the other.
    uint64_t file_stride = g.pointer_arrays ? member
                           : batch > 1      ? static_cast<uint64_t>(m.stride)
                                            : 0;
    uint64_t elements = 0, bytes = 0;
    const uint64_t item = static_cast<uint64_t>(element_bytes(m.type));
    bool overflow =
        member == kExtentOverflow ||
        (g.pointer_arrays ? __builtin_mul_overflow(member, batch, &elements)
                          : (__builtin_mul_overflow(batch - 1, file_stride, &elements) ||
                             __builtin_add_overflow(elements, member, &elements))) ||
        __builtin_mul_overflow(elements, item, &bytes);
    if (overflow || !budget.reserve(bytes)) {
      result.over_budget++;
      continue;
    }
    const std::string base = request.prefix + "." + kOperandNames[i];
    std::vector<uint64_t> shape{elements};
    if (dtype->parts == 2) shape.push_back(2);
    NpyFile file;
    std::string error;
    if (!file.create(base + ".npy", dtype->descr, shape, &error)) {
      budget.give_back(bytes);
      fail(error);
      continue;
    }
    NpySink sink(file, item);
    CUresult read;
    if (g.pointer_arrays) {
      read = read_matrix(api, m, g.batch_count, true, request.chunk_bytes, sink, true);
    } else {
      Matrix flat;  // the whole strided extent as one column
      flat.ptr = m.ptr;
      flat.type = m.type;
      flat.plane_offset = m.plane_offset;  // element j of each plane: j * element_bytes / 2 in
      flat.rows = flat.ld = static_cast<int64_t>(elements);
      flat.cols = 1;
      flat.present = true;
      read = read_matrix(api, flat, 1, false, request.chunk_bytes, sink, true);
    }
    bool closed = file.close();
    std::string json = metadata_json(g, request, i, *dtype, elements, file_stride);
    if (read != CUDA_SUCCESS || !closed || !write_new_file(base + ".json", json, &error)) {
      ::unlink((base + ".npy").c_str());
      budget.give_back(bytes);
      if (read != CUDA_SUCCESS) {
        fail(std::string(kOperandNames[i]) + ": copy failed: " + name_and_number(NameSet::kCuResult, read));
      } else {
        fail(closed ? error : base + ".npy: write failed");
      }
      continue;
    }
    result.written++;
  }
  return result;
}

}  // namespace cublasspy
