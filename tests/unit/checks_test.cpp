// The argument checks of CUBLASSPY_CHECK=1 (src/checks/operand_checks.h, src/checks/check_ids.h): each check
// flags a bad call, leaves a set of valid calls alone, and its message carries the numbers.
// Calls are built as the shim builds them: a record and its function entry (names, kinds and
// roles) through gemm_from_record, so the tests also hold the checks to the slots' roles.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "checks/check_ids.h"
#include "gemm/gemm_call.h"
#include "trace/roles_from_names.h"
#include "checks/operand_checks.h"

namespace cublasspy {
namespace {

using format::ArgKind;
using R = format::ArgRole;

// FunctionEntry::family values (src/spec/hook_list.h's Family).
constexpr uint16_t kFamilyGemm = 3, kFamilyBatched = 4, kFamilyStrided = 5, kFamilyLt = 7;
constexpr int kR32F = 0, kR64F = 1, kR16F = 2, kC64F = 5, kR8F_E4M3 = 28;

// A record and its function entry, filled argument by argument like the shim's tags do.
struct CallBuilder {
  format::FunctionEntry entry{};
  format::Record rec{};

  CallBuilder(const char* function, uint16_t family) {
    std::strncpy(entry.name, function, sizeof entry.name - 1);
    entry.family = family;
    rec.pointer_mode = 0;
  }
  CallBuilder& arg(const char* name, ArgKind kind, R role, uint64_t value) {
    format::ArgDescriptor& d = entry.args[entry.arg_count];
    std::strncpy(d.name, name, sizeof d.name - 1);
    d.kind = static_cast<uint8_t>(kind);
    d.role = static_cast<uint8_t>(role);
    rec.args[entry.arg_count++] = value;
    return *this;
  }
  CallBuilder& num(const char* name, R role, int64_t v) {
    return arg(name, ArgKind::kInt, role, static_cast<uint64_t>(v));
  }
  CallBuilder& ptr(const char* name, R role, uint64_t v) { return arg(name, ArgKind::kPointer, role, v); }
  CallBuilder& op(const char* name, R role, int v) {
    return arg(name, ArgKind::kOperation, role, static_cast<uint64_t>(v));
  }
  CallBuilder& type(const char* name, R role, int v) {
    return arg(name, ArgKind::kDataType, role, static_cast<uint64_t>(v));
  }
  // handle, transa, transb, m, n, k: how every cuBLAS GEMM starts.
  CallBuilder& head(int ta, int tb, int64_t m, int64_t n, int64_t k, R handle = R::kHandle) {
    ptr("handle", handle, 0x1234).op("transa", R::kTransA, ta).op("transb", R::kTransB, tb);
    return num("m", R::kM, m).num("n", R::kN, n).num("k", R::kK, k);
  }
  // What the shim's function table says of the function (its traits, its element type), as a
  // reader derives it from the name for a trace that does not say it (roles_from_names.h).
  GemmCall call() const {
    format::FunctionEntry described = entry;
    derive_traits_from_names(described);
    return gemm_from_record(described, rec);
  }
};

// A function entry named `function`, with an m slot, as the reader completes it from the name.
format::FunctionEntry named_entry(const char* function) {
  CallBuilder cb(function, kFamilyGemm);
  cb.num("m", R::kM, 4);
  derive_traits_from_names(cb.entry);
  return cb.entry;
}
int element_type_named(const char* function) { return format::fixed_element_type(named_entry(function)); }
bool sizes_are_32bit(const char* function) {
  return (named_entry(function).traits & format::Trait::kInt32Sizes) != 0;
}

constexpr uint64_t kAlpha = 0x7ffc00001000, kBeta = 0x7ffc00001008;

// cublasSgemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
CallBuilder sgemm(int ta, int tb, int64_t m, int64_t n, int64_t k, uint64_t a, int64_t lda, uint64_t b,
                  int64_t ldb, uint64_t c, int64_t ldc) {
  CallBuilder cb("cublasSgemm_v2", kFamilyGemm);
  cb.head(ta, tb, m, n, k).ptr("alpha", R::kAlpha, kAlpha).ptr("a", R::kA, a).num("lda", R::kLda, lda);
  cb.ptr("b", R::kB, b).num("ldb", R::kLdb, ldb).ptr("beta", R::kBeta, kBeta);
  cb.ptr("c", R::kC, c).num("ldc", R::kLdc, ldc);
  return cb;
}

// cublasGemmEx with one data type for A, B and C.
CallBuilder gemm_ex(int type, int ta, int tb, int64_t m, int64_t n, int64_t k, uint64_t a, int64_t lda,
                    uint64_t b, int64_t ldb, uint64_t c, int64_t ldc) {
  CallBuilder cb("cublasGemmEx", kFamilyGemm);
  cb.head(ta, tb, m, n, k).ptr("alpha", R::kAlpha, kAlpha);
  cb.ptr("a", R::kA, a).type("a_type", R::kAType, type).num("lda", R::kLda, lda);
  cb.ptr("b", R::kB, b).type("b_type", R::kBType, type).num("ldb", R::kLdb, ldb).ptr("beta", R::kBeta, kBeta);
  cb.ptr("c", R::kC, c).type("c_type", R::kCType, type).num("ldc", R::kLdc, ldc);
  cb.arg("compute_type", ArgKind::kComputeType, R::kComputeType, 68);
  return cb;
}

// cublasSgemmStridedBatched: strides in elements, then batch_count.
CallBuilder strided(int64_t m, int64_t n, int64_t k, uint64_t a, int64_t lda, int64_t sa, uint64_t b,
                    int64_t ldb, int64_t sb, uint64_t c, int64_t ldc, int64_t sc, int64_t batch) {
  CallBuilder cb("cublasSgemmStridedBatched", kFamilyStrided);
  cb.head(0, 0, m, n, k).ptr("alpha", R::kAlpha, kAlpha);
  cb.ptr("a", R::kA, a).num("lda", R::kLda, lda).num("stride_a", R::kStrideA, sa);
  cb.ptr("b", R::kB, b).num("ldb", R::kLdb, ldb).num("stride_b", R::kStrideB, sb).ptr("beta", R::kBeta, kBeta);
  cb.ptr("c", R::kC, c).num("ldc", R::kLdc, ldc).num("stride_c", R::kStrideC, sc);
  cb.num("batch_count", R::kBatchCount, batch);
  return cb;
}

// cublasSgemmBatched: arrays of pointers.
CallBuilder batched(int64_t m, int64_t n, int64_t k, uint64_t a, uint64_t b, uint64_t c, int64_t batch) {
  CallBuilder cb("cublasSgemmBatched", kFamilyBatched);
  cb.head(0, 0, m, n, k).ptr("alpha", R::kAlpha, kAlpha);
  cb.ptr("a", R::kA, a).num("lda", R::kLda, m).ptr("b", R::kB, b).num("ldb", R::kLdb, k);
  cb.ptr("beta", R::kBeta, kBeta).ptr("c", R::kC, c).num("ldc", R::kLdc, m);
  cb.num("batch_count", R::kBatchCount, batch);
  return cb;
}

// cublasLtMatmul as the normalized view sees it: a separate D with its own ld.
CallBuilder lt(int64_t m, int64_t n, int64_t k, uint64_t a, int64_t lda, uint64_t b, int64_t ldb, uint64_t c,
               int64_t ldc, uint64_t d, int64_t ldd) {
  CallBuilder cb("cublasLtMatmul", kFamilyLt);
  cb.head(0, 0, m, n, k).ptr("alpha", R::kAlpha, kAlpha);
  cb.ptr("a", R::kA, a).type("a_type", R::kAType, kR16F).num("lda", R::kLda, lda);
  cb.ptr("b", R::kB, b).type("b_type", R::kBType, kR16F).num("ldb", R::kLdb, ldb).ptr("beta", R::kBeta, kBeta);
  cb.ptr("c", R::kC, c).type("c_type", R::kCType, kR16F).num("ldc", R::kLdc, ldc);
  cb.ptr("d", R::kD, d).type("d_type", R::kDType, kR16F).num("ldd", R::kLdd, ldd);
  return cb;
}

// Three separate device buffers, 1 MiB apart.
constexpr uint64_t kA = 0x7f0000000000, kB = 0x7f0000100000, kC = 0x7f0000200000, kD = 0x7f0000300000;

// The driver as a table of allocations. Anything else is "not known to the driver".
class FakeQuery final : public PointerQuery {
 public:
  struct Alloc {
    uint64_t size;
    MemoryKind kind;
    int device;
  };
  std::map<uint64_t, Alloc> allocs;
  bool failing = false;  // the driver answers nothing (no context, not initialized)
  bool pageable = false;
  int queries = 0;

