// A cublasLtMatmul's preset algorithm (arg_tags.h, LtAlgoArg): its bytes, which replay passes
// back to the library unchanged, and its id, which only the library can read from them (the
// layout of cublasLtMatmulAlgo_t is private to cuBLASLt): one call of the real
// cublasLtMatmulAlgoConfigGetAttribute, a host function that reads the 64 bytes it is given.
#include <cstring>

#include "arg_tags.h"
#include "hook_table.h"

namespace cublasspy::tags {

void read_lt_algo(CallContext& c, const cublasLtMatmulAlgo_t* algo, int id_slot) {
  if (algo == nullptr) return;
  format::RecordSlot& slot = slot_of(c);
  static_assert(sizeof slot.lt_algo == sizeof *algo);
  std::memcpy(slot.lt_algo, algo, sizeof slot.lt_algo);  // host memory of the program, like alpha
  constexpr auto kGet = FnId::kcublasLtMatmulAlgoConfigGetAttribute;
  using Get = cublasStatus_t (*)(const cublasLtMatmulAlgo_t*, cublasLtMatmulAlgoConfigAttributes_t, void*, size_t,
                                 size_t*);
  auto get = reinterpret_cast<Get>(
      resolve_real(Library::kCublasLt, static_cast<uint16_t>(kGet), hook_name(static_cast<uint16_t>(kGet)), c.variant));
  if (get == nullptr) return;
  cublasLtMatmulAlgo_t copy;
  std::memcpy(&copy, slot.lt_algo, sizeof copy);
  int32_t id = 0;
  size_t written = 0;
  ThreadState& ts = thread_state();
  ts.internal++;  // the shim's own call
  const cublasStatus_t status = get(&copy, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
  ts.internal--;
  if (status == CUBLAS_STATUS_SUCCESS) c.rec.args[id_slot] = static_cast<uint64_t>(static_cast<int64_t>(id));
}

}  // namespace cublasspy::tags
