// What a refused cuBLAS/cuBLASLt call asked the library for: the parts of its record that make
// a configuration (types, compute type, transposes, orders, epilogue, scale modes, batch mode,
// plane offsets, math mode, the algorithm), in the report's words. A NOT_SUPPORTED names no
// argument, so the finding shows them all and the advice points at the unusual ones.
#pragma once

#include <string>

#include "trace/trace_reader.h"

namespace cublasspy::diagnoses {

struct RequestedConfiguration {
  std::string text;           // "compute_type=CUBLAS_COMPUTE_32F, a_type=CUDA_R_32F, ..., algorithm: ..."
  bool preset_algo = false;   // a cuBLASLt matmul given an algorithm (not the library's choice)
  std::string algo;           // that algorithm in words: "id 0 (tile=... splitk_num=4)"
  bool planar = false;        // a nonzero CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET
  bool pointer_array = false; // CUBLASLT_BATCH_MODE_POINTER_ARRAY
  bool tiled_order = false;   // an order other than COL and ROW (the IMMA orders)
  bool epilogue = false;      // an epilogue other than CUBLASLT_EPILOGUE_DEFAULT
  bool scale_modes = false;   // a block scale mode (set by the descriptor's *_SCALE_MODE)
  bool emulated = false;      // an emulated compute type (CUBLAS_COMPUTE_*_EMULATED_*)
};

RequestedConfiguration requested_configuration(const CallView& call);

}  // namespace cublasspy::diagnoses