  FakeQuery& add(uint64_t base, uint64_t size, MemoryKind kind = MemoryKind::kDevice, int device = 0) {
    allocs[base] = {size, kind, device};
    return *this;
  }
  // The usual world: A, B, C, D are 1 MiB device allocations on device 0, alpha/beta are on
  // the host stack (unknown to the driver).
  static FakeQuery standard() {
    FakeQuery q;
    q.add(kA, 1 << 20).add(kB, 1 << 20).add(kC, 1 << 20).add(kD, 1 << 20);
    return q;
  }
  PointerInfo query(uint64_t address) override {
    ++queries;
    PointerInfo info;
    if (failing) return info;
    info.known = true;
    auto it = allocs.upper_bound(address);
    if (it == allocs.begin()) return info;
    --it;
    if (address - it->first >= it->second.size) return info;
    info.kind = it->second.kind;
    info.device = it->second.device;
    info.base = it->first;
    info.size = it->second.size;
    return info;
  }
  bool pageable_memory_access(int) override { return pageable; }
};

uint32_t run(const CallBuilder& cb, FakeQuery q = FakeQuery::standard(), int device = 0) {
  return check_gemm(cb.call(), cb.rec.pointer_mode, device, q).bits;
}

// Runs all checks, stores the findings in the record as the shim does, renders one message.
std::string message_of(CallBuilder cb, CheckId id, FakeQuery q = FakeQuery::standard(), int device = 0) {
  CheckFindings f = check_gemm(cb.call(), cb.rec.pointer_mode, device, q);
  EXPECT_TRUE(f.bits & check_bit(id)) << "expected " << check_id_name(id) << " to be flagged";
  cb.rec.check_bits = f.bits;
  cb.rec.check_detail[0] = f.detail[0];
  cb.rec.check_detail[1] = f.detail[1];
  return check_message(id, cb.call(), cb.rec, cb.entry.name);
}

constexpr uint32_t kLd = check_bit(CheckId::kInvalidLeadingDimension);
constexpr uint32_t kStride = check_bit(CheckId::kInvalidStride);
constexpr uint32_t kAlias = check_bit(CheckId::kOutputAliasesInput);
constexpr uint32_t kMode = check_bit(CheckId::kPointerModeMismatch);
constexpr uint32_t kHost = check_bit(CheckId::kHostPointerOperand);
constexpr uint32_t kBounds = check_bit(CheckId::kOperandOutOfBounds);
constexpr uint32_t kDevice = check_bit(CheckId::kDeviceMismatch);
constexpr uint32_t kAlign = check_bit(CheckId::kMisalignedOperand);
constexpr uint32_t kOverflow = check_bit(CheckId::kSizeOverflow);

// ---- ids ----------------------------------------------------------------------------------

TEST(OperandTypes, CublasXtFormsHaveTheTypeTheirNameImplies) {
  // cublasXtDgemm computes what cublasDgemm does, so its operands are CUDA_R_64F in the report,
  // the checks and the diagnoses, as cublasDgemm's are.
  EXPECT_EQ(element_type_named("cublasXtSgemm"), kR32F);
  EXPECT_EQ(element_type_named("cublasXtDgemm"), kR64F);
  EXPECT_EQ(element_type_named("cublasXtCgemm"), 4);  // CUDA_C_32F
  EXPECT_EQ(element_type_named("cublasXtZgemm"), kC64F);
  EXPECT_EQ(element_type_named("cublasXtCreate"), -1);
  EXPECT_EQ(element_type_named("cublasXt"), -1);
  CallBuilder cb("cublasXtDgemm", kFamilyGemm);
  cb.head(0, 0, 4, 4, 4, R::kXtHandle).ptr("alpha", R::kAlpha, kAlpha).ptr("a", R::kA, kA).num("lda", R::kLda, 4);
  cb.ptr("b", R::kB, kB).num("ldb", R::kLdb, 4).ptr("beta", R::kBeta, kBeta).ptr("c", R::kC, kC).num("ldc", R::kLdc, 4);
  GemmCall g = cb.call();
  ASSERT_TRUE(g.valid);
  EXPECT_TRUE(g.host_operands) << "a cublasXt handle: the operands are host memory";
  for (const Matrix& m : {g.a(), g.b(), g.c()}) EXPECT_EQ(m.type, DataType::kR64F);
}

TEST(CheckIds, NamesAreTheContractIdsAtStableBits) {
  const char* expected[] = {"invalid-leading-dimension", "invalid-stride", "output-aliases-input",
                            "pointer-mode-mismatch", "host-pointer-operand", "operand-out-of-bounds",
                            "device-mismatch", "misaligned-operand", "size-overflow", "batch-count-mismatch",
                            "epilogue-operand", "fp8-layout"};
  static_assert(std::size(expected) == kCheckCount);
  for (int i = 0; i < kCheckCount; ++i) {
    EXPECT_STREQ(check_id_name(static_cast<CheckId>(i)), expected[i]);
  }
  EXPECT_EQ(check_id_name(static_cast<CheckId>(kCheckCount)), nullptr);
  EXPECT_EQ(check_bit(CheckId::kDeviceMismatch), 1u << 6);
}

TEST(CheckIds, OnlyMisalignmentIsAWarning) {
  for (int i = 0; i < kCheckCount; ++i) {
    auto id = static_cast<CheckId>(i);
    EXPECT_STREQ(check_severity(id), id == CheckId::kMisalignedOperand ? "warning" : "error");
  }
  EXPECT_FALSE(check_bits_have_error(kAlign));
  EXPECT_TRUE(check_bits_have_error(kAlign | kBounds));
}

TEST(CheckIds, DetailRoundTrips) {
  CheckDetail d;
  d.present = true;
  d.id = CheckId::kOperandOutOfBounds;
  d.operand = CheckOperand::kD;
  d.pointer_array = true;
  d.value_a = 80ull << 30;  // an 80 GiB allocation
  d.value_b = 0x7f1234567000;
  uint64_t packed[2];
  pack_check_detail(d, packed);
  CheckDetail back = unpack_check_detail(packed);
  EXPECT_TRUE(back.present);
  EXPECT_EQ(back.id, d.id);
  EXPECT_EQ(back.operand, d.operand);
  EXPECT_TRUE(back.pointer_array);
  EXPECT_EQ(back.value_a, d.value_a);
  EXPECT_EQ(back.value_b, d.value_b);
  uint64_t zero[2] = {0, 0};
  EXPECT_FALSE(unpack_check_detail(zero).present);  // a record without findings
}

// ---- invalid-leading-dimension ------------------------------------------------------------

TEST(LeadingDimension, LdaBelowRowsOfANotTransposed) {
  auto cb = sgemm(0, 0, 4, 4, 4, kA, 3, kB, 4, kC, 4);
  EXPECT_EQ(run(cb), kLd);
  EXPECT_EQ(message_of(cb, CheckId::kInvalidLeadingDimension), "lda=3 is below the 4 rows A spans (transa=N, m=4)");
}

TEST(LeadingDimension, TransposedAIsStoredKByM) {
  // transa=T: A is stored k x m, so lda must cover k (6), not m.
  auto bad = sgemm(1, 0, 4, 4, 6, kA, 5, kB, 6, kC, 4);
  EXPECT_EQ(run(bad), kLd);
  EXPECT_EQ(message_of(bad, CheckId::kInvalidLeadingDimension), "lda=5 is below the 6 rows A spans (transa=T, k=6)");
  EXPECT_EQ(run(sgemm(1, 0, 8, 4, 4, kA, 4, kB, 4, kC, 8)), 0u);  // lda=4 >= k even though m=8
  EXPECT_EQ(run(sgemm(2, 0, 8, 4, 4, kA, 4, kB, 4, kC, 8)), 0u);  // C (conjugate) like T
}

TEST(LeadingDimension, LdbFollowsTransb) {
  EXPECT_EQ(run(sgemm(0, 0, 4, 5, 6, kA, 4, kB, 5, kC, 4)), kLd);  // N: ldb >= k=6
  EXPECT_EQ(run(sgemm(0, 1, 4, 5, 6, kA, 4, kB, 4, kC, 4)), kLd);  // T: ldb >= n=5
  EXPECT_EQ(run(sgemm(0, 1, 4, 5, 6, kA, 4, kB, 5, kC, 4)), 0u);
  auto bad = sgemm(0, 1, 4, 5, 6, kA, 4, kB, 4, kC, 4);
  EXPECT_EQ(message_of(bad, CheckId::kInvalidLeadingDimension), "ldb=4 is below the 5 rows B spans (transb=T, n=5)");
}

TEST(LeadingDimension, LdcBelowM) {
  auto bad = sgemm(0, 0, 7, 2, 2, kA, 7, kB, 2, kC, 6);
  EXPECT_EQ(run(bad), kLd);
  EXPECT_EQ(message_of(bad, CheckId::kInvalidLeadingDimension), "ldc=6 is below the 7 rows C spans (m=7)");
}

TEST(LeadingDimension, LargerLdIsValid) {
  // Sub-matrices of bigger ones: ld above the rows is the normal case.
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, kA, 1024, kB, 4096, kC, 64)), 0u);
}

