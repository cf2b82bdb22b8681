// The slot's fields beside the record that only some families use (RecordSlot::pending_error,
// GEMMs; plane_offset, cuBLASLt calls with layouts). The shim sets them only in those records,
// so a slot a later call of another family reuses still holds the earlier call's values, and the
// reader must not show them on the later call (format::has_pending_error, has_plane_offsets);
// the writer clears them when a call of those families starts (TraceWriter::start_record, which
// the test calls as the shim does), so such a call that sets none shows none.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "present/call_text.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

namespace cublasspy {
namespace {

namespace fs = std::filesystem;
using format::Family;
using format::RecordSlot;

enum : uint16_t { kSetter = 0, kGemm = 1, kLtMatmul = 2, kLtLayoutCall = 3 };

format::FunctionEntry function(const char* name, Family family) {
  format::FunctionEntry f{};
  std::strcpy(f.name, name);
  f.family = static_cast<uint16_t>(family);
  f.arg_count = 1;
  std::strcpy(f.args[0].name, "call");
  f.args[0].kind = static_cast<uint8_t>(format::ArgKind::kUInt);
  return f;
}

class SlotFields : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("slot_fields_test." + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One completed call of `id`, started as the shim starts every call (TraceWriter::start_record,
  // which clears the fields its family uses), then, when `set`, given `value` in each field its
  // family uses (a GEMM's pending error, a cuBLASLt call's plane offsets).
  static void call(TraceWriter& w, ClaimCursor& cursor, uint16_t id, Family family, int value, bool set) {
    RecordSlot scratch{};
    uint64_t seq = 0;
    RecordSlot* slot = w.claim(cursor, &seq, &scratch);
    ASSERT_NE(slot, &scratch);
    const auto f = static_cast<uint16_t>(family);
    TraceWriter::start_record(slot, id, f, 0, 1, 0);
    slot->call.args[0] = seq;
    if (set && format::has_pending_error(f)) slot->pending_error = value;
    if (set && format::has_plane_offsets(f)) {
      for (int i = 0; i < 4; ++i) slot->plane_offset[i] = value + i;
    }
    TraceWriter::publish_in_flight(slot, seq);
    w.complete(slot, seq, false, cursor);
  }

  fs::path dir_;
};

TEST_F(SlotFields, AReusedSlotShowsOnlyTheFieldsItsOwnCallsFamilyUses) {
  const format::FunctionEntry functions[] = {
      function("cublasSetStream_v2", Family::kHandle), function("cublasSgemm_v2", Family::kGemm),
      function("cublasLtMatmul", Family::kLtMatmul),
      function("cublasLtMatmulAlgoGetHeuristic", Family::kLtDescriptor)};
  const struct {
    uint16_t id;
    Family family;
  } kinds[] = {{kSetter, Family::kHandle}, {kGemm, Family::kGemm}, {kLtMatmul, Family::kLtMatmul},
               {kLtLayoutCall, Family::kLtDescriptor}};
  TraceWriter w;
  OpenResult r = w.open((dir_ / "t.cbt").string(), 16, functions, 4, std::string("pid\0" "1\0", 6), 0);
  ASSERT_TRUE(r.file_backed) << r.warning;
  ClaimCursor cursor;
  // The first round of the ring: cuBLASLt matmuls, which set both fields, in every slot.
  for (int i = 0; i < 16; ++i) call(w, cursor, kLtMatmul, Family::kLtMatmul, 700 + i, true);
  // The second round: every family in turn, over the first round's slots; every other four
  // calls set none of the fields (a GEMM without a pending error), which then read 0, not the
  // first round's values.
  auto sets = [](int i) { return (i / 4) % 2 == 0; };
  for (int i = 0; i < 16; ++i) call(w, cursor, kinds[i % 4].id, kinds[i % 4].family, 900 + i, sets(i));

  std::string error;
  auto t = TraceFile::open(r.path, error);
  ASSERT_TRUE(t) << error;
  int seen = 0;
  t->for_each_call([&](const CallView& c) {
    const int i = static_cast<int>(c.seq) - 17;  // the second round's calls, 0 to 15
    ASSERT_GE(i, 0) << call_line(c);
    ++seen;
    const int value = sets(i) ? 900 + i : 0;
    switch (c.slot.call.function_id) {
      case kSetter:  // neither: the first round's values are not this call's
        EXPECT_EQ(c.slot.pending_error, 0) << call_line(c);
        for (int64_t p : c.slot.plane_offset) EXPECT_EQ(p, 0) << call_line(c);
        break;
      case kGemm:  // a pending error, no plane offsets
        EXPECT_EQ(c.slot.pending_error, value) << call_line(c);
        for (int64_t p : c.slot.plane_offset) EXPECT_EQ(p, 0) << call_line(c);
        break;
      case kLtMatmul:  // both
        EXPECT_EQ(c.slot.pending_error, value) << call_line(c);
        for (int k = 0; k < 4; ++k) EXPECT_EQ(c.slot.plane_offset[k], value ? value + k : 0) << call_line(c);
        break;
      case kLtLayoutCall:  // plane offsets (its layouts'), no pending error: it is no GEMM
        EXPECT_EQ(c.slot.pending_error, 0) << call_line(c);
        for (int k = 0; k < 4; ++k) EXPECT_EQ(c.slot.plane_offset[k], value ? value + k : 0) << call_line(c);
        break;
      default:
        ADD_FAILURE() << call_line(c);
    }
  });
  EXPECT_EQ(seen, 16);
}

}  // namespace
}  // namespace cublasspy
