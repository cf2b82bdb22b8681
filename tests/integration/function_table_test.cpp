// The function table a trace carries, against the hook list it is expanded from (the list is
// expanded here too): every function's library is the list's first column; every GEMM entry
// point's slots have the roles its consumers look for (the checks, scans, dumps, report,
// diagnoses and replay find a call's fields by role); no role is given twice in one function;
// and a slot's name alone leads the reader to the same role, as it must for the traces of
// versions 1 and 2, which carry names only (trace/roles_from_names.h).
#include <cstring>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "spec/hook_list.h"
#include "support/shim_tests.h"
#include "gemm/gemm_call.h"
#include "trace/roles_from_names.h"

namespace cublasspy::integration {
namespace {

using format::ArgRole;

struct ListedHook {
  const char* name;
  format::Library library;
  format::Family family;
};
#define FT_HOOK(lib_, ret_, fn_, fail_, family_, traits_, ...) ListedHook{#fn_, format::Library::lib_, format::Family::family_},
const ListedHook kListed[] = {CUBLASSPY_ALL_HOOKS(FT_HOOK)};
#undef FT_HOOK
// The waits and queries recorded in the launch ring came after version 3, like the launches.
#define FT_NAME(lib_, ret_, fn_, ...) std::string(#fn_),
const std::set<std::string> kSurfaceHooks = {CUBLASSPY_SURFACE_HOOKS(FT_NAME)};
#undef FT_NAME

class FunctionTable : public ::testing::Test {
 protected:
  // Any traced run writes the whole table: the per-hook round-trip program on the null stack.
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    ProcessResult r = run_process({program("shim_hook_roundtrip"), *dir_ / "expected.txt"}, traced(*dir_),
                                  isolated_in(*dir_));
    ASSERT_TRUE(r.exited_ok()) << r.describe();
    std::string error;
    auto trace = TraceFile::open(trace_path(*dir_, r.pid), error);
    ASSERT_TRUE(trace) << error;
    trace_ = new TraceFile(std::move(*trace));
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete dir_;
  }
  void SetUp() override { ASSERT_NE(trace_, nullptr); }

  static const format::FunctionEntry* entry(const char* name) {
    const int id = function_id(*trace_, name);
    return id < 0 ? nullptr : &trace_->function(static_cast<uint16_t>(id));
  }
  static int count_role(const format::FunctionEntry& e, ArgRole role) {
    int n = 0;
    for (uint16_t i = 0; i < e.arg_count; ++i) n += e.args[i].role == static_cast<uint8_t>(role);
    return n;
  }

