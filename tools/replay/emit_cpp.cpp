// The C++ reproducer: one file, the CUDA headers and libraries only. Its operands get the same
// seeded values as the runner's (cpp_prelude.cpp's generator and encoders are element_codec.cpp's,
// written out), so a bug report's program and `cublasspy replay` compute the same thing.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/cuda_names.h"
#include "replay/cpp_prelude.h"
#include "replay/emitters.h"
#include "gemm/gemm_call.h"
#include "replay/hook_signatures.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A dump's path as the reproducer opens it: absolute, so it runs from any directory.
std::string dump_file(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return quote(error ? path : absolute.lexically_normal().string());
}

std::string op_name(int64_t op) { return op == 1 ? "CUBLAS_OP_T" : op == 2 ? "CUBLAS_OP_C" : "CUBLAS_OP_N"; }

// The enumerator CUDA names `v` by, or a cast of the number when none does.
std::string enumerator(NameSet set, const std::string& type, int64_t v) {
  const char* name = cuda_name(set, v);
  return name != nullptr ? std::string(name) : "static_cast<" + type + ">(" + std::to_string(v) + ")";
}

// A literal of the parameter's C type.
std::string literal(const std::string& type, int64_t v) {
  if (type == "cublasOperation_t") return op_name(v);
  if (type == "cudaDataType" || type == "cudaDataType_t") return enumerator(NameSet::kDataType, type, v);
  if (type == "cublasComputeType_t") return enumerator(NameSet::kComputeType, type, v);
  if (type == "cublasGemmAlgo_t") return enumerator(NameSet::kGemmAlgo, type, v);
  if (type == "char") return std::string("'") + static_cast<char>(v) + "'";
  std::string text = std::to_string(v);
  if (v > INT_MAX || v < INT_MIN) text += "LL";
  return text;
}

// The C type of a scalar of cudaDataType t, and its value as an expression.
std::string scalar_ctype(int t) {
  switch (t) {
    case 1: return "double";
    case 4: return "cuComplex";
    case 5: return "cuDoubleComplex";
    default: return "float";
  }
}
std::string scalar_value(int t, const std::array<double, 2>& v) {
  std::ostringstream s;
  s.precision(17);
  switch (t) {
    case 1: s << v[0]; break;
    case 4: s << "make_cuComplex(" << v[0] << "f, " << v[1] << "f)"; break;
    case 5: s << "make_cuDoubleComplex(" << v[0] << ", " << v[1] << ")"; break;
    default: s << static_cast<float>(v[0]) << "f"; break;
  }
  std::string text = s.str();
  // "1f" is not a C++ literal: give whole numbers a decimal point.
  if (t != 1 && t != 4 && t != 5 && text.find_first_of(".e") == std::string::npos) text.insert(text.size() - 1, ".0");
  return text;
}

std::string strip_pointer(std::string type) {
  if (type.rfind("const ", 0) == 0) type = type.substr(6);
  while (!type.empty() && (type.back() == '*' || type.back() == ' ')) type.pop_back();
  return type;
}

class CppWriter {
 public:
  CppWriter(const ReplayPlan& p, const EmitContext& c) : p_(p), c_(c) {}

  std::string write() {
    const FunctionSignature* sig = find_signature(p_.function);
    header();
    out_ << kCppPrelude << "\nint main() {\n";
    out_ << "  const uint64_t seed = " << p_.seed << ";  // cublasspy replay --seed\n";
    out_ << "  (void)seed;\n";
    handle();
    operands();
    scalars();
    extras();
    call(sig);
    out_ << "}\n";
    return out_.str();
  }

 private:
  bool legacy() const { return p_.kind == CallKind::kLegacyGemm; }
  std::string binary_name() const {
    const std::string& f = c_.cpp_file_name;
    return f.size() > 4 && f.substr(f.size() - 4) == ".cpp" ? f.substr(0, f.size() - 4) : f + ".bin";
  }
  bool lt() const { return p_.kind == CallKind::kLtMatmul; }
  bool xt() const { return p_.kind == CallKind::kXtGemm; }

