// Unit tests of the replay's parts that need no process and no CUDA: the element codec, the
// tolerances, the host reference, the verdicts, the plan's JSON, the runner's environment and
// the call adapters' coverage of the hook list.
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cublas_v2.h>

#include "replay/runner/call_adapters.h"
#include "replay/element_codec.h"
#include "replay/hook_signatures.h"
#include "replay/host_reference.h"
#include "replay/replay_plan.h"
#include "replay/runner_client.h"
#include "replay/tolerance.h"
#include "replay/verdict.h"

namespace cublasspy::replay {
namespace {

// --- element codec -----------------------------------------------------------------------------

TEST(ElementCodec, HalfKnownValues) {
  EXPECT_EQ(to_half_bits(1.0), 0x3c00);
  EXPECT_EQ(to_half_bits(-2.0), 0xc000);
  EXPECT_EQ(to_half_bits(65504.0), 0x7bff);
  EXPECT_EQ(to_half_bits(65519.0), 0x7bff);  // rounds down to the largest finite
  EXPECT_EQ(to_half_bits(65520.0), 0x7c00);  // halfway: rounds to even, which is infinity
  EXPECT_EQ(to_half_bits(std::ldexp(1.0, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(to_half_bits(std::ldexp(1.0, -25)), 0x0000);  // halfway to zero: even
  EXPECT_EQ(to_half_bits(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // tie: even mantissa
  EXPECT_EQ(to_half_bits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);  // tie: up to even
  EXPECT_TRUE(std::isnan(from_half_bits(to_half_bits(std::nan("")))));
}

TEST(ElementCodec, Bf16AndFp8KnownValues) {
  EXPECT_EQ(to_bf16_bits(1.0), 0x3f80);
  EXPECT_EQ(to_bf16_bits(-0.5), 0xbf00);
  EXPECT_EQ(to_e4m3_bits(448.0), 0x7e);
  EXPECT_EQ(to_e4m3_bits(1.0), 0x38);
  EXPECT_EQ(to_e4m3_bits(480.0), 0x7f);  // beyond the range: NaN (no infinities in E4M3)
  EXPECT_EQ(to_e5m2_bits(57344.0), 0x7b);
  EXPECT_EQ(to_e5m2_bits(1.0), 0x3c);
  EXPECT_EQ(from_e4m3_bits(0x7e), 448.0);
  EXPECT_TRUE(std::isnan(from_e4m3_bits(0x7f)));
  EXPECT_TRUE(std::isinf(from_e5m2_bits(0x7c)));
}

// Every finite code decodes to a value that encodes back to the same code.
TEST(ElementCodec, EveryFiniteCodeRoundTrips) {
  for (uint32_t code = 0; code < 65536; ++code) {
    double h = from_half_bits(static_cast<uint16_t>(code));
    if (std::isfinite(h) && code != 0x8000) { EXPECT_EQ(to_half_bits(h), code) << std::hex << code; }
    double b = from_bf16_bits(static_cast<uint16_t>(code));
    if (std::isfinite(b) && code != 0x8000) { EXPECT_EQ(to_bf16_bits(b), code) << std::hex << code; }
  }
  for (uint32_t code = 0; code < 256; ++code) {
    double e4 = from_e4m3_bits(static_cast<uint8_t>(code)), e5 = from_e5m2_bits(static_cast<uint8_t>(code));
    if (std::isfinite(e4) && code != 0x80) { EXPECT_EQ(to_e4m3_bits(e4), code) << std::hex << code; }
    if (std::isfinite(e5) && code != 0x80) { EXPECT_EQ(to_e5m2_bits(e5), code) << std::hex << code; }
  }
}

TEST(ElementCodec, SeededValuesAreReproducibleAndPerOperand) {
  SeededValues a1(7, "a"), a2(7, "a"), b(7, "b"), a_other_seed(8, "a");
  uint64_t x = a1.next_bits();
  EXPECT_EQ(x, a2.next_bits());
  EXPECT_NE(x, b.next_bits());
  EXPECT_NE(x, a_other_seed.next_bits());
  SeededValues v(1, "a");
  for (int i = 0; i < 1000; ++i) {
    double f = v.next(DataType::kR32F);
    EXPECT_GE(f, -1.0);
    EXPECT_LT(f, 1.0);
    double n = v.next(DataType::kR8I);
    EXPECT_EQ(n, std::floor(n));
    EXPECT_LE(std::fabs(n), 8.0);
  }
}

TEST(ElementCodec, ComplexPartsAndIntegers) {
  unsigned char buf[16] = {};
  encode_part(DataType::kC32F, buf, 0, 1.5);
  encode_part(DataType::kC32F, buf, 1, -2.25);
  EXPECT_EQ(decode_part(DataType::kC32F, buf, 0), 1.5);
  EXPECT_EQ(decode_part(DataType::kC32F, buf, 1), -2.25);
  encode_part(DataType::kR8I, buf, 0, 300.0);  // clamps
  EXPECT_EQ(decode_part(DataType::kR8I, buf, 0), 127.0);
  encode_part(DataType::kR32I, buf, 0, -7.4);
  EXPECT_EQ(decode_part(DataType::kR32I, buf, 0), -7.0);
}

// --- tolerances --------------------------------------------------------------------------------

TEST(Tolerance, FollowsTypesAndComputeModes) {
  ToleranceInputs fp32{0, 0, 68, 0, false, 16};
  EXPECT_DOUBLE_EQ(tolerance_for(fp32), 1e-5);
  ToleranceInputs tf32 = fp32;
  tf32.math_mode = 3;  // CUBLAS_TF32_TENSOR_OP_MATH
  EXPECT_GT(tolerance_for(tf32), 1e-3);
  EXPECT_LT(tolerance_for(tf32), 5e-3);
  ToleranceInputs fast_tf32{0, 0, 77, 0, false, 16};
  EXPECT_DOUBLE_EQ(tolerance_for(fast_tf32), tolerance_for(tf32));
  ToleranceInputs pedantic = tf32;
  pedantic.compute_type = 69;  // PEDANTIC ignores the math mode
  EXPECT_DOUBLE_EQ(tolerance_for(pedantic), 1e-5);
  EXPECT_DOUBLE_EQ(tolerance_for({2, 2, 68, 0, false, 16}), 1e-2);     // fp16 out
  EXPECT_DOUBLE_EQ(tolerance_for({14, 14, 68, 0, false, 16}), 3e-2);   // bf16 out
  EXPECT_DOUBLE_EQ(tolerance_for({1, 1, -1, 0, false, 16}), 1e-12);    // Dgemm
  EXPECT_EQ(tolerance_for({10, 3, 72, 0, false, 16}), 0.0);            // int8 -> int32: exact
  EXPECT_GT(tolerance_for({0, 0, 68, 0, false, 1 << 20}), 1e-5);       // grows with k
  EXPECT_NE(tolerance_basis(tf32).find("TF32"), std::string::npos);
}

// --- host reference ----------------------------------------------------------------------------

struct SmallGemm {
  ReplayPlan plan;
  std::vector<float> a, b, c, d;

  // C (3 x 2, ldc 4) = 2 * A (3 x 2, lda 3) * B^T (B stored 2 x 2) + 0.5 C
  SmallGemm() {
    plan.kind = CallKind::kGemm;
    plan.function = "cublasSgemm_v2";
    plan.m = 3, plan.n = 2, plan.k = 2, plan.transa = 0, plan.transb = 1;
    plan.alpha = {2, 0};
    plan.beta = {0.5, 0};
    plan.tolerance = 1e-5;
    plan.operands = {operand("a", 3, 2, 3), operand("b", 2, 2, 2), operand("c", 3, 2, 4)};
    a = {1, 2, 3, 4, 5, 6};
    b = {1, -1, 2, 0.5};
    c = {1, 1, 1, 9, 1, 1, 1, 9};  // 9: the rows between m and ldc
    d = c;
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < 3; ++i) {
        double sum = 0;
        for (int q = 0; q < 2; ++q) sum += a[i + 3 * q] * b[j + 2 * q];
        d[i + 4 * j] = static_cast<float>(2 * sum + 0.5 * c[i + 4 * j]);
      }
    }
  }
  static OperandPlan operand(const char* name, int64_t rows, int64_t cols, int64_t ld) {
    OperandPlan o;
    o.name = name;
    o.data_type = 0;
    o.rows = rows, o.cols = cols, o.ld = ld;
    return o;
  }
  Comparison compare() {
    ReferenceInputs in;
    in.a = {&plan.operands[0], reinterpret_cast<unsigned char*>(a.data())};
    in.b = {&plan.operands[1], reinterpret_cast<unsigned char*>(b.data())};
    in.c = {&plan.operands[2], reinterpret_cast<unsigned char*>(c.data())};
    return compare_with_reference(plan, in, in.c, {&plan.operands[2], reinterpret_cast<unsigned char*>(d.data())});
  }
};

TEST(HostReference, AcceptsTheRightResult) {
  SmallGemm g;
  Comparison c = g.compare();
  EXPECT_TRUE(c.available);
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.checked, 6u);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_LT(c.max_error, 1e-7);
}

TEST(HostReference, FindsOneWrongElement) {
  SmallGemm g;
  g.d[1 + 4 * 1] += 1.0f;  // row 1, col 1
  Comparison c = g.compare();
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.worst_row, 1);
  EXPECT_EQ(c.worst_col, 1);
  EXPECT_NEAR(c.max_abs_error, 1.0, 1e-6);
}

TEST(HostReference, FindsWritesOutsideTheResult) {
  SmallGemm g;
  g.d[3] = 0;  // between m and ldc: the call must leave it alone
  Comparison c = g.compare();
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.outside_writes, 1u);
}

TEST(HostReference, NanAgainstFiniteFailsButNanInCIsIgnoredWhenBetaIsZero) {
  SmallGemm g;
  g.d[0] = std::nanf("");
  EXPECT_FALSE(g.compare().passed);
  SmallGemm zero_beta;
  zero_beta.plan.beta = {0, 0};
  zero_beta.c[0] = std::nanf("");
  for (int j = 0; j < 2; ++j) {
    for (int i = 0; i < 3; ++i) {
      double sum = 0;
      for (int q = 0; q < 2; ++q) sum += zero_beta.a[i + 3 * q] * zero_beta.b[j + 2 * q];
      zero_beta.d[i + 4 * j] = static_cast<float>(2 * sum);
    }
  }
  zero_beta.d[3] = zero_beta.c[3], zero_beta.d[7] = zero_beta.c[7];
  EXPECT_TRUE(zero_beta.compare().passed);
}

TEST(HostReference, SamplesWhenTheBudgetIsSmall) {
  SmallGemm g;
  ReferenceInputs in;
  in.a = {&g.plan.operands[0], reinterpret_cast<unsigned char*>(g.a.data())};
  in.b = {&g.plan.operands[1], reinterpret_cast<unsigned char*>(g.b.data())};
  in.c = {&g.plan.operands[2], reinterpret_cast<unsigned char*>(g.c.data())};
  Comparison c = compare_with_reference(g.plan, in, in.c, {&g.plan.operands[2], reinterpret_cast<unsigned char*>(g.d.data())}, 4);
  EXPECT_TRUE(c.sampled);
  EXPECT_LT(c.checked, 6u);
  EXPECT_TRUE(c.passed);
}

// A verified stress loop computes the reference once: a cache filled by the first comparison
// serves the next ones (here the inputs change after the first, and the cached reference wins).
TEST(HostReference, CacheKeepsTheReferenceAcrossRuns) {
  SmallGemm g;
  ReferenceCache cache;
  ReferenceInputs in;
  in.a = {&g.plan.operands[0], reinterpret_cast<unsigned char*>(g.a.data())};
  in.b = {&g.plan.operands[1], reinterpret_cast<unsigned char*>(g.b.data())};
  in.c = {&g.plan.operands[2], reinterpret_cast<unsigned char*>(g.c.data())};
  std::vector<float> before = g.c;
  HostOperand c_before{&g.plan.operands[2], reinterpret_cast<unsigned char*>(before.data())};
  HostOperand d{&g.plan.operands[2], reinterpret_cast<unsigned char*>(g.d.data())};
  EXPECT_TRUE(compare_with_reference(g.plan, in, c_before, d, uint64_t{1} << 31, &cache).passed);
  EXPECT_TRUE(cache.filled);
  EXPECT_EQ(cache.entries.size(), 6u);
  g.a[0] = 100;  // would change the reference, were it recomputed
  EXPECT_TRUE(compare_with_reference(g.plan, in, c_before, d, uint64_t{1} << 31, &cache).passed);
  EXPECT_FALSE(compare_with_reference(g.plan, in, c_before, d).passed);
}

// batchCount 0 is a valid call that computes nothing: nothing to check, nothing wrong.
TEST(HostReference, EmptyBatchChecksNothing) {
  SmallGemm g;
  g.plan.batch = 0;
  g.d = g.c;
  Comparison c = g.compare();
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.checked, 0u);
}

// --- verdicts ----------------------------------------------------------------------------------

ReplayRun ran(DataSource d) {
  ReplayRun r;
  r.data = d;
  r.ran = true;
  r.runs = r.requested = 1;
  return r;
}

TEST(Verdict, ReproducedWithRandomData) {
  OriginalCall o{"cublasSgemm_v2", false, false, 13, 0, 0};
  ReplayRun r = ran(DataSource::kRandom);
  r.status = 13, r.call_failed = true;
  Verdict v = decide(o, &r, nullptr, false, "cublasspy replay t --call 2");
  EXPECT_EQ(v.id, "reproduced-random");
  EXPECT_EQ(v.exit_status, 1);
  EXPECT_NE(v.advice.find("library"), std::string::npos);
  EXPECT_NE(v.advice.find("--emit-cpp"), std::string::npos);
}

TEST(Verdict, InvalidValueBlamesTheArgumentsNotTheLibrary) {
  OriginalCall o{"cublasSgemm_v2", false, false, 7, 0, 0};
  ReplayRun r = ran(DataSource::kRandom);
  r.status = 7, r.call_failed = true;
  Verdict v = decide(o, &r, nullptr, false, "x");
  EXPECT_EQ(v.id, "reproduced-random");
  EXPECT_NE(v.advice.find("wrong as written"), std::string::npos);
}

TEST(Verdict, OnlyWithTheCapturedData) {
  OriginalCall o{"cublasSgemm_v2", false, false, 13, 0, 0};
  ReplayRun random = ran(DataSource::kRandom), dump = ran(DataSource::kDump);
  dump.status = 13, dump.call_failed = true;
  Verdict v = decide(o, &random, &dump, true, "x");
  EXPECT_EQ(v.id, "reproduced-captured-data");
  EXPECT_NE(v.advice.find("data"), std::string::npos);
}

TEST(Verdict, NotReproducedPointsAtSync) {
  OriginalCall o{"cublasSgemm_v2", false, false, 13, 0, 0};
  ReplayRun random = ran(DataSource::kRandom);
  Verdict v = decide(o, &random, nullptr, false, "x");
  EXPECT_EQ(v.id, "not-reproduced");
  EXPECT_EQ(v.exit_status, 0);
  EXPECT_NE(v.advice.find("--sync"), std::string::npos);
  EXPECT_NE(v.advice.find("--dump"), std::string::npos);  // no dumps: suggests recording them
}

TEST(Verdict, NonFiniteOutputReproducedOnlyWithTheData) {
  OriginalCall o{"cublasSgemm_v2", false, false, 0, 0, 4};  // a scan found 4 NaN/Inf in D
  ReplayRun random = ran(DataSource::kRandom), dump = ran(DataSource::kDump);
  dump.nonfinite_output = 4;
  EXPECT_EQ(decide(o, &random, &dump, true, "x").id, "reproduced-captured-data");
  random.nonfinite_output = 20;
  EXPECT_EQ(decide(o, &random, nullptr, false, "x").id, "reproduced-random");
}

TEST(Verdict, WrongResultAndSuccessAndCrash) {
  OriginalCall ok{"cublasSgemm_v2", false, false, 0, 0, 0};
  ReplayRun wrong = ran(DataSource::kRandom);
  wrong.wrong_result = true;
  wrong.verify = {{"available", true}, {"passed", false}, {"mismatches", 1}, {"checked", 20}, {"max_error", 1.4},
                  {"tolerance", 1e-5}, {"outside_writes", 0},
                  {"worst", {{"member", 0}, {"row", 0}, {"col", 0}, {"got", {1.0, 0.0}}, {"want", {0.0, 0.0}}}}};
  Verdict w = decide(ok, &wrong, nullptr, false, "x");
  EXPECT_EQ(w.id, "wrong-result");
  EXPECT_EQ(w.exit_status, 1);
  EXPECT_NE(w.summary.find("row 0"), std::string::npos);
  ReplayRun fine = ran(DataSource::kRandom);
  EXPECT_EQ(decide(ok, &fine, nullptr, false, "x").id, "succeeds");
  OriginalCall crashed{"cublasSgemm_v2", true, true, 0, 0, 0};
  ReplayRun died = ran(DataSource::kRandom);
  died.crashed = true, died.signal = 11;
  Verdict c = decide(crashed, &died, nullptr, false, "x");
  EXPECT_EQ(c.id, "reproduced-random");
  EXPECT_NE(c.summary.find("SIGSEGV"), std::string::npos);
}

TEST(Verdict, CannotRunWhenTheHandleFails) {
  OriginalCall o{"cublasSgemm_v2", false, false, 13, 0, 0};
  ReplayRun r;
  r.setup_stage = "handle";
  r.setup_message = "cublasCreate_v2 failed";
  r.setup_status = 1;
  Verdict v = decide(o, &r, nullptr, false, "x");
  EXPECT_EQ(v.id, "cannot-run");
  EXPECT_EQ(v.exit_status, 3);
  EXPECT_NE(v.summary.find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos);
  EXPECT_NE(v.advice.find("doctor"), std::string::npos);
}

TEST(Verdict, SummarizesRunnerEvents) {
  RunnerOutcome o;
  o.started = true;
  o.events = {{{"event", "loaded"}, {"cublas", "/x/libcublas.so.13"}},
              {{"event", "ready"}},
              {{"event", "run"}, {"run", 0}, {"status", 0}, {"sync_error", 0}, {"ns", 5}, {"nonfinite_output", 3}},
              {{"event", "run"}, {"run", 4}, {"status", 13}, {"sync_error", 700}, {"ns", 9}},
              {{"event", "summary"}, {"runs", 5}, {"requested", 10}, {"failed_run", 4}, {"min_ns", 5}, {"median_ns", 6},
               {"max_ns", 9}, {"total_ns", 30}}};
  ReplayRun r = summarize_run(o, DataSource::kRandom);
  EXPECT_TRUE(r.ran);
  EXPECT_TRUE(r.call_failed);
  EXPECT_EQ(r.status, 13);
  EXPECT_EQ(r.sync_error, 700);
  EXPECT_EQ(r.nonfinite_output, 3u);
  ASSERT_TRUE(r.failed_run.has_value());
  EXPECT_EQ(*r.failed_run, 4);
  // Ready, then nothing: the call took the runner down.
  RunnerOutcome died;
  died.started = true;
  died.signal = 11;
  died.events = {{{"event", "ready"}}};
  ReplayRun d = summarize_run(died, DataSource::kRandom);
  EXPECT_TRUE(d.ran);
  EXPECT_TRUE(d.crashed);
  // Not even ready: a set-up failure, not a replay.
  died.events.clear();
  EXPECT_FALSE(summarize_run(died, DataSource::kRandom).ran);
}

// --- plans, environment, adapters ----------------------------------------------------------------

TEST(ReplayPlan, JsonRoundTrip) {
  SmallGemm g;
  g.plan.values = {{"m", 3}, {"lda", 3}};
  g.plan.operands[2].same_memory_as = "a";
  g.plan.operands[1].fill = Fill::kDump;
  g.plan.operands[1].dump = {DumpPiece{"/t.npy", 128, 0, 1, 60}, DumpPiece{"/t.group1.npy", 128, 2, 3, 24}};
  g.plan.operands[2].program_result = {DumpPiece{"/c.npy", 64, 2, 3, 16}};
  g.plan.lt.epilogue = 36;
  g.plan.groups = {GroupPlan{0, 1, 5, 4, 3, 6, 4, 7, 2, 1.5, 0.5}, GroupPlan{1, 0, 3, 2, 2, 4, 2, 3, 1, 2, 0}};
  g.plan.operands[0].member_capacity = 30;
  ReplayPlan back = nlohmann::json(g.plan).get<ReplayPlan>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(g.plan));
  EXPECT_EQ(back.operands[1].fill, Fill::kDump);
  ASSERT_EQ(back.operands[1].dump.size(), 2u);
  EXPECT_EQ(back.operands[1].dump[1].path, "/t.group1.npy");
  EXPECT_EQ(back.operands[1].dump[1].first_member, 2);
  EXPECT_EQ(back.operands[1].dump[1].bytes(), 72u);
  ASSERT_EQ(back.operands[2].program_result.size(), 1u);
  EXPECT_EQ(back.operands[2].program_result[0].offset, 64u);
  EXPECT_EQ(back.lt.epilogue, 36);
  ASSERT_EQ(back.groups.size(), 2u);
  EXPECT_EQ(back.groups[1].m, 3);
  EXPECT_EQ(back.groups[1].transa, 1);
  EXPECT_EQ(back.operands[0].member_capacity, 30u);
}

