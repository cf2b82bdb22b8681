// docs/FORMAT.md against src/trace/trace_format.h: the page's tables must say what the code does.
//
// The page documents each struct under a heading naming it in backticks, with a table
//   | offset | size | field | meaning |      rows such as  | 8 | 4 | `endian_mark` u32 | ... |
// each enum with a table  | value | name | meaning |   and the constants with
//   | constant | value | meaning |.
// This test parses those tables and compares them with the code's own numbers (offsetof,
// sizeof). Its structs and fields are not listed here: they come from trace_format_fields.h,
// whose lists the compiler proves to tile each struct, so a new field is in them or the build
// stops. Checked:
//   - every documented field exists, at its offset, with its size, type and element count;
//   - every field of the code is documented;
//   - each struct's rows cover sizeof(struct) exactly, with no gap or overlap;
//   - every enum value and constant below appears with its number, and the page lists no other;
//   - every struct, enum and constant trace_format.h declares is one this test knows (read from
//     the header's text), so a new one cannot go unchecked.
// The enum lists are also switch cases with -Wswitch an error: an enumerator added to
// trace_format.h and not listed here stops this test from compiling.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "support/markdown_text.h"
#include "trace/trace_format.h"
#include "trace/trace_format_fields.h"

namespace {

namespace format = cublasspy::format;

template <typename>
inline constexpr bool kUnknownType = false;

// How the page writes a member's element type: u8..u64, i32, f64, char, or the struct's name.
template <typename T>
std::string type_token() {
  if constexpr (std::is_same_v<T, char>) return "char";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_integral_v<T>) return (std::is_signed_v<T> ? "i" : "u") + std::to_string(8 * sizeof(T));
  else if constexpr (std::is_same_v<T, format::Record>) return "Record";
  else if constexpr (std::is_same_v<T, format::ScanSummary>) return "ScanSummary";
  else if constexpr (std::is_same_v<T, format::ArgDescriptor>) return "ArgDescriptor";
  else if constexpr (std::is_same_v<T, format::LaunchEntry>) return "LaunchEntry";
  else if constexpr (std::is_same_v<T, format::KernelEntry>) return "KernelEntry";
  else if constexpr (std::is_same_v<T, format::LtEmulation>) return "LtEmulation";
  else if constexpr (std::is_same_v<T, format::RecordSlot>) return "RecordSlot";
  else static_assert(kUnknownType<T>, "give type_token a name for this member type");
}

// ---- The code's side --------------------------------------------------------------------------

struct StructFact {
  std::string name;
  size_t size;
};
#define CBS_STRUCT(S) StructFact{#S, sizeof(format::S)},
const std::vector<StructFact> kStructs = {CUBLASSPY_FORMAT_STRUCTS(CBS_STRUCT)};

struct FieldFact {
  std::string structure, field;
  size_t offset, size, count;  // count: array elements, 1 for a scalar
  std::string type;
};
template <typename M>
constexpr size_t element_count() {
  return std::extent_v<M> == 0 ? 1 : std::extent_v<M>;
}
#define CBS_FIELD(S, f)                                                                        \
  FieldFact{#S, #f, offsetof(format::S, f), sizeof(format::S::f),                             \
            element_count<decltype(format::S::f)>(),                                          \
            type_token<std::remove_all_extents_t<decltype(format::S::f)>>()},
#define CBS_STRUCT_FIELDS(S) CUBLASSPY_FORMAT_FIELDS_##S(CBS_FIELD)
const std::vector<FieldFact> kFields = {CUBLASSPY_FORMAT_STRUCTS(CBS_STRUCT_FIELDS)};

// Every enumerator of the enums the page documents, by enum.
#define CBS_FAMILY_VALUES(X)                                                                   \
  X(Family, kOther) X(Family, kDevice) X(Family, kHandle) X(Family, kGemm)                     \
  X(Family, kGemmBatched) X(Family, kGemmStridedBatched) X(Family, kGemmGrouped)               \
  X(Family, kLtMatmul) X(Family, kLtDescriptor) X(Family, kLibraryLoad) X(Family, kLegacyGemm) \
  X(Family, kSync) X(Family, kMemory) X(Family, kLaunch) X(Family, kGraph)                   \
  X(Family, kExec) X(Family, kErrorText)
