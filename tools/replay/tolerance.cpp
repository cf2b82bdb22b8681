#include "replay/tolerance.h"

#include <algorithm>
#include <cmath>

#include "gemm/gemm_call.h"

namespace cublasspy::replay {
namespace {

// cublasComputeType_t values (cublas_api.h).
constexpr int kCompute16F = 64, kCompute16FPedantic = 65, kCompute32F = 68, kCompute32FPedantic = 69,
              kCompute64F = 70, kCompute64FPedantic = 71, kCompute32I = 72, kCompute32IPedantic = 73,
              kCompute32FFast16F = 74, kCompute32FFast16BF = 75, kCompute32FFastTF32 = 77;
constexpr int kMathTf32 = 3;  // CUBLAS_TF32_TENSOR_OP_MATH, in the low bits of cublasMath_t

struct Precision {
  double unit;   // unit roundoff
  double floor;  // the least tolerance worth asking for
  const char* name;
};

Precision output_precision(int type) {
  switch (static_cast<DataType>(type)) {
    case DataType::kR64F: case DataType::kC64F: return {0x1p-53, 1e-12, "fp64"};
    case DataType::kR32F: case DataType::kC32F: return {0x1p-24, 1e-5, "fp32"};
    case DataType::kR16F: case DataType::kC16F: return {0x1p-11, 1e-2, "fp16"};
    case DataType::kR16BF: case DataType::kC16BF: return {0x1p-8, 3e-2, "bf16"};
    case DataType::kR8F_E4M3: return {0x1p-4, 0x1p-3, "fp8 e4m3"};
    case DataType::kR8F_E5M2: return {0x1p-3, 0x1p-2, "fp8 e5m2"};
    case DataType::kR32I: case DataType::kC32I: case DataType::kR8I: case DataType::kR8U: case DataType::kC8I:
      return {0, 0, "integer"};
    default: return {0x1p-24, 1e-5, "unknown type"};
  }
}

bool fp32_data(int type) {
  return type == static_cast<int>(DataType::kR32F) || type == static_cast<int>(DataType::kC32F);
}

// The precision the multiply unit reads the inputs with, when it is below the stored one.
double input_unit(const ToleranceInputs& in, const char** name) {
  *name = nullptr;
  if (in.compute_type == kCompute32FFastTF32 ||
      (fp32_data(in.input_type) && in.math_mode >= 0 && (in.math_mode & 0xf) == kMathTf32 &&
       in.compute_type != kCompute32FPedantic)) {
    *name = "TF32 inputs";
    return 0x1p-10;
  }
  if (in.compute_type == kCompute32FFast16F) {
    *name = "fp16 inputs";
    return 0x1p-10;
  }
  if (in.compute_type == kCompute32FFast16BF) {
    *name = "bf16 inputs";
    return 0x1p-7;
  }
  return 0;
}

double accumulator_unit(const ToleranceInputs& in, const char** name) {
  switch (in.compute_type) {
    case kCompute64F: case kCompute64FPedantic: *name = "fp64 accumulation"; return 0x1p-53;
    case kCompute16F: case kCompute16FPedantic: *name = "fp16 accumulation"; return 0x1p-11;
    case kCompute32I: case kCompute32IPedantic: *name = "exact integer accumulation"; return 0;
    case -1:
      if (in.half_accumulate) {
        *name = "fp16 accumulation";
        return 0x1p-11;
      }
      if (output_precision(in.output_type).unit == 0x1p-53) {
        *name = "fp64 accumulation";
        return 0x1p-53;
      }
      [[fallthrough]];
    case kCompute32F:
    default: *name = "fp32 accumulation"; return 0x1p-24;
  }
}

}  // namespace

double tolerance_for(const ToleranceInputs& in) {
  const Precision out = output_precision(in.output_type);
  const char* ignored;
  const double u_in = input_unit(in, &ignored);
  const double u_acc = accumulator_unit(in, &ignored);
  const double k = static_cast<double>(std::max<int64_t>(in.k, 0));
  return std::max(out.floor, 2 * out.unit + 2 * u_in + u_acc * (4 + std::sqrt(k)));
}

std::string tolerance_basis(const ToleranceInputs& in) {
  const char* inputs;
  const char* accumulation;
  input_unit(in, &inputs);
  accumulator_unit(in, &accumulation);
  std::string text = std::string(output_precision(in.output_type).name) + " output";
  if (inputs) text += std::string(", ") + inputs;
  text += std::string(", ") + accumulation + ", k " + std::to_string(in.k);
  return text;
}

}  // namespace cublasspy::replay
