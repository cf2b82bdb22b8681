// The architectures a fatbin carries: for each entry, its kind (SASS, machine code for one
// sm_XY, or PTX, which the driver compiles for compute_XY and every newer GPU) and its arch,
// read from the fatbin headers nvcc writes (a sequence of them, as a library's .nv_fatbin
// section holds one per translation unit). Every read is bounds-checked against the source,
// which may be a file (object_fatbins.h) or memory: a truncated or corrupt blob gives what was
// read before it, marked malformed, never a read outside it. Nothing here allocates.
//
// The text form, "sm_80 sm_90 compute_90", is what the trace holds (docs/FORMAT.md, "Kernel
// images") and what the diagnosis reads back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cublasspy {

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;  // fatBinaryHeader::magic

enum class FatbinEntryKind : uint16_t { kPtx = 1, kSass = 2 };

// Arches 0..255 (sm_255 is far off); a larger one marks the set malformed.
struct ArchSet {
  uint64_t sass[4] = {};
  uint64_t ptx[4] = {};
  uint32_t fatbins = 0;    // fatbin headers read
  bool malformed = false;  // a header or entry did not parse: the sets hold what came before it

  void add(FatbinEntryKind kind, uint32_t arch);
  bool has(FatbinEntryKind kind, uint32_t arch) const;
  bool empty() const;
  void merge(const ArchSet& other);
};

// Reads `n` bytes at `offset` of a source of `size` bytes; false when it cannot (the parser
// never asks past `size`).
struct ByteSource {
  uint64_t size = 0;
  const void* context = nullptr;
  bool (*read)(const void* context, uint64_t offset, void* out, size_t n) = nullptr;
};
ByteSource memory_source(const void* data, size_t size);

// The architectures of the fatbins laid end to end in `source` (zero padding between them is
// stepped over). At most kMaxFatbinEntries entries are read: past that, malformed.
inline constexpr uint32_t kMaxFatbinEntries = 1u << 20;
ArchSet fatbin_archs(const ByteSource& source);

// "sm_50 sm_80 compute_90": SASS first, then PTX, each in increasing order; "" for none.
// Truncated at a whole name when `size` is short; returns the length written.
size_t format_archs(const ArchSet& archs, char* out, size_t size);
// The set a text of format_archs names; words it does not know are skipped.
ArchSet parse_archs(std::string_view text);

// How code of `archs` runs on a GPU of compute capability major.minor: natively, by SASS of the
// same major and a minor not above it; else through PTX of a compute capability not above it,
// which the driver compiles when the kernel is loaded; else not at all. `arch` numbers are
// major * 10 + minor.
enum class ArchFit { kNone, kThroughPtx, kSass };
ArchFit archs_fit(const ArchSet& archs, int major, int minor);

}  // namespace cublasspy
