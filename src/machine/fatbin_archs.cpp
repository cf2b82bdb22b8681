#include "machine/fatbin_archs.h"

#include <cstdio>
#include <cstring>

namespace cublasspy {
namespace {

// fatBinaryHeader: magic, version, header size, then the bytes of entries after the header.
struct FatbinHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t header_size;
  uint64_t fat_size;
};
static_assert(sizeof(FatbinHeader) == 16);

// The part of an entry's header this reads: its kind, its header's size, its payload's size
// (after the header), and at offset 28 its arch (major * 10 + minor).
struct EntryHeader {
  uint16_t kind;
  uint16_t version;
  uint32_t header_size;
  uint64_t payload_size;
  uint32_t compressed_size;
  uint32_t unknown;
  uint16_t ptx_minor;
  uint16_t ptx_major;
  uint32_t arch;
};
static_assert(sizeof(EntryHeader) == 32);

constexpr uint32_t kMaxArch = 256;

bool read_at(const ByteSource& s, uint64_t offset, void* out, size_t n) {
  if (offset > s.size || n > s.size - offset) return false;
  return s.read(s.context, offset, out, n);
}

bool read_memory(const void* context, uint64_t offset, void* out, size_t n) {
  std::memcpy(out, static_cast<const unsigned char*>(context) + offset, n);
  return true;
}

// One fatbin's entries, from `begin` (after its header) to `end`; false when one does not parse.
bool read_entries(const ByteSource& s, uint64_t begin, uint64_t end, ArchSet& out, uint32_t& budget) {
  uint64_t at = begin;
  while (at < end) {
    EntryHeader e;
    if (budget == 0 || end - at < sizeof e || !read_at(s, at, &e, sizeof e)) return false;
    --budget;
    if (e.header_size < sizeof e || e.header_size > end - at || e.payload_size > end - at - e.header_size) return false;
    if (e.kind == static_cast<uint16_t>(FatbinEntryKind::kPtx) || e.kind == static_cast<uint16_t>(FatbinEntryKind::kSass)) {
      if (e.arch >= kMaxArch) return false;
      out.add(static_cast<FatbinEntryKind>(e.kind), e.arch);
    }  // other kinds (LTO IR) carry nothing a GPU runs
    at += e.header_size + e.payload_size;
  }
  return true;
}

}  // namespace

void ArchSet::add(FatbinEntryKind kind, uint32_t arch) {
  if (arch >= kMaxArch) {
    malformed = true;
    return;
  }
  uint64_t* bits = kind == FatbinEntryKind::kSass ? sass : ptx;
  bits[arch / 64] |= uint64_t{1} << (arch % 64);
}

bool ArchSet::has(FatbinEntryKind kind, uint32_t arch) const {
  if (arch >= kMaxArch) return false;
  const uint64_t* bits = kind == FatbinEntryKind::kSass ? sass : ptx;
  return (bits[arch / 64] >> (arch % 64)) & 1;
}

bool ArchSet::empty() const {
  for (int i = 0; i < 4; ++i) {
    if (sass[i] != 0 || ptx[i] != 0) return false;
  }
  return true;
}

void ArchSet::merge(const ArchSet& other) {
  for (int i = 0; i < 4; ++i) {
    sass[i] |= other.sass[i];
    ptx[i] |= other.ptx[i];
  }
  fatbins += other.fatbins;
  malformed = malformed || other.malformed;
}

ByteSource memory_source(const void* data, size_t size) { return ByteSource{size, data, read_memory}; }

ArchSet fatbin_archs(const ByteSource& source) {
  ArchSet out;
  uint32_t budget = kMaxFatbinEntries;
  uint64_t at = 0;
  while (source.size - at >= sizeof(FatbinHeader)) {
    FatbinHeader h;
    if (!read_at(source, at, &h, sizeof h)) {
      out.malformed = true;
      break;
    }
    if (h.magic == 0) {  // padding between two fatbins
      at += 8;
      continue;
    }
    const uint64_t left = source.size - at;
    if (h.magic != kFatbinMagic || h.header_size < sizeof h || h.header_size > left ||
        h.fat_size > left - h.header_size) {
      out.malformed = true;
      break;
    }
    out.fatbins++;
    if (!read_entries(source, at + h.header_size, at + h.header_size + h.fat_size, out, budget)) {
      out.malformed = true;
      break;
    }
    at += h.header_size + h.fat_size;
    at = (at + 7) & ~uint64_t{7};
    if (at > source.size) break;
  }
  return out;
}

size_t format_archs(const ArchSet& archs, char* out, size_t size) {
  if (size == 0) return 0;
  size_t used = 0;
  out[0] = '\0';
  for (const FatbinEntryKind kind : {FatbinEntryKind::kSass, FatbinEntryKind::kPtx}) {
    for (uint32_t arch = 0; arch < kMaxArch; ++arch) {
      if (!archs.has(kind, arch)) continue;
      char word[24];
      const int n = std::snprintf(word, sizeof word, "%s%s_%u", used == 0 ? "" : " ",
                                  kind == FatbinEntryKind::kSass ? "sm" : "compute", arch);
      if (n < 0 || used + static_cast<size_t>(n) >= size) return used;
      std::memcpy(out + used, word, static_cast<size_t>(n) + 1);
      used += static_cast<size_t>(n);
    }
  }
  return used;
}

ArchSet parse_archs(std::string_view text) {
  ArchSet out;
  while (!text.empty()) {
    const size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    FatbinEntryKind kind;
    std::string_view digits;
    if (word.starts_with("sm_")) {
      kind = FatbinEntryKind::kSass;
      digits = word.substr(3);
    } else if (word.starts_with("compute_")) {
      kind = FatbinEntryKind::kPtx;
      digits = word.substr(8);
    } else {
      continue;
    }
    uint32_t arch = 0;
    bool ok = !digits.empty() && digits.size() <= 3;
    for (const char c : digits) {
      ok = ok && c >= '0' && c <= '9';
      arch = arch * 10 + static_cast<uint32_t>(c - '0');
    }
    if (ok && arch < kMaxArch) out.add(kind, arch);
  }
  return out;
}

ArchFit archs_fit(const ArchSet& archs, int major, int minor) {
  if (major < 0 || minor < 0 || minor > 9 || major * 10 + minor >= static_cast<int>(kMaxArch)) return ArchFit::kNone;
  const uint32_t cc = static_cast<uint32_t>(major * 10 + minor);
  for (uint32_t m = static_cast<uint32_t>(major) * 10; m <= cc; ++m) {
    if (archs.has(FatbinEntryKind::kSass, m)) return ArchFit::kSass;
  }
  for (uint32_t p = 0; p <= cc; ++p) {
    if (archs.has(FatbinEntryKind::kPtx, p)) return ArchFit::kThroughPtx;
  }
  return ArchFit::kNone;
}

}  // namespace cublasspy