TEST(LeadingDimension, EmptyMatricesStillNeedLdOfAtLeastOne) {
  // cuBLAS: lda >= max(1, m), even when m is 0.
  auto zero_ld = sgemm(0, 0, 0, 4, 4, kA, 0, kB, 4, kC, 1);
  EXPECT_EQ(run(zero_ld), kLd);
  EXPECT_EQ(message_of(zero_ld, CheckId::kInvalidLeadingDimension),
            "lda=0 is below 1: cuBLAS requires lda >= max(1, rows) even when A has no rows (transa=N, m=0)");
  EXPECT_EQ(run(sgemm(0, 0, 0, 4, 4, kA, 1, kB, 4, kC, 1)), 0u);
  // k = 0: C = beta*C, A and B unused (even null), lds still valid.
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 0, 0, 4, 0, 1, kC, 4)), 0u);
}

TEST(LeadingDimension, SeparateDOfCublasLt) {
  auto bad = lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kD, 4);
  EXPECT_EQ(run(bad), kLd);
  EXPECT_EQ(message_of(bad, CheckId::kInvalidLeadingDimension), "ldd=4 is below the 8 rows D spans (m=8)");
}

// ---- invalid-stride -----------------------------------------------------------------------

TEST(BatchStride, OutputMembersOverlap) {
  // One C spans (4-1)*4 + 4 = 16 floats; stride_c=12 lets member 1 start inside member 0.
  auto bad = strided(4, 4, 4, kA, 4, 16, kB, 4, 16, kC, 4, 12, 3);
  EXPECT_EQ(run(bad), kStride);
  std::string msg = message_of(bad, CheckId::kInvalidStride);
  EXPECT_NE(msg.find("stride_c=12 is smaller than one C"), std::string::npos) << msg;
  EXPECT_NE(msg.find("members 0 and 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("16 elements"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ldc*n = 16"), std::string::npos) << msg;
}

TEST(BatchStride, OutputStrideZeroWritesOneMatrix) {
  auto bad = strided(4, 4, 4, kA, 4, 16, kB, 4, 16, kC, 4, 0, 8);
  EXPECT_EQ(run(bad), kStride);
  EXPECT_EQ(message_of(bad, CheckId::kInvalidStride),
            "stride_c=0 with batch_count=8: all 8 outputs C are written to the same memory");
  EXPECT_EQ(run(strided(4, 4, 4, kA, 4, 16, kB, 4, 16, kC, 4, 0, 1)), 0u);  // one member: no batch
}

TEST(BatchStride, BroadcastInputIsValid) {
  // stride 0 on A: the same weights for every member (PyTorch's expand()).
  EXPECT_EQ(run(strided(4, 4, 4, kA, 4, 0, kB, 4, 16, kC, 4, 16, 8)), 0u);
}

TEST(BatchStride, InputMembersOverlap) {
  // A padded to lda=8 but stride computed as m*k=16: members 0 and 1 share elements.
  auto bad = strided(4, 4, 4, kA, 8, 16, kB, 4, 16, kC, 4, 16, 2);
  EXPECT_EQ(run(bad), kStride);
  std::string msg = message_of(bad, CheckId::kInvalidStride);
  EXPECT_NE(msg.find("stride_a=16"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lda*k = 32"), std::string::npos) << msg;
  EXPECT_EQ(run(strided(4, 4, 4, kA, 8, 32, kB, 4, 16, kC, 4, 16, 2)), 0u);
}

TEST(BatchStride, InterleavedMembersThatShareNoElementAreValid) {
  // Two 4x4 outputs stacked in one 8-row matrix: ldc=8, member 1 starts 4 rows down.
  EXPECT_EQ(run(strided(4, 4, 4, kA, 4, 16, kB, 4, 16, kC, 8, 4, 2)), 0u);
  // Three would make member 2 start inside member 0's next column.
  EXPECT_EQ(run(strided(4, 4, 4, kA, 4, 16, kB, 4, 16, kC, 8, 4, 3)), kStride);
}

TEST(BatchStride, NegativeStrideWithinBoundsIsValid) {
  FakeQuery q = FakeQuery::standard();
  // Members walk down from C's address; C's allocation starts 64 floats below it.
  q.allocs.erase(kC);
  q.add(kC - 256, 1 << 20);
  EXPECT_EQ(run(strided(4, 4, 4, kA, 4, 16, kB, 4, 16, kC, 4, -16, 4), q), 0u);
}

// ---- output-aliases-input -----------------------------------------------------------------

TEST(OutputAliasing, CIsA) {
  auto bad = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kA, 4);
  EXPECT_EQ(run(bad), kAlias);
  std::string msg = message_of(bad, CheckId::kOutputAliasesInput);
  EXPECT_NE(msg.find("output C shares elements with input A"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x7f0000000000..0x7f0000000040"), std::string::npos) << msg;  // 16 floats
}

TEST(OutputAliasing, CPartlyOverlapsB) {
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kB + 60, 4)), kAlias);  // last float of B
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kB + 64, 4)), 0u);      // right after B
}