#define CBS_ARG_KIND_VALUES(X)                                                                 \
  X(ArgKind, kNone) X(ArgKind, kInt) X(ArgKind, kPointer) X(ArgKind, kOperation)               \
  X(ArgKind, kDataType) X(ArgKind, kComputeType) X(ArgKind, kGemmAlgo) X(ArgKind, kPointerMode) \
  X(ArgKind, kMathMode) X(ArgKind, kStatusOut) X(ArgKind, kText) X(ArgKind, kCudaError)        \
  X(ArgKind, kLtAttribute) X(ArgKind, kUInt) X(ArgKind, kLegacyChar) X(ArgKind, kDouble)       \
  X(ArgKind, kOrder) X(ArgKind, kEpilogue)
#define CBS_ARG_ROLE_VALUES(X)                                                                 \
  X(ArgRole, kNone) X(ArgRole, kHandle) X(ArgRole, kTransA) X(ArgRole, kTransB) X(ArgRole, kM)   \
  X(ArgRole, kN) X(ArgRole, kK) X(ArgRole, kAlpha) X(ArgRole, kBeta) X(ArgRole, kA) X(ArgRole, kB) \
  X(ArgRole, kC) X(ArgRole, kD) X(ArgRole, kLda) X(ArgRole, kLdb) X(ArgRole, kLdc) X(ArgRole, kLdd) \
  X(ArgRole, kAType) X(ArgRole, kBType) X(ArgRole, kCType) X(ArgRole, kDType) X(ArgRole, kStrideA) \
  X(ArgRole, kStrideB) X(ArgRole, kStrideC) X(ArgRole, kStrideD) X(ArgRole, kAOrder)            \
  X(ArgRole, kBOrder) X(ArgRole, kCOrder) X(ArgRole, kDOrder) X(ArgRole, kBatchCount)           \
  X(ArgRole, kComputeType) X(ArgRole, kAlgo) X(ArgRole, kXtHandle) X(ArgRole, kGroupCount)      \
  X(ArgRole, kFirstGroupSize) X(ArgRole, kGroupSizeArray) X(ArgRole, kTransAArray)              \
  X(ArgRole, kTransBArray) X(ArgRole, kMArray) X(ArgRole, kNArray) X(ArgRole, kKArray)          \
  X(ArgRole, kAlphaArray) X(ArgRole, kBetaArray) X(ArgRole, kLdaArray) X(ArgRole, kLdbArray)    \
  X(ArgRole, kLdcArray) X(ArgRole, kScaleType) X(ArgRole, kEpilogue) X(ArgRole, kBias)          \
  X(ArgRole, kAScale) X(ArgRole, kBScale) X(ArgRole, kDScale) X(ArgRole, kWorkspace)            \
  X(ArgRole, kWorkspaceBytes) X(ArgRole, kStream) X(ArgRole, kDeviceCount) X(ArgRole, kDevice)  \
  X(ArgRole, kByteCount) X(ArgRole, kFilename) X(ArgRole, kLoadFlags) X(ArgRole, kLoadResult) \
  X(ArgRole, kBatchMode) X(ArgRole, kLtAlgoId) \
  X(ArgRole, kGraphExec) X(ArgRole, kGraphExecMade) X(ArgRole, kGraphMade)                     \
  X(ArgRole, kExecTarget) X(ArgRole, kReportedStatus)
#define CBS_TRAIT_VALUES(X)                                                                    \
  X(Trait, kEnumeratesDevices) X(Trait, kSetupCall) X(Trait, kCreatesHandle)                   \
  X(Trait, kSelectsDevice) X(Trait, kAllocatesDevice) X(Trait, kWaitsForDevice)                \
  X(Trait, kWaitsForStream) X(Trait, kQueriesStream) X(Trait, kConfiguresAlgo)                 \
  X(Trait, kInt32Sizes) X(Trait, kQuantized) X(Trait, kFixedElementType)
#define CBS_LIBRARY_VALUES(X)                                                                  \
  X(Library, kUnknown) X(Library, kCublas) X(Library, kCublasLt) X(Library, kCudart)          \
  X(Library, kCuda) X(Library, kSystem)