// A grouped plan's group as a plan of its own: the group's shape, scalars and members, each
// member as far from the next as in the call (the largest group's capacity).
TEST(ReplayPlan, GroupPlanDescribesOneGroup) {
  ReplayPlan p;
  p.kind = CallKind::kGemmGrouped;
  p.groups = {GroupPlan{0, 0, 5, 4, 3, 6, 3, 7, 2, 1.5, 0.5}, GroupPlan{1, 1, 3, 2, 2, 4, 4, 3, 1, 2, 0}};
  for (const char* name : {"a", "b", "c"}) {
    OperandPlan o;
    o.name = name;
    o.data_type = 0;
    o.pointer_array = true;
    o.members = 3;
    set_group_shape(o, p.groups[0]);
    o.member_capacity = o.member_elements();
    p.operands.push_back(o);
  }
  int64_t first = -1;
  ReplayPlan second = group_plan(p, 1, first);
  EXPECT_EQ(first, 2);
  EXPECT_EQ(second.m, 3);
  EXPECT_EQ(second.k, 2);
  EXPECT_EQ(second.batch, 1);
  EXPECT_EQ(second.alpha[0], 2);
  EXPECT_EQ(second.beta[0], 0);
  EXPECT_TRUE(second.groups.empty());
  const OperandPlan& a = *second.operand("a");  // transposed: stored k x m
  EXPECT_EQ(a.rows, 2);
  EXPECT_EQ(a.cols, 3);
  EXPECT_EQ(a.ld, 4);
  EXPECT_EQ(a.members, 1);
  EXPECT_EQ(a.extent_elements(), p.operand("a")->extent_elements());  // 2 x 5, lda 6: 17
  EXPECT_EQ(a.member_elements(), 10u);  // (3-1)*4 + 2
  EXPECT_EQ(second.operand("c")->ld, 3);
}