TEST(OutputAliasing, DisjointBlocksOfOneMatrixAreValid) {
  // X is 8 x 8 (ld 8). A = rows 0..3, C = rows 4..7: the byte ranges interleave, no element is
  // shared.
  EXPECT_EQ(run(sgemm(0, 0, 4, 8, 8, kA, 8, kB, 8, kA + 16, 8)), 0u);
  // A = columns 0..3, C = columns 4..7.
  EXPECT_EQ(run(sgemm(0, 0, 8, 4, 4, kA, 8, kB, 4, kA + 4 * 8 * 4, 8)), 0u);
  // C = rows 3..6 shares row 3 with A.
  EXPECT_EQ(run(sgemm(0, 0, 4, 8, 8, kA, 8, kB, 8, kA + 12, 8)), kAlias);
}

TEST(OutputAliasing, DifferentLeadingDimensions) {
  // A: 2 rows at ld 8 (columns at floats 0, 8, 16); C: 2 rows at ld 4 starting at float 2
  // (columns at 2, 6, 10, 14, 18): they interleave without sharing a float.
  auto disjoint = sgemm(0, 0, 2, 5, 3, kA, 8, kB, 3, kA + 2 * 4, 4);
  EXPECT_EQ(run(disjoint), 0u);
  auto shared = sgemm(0, 0, 2, 5, 3, kA, 8, kB, 3, kA + 1 * 4, 4);  // C column 0 holds float 1
  EXPECT_EQ(run(shared), kAlias);
}

TEST(OutputAliasing, SameInputTwiceIsValid) {
  EXPECT_EQ(run(sgemm(1, 0, 4, 4, 4, kA, 4, kA, 4, kC, 4)), 0u);  // A^T A
}

TEST(OutputAliasing, UnusedInputsDoNotAlias) {
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 0, kC, 4, kC, 1, kC, 4)), 0u);  // k = 0: A and B never read
}

TEST(OutputAliasing, CublasLtInPlaceDIsCIsValid) {
  EXPECT_EQ(run(lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kC, 8)), 0u);  // PyTorch's addmm: C and D the same
  EXPECT_EQ(run(lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kD, 8)), 0u);  // separate D
}

TEST(OutputAliasing, CublasLtDOverlapsAOrC) {
  EXPECT_EQ(run(lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kA, 8)), kAlias);
  auto other_layout = lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kC, 16);
  EXPECT_EQ(run(other_layout), kAlias);
  EXPECT_EQ(message_of(other_layout, CheckId::kOutputAliasesInput),
            "D is C's memory (0x7f0000200000) with another layout (ldd=16, ldc=8, stride_d=0, stride_c=0): "
            "in-place cuBLASLt needs D's layout to be C's");
}

// NVIDIA's LtFp8CustomFind: D is C's memory with another type (FP8 D, BF16 C) and beta is 0.
// cuBLASLt then reads no C: neither its layout nor its extent is checked. With beta unknown (or
// not 0) C is an input, and D over it with another layout is flagged.
TEST(OutputAliasing, CublasLtBetaZeroReadsNoC) {
  FakeQuery q = FakeQuery::standard();
  q.add(kC, 8 * 16 * 2);  // D's fp16 8x8 with ldd 16 fits; C as ldc 32 would not
  auto other_layout = lt(8, 8, 8, kA, 8, kB, 8, kC, 32, kC, 16);
  EXPECT_EQ(run(other_layout, q), kAlias | kBounds);
  other_layout.rec.flags |= format::kFlagBetaKnown;
  other_layout.rec.beta[0] = 0.5;
  EXPECT_EQ(run(other_layout, q), kAlias | kBounds);  // beta read and not 0: C is an input
  other_layout.rec.beta[0] = 0.0;
  EXPECT_EQ(run(other_layout, q), 0u);
}

TEST(OutputAliasing, AcrossBatchMembers) {
  // C member 1 (at kC + 16 floats) is A member 0 when A starts there.
  EXPECT_EQ(run(strided(4, 4, 4, kC + 64, 4, 16, kB, 4, 16, kC, 4, 16, 2)), kAlias);
  EXPECT_EQ(run(strided(4, 4, 4, kC + 128, 4, 16, kB, 4, 16, kC, 4, 16, 2)), 0u);  // right after
}

TEST(OutputAliasing, PointerArraysOnlyWhenTheArrayIsShared) {
  auto bad = batched(4, 4, 4, kA, kB, kA, 8);
  EXPECT_EQ(run(bad), kAlias);
  EXPECT_EQ(message_of(bad, CheckId::kOutputAliasesInput),
            "the pointer array of C (0x7f0000000000) is also the one of A: every output C[i] is the input A[i]");
  EXPECT_EQ(run(batched(4, 4, 4, kA, kB, kC, 8)), 0u);
}

// ---- misaligned-operand -------------------------------------------------------------------

TEST(Alignment, BelowTheElementSize) {
  auto bad = sgemm(0, 0, 4, 4, 4, kA + 2, 4, kB, 4, kC, 4);
  EXPECT_EQ(run(bad), kAlign);
  EXPECT_EQ(message_of(bad, CheckId::kMisalignedOperand),
            "A (0x7f0000000002) is not aligned to its 4-byte elements (CUDA_R_32F)");
  EXPECT_EQ(run(gemm_ex(kR16F, 0, 0, 4, 4, 4, kA + 2, 4, kB, 4, kC, 4)), 0u);        // half: 2 bytes
  EXPECT_EQ(run(gemm_ex(kR8F_E4M3, 1, 0, 4, 4, 16, kA + 1, 16, kB + 3, 16, kC, 4)), 0u);  // fp8: any
  EXPECT_EQ(run(gemm_ex(kC64F, 0, 0, 4, 4, 4, kA, 4, kB, 4, kC + 8, 4)), kAlign);    // 16-byte complex
  EXPECT_EQ(run(gemm_ex(kR64F, 0, 0, 4, 4, 4, kA, 4, kB, 4, kC + 8, 4)), 0u);
}

TEST(Alignment, PointerArraysNeedPointerAlignment) {
  auto bad = batched(4, 4, 4, kA, kB + 4, kC, 2);
  EXPECT_EQ(run(bad), kAlign);
  EXPECT_EQ(message_of(bad, CheckId::kMisalignedOperand),
            "the pointer array of B (0x7f0000100004) is not aligned to the 8 bytes of a pointer");
}