#define CBS_RECORD_STATE_VALUES(X)                                                             \
  X(RecordState, kEmpty) X(RecordState, kWriting) X(RecordState, kInFlight)                    \
  X(RecordState, kCompleted)
#define CBS_RECORD_FLAGS_VALUES(X)                                                             \
  X(RecordFlags, kFlagNested) X(RecordFlags, kFlagAlphaKnown) X(RecordFlags, kFlagBetaKnown)   \
  X(RecordFlags, kFlagCrashed) X(RecordFlags, kFlagSynced) X(RecordFlags, kFlagScanned)        \
  X(RecordFlags, kFlagAsyncPinned) X(RecordFlags, kFlagUnresolved) X(RecordFlags, kFlagStampedOnce) \
  X(RecordFlags, kFlagWorkspaceKnown) X(RecordFlags, kFlagUnchangedSetter)
#define CBS_END_STATE_VALUES(X) \
  X(EndState, kRunning) X(EndState, kExited) X(EndState, kSignaled) X(EndState, kExecuted)
#define CBS_SIDE_KIND_VALUES(X) X(SideKind, kNone) X(SideKind, kPythonStack) X(SideKind, kNativeStack) \
  X(SideKind, kGemmGroups)
#define CBS_GEMM_GROUP_FLAGS_VALUES(X) X(GemmGroupFlags, kGroupAlphaKnown) X(GemmGroupFlags, kGroupBetaKnown)
#define CBS_LT_EMULATION_FLAGS_VALUES(X) X(LtEmulationFlags, kEmulationAttached) X(LtEmulationFlags, kEmulationKnown)
#define CBS_LAUNCHER_WAIT_VALUES(X) X(LauncherWait, kNone) X(LauncherWait, kOwn) X(LauncherWait, kCommand)
#define CBS_FAILURE_SITE_STATE_VALUES(X) \
  X(FailureSiteState, kFree) X(FailureSiteState, kClaimed) X(FailureSiteState, kKeyed)
#define CBS_LAUNCH_FLAGS_VALUES(X) X(LaunchFlags, kLaunchSynced) X(LaunchFlags, kLaunchStaleOperands)