TEST(ReplayPlan, ExtentsHonorLdStridesAndOrder) {
  OperandPlan o;
  o.data_type = 0;
  o.rows = 5, o.cols = 3, o.ld = 6;
  EXPECT_EQ(o.member_elements(), 17u);  // (3-1)*6 + 5
  o.members = 2, o.stride = 20;
  EXPECT_EQ(o.extent_elements(), 37u);
  EXPECT_EQ(o.bytes(), 148u);
  o.stride = 0;  // one matrix for every member
  EXPECT_EQ(o.extent_elements(), 17u);
  o.row_order = true, o.ld = 4;  // rows of 3, 4 apart
  EXPECT_EQ(o.member_elements(), 19u);  // (5-1)*4 + 3
}

TEST(RunnerEnvironment, DropsTheShimFromLdPreload) {
  setenv("LD_PRELOAD", "/a/libx.so:/b/libcublasspy.so /c/liby.so", 1);
  std::vector<std::string> env = runner_environment();
  unsetenv("LD_PRELOAD");
  bool found = false;
  for (const std::string& e : env) {
    if (e.rfind("LD_PRELOAD=", 0) != 0) continue;
    found = true;
    EXPECT_EQ(e, "LD_PRELOAD=/a/libx.so:/c/liby.so");
  }
  EXPECT_TRUE(found);
}