  static ScratchDir* dir_;
  static TraceFile* trace_;
};
ScratchDir* FunctionTable::dir_ = nullptr;
TraceFile* FunctionTable::trace_ = nullptr;

TEST_F(FunctionTable, WrittenAtTheCurrentVersion) {
  EXPECT_EQ(trace_->header().format_version, format::kFormatVersion);
}

TEST_F(FunctionTable, EachFunctionsLibraryIsTheHookListsFirstColumn) {
  for (const ListedHook& hook : kListed) {
    const format::FunctionEntry* e = entry(hook.name);
    ASSERT_NE(e, nullptr) << hook.name << " is in the trace's function table";
    EXPECT_EQ(e->library, static_cast<uint8_t>(hook.library)) << hook.name;
    EXPECT_NE(e->library, static_cast<uint8_t>(format::Library::kUnknown)) << hook.name;
    EXPECT_EQ(e->family, static_cast<uint16_t>(hook.family)) << hook.name;
  }
}

TEST_F(FunctionTable, EveryGemmEntryPointHasTheRolesOfAGemm) {
  int gemms = 0;
  for (const ListedHook& hook : kListed) {
    if (!format::is_gemm_family(static_cast<uint16_t>(hook.family))) continue;
    ++gemms;
    const format::FunctionEntry* e = entry(hook.name);
    ASSERT_NE(e, nullptr) << hook.name;
    for (ArgRole role : {ArgRole::kTransA, ArgRole::kTransB, ArgRole::kM, ArgRole::kN, ArgRole::kK, ArgRole::kA,
                         ArgRole::kB, ArgRole::kC, ArgRole::kLda, ArgRole::kLdb, ArgRole::kLdc}) {
      EXPECT_EQ(count_role(*e, role), 1) << hook.name << ": role " << static_cast<int>(role);
    }
    if (hook.family == format::Family::kLtMatmul) {
      for (ArgRole role : {ArgRole::kD, ArgRole::kLdd, ArgRole::kAType, ArgRole::kBType, ArgRole::kCType,
                           ArgRole::kDType, ArgRole::kComputeType, ArgRole::kScaleType, ArgRole::kBatchCount}) {
        EXPECT_EQ(count_role(*e, role), 1) << hook.name << ": role " << static_cast<int>(role);
      }
    }
    if (hook.family == format::Family::kGemmStridedBatched) {
      for (ArgRole role : {ArgRole::kStrideA, ArgRole::kStrideB, ArgRole::kStrideC, ArgRole::kBatchCount}) {
        EXPECT_EQ(count_role(*e, role), 1) << hook.name << ": role " << static_cast<int>(role);
      }
    }
    if (hook.family == format::Family::kGemmGrouped) {
      for (ArgRole role : {ArgRole::kGroupCount, ArgRole::kFirstGroupSize, ArgRole::kGroupSizeArray,
                           ArgRole::kMArray, ArgRole::kNArray, ArgRole::kKArray, ArgRole::kLdaArray,
                           ArgRole::kLdbArray, ArgRole::kLdcArray, ArgRole::kAlphaArray, ArgRole::kBetaArray}) {
        EXPECT_EQ(count_role(*e, role), 1) << hook.name << ": role " << static_cast<int>(role);
      }
    }
    // The view every consumer builds finds them.
    const GemmSlots s = gemm_slots(*e);
    EXPECT_TRUE(s.m >= 0 && s.n >= 0 && s.k >= 0 && s.transa >= 0 && s.transb >= 0) << hook.name;
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(s.ptr[i] >= 0 && s.ld[i] >= 0) << hook.name << ": operand " << i;
    EXPECT_EQ(s.host_operands, std::strncmp(hook.name, "cublasXt", 8) == 0) << hook.name;
  }
  EXPECT_GT(gemms, 60) << "the hook list's GEMM entry points";
}

TEST_F(FunctionTable, NoRoleIsGivenTwiceInAFunction) {
  for (const ListedHook& hook : kListed) {
    const format::FunctionEntry* e = entry(hook.name);
    ASSERT_NE(e, nullptr) << hook.name;
    std::set<uint8_t> seen;
    for (uint16_t i = 0; i < e->arg_count; ++i) {
      const uint8_t role = e->args[i].role;
      if (role == static_cast<uint8_t>(ArgRole::kNone)) continue;
      EXPECT_TRUE(seen.insert(role).second) << hook.name << ": role " << int{role} << " again at slot " << i
                                            << " (" << e->args[i].name << ")";
    }
  }
}

// What the reader does for a version 1 or 2 trace, on the version 3 writer's own table: the
// names must lead to exactly the roles and libraries the tags gave.
TEST_F(FunctionTable, TheNamesLeadToTheSameRolesAndLibraries) {
  for (const ListedHook& hook : kListed) {
    const format::FunctionEntry* e = entry(hook.name);
    ASSERT_NE(e, nullptr) << hook.name;
    // Names are only interpreted for traces older than version 3: what came with version 4 (the
    // launch hooks, cuBLASLt's batch mode) was never written without its roles.
    if (e->family == static_cast<uint16_t>(format::Family::kLaunch) || kSurfaceHooks.count(hook.name)) continue;
    // Nor the graph hooks of version 8, nor the exec and error-text hooks of version 9.
    if (e->family == static_cast<uint16_t>(format::Family::kGraph)) continue;
    if (e->family == static_cast<uint16_t>(format::Family::kExec) ||
        e->family == static_cast<uint16_t>(format::Family::kErrorText)) {
      continue;
    }
    // Nor what came with version 5 (groups): the cuBLASLt algorithm and transform hooks.
    const std::string name = hook.name;
    if ((name.rfind("cublasLtMatmulAlgo", 0) == 0 && name != "cublasLtMatmulAlgoGetHeuristic") ||
        name.rfind("cublasLtMatrixTransform", 0) == 0) {
      continue;
    }
    format::FunctionEntry old = *e;
    old.library = 0;
    for (format::ArgDescriptor& d : old.args) d.role = 0;
    derive_roles_from_names(old);
    EXPECT_EQ(old.library, e->library) << hook.name;
    for (uint16_t i = 0; i < e->arg_count; ++i) {
      if (e->args[i].role == static_cast<uint8_t>(format::ArgRole::kBatchMode)) continue;
      if (e->args[i].role == static_cast<uint8_t>(format::ArgRole::kLtAlgoId)) continue;  // version 5
      EXPECT_EQ(int{old.args[i].role}, int{e->args[i].role})
          << hook.name << ": slot " << i << " (" << e->args[i].name << ")";
    }
  }
}

}  // namespace
}  // namespace cublasspy::integration
