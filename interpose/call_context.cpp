#include "call_context.h"

#include <cuComplex.h>
#include <cublas_api.h>
#include <cuda_fp16.h>

namespace cublasspy {
namespace {

bool is_complex(int data_type) {
  switch (data_type) {
    case CUDA_C_16F: case CUDA_C_32F: case CUDA_C_64F: case CUDA_C_16BF: case CUDA_C_8I:
    case CUDA_C_32I: case CUDA_C_8U: case CUDA_C_32U:
      return true;
    default:
      return false;
  }
}

ScalarType from_data_type(int type) {
  switch (type) {
    case CUDA_R_64F: return ScalarType::kF64;
    case CUDA_C_32F: return ScalarType::kC32;
    case CUDA_C_64F: return ScalarType::kC64;
    case CUDA_R_16F: return ScalarType::kF16;
    case CUDA_R_32I: return ScalarType::kI32;
    case CUDA_R_32F: return ScalarType::kF32;
    default: return ScalarType::kNone;
  }
}

ScalarType from_compute(int compute, bool complex) {
  switch (compute) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
      return ScalarType::kF16;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC:
      return complex ? ScalarType::kC64 : ScalarType::kF64;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC:
      return ScalarType::kI32;
    default:
      return complex ? ScalarType::kC32 : ScalarType::kF32;
  }
}

}  // namespace

void read_scalar_value(ScalarType type, const void* p, double out[2]) {
  switch (type) {
    case ScalarType::kF32: out[0] = *static_cast<const float*>(p); break;
    case ScalarType::kF64: out[0] = *static_cast<const double*>(p); break;
    case ScalarType::kC32: {
      auto c = *static_cast<const cuComplex*>(p);
      out[0] = c.x, out[1] = c.y;
      break;
    }
    case ScalarType::kC64: {
      auto c = *static_cast<const cuDoubleComplex*>(p);
      out[0] = c.x, out[1] = c.y;
      break;
    }
    case ScalarType::kF16: out[0] = __half2float(*static_cast<const __half*>(p)); break;
    case ScalarType::kI32: out[0] = *static_cast<const int32_t*>(p); break;
    default: break;
  }
}

size_t scalar_bytes(ScalarType type) {
  switch (type) {
    case ScalarType::kF16: return 2;
    case ScalarType::kF32: case ScalarType::kI32: return 4;
    case ScalarType::kF64: case ScalarType::kC32: return 8;
    case ScalarType::kC64: return 16;
    default: return 0;
  }
}

ScalarType host_scalar_type(const CallContext& ctx) {
  if (ctx.scalar_type == ScalarType::kNone || !scalars_on_host(ctx)) return ScalarType::kNone;
  ScalarType type = ctx.scalar_type;
  if (type == ScalarType::kByCompute) {
    if (ctx.compute_slot < 0) return ScalarType::kNone;
    bool complex = ctx.last_type_slot >= 0 && is_complex(static_cast<int>(ctx.rec.args[ctx.last_type_slot]));
    type = from_compute(static_cast<int>(ctx.rec.args[ctx.compute_slot]), complex);
  }
  if (type == ScalarType::kByScaleType) type = from_data_type(ctx.lt ? ctx.lt->scale_type : -1);
  return type;
}

void read_scalar(CallContext& ctx, const void* p, double out[2], uint32_t known_flag) {
  if (p == nullptr) return;
  const ScalarType type = host_scalar_type(ctx);
  if (type == ScalarType::kNone) return;
  read_scalar_value(type, p, out);
  ctx.rec.flags |= known_flag;
}

}  // namespace cublasspy