// Compile-time completeness: without a default, -Wswitch (an error here) names any enumerator
// of trace_format.h missing from the lists.
#pragma GCC diagnostic error "-Wswitch"
#define CBS_CASE(E, n) case format::E::n:
constexpr bool listed(format::Family v) {
  switch (v) { CBS_FAMILY_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::ArgKind v) {
  switch (v) { CBS_ARG_KIND_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::ArgRole v) {
  switch (v) { CBS_ARG_ROLE_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::Trait::Bits v) {
  switch (v) { case format::Trait::kNone: CBS_TRAIT_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::Library v) {
  switch (v) { CBS_LIBRARY_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::RecordState v) {
  switch (v) { CBS_RECORD_STATE_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::RecordFlags v) {
  switch (v) { CBS_RECORD_FLAGS_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::EndState v) {
  switch (v) { CBS_END_STATE_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::GemmGroupFlags v) {
  switch (v) { CBS_GEMM_GROUP_FLAGS_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::LtEmulationFlags v) {
  switch (v) { CBS_LT_EMULATION_FLAGS_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::SideKind v) {
  switch (v) { CBS_SIDE_KIND_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::LauncherWait v) {
  switch (v) { CBS_LAUNCHER_WAIT_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::FailureSiteState v) {
  switch (v) { CBS_FAILURE_SITE_STATE_VALUES(CBS_CASE) return true; }
  return false;
}
constexpr bool listed(format::LaunchFlags v) {
  switch (v) { CBS_LAUNCH_FLAGS_VALUES(CBS_CASE) return true; }
  return false;
}
static_assert(listed(format::Family::kOther) && listed(format::ArgKind::kNone) &&
              listed(format::ArgRole::kNone) && listed(format::Library::kUnknown) &&
              listed(format::RecordState::kEmpty) && listed(format::kFlagNested) &&
              listed(format::EndState::kRunning) && listed(format::SideKind::kNone) &&
              listed(format::kGroupAlphaKnown) && listed(format::LauncherWait::kNone) &&
              listed(format::kEmulationAttached) && listed(format::FailureSiteState::kFree) &&
              listed(format::kLaunchSynced) && listed(format::Trait::kSetupCall));

struct EnumFact {
  std::string enumeration, name;
  uint64_t value;
};
#define CBS_ENUM_FACT(E, n) EnumFact{#E, #n, static_cast<uint64_t>(format::E::n)},
const std::vector<EnumFact> kEnumValues = {
    CBS_FAMILY_VALUES(CBS_ENUM_FACT) CBS_ARG_KIND_VALUES(CBS_ENUM_FACT)
    CBS_ARG_ROLE_VALUES(CBS_ENUM_FACT) CBS_LIBRARY_VALUES(CBS_ENUM_FACT) CBS_TRAIT_VALUES(CBS_ENUM_FACT)
    CBS_RECORD_STATE_VALUES(CBS_ENUM_FACT) CBS_RECORD_FLAGS_VALUES(CBS_ENUM_FACT)
    CBS_END_STATE_VALUES(CBS_ENUM_FACT) CBS_SIDE_KIND_VALUES(CBS_ENUM_FACT)
    CBS_GEMM_GROUP_FLAGS_VALUES(CBS_ENUM_FACT) CBS_LAUNCHER_WAIT_VALUES(CBS_ENUM_FACT)
    CBS_LT_EMULATION_FLAGS_VALUES(CBS_ENUM_FACT) CBS_FAILURE_SITE_STATE_VALUES(CBS_ENUM_FACT)
    CBS_LAUNCH_FLAGS_VALUES(CBS_ENUM_FACT)};

struct ConstantFact {
  std::string name;
  uint64_t value;
};
#define CBS_CONSTANT(c) ConstantFact{#c, static_cast<uint64_t>(format::c)}
const std::vector<ConstantFact> kConstants = {
    CBS_CONSTANT(kFormatVersion),   CBS_CONSTANT(kOldestReadableVersion),
    CBS_CONSTANT(kEndianMark),      CBS_CONSTANT(kHeaderBytes),
    CBS_CONSTANT(kRecordBytes),     CBS_CONSTANT(kProcessSectionBytes),
    CBS_CONSTANT(kMaxFunctions),    CBS_CONSTANT(kMaxArgs),
    CBS_CONSTANT(kArgNameBytes),    CBS_CONSTANT(kFunctionNameBytes),
    CBS_CONSTANT(kCounterStripes),  CBS_CONSTANT(kMaxCounterStripes),
    CBS_CONSTANT(kSkippedSlots),    CBS_CONSTANT(kArgUnset),
    CBS_CONSTANT(kNoKernel),        CBS_CONSTANT(kKernelNameBytes),
    CBS_CONSTANT(kMaxKernels),      CBS_CONSTANT(kKernelTableEntries),
    CBS_CONSTANT(kMaxSideEntryBytes), CBS_CONSTANT(kMaxSideEntriesPerRecord),
    CBS_CONSTANT(kWriterVersionBytes), CBS_CONSTANT(kMaxRecordedGroups),
    CBS_CONSTANT(kMaxSummedGroups),
    CBS_CONSTANT(kLaunchCountTables), CBS_CONSTANT(kMaxLaunchCountTables),
    CBS_CONSTANT(kCaptureIdUnknown),
    CBS_CONSTANT(kFailureSites),    CBS_CONSTANT(kMaxFailureSites),
};

// ---- The page's side --------------------------------------------------------------------------

struct DocRow {
  int line = 0;
  std::string section;  // the struct or enum the heading above names
  std::vector<std::string> cells;
};

struct Doc {
  std::string text;
  std::vector<DocRow> struct_rows, enum_rows, constant_rows;
};

using cublasspy::markdown::cells_of;
using cublasspy::markdown::code_span;

// What follows the code span ("`magic[8]` char" -> "char").
std::string after_code_span(const std::string& s) {
  const size_t open = s.find('`');
  const size_t close = open == std::string::npos ? open : s.find('`', open + 1);
  if (close == std::string::npos) return "";
  std::istringstream rest(s.substr(close + 1));
  std::string word;
  rest >> word;
  return word;
}

bool parse_number(const std::string& text, uint64_t& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtoull(text.c_str(), &end, 0);
  return end != nullptr && *end == '\0';
}

const Doc& doc() {
  static const Doc parsed = [] {
    Doc d;
    d.text = cublasspy::markdown::read_file(CUBLASSPY_FORMAT_DOC);
    EXPECT_FALSE(d.text.empty()) << "cannot read " << CUBLASSPY_FORMAT_DOC;
    std::istringstream lines(d.text);
    std::string line, section;
    std::vector<DocRow>* table = nullptr;  // the table being read, nullptr outside one
    bool expect_separator = false;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (line.rfind("#", 0) == 0) {
        section = code_span(line);
        table = nullptr;
        continue;
      }
      if (line.rfind("|", 0) != 0) {
        table = nullptr;
        continue;
      }
      const std::vector<std::string> cells = cells_of(line);
      if (expect_separator) {  // the | --- | line under a header
        expect_separator = false;
        continue;
      }
      if (table == nullptr) {  // a header row: which kind of table?
        using V = std::vector<std::string>;
        static std::vector<DocRow> ignored;
        table = cells == V{"offset", "size", "field", "meaning"} ? &d.struct_rows
                : cells == V{"value", "name", "meaning"}        ? &d.enum_rows
                : cells == V{"constant", "value", "meaning"}    ? &d.constant_rows
                                                                : &ignored;
        expect_separator = true;
        continue;
      }
      table->push_back(DocRow{n, section, cells});
    }
    return d;
  }();
  return parsed;
}

std::string where(const DocRow& row) {
  return std::string(CUBLASSPY_FORMAT_DOC) + ":" + std::to_string(row.line) + " (" + row.section + ")";
}

// A struct row, parsed: "| 224 | 512 | `skipped[64]` u64 | ... |".
struct DocField {
  const DocRow* row;
  uint64_t offset = 0, size = 0, count = 1;
  std::string field, type;
};

std::vector<DocField> doc_fields() {
  std::vector<DocField> out;
  for (const DocRow& row : doc().struct_rows) {
    DocField f;
    f.row = &row;
    if (row.cells.size() != 4 || !parse_number(row.cells[0], f.offset) || !parse_number(row.cells[1], f.size)) {
      ADD_FAILURE() << where(row) << ": a field row needs | offset | size | `field` type | meaning |";
      continue;
    }
    std::string name = code_span(row.cells[2]);
    f.type = after_code_span(row.cells[2]);
    if (const size_t bracket = name.find('['); bracket != std::string::npos) {
      if (!parse_number(name.substr(bracket + 1, name.size() - bracket - 2), f.count) || name.back() != ']') {
        ADD_FAILURE() << where(row) << ": cannot read the element count of `" << name << "`";
      }
      name = name.substr(0, bracket);
    }
    f.field = name;
    if (row.section.empty() || f.field.empty() || f.type.empty()) {
      ADD_FAILURE() << where(row) << ": a field row needs a heading naming the struct, a `field` and its type";
      continue;
    }
    out.push_back(f);
  }
  return out;
}

const StructFact* find_struct(const std::string& name) {
  for (const StructFact& s : kStructs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// ---- The checks -------------------------------------------------------------------------------

TEST(FormatDoc, EveryDocumentedFieldIsTheCodes) {
  for (const DocField& d : doc_fields()) {
    if (find_struct(d.row->section) == nullptr) {
      ADD_FAILURE() << where(*d.row) << ": `" << d.row->section << "` is not a struct this test knows "
                    << "(add it to kStructs and its fields to kFields)";
      continue;
    }
    auto code = std::find_if(kFields.begin(), kFields.end(), [&](const FieldFact& f) {
      return f.structure == d.row->section && f.field == d.field;
    });
    if (code == kFields.end()) {
      ADD_FAILURE() << where(*d.row) << ": " << d.row->section << "::" << d.field
                    << " is not a field of the code's struct (or is missing from kFields)";
      continue;
    }
    const std::string name = d.row->section + "::" + d.field;
    EXPECT_EQ(d.offset, code->offset) << where(*d.row) << ": offset of " << name;
    EXPECT_EQ(d.size, code->size) << where(*d.row) << ": size of " << name;
    EXPECT_EQ(d.count, code->count) << where(*d.row) << ": element count of " << name;
    EXPECT_EQ(d.type, code->type) << where(*d.row) << ": type of " << name;
  }
}

TEST(FormatDoc, EveryFieldOfTheCodeIsDocumented) {
  const std::vector<DocField> documented = doc_fields();
  for (const FieldFact& f : kFields) {
    const bool found = std::any_of(documented.begin(), documented.end(), [&](const DocField& d) {
      return d.row->section == f.structure && d.field == f.field;
    });
    EXPECT_TRUE(found) << CUBLASSPY_FORMAT_DOC << ": no row for " << f.structure << "::" << f.field
                       << " (offset " << f.offset << ", " << f.size << " bytes) under a `" << f.structure
                       << "` heading";
  }
}

// The rows of a struct, in offset order, must tile it: a field the page lacks (a newer field in
// the code) shows as a gap or a short struct, one it invents as an overlap or an overrun.
TEST(FormatDoc, EachStructsRowsCoverItExactly) {
  std::map<std::string, std::vector<DocField>> by_struct;
  for (const DocField& d : doc_fields()) by_struct[d.row->section].push_back(d);
  for (const StructFact& s : kStructs) {
    std::vector<DocField>& rows = by_struct[s.name];
    if (rows.empty()) {
      ADD_FAILURE() << CUBLASSPY_FORMAT_DOC << ": no field table under a `" << s.name << "` heading";
      continue;
    }
    std::sort(rows.begin(), rows.end(), [](const DocField& a, const DocField& b) { return a.offset < b.offset; });
    uint64_t at = 0;
    for (const DocField& d : rows) {
      if (d.offset > at) {
        ADD_FAILURE() << where(*d.row) << ": bytes " << at << ".." << d.offset << " of " << s.name
                      << " are not documented (a field missing before " << d.field << ")";
      } else if (d.offset < at) {
        ADD_FAILURE() << where(*d.row) << ": " << s.name << "::" << d.field << " at " << d.offset
                      << " overlaps the row before it, which ends at " << at;
      }
      at = std::max(at, d.offset + d.size);
    }
    EXPECT_EQ(at, s.size) << CUBLASSPY_FORMAT_DOC << ": the rows of " << s.name << " end at byte " << at
                          << " but sizeof(" << s.name << ") is " << s.size;
  }
}

TEST(FormatDoc, EveryEnumValueIsDocumentedWithItsNumber) {
  for (const EnumFact& e : kEnumValues) {
    auto row = std::find_if(doc().enum_rows.begin(), doc().enum_rows.end(), [&](const DocRow& r) {
      return r.section == e.enumeration && r.cells.size() == 3 && code_span(r.cells[1]) == e.name;
    });
    if (row == doc().enum_rows.end()) {
      ADD_FAILURE() << CUBLASSPY_FORMAT_DOC << ": no row for " << e.enumeration << "::" << e.name << " ("
                    << e.value << ") under a `" << e.enumeration << "` heading";
      continue;
    }
    uint64_t value = 0;
    EXPECT_TRUE(parse_number(row->cells[0], value) && value == e.value)
        << where(*row) << ": " << e.enumeration << "::" << e.name << " is " << e.value << ", the page says '"
        << row->cells[0] << "'";
  }
  for (const DocRow& r : doc().enum_rows) {
    const std::string name = r.cells.size() == 3 ? code_span(r.cells[1]) : "";
    const bool known = std::any_of(kEnumValues.begin(), kEnumValues.end(), [&](const EnumFact& e) {
      return e.enumeration == r.section && e.name == name;
    });
    EXPECT_TRUE(known) << where(r) << ": `" << name << "` is not an enumerator of " << r.section
                       << " that this test knows";
  }
}

TEST(FormatDoc, EveryConstantIsDocumentedWithItsValue) {
  for (const ConstantFact& c : kConstants) {
    auto row = std::find_if(doc().constant_rows.begin(), doc().constant_rows.end(), [&](const DocRow& r) {
      return r.cells.size() == 3 && code_span(r.cells[0]) == c.name;
    });
    if (row == doc().constant_rows.end()) {
      ADD_FAILURE() << CUBLASSPY_FORMAT_DOC << ": no row for " << c.name << " (" << c.value
                    << ") in the constants table";
      continue;
    }
    uint64_t value = 0;
    EXPECT_TRUE(parse_number(row->cells[1], value) && value == c.value)
        << where(*row) << ": " << c.name << " is " << c.value << ", the page says '" << row->cells[1] << "'";
  }
  for (const DocRow& r : doc().constant_rows) {
    const std::string name = r.cells.empty() ? "" : code_span(r.cells[0]);
    const bool known = std::any_of(kConstants.begin(), kConstants.end(),
                                   [&](const ConstantFact& c) { return c.name == name; });
    EXPECT_TRUE(known) << where(r) << ": `" << name << "` is not a constant this test knows";
  }
}

// What trace_format.h declares at namespace level, read from its text: the names `pattern`'s
// first group matches.
std::set<std::string> declared_in_header(const char* pattern) {
  // The header is an umbrella: its sections are the headers it includes from its own folder.
  const std::string umbrella = cublasspy::markdown::read_file(CUBLASSPY_FORMAT_HEADER);
  EXPECT_FALSE(umbrella.empty()) << "cannot read " << CUBLASSPY_FORMAT_HEADER;
  const std::string folder = std::string(CUBLASSPY_FORMAT_HEADER).substr(0, std::string(CUBLASSPY_FORMAT_HEADER).rfind('/') + 1);
  std::string header = umbrella;
  const std::regex section(R"re(#include "trace/(format_\w+\.h)")re");
  int sections = 0;
  for (auto it = std::sregex_iterator(umbrella.begin(), umbrella.end(), section); it != std::sregex_iterator(); ++it) {
    const std::string text = cublasspy::markdown::read_file((folder + (*it)[1].str()).c_str());
    EXPECT_FALSE(text.empty()) << "cannot read " << folder << (*it)[1];
    header += "\n" + text;
    sections++;
  }
  EXPECT_GT(sections, 0) << CUBLASSPY_FORMAT_HEADER << " includes no format_*.h section";
  const std::regex re(pattern);
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), re); it != std::sregex_iterator(); ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

// The lists this test compares are the code's, but only for what they name: a struct, enum or
// constant added to the header and not to them would go unchecked.
TEST(FormatDoc, EveryStructEnumAndConstantOfTheHeaderIsChecked) {
  const std::set<std::string> structs = declared_in_header(R"((?:^|\n)struct (\w+) \{)");
  EXPECT_GE(structs.size(), kStructs.size()) << "the header's structs were not found in " << CUBLASSPY_FORMAT_HEADER;
  for (const std::string& name : structs) {
    EXPECT_NE(find_struct(name), nullptr) << CUBLASSPY_FORMAT_HEADER << " declares struct " << name
                                          << ", which CUBLASSPY_FORMAT_STRUCTS (trace_format_fields.h) lacks";
  }
  for (const std::string& name : declared_in_header(R"((?:^|\n)enum (?:class )?(\w+) )")) {
    const bool known = std::any_of(kEnumValues.begin(), kEnumValues.end(),
                                   [&](const EnumFact& e) { return e.enumeration == name; });
    EXPECT_TRUE(known) << CUBLASSPY_FORMAT_HEADER << " declares enum " << name
                       << ", which this test lists no values of (add a CBS_..._VALUES list and a table to the page)";
  }
  for (const std::string& name : declared_in_header(R"((?:^|\n)inline constexpr \w+ (k\w+)(?:\[\d+\])? =)")) {
    if (name == "kMagic") continue;  // TheMagicIsDocumented
    const bool known = std::any_of(kConstants.begin(), kConstants.end(),
                                   [&](const ConstantFact& c) { return c.name == name; });
    EXPECT_TRUE(known) << CUBLASSPY_FORMAT_HEADER << " declares the constant " << name
                       << ", which kConstants lacks (and so the page's constants table need not have it)";
  }
}

TEST(FormatDoc, TheMagicIsDocumented) {
  const std::string magic(format::kMagic, sizeof format::kMagic);
  EXPECT_NE(doc().text.find("`" + magic + "`"), std::string::npos) << CUBLASSPY_FORMAT_DOC << " never names the magic " << magic;
}

}  // namespace