// ---- pointer-mode-mismatch ----------------------------------------------------------------

TEST(PointerMode, HostModeWithDeviceScalar) {
  auto bad = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kC, 4);
  bad.rec.args[6] = kD;  // alpha in device memory, pointer mode host
  ASSERT_STREQ(bad.entry.args[6].name, "alpha");
  EXPECT_EQ(run(bad), kMode);
  EXPECT_EQ(message_of(bad, CheckId::kPointerModeMismatch),
            "alpha (0x7f0000300000) is device memory (device 0) but the pointer mode is host: cuBLAS reads "
            "alpha on the CPU");
}

TEST(PointerMode, DeviceModeWithPageableScalar) {
  auto bad = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kC, 4);
  bad.rec.pointer_mode = 1;  // alpha/beta are on the stack (kAlpha, kBeta)
  EXPECT_EQ(run(bad), kMode);
  EXPECT_EQ(message_of(bad, CheckId::kPointerModeMismatch),
            "alpha (0x7ffc00001000) is host memory the driver does not know, but the pointer mode is device: "
            "the GPU cannot read alpha");
  FakeQuery hmm = FakeQuery::standard();
  hmm.pageable = true;  // HMM/ATS: the GPU reads pageable memory
  EXPECT_EQ(run(bad, hmm), 0u);
}

TEST(PointerMode, ValidCombinations) {
  FakeQuery q = FakeQuery::standard();
  q.add(kAlpha, 16, MemoryKind::kHost);  // pinned alpha and beta
  auto host = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kC, 4);
  EXPECT_EQ(run(host), 0u);      // host mode, stack scalars
  EXPECT_EQ(run(host, q), 0u);   // host mode, pinned scalars
  auto device = host;
  device.rec.pointer_mode = 1;
  EXPECT_EQ(run(device, q), 0u);  // device mode, pinned scalars: the GPU reads them over the bus
  device.rec.args[6] = kD;
  device.rec.args[11] = kD + 8;
  EXPECT_EQ(run(device), 0u);     // device mode, device scalars
  auto unknown = host;
  unknown.rec.pointer_mode = -1;  // the shim did not see the handle created
  unknown.rec.args[6] = kD;
  EXPECT_EQ(run(unknown), 0u);
}

TEST(PointerMode, CublasLtModes) {
  auto call = lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kC, 8);
  call.rec.args[6] = kD;  // alpha on the device, beta on the host stack
  call.rec.pointer_mode = 4;  // ALPHA_DEVICE_VECTOR_BETA_HOST
  EXPECT_EQ(run(call), 0u);
  call.rec.pointer_mode = 3;  // ALPHA_DEVICE_VECTOR_BETA_ZERO: beta is not read at all
  EXPECT_EQ(run(call), 0u);
  call.rec.pointer_mode = 1;  // DEVICE: beta on the host stack is wrong
  EXPECT_EQ(run(call), kMode);
  EXPECT_NE(message_of(call, CheckId::kPointerModeMismatch).find("beta (0x7ffc00001008)"), std::string::npos);
}

// ---- host-pointer-operand -----------------------------------------------------------------

TEST(HostPointer, OperandUnknownToTheDriver) {
  uint64_t heap = 0x55d000001000;  // a malloc'd buffer
  auto bad = sgemm(0, 0, 4, 4, 4, kA, 4, heap, 4, kC, 4);
  EXPECT_EQ(run(bad), kHost);
  EXPECT_EQ(message_of(bad, CheckId::kHostPointerOperand),
            "B (0x55d000001000) is not memory the GPU can read: the driver does not know the address "
            "(pageable host memory, or memory already freed)");
  FakeQuery hmm = FakeQuery::standard();
  hmm.pageable = true;
  EXPECT_EQ(run(bad, hmm), 0u);
}

TEST(HostPointer, PinnedAndManagedMemoryAreReadable) {
  FakeQuery q = FakeQuery::standard();
  q.add(0x200000000, 4096, MemoryKind::kHost).add(0x300000000, 4096, MemoryKind::kManaged, 1);
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, 0x200000000, 4, 0x300000000, 4, kC, 4), q), 0u);
}

TEST(HostPointer, NullOperandWithoutTheDriver) {
  FakeQuery none;
  none.failing = true;  // no driver answer: only what needs none is checked
  auto bad = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, 0, 4);
  EXPECT_EQ(run(bad, none), kHost);
  EXPECT_EQ(message_of(bad, CheckId::kHostPointerOperand, none), "C is a null pointer, yet the call writes it");
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, kA, 4, 0x55d000001000, 4, kC, 4), none), 0u);  // cannot tell
}

TEST(HostPointer, CublasLtInputCMayBeNullWithSeparateD) {
  // cuBLASLt reads C only when beta != 0: a null C beside a separate D is the program's choice.
  EXPECT_EQ(run(lt(8, 8, 8, kA, 8, kB, 8, 0, 8, kD, 8)), 0u);
  EXPECT_EQ(run(lt(8, 8, 8, kA, 8, kB, 8, kC, 8, 0, 8)), kHost);  // a null output D is not
}

TEST(HostPointer, MessageWithoutDetailStillNamesTheProblem) {
  // Two findings: the detail describes the leading dimension, the host pointer gets the general text.
  auto both = sgemm(0, 0, 4, 4, 4, kA, 3, 0x55d000001000, 4, kC, 4);
  EXPECT_EQ(run(both), kLd | kHost);
  EXPECT_NE(message_of(both, CheckId::kHostPointerOperand).find("memory the GPU cannot read"), std::string::npos);
}

// ---- operand-out-of-bounds ----------------------------------------------------------------

TEST(OutOfBounds, ExtentPastTheAllocation) {
  FakeQuery q = FakeQuery::standard();
  q.add(0x400000000, 60);  // 15 floats for a 4x4 A
  auto bad = sgemm(0, 0, 4, 4, 4, 0x400000000, 4, kB, 4, kC, 4);
  EXPECT_EQ(run(bad, q), kBounds);
  EXPECT_EQ(message_of(bad, CheckId::kOperandOutOfBounds, q),
            "A (0x400000000) runs 4 bytes past the end of its allocation: it spans 64 bytes "
            "(0x400000000..0x400000040) while the allocation at 0x400000000 holds 60 bytes");
  q.add(0x400000000, 64);
  EXPECT_EQ(run(bad, q), 0u);  // exactly fits
}

TEST(OutOfBounds, SubTensorInsideALargerAllocation) {
  // PyTorch's caching allocator: tensors are slices of big segments.
  FakeQuery q;
  q.add(0x500000000, 2 << 20);
  EXPECT_EQ(run(sgemm(0, 0, 64, 64, 64, 0x500000000 + 4096, 64, 0x500000000 + 65536, 64,
                      0x500000000 + 131072, 64), q), 0u);
  // The last tensor of the segment, one column too long.
  EXPECT_EQ(run(sgemm(0, 0, 64, 64, 64, 0x500000000, 64, 0x500000000 + 65536, 64,
                      0x500000000 + (2 << 20) - 63 * 64 * 4, 64), q), kBounds);
}