  void header() {
    out_ << "// Reproducer of call " << c_.seq << " of " << c_.trace_path << ": " << p_.function << " (in the program: "
         << c_.original_outcome << ").\n"
         << "// Written by `cublasspy replay --emit-cpp`: the captured arguments and handle state, operands filled\n"
         << "// with the replay's seeded values. Build and run:\n"
         << "//   " << cpp_build_command(c_.cpp_file_name) << "\n"
         << "//   ./" << binary_name() << "    (exit status 0: the call succeeded; 1: it failed, and it says where)\n";
    for (const std::string& n : c_.notes) out_ << "// Note: " << n << "\n";
    out_ << "#include <cerrno>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
         << "#include <limits>\n#include <vector>\n\n#include <cuComplex.h>\n#include <cuda_runtime_api.h>\n"
         << (legacy() ? "#include <cublas.h>\n" : "#include <cublas_v2.h>\n");
    if (lt()) out_ << "#include <cublasLt.h>\n";
    if (xt()) out_ << "#include <cublasXt.h>\n";
  }

  void handle() {
    if (p_.own_stream) {
      out_ << "  cudaStream_t stream = nullptr;\n"
           << "  if (!cuda_ok(cudaStreamCreate(&stream), \"cudaStreamCreate\")) return 1;\n";
    } else if (lt()) {
      out_ << "  cudaStream_t stream = nullptr;  // the default stream, as in the program\n";
    }
    if (legacy()) {
      out_ << "  if (!cublas_ok(cublasInit(), \"cublasInit\")) return 1;\n";
    } else if (xt()) {
      out_ << "  cublasXtHandle_t handle = nullptr;\n"
           << "  if (!cublas_ok(cublasXtCreate(&handle), \"cublasXtCreate\")) return 1;\n"
           << "  int devices[1] = {0};\n"
           << "  if (!cublas_ok(cublasXtDeviceSelect(handle, 1, devices), \"cublasXtDeviceSelect\")) return 1;\n";
    } else if (lt()) {
      out_ << "  cublasLtHandle_t handle = nullptr;\n"
           << "  if (!cublas_ok(cublasLtCreate(&handle), \"cublasLtCreate\")) return 1;\n";
    } else {
      out_ << "  cublasHandle_t handle = nullptr;\n"
           << "  if (!cublas_ok(cublasCreate(&handle), \"cublasCreate\")) return 1;\n";
      if (p_.own_stream) out_ << "  if (!cublas_ok(cublasSetStream(handle, stream), \"cublasSetStream\")) return 1;\n";
      if (p_.kind != CallKind::kGemmGrouped) {
        out_ << "  if (!cublas_ok(cublasSetPointerMode(handle, "
             << (p_.pointer_mode == 1 ? "CUBLAS_POINTER_MODE_DEVICE" : "CUBLAS_POINTER_MODE_HOST")
             << "), \"cublasSetPointerMode\")) return 1;\n";
      }
      if (p_.math_mode >= 0) {
        out_ << "  if (!cublas_ok(cublasSetMathMode(handle, static_cast<cublasMath_t>(" << p_.math_mode
             << ")), \"cublasSetMathMode\")) return 1;  // " << math_mode_text(p_.math_mode) << "\n";
      }
      if (p_.workspace_bytes > 0) {
        out_ << "  void* workspace = nullptr;\n"
             << "  if (!cuda_ok(cudaMalloc(&workspace, " << p_.workspace_bytes << "), \"cudaMalloc (workspace)\")) return 1;\n"
             << "  if (!cublas_ok(cublasSetWorkspace(handle, workspace, " << p_.workspace_bytes
             << "), \"cublasSetWorkspace\")) return 1;\n";
      }
    }
  }

