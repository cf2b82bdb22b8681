// A hooked call made from inside another: cuBLAS runs an fp16 cublasGemmEx through
// cublasLtMatmul across the PLT, so the preloaded cublasLtMatmul fires inside it and must be
// recorded as nested (depth 1), not as a second call of the program's.
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

TEST(NestedCalls, LtMatmulInsideGemmExIsRecordedAtDepthOne) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_gemm_ex_half")}, traced(dir) + on_standin(), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_NE(r.out.find("cublasGemmEx 0 c[0] 2"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);

  auto outer = calls_of(*trace, "cublasGemmEx");
  auto inner = calls_of(*trace, "cublasLtMatmul");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  const CallView& gemm = outer[0];
  const CallView& lt = inner[0];
  EXPECT_EQ(gemm.rec().depth, 0);
  EXPECT_FALSE(gemm.rec().flags & format::kFlagNested);
  EXPECT_EQ(lt.rec().depth, 1);
  EXPECT_TRUE(lt.rec().flags & format::kFlagNested);
  EXPECT_EQ(lt.rec().status, 0);
  EXPECT_EQ(lt.rec().tid, gemm.rec().tid);
  EXPECT_EQ(lt.seq, gemm.seq + 1) << "entered right after the GemmEx, before anything else";
  EXPECT_GE(lt.rec().start_ns, gemm.rec().start_ns);
  EXPECT_LE(lt.rec().start_ns + lt.rec().duration_ns, gemm.rec().start_ns + gemm.rec().duration_ns)
      << "the nested call ends inside the outer one";
  EXPECT_EQ(lt.arg("handle"), gemm.arg("handle")) << "cuBLAS passes its own handle to cuBLASLt";
  // The GemmEx is T/N, m 4, n 3, k 2: its nested matmul is the same product, whatever the shim
  // could read of the descriptor cuBLAS made on its stack (A stored k x m).
  EXPECT_EQ(lt.arg(format::ArgRole::kM), gemm.arg(format::ArgRole::kM));
  EXPECT_EQ(lt.arg(format::ArgRole::kN), gemm.arg(format::ArgRole::kN));
  EXPECT_EQ(lt.arg(format::ArgRole::kK), gemm.arg(format::ArgRole::kK));
  EXPECT_EQ(lt.arg(format::ArgRole::kM), 4u);
}

}  // namespace
}  // namespace cublasspy::integration