TEST(OutOfBounds, LastLeadingDimensionIsNotNeeded) {
  // Column-major: the last column needs only m elements, not ldc.
  FakeQuery q = FakeQuery::standard();
  q.add(0x600000000, (3 * 100 + 4) * 4);
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, 0x600000000, 100), q), 0u);
}

TEST(OutOfBounds, StridedBatchPastTheEnd) {
  FakeQuery q = FakeQuery::standard();
  q.add(0x700000000, 16 * 4 * 3);  // room for 3 of 4 members
  auto bad = strided(4, 4, 4, kA, 4, 16, kB, 4, 16, 0x700000000, 4, 16, 4);
  EXPECT_EQ(run(bad, q), kBounds);
  EXPECT_NE(message_of(bad, CheckId::kOperandOutOfBounds, q).find("runs 64 bytes past the end"), std::string::npos);
}

TEST(OutOfBounds, NegativeStrideBeforeTheStart) {
  FakeQuery q = FakeQuery::standard();
  q.add(0x700000000, 1 << 20);
  auto bad = strided(4, 4, 4, kA, 4, 16, kB, 4, 16, 0x700000000, 4, -16, 2);
  EXPECT_EQ(run(bad, q), kBounds);
  EXPECT_NE(message_of(bad, CheckId::kOperandOutOfBounds, q).find("starts 64 bytes before its allocation"),
            std::string::npos);
}

TEST(OutOfBounds, PointerArrayShorterThanTheBatch) {
  FakeQuery q = FakeQuery::standard();
  q.add(0x800000000, 32);  // 4 pointers for a batch of 8
  auto bad = batched(4, 4, 4, 0x800000000, kB, kC, 8);
  EXPECT_EQ(run(bad, q), kBounds);
  EXPECT_EQ(message_of(bad, CheckId::kOperandOutOfBounds, q),
            "the pointer array of A (0x800000000) runs 32 bytes past the end of its allocation: it spans 64 "
            "bytes (0x800000000..0x800000040) while the allocation at 0x800000000 holds 32 bytes");
  EXPECT_EQ(run(batched(4, 4, 4, 0x800000000, kB, kC, 4), q), 0u);
}

// ---- device-mismatch ----------------------------------------------------------------------

TEST(DeviceMismatch, OperandOnAnotherDevice) {
  FakeQuery q = FakeQuery::standard();
  q.add(kC, 1 << 20, MemoryKind::kDevice, 1);
  auto call = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kC, 4);
  EXPECT_EQ(run(call, q, 0), kDevice);
  EXPECT_EQ(message_of(call, CheckId::kDeviceMismatch, q, 0),
            "C (0x7f0000200000) is memory of device 1, but the call runs on device 0");
  EXPECT_EQ(run(call, q, 1), kDevice);  // now A and B are the foreign ones
  EXPECT_EQ(run(call, q, -1), 0u);      // the call's device is unknown
}

TEST(DeviceMismatch, DeviceModeScalarsCountHostModeScalarsDoNot) {
  FakeQuery q = FakeQuery::standard();
  q.add(0x900000000, 64, MemoryKind::kDevice, 1);
  auto call = sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kC, 4);
  call.rec.args[6] = 0x900000000;  // alpha and beta on device 1
  call.rec.args[11] = 0x900000008;
  call.rec.pointer_mode = 1;
  EXPECT_EQ(run(call, q, 0), kDevice);
  EXPECT_EQ(message_of(call, CheckId::kDeviceMismatch, q, 0),
            "alpha (0x900000000) is memory of device 1, but the call runs on device 0");
  call.rec.pointer_mode = 0;  // host mode: the mode is what is wrong, not the device
  EXPECT_EQ(run(call, q, 0), kMode);
}

TEST(DeviceMismatch, ManagedAndPinnedMemoryBelongToNoDevice) {
  FakeQuery q = FakeQuery::standard();
  q.add(kA, 1 << 20, MemoryKind::kManaged, 1).add(kB, 1 << 20, MemoryKind::kHost, 1);
  EXPECT_EQ(run(sgemm(0, 0, 4, 4, 4, kA, 4, kB, 4, kC, 4), q, 0), 0u);
}

// ---- check_gemm ---------------------------------------------------------------------------

TEST(CheckGemm, RealisticValidCallsAreNotFlagged) {
  // PyTorch fp16 Linear: GemmEx with transa=T, big lds, buffers carved out of one segment.
  FakeQuery q;
  q.add(0x900000000, 64 << 20);
  auto linear = gemm_ex(kR16F, 1, 0, 1024, 512, 768, 0x900000000, 768, 0x900000000 + (8 << 20), 768,
                        0x900000000 + (16 << 20), 1024);
  EXPECT_EQ(run(linear, q), 0u);
  // bmm with broadcast weights.
  EXPECT_EQ(run(strided(64, 64, 64, kA, 64, 0, kB, 64, 4096, kC, 64, 4096, 16)), 0u);
}

TEST(CheckGemm, AsksTheDriverOncePerAddress) {
  FakeQuery q = FakeQuery::standard();
  auto call = lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kC, 8);  // D is C
  check_gemm(call.call(), 0, 0, q);
  EXPECT_EQ(q.queries, 5);  // A, B, C, alpha, beta
}

TEST(CheckGemm, DetailDescribesTheLowestFlaggedCheck) {
  FakeQuery q = FakeQuery::standard();
  q.add(kC, 1 << 20, MemoryKind::kDevice, 3);
  auto call = sgemm(0, 0, 4, 4, 4, kA + 2, 4, kB, 4, kC, 4);  // misaligned A, C on device 3
  CheckFindings f = check_gemm(call.call(), 0, 0, q);
  EXPECT_EQ(f.bits, kDevice | kAlign);
  CheckDetail d = unpack_check_detail(f.detail);
  ASSERT_TRUE(d.present);
  EXPECT_EQ(d.id, CheckId::kDeviceMismatch);
  EXPECT_EQ(d.operand, CheckOperand::kC);
  EXPECT_EQ(d.value_a, 3u);
  EXPECT_EQ(d.value_b, 0u);
}

TEST(CheckGemm, NegativeSizesAreLeftToCublas) {
  EXPECT_EQ(run(sgemm(0, 0, -1, 4, 4, kA, 0, kB, 4, 0, 0)), 0u);
}

TEST(CheckGemm, GarbageArgumentsStayDefinedAndBounded) {
  // Records of crashing programs hold anything: every check and message must stay defined
  // (the sanitizer build runs this) and finish within its work budget.
  const int64_t values[] = {0, 1, -1, 3, 4, 8, 16, 1 << 20, INT32_MAX, int64_t{1} << 40, INT64_MAX, INT64_MIN};
  const uint64_t addresses[] = {0, kA, kA + 2, 0xffffffffffffff00ull};
  uint64_t seed = 12345;
  auto pick = [&](auto& array) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return array[(seed >> 33) % (sizeof array / sizeof array[0])];
  };
  FakeQuery q;
  q.add(kA, 1 << 20);
  for (int round = 0; round < 3000; ++round) {
    auto cb = round % 3 == 0 ? strided(pick(values), pick(values), pick(values), pick(addresses), pick(values),
                                       pick(values), pick(addresses), pick(values), pick(values), pick(addresses),
                                       pick(values), pick(values), pick(values))
              : round % 3 == 1 ? lt(pick(values), pick(values), pick(values), pick(addresses), pick(values),
                                    pick(addresses), pick(values), pick(addresses), pick(values), pick(addresses),
                                    pick(values))
                               : batched(pick(values), pick(values), pick(values), pick(addresses), pick(addresses),
                                         pick(addresses), pick(values));
    cb.rec.pointer_mode = static_cast<int>(round % 6) - 1;
    CheckFindings f = check_gemm(cb.call(), cb.rec.pointer_mode, round % 2, q);
    cb.rec.check_detail[0] = f.detail[0];
    cb.rec.check_detail[1] = f.detail[1];
    for (int id = 0; id < kCheckCount; ++id) {
      EXPECT_FALSE(check_message(static_cast<CheckId>(id), cb.call(), cb.rec).empty());
    }
  }
}