// One typed adapter per replayable entry of the hook list: nothing is left out, nothing extra.
TEST(CallAdapters, CoverEveryGemmOfTheHookList) {
  std::set<std::string> expected, adapted;
  for (const FunctionSignature& s : all_signatures()) {
    if (is_replayable_family(s.family)) expected.insert(s.name);
  }
  for (const CallAdapter* a : all_adapters()) adapted.insert(a->name);
  EXPECT_EQ(adapted, expected);
  EXPECT_GE(expected.size(), 60u);
  EXPECT_EQ(find_adapter("cublasLtMatmul")->library, AdapterLibrary::kCublasLt);
  EXPECT_EQ(find_adapter("cublasSgemm")->family, Family::kLegacyGemm);
  EXPECT_EQ(find_adapter("cudaMalloc"), nullptr);
}

// An adapter builds each argument from the values by the trace's names and calls through the
// header's prototype: a fake entry point sees exactly what was given.
extern "C" cublasStatus_t fake_sgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                     const float* alpha, const float* A, int lda, const float* B, int ldb,
                                     const float* beta, float* C, int ldc) {
  bool ok = reinterpret_cast<uintptr_t>(h) == 0x10 && ta == CUBLAS_OP_T && tb == CUBLAS_OP_N && m == 5 && n == 4 &&
            k == 3 && *alpha == 1.5f && reinterpret_cast<uintptr_t>(A) == 0xa0 && lda == 6 &&
            reinterpret_cast<uintptr_t>(B) == 0xb0 && ldb == 4 && *beta == 0.5f && reinterpret_cast<uintptr_t>(C) == 0xc0 &&
            ldc == 7;
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

TEST(CallAdapters, PassArgumentsByName) {
  const float alpha = 1.5f, beta = 0.5f;
  ArgValues v;
  v.integers = {{"transa", 1}, {"transb", 0}, {"m", 5}, {"n", 4}, {"k", 3}, {"lda", 6}, {"ldb", 4}, {"ldc", 7}};
  v.addresses = {{"handle", 0x10}, {"a", 0xa0}, {"b", 0xb0}, {"c", 0xc0},
                 {"alpha", reinterpret_cast<uint64_t>(&alpha)}, {"beta", reinterpret_cast<uint64_t>(&beta)}};
  const CallAdapter* a = find_adapter("cublasSgemm_v2");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->call(reinterpret_cast<void*>(&fake_sgemm), v), 0);
  v.integers.erase("ldc");
  EXPECT_THROW(a->call(reinterpret_cast<void*>(&fake_sgemm), v), std::runtime_error);
}

TEST(HookSignatures, ReportNamesFollowTheShim) {
  EXPECT_EQ(slot_name("A"), "a");
  EXPECT_EQ(slot_name("Atype"), "a_type");
  EXPECT_EQ(slot_name("strideA"), "stride_a");
  EXPECT_EQ(slot_name("Aarray"), "a");
  EXPECT_EQ(slot_name("computeType"), "compute_type");
  EXPECT_EQ(slot_name("lightHandle"), "handle");
  EXPECT_EQ(slot_name("workspaceSizeInBytes"), "workspace_size_in_bytes");
  EXPECT_EQ(slot_name("m_array"), "m_array");
  const FunctionSignature* s = find_signature("cublasGemmStridedBatchedEx_64");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->params[3].type, "int64_t");
  EXPECT_EQ(s->params.back().report_name, "algo");
}

}  // namespace
}  // namespace cublasspy::replay
