#include "lt_planar.h"

#include <vector>

namespace standin {

bool planar_types_supported(int32_t compute, cudaDataType scale, cudaDataType a, cudaDataType b, cudaDataType c,
                            cudaDataType d) {
  if (compute != CUBLAS_COMPUTE_32F && compute != CUBLAS_COMPUTE_32F_PEDANTIC) return false;
  if (scale != CUDA_C_32F || a != b || (a != CUDA_C_16F && a != CUDA_C_16BF)) return false;
  return c == d && (c == a || c == CUDA_C_32F);
}

cudaDataType plane_type(cudaDataType t) {
  switch (t) {
    case CUDA_C_16F: return CUDA_R_16F;
    case CUDA_C_16BF: return CUDA_R_16BF;
    case CUDA_C_32F: return CUDA_R_32F;
    case CUDA_C_64F: return CUDA_R_64F;
    case CUDA_C_8I: return CUDA_R_8I;
    default: return t;
  }
}

cublasStatus_t plan_planes(const LtMatmulDesc& desc, const LtLayout* const layouts[4], LtPlanes* planes) {
  *planes = LtPlanes{};
  for (int i = 0; i < 4; ++i) {
    planes->offset[i] = layouts[i]->plane_offset;
    planes->any = planes->any || layouts[i]->plane_offset != 0;
  }
  if (!planes->any) return CUBLAS_STATUS_SUCCESS;
  for (int i = 0; i < 4; ++i) {
    const LtLayout& l = *layouts[i];
    if (l.plane_offset == 0 || !is_complex(static_cast<cudaDataType>(l.type)) ||
        (l.order != CUBLASLT_ORDER_COL && l.order != CUBLASLT_ORDER_ROW) ||
        l.batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY) {
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  }
  return desc.epilogue == CUBLASLT_EPILOGUE_DEFAULT ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}

namespace {

const void* imaginary_plane(const void* real, int64_t offset) { return static_cast<const char*>(real) + offset; }

// A planar rows x cols operand as a column-major interleaved complex<double> matrix (exact for
// every plane type); `view` is set to address it. An operand the GEMM does not read (`read`
// false: C when beta is 0, A and B when alpha is 0) is not touched, as cuBLASLt does not touch
// it: the caller checked only the memory that is read.
std::vector<complex> gather(MatrixView& view, int64_t rows, int64_t cols, int64_t offset, bool read) {
  std::vector<complex> out(static_cast<size_t>(rows * cols));
  const void* im = imaginary_plane(view.data, offset);
  for (int64_t c = 0; read && c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = element_index(view, r, c);
      out[static_cast<size_t>(r + c * rows)] = {load_element(view.data, view.type, i).real(),
                                                 load_element(im, view.type, i).real()};
    }
  }
  view = MatrixView{out.data(), CUDA_C_64F, 1, rows, Tiling::None};
  return out;
}

}  // namespace

void run_planar_gemm(const GemmProblem& problem, const LtPlanes& planes) {
  GemmProblem p = problem;
  const int64_t m = p.m, n = p.n, k = p.k;
  const bool at = p.op_a != Op::N, bt = p.op_b != Op::N;
  const bool reads_ab = k > 0 && (p.alpha_vector != nullptr || p.alpha != 0.0);
  const bool reads_c = p.beta_vector != nullptr || p.beta != 0.0;
  std::vector<complex> a = gather(p.a, at ? k : m, at ? m : k, planes.offset[0], reads_ab);
  std::vector<complex> b = gather(p.b, bt ? n : k, bt ? k : n, planes.offset[1], reads_ab);
  std::vector<complex> c = gather(p.c, m, n, planes.offset[2], reads_c);
  std::vector<complex> d(static_cast<size_t>(m * n));
  p.d = MatrixView{d.data(), CUDA_C_64F, 1, m, Tiling::None};
  run_gemm(p);
  // Each part rounded once, from double to the plane's type, as the core stores any result.
  const MatrixView& out = problem.d;
  void* re = const_cast<void*>(out.data);
  void* im = const_cast<void*>(imaginary_plane(out.data, planes.offset[3]));
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t r = 0; r < m; ++r) {
      const int64_t i = element_index(out, r, col);
      const complex v = d[static_cast<size_t>(r + col * m)];
      store_element(re, out.type, i, v.real());
      store_element(im, out.type, i, v.imag());
    }
  }
}

}  // namespace standin