// ---- size-overflow ------------------------------------------------------------------------

TEST(SizeOverflow, AnOperandPast2To31ElementsThroughA32BitEntryPointIsFlagged) {
  // A is 2 x 2 with lda = 2^31 - 1: its second column starts at element 2^31 - 1, so the
  // matrix spans 2^31 + 1 elements, which cublasSgemm_v2 cannot index in 32 bits.
  const int64_t lda = kMax32BitElements;
  EXPECT_TRUE(check_gemm_shape(sgemm(0, 0, 2, 2, 2, kA, lda, kB, 2, kC, 2).call()).bits & kOverflow);
  const std::string text = message_of(sgemm(0, 0, 2, 2, 2, kA, lda, kB, 2, kC, 2), CheckId::kSizeOverflow,
                                      FakeQuery::standard());
  EXPECT_NE(text.find("A spans 2147483649 elements"), std::string::npos) << text;
  EXPECT_NE(text.find("cublasSgemm_v2_64"), std::string::npos) << text;
  // The same shape through the 64-bit entry point, and one element less: nothing.
  CallBuilder wide = sgemm(0, 0, 2, 2, 2, kA, lda, kB, 2, kC, 2);
  std::strncpy(wide.entry.name, "cublasSgemm_v2_64", sizeof wide.entry.name - 1);
  EXPECT_FALSE(check_gemm_shape(wide.call()).bits & kOverflow);
  EXPECT_FALSE(check_gemm_shape(sgemm(0, 0, 1, 2, 2, kA, lda - 1, kB, 2, kC, 1).call()).bits & kOverflow)
      << "(2-1)*(2^31-2)+1 = 2^31-1 elements: the last one a 32-bit index reaches";
}

TEST(SizeOverflow, SizesThatOverflow64BitsAreStillFlaggedNotWrapped) {
  const int64_t huge = int64_t{1} << 62;
  CallBuilder cb = sgemm(0, 0, 2, 8, 2, kA, 2, kB, 2, kC, huge);
  EXPECT_TRUE(check_gemm_shape(cb.call()).bits & kOverflow);
}

TEST(SizeOverflow, CublasLtAndCublasXtTakeWideSizes) {
  EXPECT_TRUE(sizes_are_32bit("cublasGemmEx"));
  EXPECT_TRUE(sizes_are_32bit("cublasSgemmStridedBatched"));
  EXPECT_FALSE(sizes_are_32bit("cublasGemmEx_64"));
  EXPECT_FALSE(sizes_are_32bit("cublasLtMatmul"));
  EXPECT_FALSE(sizes_are_32bit("cublasXtSgemm"));
}

TEST(CheckGemm, ShapeChecksNeedNoDriver) {
  auto call = sgemm(0, 0, 4, 4, 4, kA + 2, 3, kB, 4, kB, 4);
  EXPECT_EQ(check_gemm_shape(call.call()).bits, kLd | kAlias | kAlign);
}

}  // namespace
}  // namespace cublasspy

// ---- cuBLASLt's own rules -----------------------------------------------------------------

namespace cublasspy {
namespace {

constexpr int kR16BF = 14;
constexpr uint32_t kBatches = check_bit(CheckId::kBatchCountMismatch);
constexpr uint32_t kEpilogue = check_bit(CheckId::kEpilogueOperand);
constexpr uint32_t kFp8 = check_bit(CheckId::kFp8Layout);

// An fp8 cublasLtMatmul (E4M3 A and B, bf16 C and D) with its transposes, sizes and lds as stored.
CallBuilder lt_fp8(int ta, int tb, int64_t m, int64_t n, int64_t k, uint64_t a, int64_t lda, int64_t ldb,
                   int64_t ldc) {
  CallBuilder cb("cublasLtMatmul", kFamilyLt);
  cb.head(ta, tb, m, n, k).ptr("alpha", R::kAlpha, kAlpha);
  cb.ptr("a", R::kA, a).type("a_type", R::kAType, kR8F_E4M3).num("lda", R::kLda, lda);
  cb.ptr("b", R::kB, kB).type("b_type", R::kBType, kR8F_E4M3).num("ldb", R::kLdb, ldb).ptr("beta", R::kBeta, kBeta);
  cb.ptr("c", R::kC, kC).type("c_type", R::kCType, kR16BF).num("ldc", R::kLdc, ldc);
  cb.ptr("d", R::kD, kD).type("d_type", R::kDType, kR16BF).num("ldd", R::kLdd, ldc);
  return cb;
}

// The driver of an sm_`cc` GPU.
class GpuQuery final : public PointerQuery {
 public:
  explicit GpuQuery(int cc) : cc_(cc), inner_(FakeQuery::standard()) {}
  PointerInfo query(uint64_t address) override { return inner_.query(address); }
  bool pageable_memory_access(int d) override { return inner_.pageable_memory_access(d); }
  int compute_capability(int) override { return cc_; }

