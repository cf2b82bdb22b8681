// A cublasLtMatmul's preset algorithm (lt_tags.h, LtAlgoArg): its 64 bytes, which replay
// passes back to the library unchanged. Only the library can read them (the layout of
// cublasLtMatmulAlgo_t is private to cuBLASLt); the readers ask it afterwards
// (src/present/lt_algo_config.h), so a matmul pays for a copy, not for a library call: the id's
// slot stays unset (traces of format version 5 written before that hold the id there).
#include <cstring>

#include "lt_tags.h"

namespace cublasspy::tags {

void read_lt_algo(CallContext& c, const cublasLtMatmulAlgo_t* algo, int) {
  if (algo == nullptr) return;
  format::RecordSlot& slot = slot_of(c);
  static_assert(sizeof slot.lt_algo == sizeof *algo);
  std::memcpy(slot.lt_algo, algo, sizeof slot.lt_algo);  // host memory of the program, like alpha
}

}  // namespace cublasspy::tags