  void operands() {
    for (const OperandPlan& o : p_.operands) {
      const std::string type = name_or_number(NameSet::kDataType, o.data_type);
      out_ << "\n  // " << o.name << ": " << type << ", " << o.rows << " x " << o.cols << " as stored, ld " << o.ld
           << (o.row_order ? " (row order)" : "");
      if (o.members > 1) out_ << ", " << o.members << " members" << (o.pointer_array ? " apart" : ", stride " + std::to_string(o.stride));
      out_ << "\n";
      if (o.null) {
        out_ << "  void* " << o.name << " = nullptr;  // the program passed a null pointer\n";
        continue;
      }
      if (!o.same_memory_as.empty()) {
        out_ << "  void* " << o.name << " = " << o.same_memory_as << ";  // the same address as in the program\n";
        continue;
      }
      const uint64_t members = o.pointer_array ? static_cast<uint64_t>(std::max<int64_t>(o.members, 1)) : 1;
      uint64_t bytes = o.bytes();
      // An operand another one shares spans both extents.
      for (const OperandPlan& other : p_.operands) {
        if (other.same_memory_as == o.name) bytes = std::max(bytes, other.bytes());
      }
      out_ << "  std::vector<unsigned char> host_" << o.name << " = values(" << o.data_type << ", " << bytes * members
           << ", seed, " << quote(o.name) << (o.fill == Fill::kOnes ? ", true" : "") << ");\n";
      load_pieces("host_" + o.name, o.name, o.dump, bytes);
      if (xt()) {
        out_ << "  void* " << o.name << " = host_" << o.name << ".data();  // cublasXt takes host memory\n";
      } else if (o.pointer_array) {
        out_ << "  std::vector<void*> " << o.name << "_members(" << members << ");\n"
             << "  for (size_t i = 0; i < " << o.name << "_members.size(); ++i) " << o.name << "_members[i] = to_device(host_"
             << o.name << ", i * " << bytes << ", " << bytes << ", 0);\n"
             << "  void* " << o.name << " = nullptr;  // the device array of the members' addresses\n"
             << "  if (!cuda_ok(cudaMalloc(&" << o.name << ", " << members << " * sizeof(void*)), \"cudaMalloc\")) return 1;\n"
             << "  if (!cuda_ok(cudaMemcpy(" << o.name << ", " << o.name << "_members.data(), " << members
             << " * sizeof(void*), cudaMemcpyHostToDevice), \"cudaMemcpy\")) return 1;\n";
      } else {
        out_ << "  void* " << o.name << " = to_device(host_" << o.name << ", 0, " << bytes << ", " << o.misalignment << ");";
        out_ << (o.misalignment ? "  // misaligned as in the program\n" : "\n");
      }
    }
  }

  // The captured values over the seeded ones (--data dump): each piece's members, `stride` bytes
  // apart in the host buffer.
  void load_pieces(const std::string& host, const std::string& what, const std::vector<DumpPiece>& pieces, uint64_t stride) {
    for (const DumpPiece& d : pieces) {
      const std::string label = p_.groups.size() > 1 ? what + " of group " + std::to_string(group_of(d.first_member)) : what;
      out_ << "  load_dump(" << host << ", " << quote(label) << ", " << dump_file(d.path) << ", " << d.offset << ", "
           << static_cast<uint64_t>(d.first_member) * stride << ", " << d.member_bytes << ", " << d.members << ", " << stride
           << ");\n";
    }
  }
  size_t group_of(int64_t member) const {
    for (size_t g = 0; g < p_.groups.size(); ++g) {
      if (member < p_.groups[g].size) return g;
      member -= p_.groups[g].size;
    }
    return 0;
  }

  // After the call: the result against the program's (its dumps), element by element, bit for bit.
  void compare_with_program() {
    const OperandPlan* out = p_.operand(lt() ? "d" : "c");
    if (out == nullptr || out->program_result.empty() || xt() || legacy()) return;
    const OperandPlan* owner = out->same_memory_as.empty() ? out : p_.operand(out->same_memory_as);
    if (owner == nullptr || owner->null) return;
    const std::string name = owner->name;
    uint64_t stride = owner->bytes();  // as operands() laid the host buffer out
    for (const OperandPlan& other : p_.operands) {
      if (other.same_memory_as == owner->name) stride = std::max(stride, other.bytes());
    }
    const size_t elem = static_cast<size_t>(element_bytes(static_cast<DataType>(out->data_type)));
    out_ << "\n  // The result against the program's, as dumped after its call: the same inputs give the same bits\n"
         << "  std::vector<unsigned char> result(host_" << name << ".size()), program(host_" << name << ".size());\n";
    if (out->pointer_array) {
      out_ << "  for (size_t i = 0; i < " << name << "_members.size(); ++i) {\n"
           << "    if (!cuda_ok(cudaMemcpy(result.data() + i * " << stride << ", " << name << "_members[i], " << stride
           << ", cudaMemcpyDeviceToHost), \"cudaMemcpy (result)\")) return 1;\n  }\n";
    } else {
      out_ << "  if (!cuda_ok(cudaMemcpy(result.data(), " << name
           << ", result.size(), cudaMemcpyDeviceToHost), \"cudaMemcpy (result)\")) return 1;\n";
    }
    out_ << "  size_t compared = 0, identical = 0;\n";
    for (const DumpPiece& d : out->program_result) {
      // The piece's shape: its group's (grouped calls), else the call's.
      int64_t m = p_.m, n = p_.n, ld = out->ld, members = std::max<int64_t>(out->members, 1);
      if (p_.kind == CallKind::kGemmGrouped && !p_.groups.empty()) {
        const GroupPlan& g = p_.groups[group_of(d.first_member)];
        m = g.m, n = g.n, ld = g.ldc, members = d.members;
      }
      const uint64_t member_stride = out->pointer_array ? stride : static_cast<uint64_t>(std::max<int64_t>(out->stride, 0)) * elem;
      const std::string label = std::string("the program's result") +
                                (p_.groups.size() > 1 ? " of group " + std::to_string(group_of(d.first_member)) : "");
      out_ << "  if (load_dump(program, " << quote(label) << ", " << dump_file(d.path) << ", " << d.offset << ", "
           << static_cast<uint64_t>(d.first_member) * stride << ", " << d.member_bytes << ", " << d.members << ", " << stride
           << ")) {\n"
           << "    compared += " << static_cast<uint64_t>(members * m * n) << ";\n"
           << "    identical += same_elements(result, program, " << static_cast<uint64_t>(d.first_member) * stride << ", "
           << members << ", " << member_stride << ", " << m << ", " << n << ", " << ld << ", " << elem << ");\n  }\n";
    }
    out_ << "  std::printf(\"the program's result: %zu of %zu elements identical\\n\", identical, compared);\n";
  }