 private:
  int cc_;
  FakeQuery inner_;
};

struct LtRun {
  uint32_t bits = 0;
  std::string message;
};
// All checks with a cuBLASLt matmul's extras and the device's compute capability; the message of `id`.
LtRun run_lt(CallBuilder cb, const LtMatmulExtras& extras, CheckId id, int cc = -1) {
  GpuQuery q(cc);
  CheckFindings f = check_gemm(cb.call(), cb.rec.pointer_mode, 0, q, &extras);
  cb.rec.check_bits = f.bits;
  cb.rec.check_detail[0] = f.detail[0];
  cb.rec.check_detail[1] = f.detail[1];
  return {f.bits, (f.bits & check_bit(id)) ? check_message(id, cb.call(), cb.rec, cb.entry.name) : ""};
}

LtMatmulExtras extras() {
  LtMatmulExtras x;
  x.present = true;
  return x;
}

TEST(LtBatchCounts, EveryLayoutNeedsDsCount) {
  LtMatmulExtras x = extras();
  const auto call = lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kD, 8);
  EXPECT_EQ(run_lt(call, x, CheckId::kBatchCountMismatch).bits, 0u);
  x.batch_count[0] = x.batch_count[1] = x.batch_count[2] = x.batch_count[3] = 4;
  EXPECT_EQ(run_lt(call, x, CheckId::kBatchCountMismatch).bits, 0u);
  x.batch_count[1] = 1;  // github.com/NVIDIA/CUDALibrarySamples/issues/185: B left at 1
  LtRun r = run_lt(call, x, CheckId::kBatchCountMismatch);
  EXPECT_EQ(r.bits, kBatches);
  EXPECT_EQ(r.message,
            "B's layout has CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT 1 but D's has 4: cuBLASLt needs the same batch count on "
            "A, B, C and D (INVALID_VALUE, \"Input matrices batch counts mismatch\")");
  // A cuBLAS call has no layouts: nothing to compare.
  FakeQuery q = FakeQuery::standard();
  EXPECT_EQ(check_gemm(call.call(), 0, 0, q, nullptr).bits, 0u);
}

TEST(LtEpilogue, WhatEachEpilogueNeeds) {
  EXPECT_FALSE(epilogue_needs_bias(1));   // DEFAULT
  EXPECT_FALSE(epilogue_needs_bias(2));   // RELU
  EXPECT_TRUE(epilogue_needs_bias(4));    // BIAS
  EXPECT_TRUE(epilogue_needs_bias(6));    // RELU_BIAS
  EXPECT_TRUE(epilogue_needs_bias(152));  // DRELU_BGRAD: the bias gradient
  EXPECT_TRUE(epilogue_needs_bias(256));  // BGRADA
  EXPECT_FALSE(epilogue_needs_aux(36));   // GELU_BIAS
  EXPECT_TRUE(epilogue_needs_aux(130));   // RELU_AUX
  EXPECT_TRUE(epilogue_needs_aux(136));   // DRELU
  EXPECT_EQ(aux_ld_multiple(134), 128);   // RELU_AUX_BIAS: the bit-mask, in bits
  EXPECT_EQ(aux_ld_multiple(164), 8);     // GELU_AUX_BIAS: GELU's input, in elements
  EXPECT_EQ(aux_ld_multiple(208), 8);     // DGELU_BGRAD
  EXPECT_EQ(aux_ld_multiple(36), 0);
}

TEST(LtEpilogue, ABiasEpilogueWithoutItsVector) {
  LtMatmulExtras x = extras();
  x.epilogue = 6;  // RELU_BIAS
  const auto call = lt(8, 8, 8, kA, 8, kB, 8, kC, 8, kD, 8);
  LtRun r = run_lt(call, x, CheckId::kEpilogueOperand);
  EXPECT_EQ(r.bits, kEpilogue);
  EXPECT_EQ(r.message, "CUBLASLT_EPILOGUE_RELU_BIAS reads or writes a bias vector, but CUBLASLT_MATMUL_DESC_BIAS_POINTER is NULL");
  x.bias = kD + 2;  // fp16 bias (D's type): 2 bytes is aligned
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).bits, 0u);
  x.bias = kD + 1;
  r = run_lt(call, x, CheckId::kEpilogueOperand);
  EXPECT_EQ(r.message, "CUBLASLT_EPILOGUE_RELU_BIAS's bias vector (0x7f0000300001, CUBLASLT_MATMUL_DESC_BIAS_POINTER) "
                       "is not aligned to its elements");
  x.bias_type = kR32F;  // an fp32 bias needs 4
  x.bias = kD + 2;
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).bits, kEpilogue);
  x.epilogue = 1;  // DEFAULT reads no bias, whatever the pointer
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).bits, 0u);
}

TEST(LtEpilogue, AuxBufferAndItsLd) {
  LtMatmulExtras x = extras();
  x.epilogue = 130;  // RELU_AUX
  const auto call = lt(16, 8, 8, kA, 16, kB, 8, kC, 16, kD, 16);
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).message,
            "CUBLASLT_EPILOGUE_RELU_AUX reads or writes an auxiliary buffer, but "
            "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER is NULL");
  x.aux = kD + 4096;
  x.aux_ld = 16;  // at least m, but not a multiple of 128 bits
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).message,
            "CUBLASLT_EPILOGUE_RELU_AUX's CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD is 16: it must be a multiple of 128 "
            "(ReLU's bit-mask, in bits) and at least m=16");
  x.aux_ld = 128;
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).bits, 0u);
  x.epilogue = 160;  // GELU_AUX: multiples of 8 elements, at least m
  x.aux_ld = 8;
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).bits, kEpilogue);
  x.aux_ld = 24;
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).bits, 0u);
  x.aux = kD + 4097;  // GELU's input has D's fp16 elements
  EXPECT_EQ(run_lt(call, x, CheckId::kEpilogueOperand).message,
            "CUBLASLT_EPILOGUE_GELU_AUX's auxiliary buffer (0x7f0000301001) is not aligned to its elements");
}

TEST(LtFp8, AlignedTnIsValidEverywhere) {
  const auto tn = lt_fp8(1, 0, 64, 32, 48, kA, 48, 48, 64);
  for (int cc : {-1, 89, 90, 100}) EXPECT_EQ(run_lt(tn, extras(), CheckId::kFp8Layout, cc).bits, 0u) << cc;
}

TEST(LtFp8, OtherLayoutsOnlyOnAdaAndHopper) {
  const auto nn = lt_fp8(0, 0, 64, 32, 48, kA, 64, 48, 64);
  LtRun r = run_lt(nn, extras(), CheckId::kFp8Layout, 90);
  EXPECT_EQ(r.bits, kFp8);
  EXPECT_EQ(r.message, "transa=N, transb=N: on compute capability 9.0 cuBLASLt's fp8 kernels take only the \"TN\" "
                       "layout, A transposed and B not");
  EXPECT_EQ(run_lt(nn, extras(), CheckId::kFp8Layout, 89).bits, kFp8);
  EXPECT_EQ(run_lt(nn, extras(), CheckId::kFp8Layout, 100).bits, 0u);  // Blackwell
  EXPECT_EQ(run_lt(nn, extras(), CheckId::kFp8Layout, -1).bits, 0u);   // the GPU unknown: not judged
}

TEST(LtFp8, SixteenBytePointersAndLds) {
  LtRun r = run_lt(lt_fp8(1, 0, 64, 32, 48, kA + 8, 48, 48, 64), extras(), CheckId::kFp8Layout);
  EXPECT_EQ(r.message, "A (0x7f0000000008) is not 16-byte aligned: cuBLASLt's fp8 kernels need every matrix on 16 bytes");
  r = run_lt(lt_fp8(1, 0, 64, 32, 24, kA, 24, 24, 64), extras(), CheckId::kFp8Layout);
  EXPECT_EQ(r.message, "lda=24 is not a multiple of 16: cuBLASLt's fp8 kernels need each ld in multiples of 16 bytes "
                       "(16 elements of CUDA_R_8F_E4M3)");
  // bf16 C and D: 8 elements make 16 bytes.
  r = run_lt(lt_fp8(1, 0, 60, 32, 48, kA, 48, 48, 60), extras(), CheckId::kFp8Layout);
  EXPECT_EQ(r.bits, kFp8);
  EXPECT_TRUE(r.message.rfind("ldc=60 is not a multiple of 8", 0) == 0) << r.message;
  EXPECT_EQ(run_lt(lt_fp8(1, 0, 64, 32, 48, kA, 48, 48, 72), extras(), CheckId::kFp8Layout).bits, 0u);
}

TEST(LtFp8, OtherTypesAreNotFp8s) {
  EXPECT_EQ(run_lt(lt(8, 8, 8, kA + 2, 8, kB, 8, kC, 8, kD, 8), extras(), CheckId::kFp8Layout, 90).bits & kFp8, 0u);
}

}  // namespace
}  // namespace cublasspy
