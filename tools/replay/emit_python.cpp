// The PyTorch reproducer: the same GEMM, expressed with torch over as_strided views of each
// operand's whole strided extent (column-major: element (r, c) of member b at b*stride + r + c*ld),
// so the shapes, strides and dtypes are the program's. It is "the same GEMM", not the same call:
// PyTorch picks its own cuBLAS entry point, which is what a user wants to check against.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "common/cuda_names.h"
#include "replay/emitters.h"
#include "gemm/gemm_call.h"
#include "trace/trace_reader.h"

namespace cublasspy::replay {
namespace {

struct TorchType {
  const char* dtype;       // "torch.float16"
  bool raw_bits;           // dumps hold raw bits (bf16 as <u2, fp8 as |u1): reinterpret them
  bool integer;
  bool exact;              // torch has this dtype (else: the closest one, with a note)
};

TorchType torch_type(int t) {
  switch (static_cast<DataType>(t)) {
    case DataType::kR32F: return {"torch.float32", false, false, true};
    case DataType::kR64F: return {"torch.float64", false, false, true};
    case DataType::kR16F: return {"torch.float16", false, false, true};
    case DataType::kR16BF: return {"torch.bfloat16", true, false, true};
    case DataType::kC32F: return {"torch.complex64", false, false, true};
    case DataType::kC64F: return {"torch.complex128", false, false, true};
    case DataType::kC16F: return {"torch.complex32", false, false, true};
    case DataType::kR8I: return {"torch.int8", false, true, true};
    case DataType::kR8U: return {"torch.uint8", false, true, true};
    case DataType::kR32I: return {"torch.int32", false, true, true};
    case DataType::kR8F_E4M3: return {"torch.float8_e4m3fn", true, false, true};
    case DataType::kR8F_E5M2: return {"torch.float8_e5m2", true, false, true};
    default: return {"torch.complex64", false, false, false};
  }
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string py_number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  std::string t = s.str();
  if (t == "inf") return "float('inf')";
  if (t == "-inf") return "float('-inf')";
  if (t == "nan" || t == "-nan") return "float('nan')";
  return t;
}

std::string py_scalar(const std::array<double, 2>& v) {
  if (v[1] == 0) return py_number(v[0]);
  return "complex(" + py_number(v[0]) + ", " + py_number(v[1]) + ")";
}

const char* trans_letter(int op) { return op == 1 ? "T" : op == 2 ? "C" : "N"; }

// Math mode bits (cublasMath_t): TF32 3 in the low bits, 16 disallows reduced-precision reduction.
bool tf32_allowed(const ReplayPlan& p) {
  if (p.compute_type == 77) return true;  // CUBLAS_COMPUTE_32F_FAST_TF32
  return p.math_mode >= 0 && (p.math_mode & 0xf) == 3;
}
bool reduced_precision_allowed(const ReplayPlan& p) { return !(p.math_mode >= 0 && (p.math_mode & 16)); }

// op(A) op(B) as PyTorch computes it from column-major operands: (op(B)^T op(A)^T)^T. PyTorch is
// row-major, so it hands this product to cuBLAS as the very call that was captured (same m, n,
// k, transposes and lds); torch.bmm(op(A), op(B)) would swap m and n and transpose both, and a
// failure that depends on the call's shape would not reproduce.
std::string column_major_product(const ReplayPlan& p, const std::string& cast) {
  return "torch.bmm(op(B" + cast + ", \"" + trans_letter(p.transb) + "\").transpose(1, 2), op(A" + cast + ", \"" +
         trans_letter(p.transa) + "\").transpose(1, 2)).transpose(1, 2)";
}

// One problem set's operands, product and result (a grouped call's group: `group`, else -1).
void group_body(std::ostringstream& o, const ReplayPlan& p, int group) {
  // Operands: pointer-array members are laid out one after the other (stride -1 says "apart").
  for (const OperandPlan& op : p.operands) {
    if (op.name != "a" && op.name != "b" && op.name != "c" && op.name != "d" && op.name != "bias") continue;
    const TorchType t = torch_type(op.data_type);
    const std::string var = op.name == "bias" ? "bias" : std::string(1, static_cast<char>(std::toupper(op.name[0])));
    o << "    # " << op.name << ": " << name_or_number(NameSet::kDataType, op.data_type) << ", " << op.rows << " x " << op.cols
      << " as stored, ld " << op.ld << (op.row_order ? " (row order)" : "")
      << (op.members > 1 ? ", " + std::to_string(op.members) + " members" : "") << "\n";
    if (!t.exact) o << "    # (no torch dtype for " << name_or_number(NameSet::kDataType, op.data_type) << ": the closest one)\n";
    if (!op.same_memory_as.empty() && op.name == "d") {
      o << "    " << var << " = C  # the same memory as C in the program\n";
      continue;
    }
    const int64_t stride = op.pointer_array ? -1 : op.stride;
    o << "    " << var << " = operand(" << py_string(op.name) << ", " << t.dtype << ", " << op.rows << ", " << op.cols << ", "
      << op.ld << ", " << std::max<int64_t>(op.members, 1) << ", " << stride << ", row_order=" << (op.row_order ? "True" : "False")
      << (t.raw_bits ? ", raw_bits=True" : "") << (t.integer ? ", integer=True" : "")
      << (group > 0 ? ", group=" + std::to_string(group) : "") << ")\n";
  }
  const bool lt = p.kind == CallKind::kLtMatmul;
  const OperandPlan* a = p.operand("a");
  const OperandPlan* out = p.operand(lt ? "d" : "c");
  const bool integer_inputs = a && torch_type(a->data_type).integer;
  const bool fp8_inputs = a && element_bytes(static_cast<DataType>(a->data_type)) == 1 && !integer_inputs;
  o << "    alpha, beta = " << py_scalar(p.alpha) << ", " << py_scalar(p.beta) << "\n";
  if (integer_inputs || fp8_inputs) {
    o << "    # PyTorch has no general " << (integer_inputs ? "int8" : "fp8")
      << " batched GEMM: the product is computed in fp32 from the same values.\n"
      << "    product = " << column_major_product(p, ".float()") << "\n";
  } else {
    o << "    product = " << column_major_product(p, "") << "\n";
  }
  o << "    result = alpha * product.to(torch.complex128 if product.is_complex() else torch.float64)\n"
    << "    if beta != 0:\n"
    << "        result = result + beta * C.to(result.dtype)\n";
  if (lt) {
    if (p.lt.epilogue & 4) o << "    result = result + bias[0, :, 0:1].to(result.dtype)  # EPILOGUE_BIAS: one value per row\n";
    if (p.lt.epilogue & 2) o << "    result = torch.relu(result)  # EPILOGUE_RELU\n";
    if (p.lt.epilogue & 32) o << "    result = torch.nn.functional.gelu(result, approximate=\"tanh\")  # EPILOGUE_GELU\n";
  }
  const std::string out_var = lt ? "D" : "C";
  o << "    " << out_var << ".copy_(result.to(" << out_var << ".dtype))  # written in place, like the call\n"
    << "    finite = finite and bool(torch.isfinite(" << out_var << ".abs() if " << out_var << ".is_complex() else "
    << out_var << ".float()).all())\n"
    << "    print(\"result " << (group >= 0 ? "of group " + std::to_string(group) + " " : "")
    << (out ? std::to_string(out->rows) : "?") << " x " << (out ? std::to_string(out->cols) : "?") << "\")\n";
}

}  // namespace

std::string emit_python(const ReplayPlan& call, const EmitContext& c) {
  // PyTorch has no grouped GEMM: the script computes each group as a batch of its problems, from
  // the group's own dumps (TRACE.call<SEQ>.group<G>.<name>.npy from group 1).
  const bool grouped = call.kind == CallKind::kGemmGrouped && call.groups.size() > 1;
  std::vector<ReplayPlan> parts;
  for (size_t g = 0; g < (grouped ? call.groups.size() : 1); ++g) {
    int64_t first = 0;
    parts.push_back(grouped ? group_plan(call, g, first) : call);
  }
  const ReplayPlan& p = parts.front();
  std::ostringstream o;
  o << "#!/usr/bin/env python3\n"
    << "\"\"\"Reproducer of call " << c.seq << " of " << c.trace_path << ": " << p.function << " (in the program: "
    << c.original_outcome << ").\n\n"
    << "Written by `cublasspy replay --emit-python`. It computes the same GEMM with PyTorch on the GPU: tensors of\n"
    << "the call's shapes, strides and dtypes (as_strided views of each operand's whole strided extent), the same\n"
    << "TF32 and reduced-precision settings, and the captured .npy dumps where the trace has them (else random\n"
    << "values). PyTorch chooses its own cuBLAS entry point: if this fails too, the problem is not in your code's\n"
    << "use of cuBLAS.\n";
  for (const std::string& n : c.notes) o << "\nNote: " << n << "\n";
  if (grouped) o << "\nNote: the call's " << call.groups.size() << " groups one after the other (PyTorch has no grouped GEMM).\n";
  o << "\"\"\"\n\n"
    << "import os\n"
    << "import sys\n\n"
    << "import torch\n\n"
    << "TRACE = " << py_string(c.trace_path) << "\n"
    << "CALL = " << c.seq << "\n"
    << "SEED = " << p.seed << "\n"
    << "# Operands with a dump next to the trace (used when the file is there).\n"
    << "DUMPED = {";
  for (size_t i = 0; i < c.dumped_operands.size(); ++i) o << (i ? ", " : "") << py_string(c.dumped_operands[i]);
  o << "}\n\n"
    << "# The handle's math mode in the program: " << (p.math_mode >= 0 ? math_mode_text(p.math_mode) : "unknown") << "\n"
    << "torch.backends.cuda.matmul.allow_tf32 = " << (tf32_allowed(p) ? "True" : "False") << "\n"
    << "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = "
    << (reduced_precision_allowed(p) ? "True" : "False") << "\n"
    << "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = "
    << (reduced_precision_allowed(p) ? "True" : "False") << "\n\n"
    << "device = torch.device(\"cuda\")\n"
    << "generator = torch.Generator().manual_seed(SEED)\n\n\n"
    << "def dumped(path, dtype, extent, raw_bits):\n"
    << "    \"\"\"The dump's values as a flat tensor, or None (missing, unreadable, or not the operand's size).\"\"\"\n"
    << "    if not os.path.exists(path):\n"
    << "        return None\n"
    << "    import numpy as np\n"
    << "    try:\n"
    << "        arr = np.ascontiguousarray(np.load(path)).reshape(-1)\n"
    << "    except ValueError as e:\n"
    << "        print(f\"{path}: unreadable ({e}): random values instead\")\n"
    << "        return None\n"
    << "    if raw_bits:  # stored as raw bits: bf16 as <u2, fp8 as |u1\n"
    << "        flat = torch.from_numpy(arr.view(np.int16 if arr.itemsize == 2 else np.uint8)).view(dtype)\n"
    << "    elif dtype.is_complex and not np.iscomplexobj(arr):  # (re, im) pairs\n"
    << "        flat = torch.from_numpy(arr).view(dtype).reshape(-1)\n"
    << "    else:\n"
    << "        flat = torch.from_numpy(arr).to(dtype)\n"
    << "    if flat.numel() != extent:\n"
    << "        print(f\"{path}: {flat.numel()} elements, not the operand's {extent}: random values instead\")\n"
    << "        return None\n"
    << "    return flat\n\n\n"
    << "def operand(name, dtype, rows, cols, ld, members, stride, row_order=False, raw_bits=False, integer=False, group=0):\n"
    << "    \"\"\"A (members, rows, cols) view of the operand's whole strided extent, on the GPU.\"\"\"\n"
    << "    one = (rows - 1) * ld + cols if row_order else (cols - 1) * ld + rows\n"
    << "    one = max(one, 0)\n"
    << "    extent = one + stride * (members - 1) if members > 1 and stride > 0 else one * (members if stride < 0 else 1)\n"
    << "    path = f\"{TRACE}.call{CALL}.{name}.npy\" if group == 0 else f\"{TRACE}.call{CALL}.group{group}.{name}.npy\"\n"
    << "    flat = dumped(path, dtype, extent, raw_bits) if name in DUMPED else None\n"
    << "    if flat is None and integer:\n"
    << "        flat = torch.randint(-8, 9, (extent,), generator=generator).to(dtype)\n"
    << "    elif flat is None and dtype.is_complex:\n"
    << "        re = torch.rand(extent, generator=generator, dtype=torch.float64) * 2 - 1\n"
    << "        im = torch.rand(extent, generator=generator, dtype=torch.float64) * 2 - 1\n"
    << "        flat = torch.complex(re, im).to(dtype)\n"
    << "    elif flat is None:\n"
    << "        flat = (torch.rand(extent, generator=generator, dtype=torch.float64) * 2 - 1).to(dtype)\n"
    << "    flat = flat.to(device)\n"
    << "    member_stride = stride if stride > 0 else (one if stride < 0 else 0)\n"
    << "    strides = (member_stride, ld, 1) if row_order else (member_stride, 1, ld)\n"
    << "    return torch.as_strided(flat, (members, rows, cols), strides)\n\n\n"
    << "def op(x, trans):\n"
    << "    \"\"\"op(X): X, its transpose (T) or its conjugate transpose (C), per member.\"\"\"\n"
    << "    if trans == \"N\":\n"
    << "        return x\n"
    << "    x = x.transpose(1, 2)\n"
    << "    return x.conj() if trans == \"C\" and x.is_complex() else x\n\n\n"
    << "def main():\n"
    << "    if not torch.cuda.is_available():\n"
    << "        print(\"no CUDA device: torch.cuda.is_available() is False\")\n"
    << "        return 1\n";
  o << "    finite = True\n";
  for (size_t g = 0; g < parts.size(); ++g) {
    if (grouped) o << "    # group " << g << " of " << parts.size() << ": " << parts[g].batch << " problem(s)\n";
    group_body(o, parts[g], grouped ? static_cast<int>(g) : -1);
  }
  o << "    torch.cuda.synchronize()\n"
    << "    print(f\"" << p.function << " as torch: {'all finite' if finite else 'holds NaN or Inf'}\")\n"
    << "    return 0 if finite else 1\n\n\n"
    << "if __name__ == \"__main__\":\n"
    << "    sys.exit(main())\n";
  return o.str();
}

}  // namespace cublasspy::replay