  void scalars() {
    if (p_.quantized) return;
    const std::string ctype = scalar_ctype(p_.scalar_type);
    if (legacy()) {
      out_ << "\n  // alpha and beta, passed by value\n"
           << "  const " << ctype << " alpha = " << scalar_value(p_.scalar_type, p_.alpha) << ";\n"
           << "  const " << ctype << " beta = " << scalar_value(p_.scalar_type, p_.beta) << ";\n";
      return;
    }
    out_ << "\n  // alpha and beta, as " << name_or_number(NameSet::kDataType, p_.scalar_type) << "\n"
         << "  alignas(16) unsigned char alpha_bytes[16] = {}, beta_bytes[16] = {};\n";
    for (int part = 0; part < (is_complex(static_cast<DataType>(p_.scalar_type)) ? 2 : 1); ++part) {
      std::ostringstream a, b;
      a.precision(17);
      b.precision(17);
      a << p_.alpha[part];
      b << p_.beta[part];
      out_ << "  encode(" << p_.scalar_type << ", alpha_bytes, " << part << ", " << a.str() << ");\n"
           << "  encode(" << p_.scalar_type << ", beta_bytes, " << part << ", " << b.str() << ");\n";
    }
    out_ << "  void* alpha = alpha_bytes;\n  void* beta = beta_bytes;\n";
    const bool device = p_.pointer_mode == 1 && p_.kind != CallKind::kGemmGrouped && !xt();
    if (device) {
      out_ << "  // device pointer mode: the scalars live in device memory\n"
           << "  std::vector<unsigned char> scalar_alpha(alpha_bytes, alpha_bytes + 16), scalar_beta(beta_bytes, beta_bytes + 16);\n"
           << "  alpha = to_device(scalar_alpha, 0, 16, 0);\n  beta = to_device(scalar_beta, 0, 16, 0);\n";
    }
  }

  void extras() {
    if (!lt()) return;
    out_ << "\n  // The cuBLASLt descriptors, as the program had set them\n"
         << "  cublasLtMatmulDesc_t compute_desc = nullptr;\n"
         << "  if (!cublas_ok(cublasLtMatmulDescCreate(&compute_desc, " << literal("cublasComputeType_t", p_.lt.compute_type)
         << ", " << literal("cudaDataType", p_.lt.scale_type) << "), \"cublasLtMatmulDescCreate\")) return 1;\n"
         << "  const cublasOperation_t transa = " << op_name(p_.transa) << ", transb = " << op_name(p_.transb) << ";\n"
         << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), \"TRANSA\")) return 1;\n"
         << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), \"TRANSB\")) return 1;\n";
    if (p_.pointer_mode == 1) {
      out_ << "  const int32_t pointer_mode = CUBLASLT_POINTER_MODE_DEVICE;\n"
           << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pointer_mode, sizeof pointer_mode), \"POINTER_MODE\")) return 1;\n";
    }
    if (p_.lt.epilogue != 1) {
      out_ << "  const uint32_t epilogue = " << p_.lt.epilogue << ";\n"
           << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), \"EPILOGUE\")) return 1;\n";
    }
    if (const OperandPlan* bias = p_.operand("bias")) {
      out_ << "  const int32_t bias_type = " << bias->data_type << ";\n"
           << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), \"BIAS_POINTER\")) return 1;\n"
           << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type), \"BIAS_DATA_TYPE\")) return 1;\n";
    }
    for (const char* scale : {"a_scale", "b_scale", "d_scale"}) {
      if (p_.operand(scale) == nullptr) continue;
      std::string attr = std::string(scale).substr(0, 1);
      for (char& ch : attr) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      out_ << "  if (!cublas_ok(cublasLtMatmulDescSetAttribute(compute_desc, CUBLASLT_MATMUL_DESC_" << attr
           << "_SCALE_POINTER, &" << scale << ", sizeof " << scale << "), \"" << attr << "_SCALE_POINTER\")) return 1;\n";
    }
    for (const char* name : {"a", "b", "c", "d"}) {
      const OperandPlan* o = p_.operand(name);
      if (o == nullptr) continue;
      out_ << "  cublasLtMatrixLayout_t " << name << "desc = nullptr;\n"
           << "  if (!cublas_ok(cublasLtMatrixLayoutCreate(&" << name << "desc, " << literal("cudaDataType", o->data_type) << ", "
           << o->rows << ", " << o->cols << ", " << o->ld << "), \"cublasLtMatrixLayoutCreate\")) return 1;\n";
      if (o->row_order) {
        out_ << "  { const int32_t order = CUBLASLT_ORDER_ROW;\n"
             << "    if (!cublas_ok(cublasLtMatrixLayoutSetAttribute(" << name
             << "desc, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order), \"ORDER\")) return 1; }\n";
      }
      if (o->members > 1) {
        out_ << "  { const int32_t count = " << o->members << "; const int64_t stride = " << o->stride << ";\n"
             << "    if (!cublas_ok(cublasLtMatrixLayoutSetAttribute(" << name
             << "desc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count), \"BATCH_COUNT\")) return 1;\n"
             << "    if (!cublas_ok(cublasLtMatrixLayoutSetAttribute(" << name
             << "desc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride), \"STRIDED_BATCH_OFFSET\")) return 1; }\n";
      }
    }
    out_ << "  void* workspace = nullptr;\n";
    if (p_.lt.workspace_bytes > 0) {
      out_ << "  if (!cuda_ok(cudaMalloc(&workspace, " << p_.lt.workspace_bytes << "), \"cudaMalloc (workspace)\")) return 1;\n";
    }
    if (p_.lt.algo.size() == 8) {
      // The bytes are the library's own encoding: valid for the cuBLASLt version that made them.
      out_ << "  const cublasLtMatmulAlgo_t algo = {{";
      for (size_t i = 0; i < 8; ++i) out_ << (i ? ", " : "") << "0x" << std::hex << p_.lt.algo[i] << std::dec << "ull";
      out_ << "}};  // the program's preset algorithm, as recorded\n";
    }
  }

  // One argument, by the parameter's trace name and C type.
  std::string argument(const ParamSignature& param) {
    const std::string& n = param.report_name;
    const std::string& type = param.type;
    const bool pointer = type.find('*') != std::string::npos;
    if (n == "handle") return "handle";
    if (lt()) {
      if (n == "compute_desc" || n == "adesc" || n == "bdesc" || n == "cdesc" || n == "ddesc" || n == "stream" ||
          n == "workspace")
        return n;
      if (n == "algo") {
        return p_.lt.algo.size() == 8 ? std::string("&algo  /* the program's preset algorithm, as recorded */")
                                      : std::string("nullptr  /* the program let cuBLASLt pick */");
      }
      if (n == "workspace_size_in_bytes") return std::to_string(p_.lt.workspace_bytes);
    }
    if (p_.operand(n) != nullptr && pointer) return "static_cast<" + type + ">(" + n + ")";
    if (n == "alpha" || n == "beta") return legacy() ? n : "static_cast<" + type + ">(" + n + ")";
    if (p_.kind == CallKind::kGemmGrouped && pointer) {
      const std::string elem = strip_pointer(type);
      if (n == "alpha_array" || n == "beta_array") {
        // The scalars in their storage type (fp16 for a CUBLAS_COMPUTE_16F call), one per group.
        const int bytes = element_bytes(static_cast<DataType>(p_.scalar_type));
        grouped_arrays_ << "  alignas(16) unsigned char " << n << "[" << p_.groups.size() * static_cast<size_t>(bytes)
                        << "] = {};\n";
        for (size_t i = 0; i < p_.groups.size(); ++i) {
          std::ostringstream v;
          v.precision(17);
          v << (n == "alpha_array" ? p_.groups[i].alpha : p_.groups[i].beta);
          grouped_arrays_ << "  encode(" << p_.scalar_type << ", " << n << " + " << i * static_cast<size_t>(bytes) << ", 0, "
                          << v.str() << ");\n";
        }
        return "static_cast<" + type + ">(static_cast<const void*>(" + n + "))";
      }
      // One entry per group, in the program's order.
      std::vector<std::string> entries;
      for (const GroupPlan& g : p_.groups) {
        const std::map<std::string, int64_t> fields = {
            {"transa_array", g.transa}, {"transb_array", g.transb}, {"m_array", g.m},   {"n_array", g.n},
            {"k_array", g.k},           {"lda_array", g.lda},       {"ldb_array", g.ldb}, {"ldc_array", g.ldc},
            {"group_size", g.size}};
        auto it = fields.find(n);
        entries.push_back(it == fields.end() ? "0 /* not recorded */" : literal(elem, it->second));
      }
      grouped_arrays_ << "  const " << elem << " " << n << "[" << p_.groups.size() << "] = {";
      for (size_t i = 0; i < entries.size(); ++i) grouped_arrays_ << (i ? ", " : "") << entries[i];
      grouped_arrays_ << "};\n";
      return "static_cast<" + type + ">(" + n + ")";
    }
    if (n == "group_count") return std::to_string(p_.groups.size()) + "  /* groups */";
    auto it = p_.values.find(n);
    if (it == p_.values.end()) return "0 /* not recorded */";
    return literal(type, it->second);
  }

  void call(const FunctionSignature* sig) {
    std::vector<std::string> args;
    for (const ParamSignature& param : sig->params) args.push_back(argument(param));
    out_ << grouped_arrays_.str();
    out_ << "\n  // The captured call\n";
    if (legacy()) {
      out_ << "  " << p_.function << "(";
    } else {
      out_ << "  const cublasStatus_t status = " << p_.function << "(";
    }
    for (size_t i = 0; i < args.size(); ++i) {
      out_ << (i ? "," : "") << "\n      " << args[i] << "  /* " << sig->params[i].c_name << " */";
    }
    out_ << ");\n";
    if (legacy()) out_ << "  const cublasStatus_t status = cublasGetError();\n";
    out_ << "  std::printf(\"" << p_.function << ": %s (%d)\\n\", cublasGetStatusName(status), static_cast<int>(status));\n"
         << "  const cudaError_t sync = " << (p_.own_stream ? "cudaStreamSynchronize(stream)" : "cudaDeviceSynchronize()")
         << ";\n"
         << "  if (sync != cudaSuccess) {\n"
         << "    std::printf(\"synchronizing after the call: %s (%d): %s\\n\", cudaGetErrorName(sync), static_cast<int>(sync),\n"
         << "                cudaGetErrorString(sync));\n  }\n"
         << "  if (status != CUBLAS_STATUS_SUCCESS || sync != cudaSuccess) return 1;\n";
    compare_with_program();
    out_ << "  return 0;\n";
  }

  const ReplayPlan& p_;
  const EmitContext& c_;
  std::ostringstream out_;
  std::ostringstream grouped_arrays_;
};

}  // namespace

std::string emit_cpp(const ReplayPlan& plan, const EmitContext& context) { return CppWriter(plan, context).write(); }

std::string cpp_build_command(const std::string& source_path) {
  const char* home = std::getenv("CUDA_HOME");
  const std::string cuda = home && *home ? home : "/usr/local/cuda";
  std::string out = source_path;
  if (out.size() > 4 && out.substr(out.size() - 4) == ".cpp") out.resize(out.size() - 4);
  else out += ".bin";
  return "g++ -std=c++17 -O1 " + source_path + " -I" + cuda + "/include -L" + cuda + "/lib64 -Wl,-rpath," + cuda +
         "/lib64 -lcublas -lcublasLt -lcudart -o " + out;
}

}  // namespace cublasspy::replay
