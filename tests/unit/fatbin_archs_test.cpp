// The architectures of a fatbin (src/machine/fatbin_archs.h), read from real fatbins nvcc built
// here (-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90), from
// every truncation and every one-byte corruption of one (never a read outside the blob), and
// from an nvcc-built program's .nv_fatbin section (src/machine/object_fatbins.h).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "machine/fatbin_archs.h"
#include "machine/object_fatbins.h"

namespace cublasspy {
namespace {

std::vector<unsigned char> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path << " was not built: it needs nvcc (CUBLASSPY_NVCC)";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string text(const ArchSet& archs) {
  char out[256];
  format_archs(archs, out, sizeof out);
  return out;
}

// A memory source that fails the test on any read outside its bytes.
struct CheckedBlob {
  const std::vector<unsigned char>* bytes;
  static bool read(const void* context, uint64_t offset, void* out, size_t n) {
    const auto* self = static_cast<const CheckedBlob*>(context);
    EXPECT_LE(offset + n, self->bytes->size());
    if (offset + n > self->bytes->size()) return false;
    std::memcpy(out, self->bytes->data() + offset, n);
    return true;
  }
};

ArchSet checked_archs(const std::vector<unsigned char>& bytes) {
  const CheckedBlob blob{&bytes};
  return fatbin_archs(ByteSource{bytes.size(), &blob, CheckedBlob::read});
}

bool subset(const ArchSet& a, const ArchSet& b) {
  for (int i = 0; i < 4; ++i) {
    if ((a.sass[i] & ~b.sass[i]) != 0 || (a.ptx[i] & ~b.ptx[i]) != 0) return false;
  }
  return true;
}

TEST(FatbinArchs, RealFatbinListsItsSassAndPtx) {
  const std::vector<unsigned char> fatbin = read_file(CBS_TEST_FATBIN);
  ASSERT_FALSE(fatbin.empty());
  const ArchSet archs = fatbin_archs(memory_source(fatbin.data(), fatbin.size()));
  EXPECT_FALSE(archs.malformed);
  EXPECT_EQ(archs.fatbins, 1u);
  EXPECT_EQ(text(archs), "sm_80 compute_90");
  EXPECT_TRUE(archs.has(FatbinEntryKind::kSass, 80));
  EXPECT_FALSE(archs.has(FatbinEntryKind::kSass, 90));
  EXPECT_TRUE(archs.has(FatbinEntryKind::kPtx, 90));
}

TEST(FatbinArchs, WhatRunsWhere) {
  const ArchSet archs = parse_archs("sm_80 compute_90");
  EXPECT_EQ(archs_fit(archs, 8, 0), ArchFit::kSass);        // its SASS
  EXPECT_EQ(archs_fit(archs, 8, 6), ArchFit::kSass);        // sm_80 SASS runs on 8.x above it
  EXPECT_EQ(archs_fit(archs, 7, 5), ArchFit::kNone);        // nothing as old
  EXPECT_EQ(archs_fit(archs, 9, 0), ArchFit::kThroughPtx);  // the PTX, compiled by the driver
  EXPECT_EQ(archs_fit(archs, 12, 0), ArchFit::kThroughPtx); // ... for any newer GPU too
  const ArchSet sass_only = parse_archs("sm_50 sm_80 sm_86 sm_90");
  EXPECT_EQ(archs_fit(sass_only, 12, 0), ArchFit::kNone);  // an RTX 50xx on a cu124 build
  EXPECT_EQ(archs_fit(sass_only, 10, 0), ArchFit::kNone);
  EXPECT_EQ(archs_fit(sass_only, 8, 9), ArchFit::kSass);
  EXPECT_EQ(archs_fit(parse_archs("sm_120"), 12, 1), ArchFit::kSass);  // GB10 runs sm_120
  EXPECT_EQ(archs_fit(parse_archs("sm_86"), 8, 0), ArchFit::kNone);  // SASS runs on its minor and above only
  EXPECT_EQ(archs_fit(parse_archs("compute_100"), 9, 0), ArchFit::kNone);
  EXPECT_EQ(archs_fit(ArchSet{}, 9, 0), ArchFit::kNone);
}

TEST(FatbinArchs, TwoFatbinsWithPaddingBetweenAreBothRead) {
  std::vector<unsigned char> two = read_file(CBS_TEST_FATBIN);
  ASSERT_FALSE(two.empty());
  const size_t one = two.size();
  two.resize((one + 7) / 8 * 8 + 8, 0);  // alignment, then a padding word
  two.insert(two.end(), two.begin(), two.begin() + static_cast<long>(one));
  const ArchSet archs = checked_archs(two);
  EXPECT_FALSE(archs.malformed);
  EXPECT_EQ(archs.fatbins, 2u);
  EXPECT_EQ(text(archs), "sm_80 compute_90");
}

TEST(FatbinArchs, EveryTruncationReadsInsideTheBlobAndIsMarked) {
  const std::vector<unsigned char> fatbin = read_file(CBS_TEST_FATBIN);
  ASSERT_FALSE(fatbin.empty());
  const ArchSet full = checked_archs(fatbin);
  for (size_t n = 0; n < fatbin.size(); ++n) {
    const std::vector<unsigned char> cut(fatbin.begin(), fatbin.begin() + static_cast<long>(n));
    const ArchSet archs = checked_archs(cut);
    EXPECT_TRUE(subset(archs, full)) << n;
    // Under a header's length reads nothing at all; a header whose entries are cut is malformed.
    EXPECT_EQ(archs.malformed, n >= 16) << n;
  }
}

TEST(FatbinArchs, EveryOneByteCorruptionReadsInsideTheBlob) {
  const std::vector<unsigned char> fatbin = read_file(CBS_TEST_FATBIN);
  ASSERT_FALSE(fatbin.empty());
  const size_t headers = std::min<size_t>(fatbin.size(), 16 + 64 + 16);  // the headers, and past them
  for (size_t at = 0; at < fatbin.size(); at += at < headers ? 1 : 61) {
    for (const unsigned char value : {0x00, 0x7f, 0xff}) {
      std::vector<unsigned char> bad = fatbin;
      bad[at] = value;
      const ArchSet archs = checked_archs(bad);
      char out[64];
      EXPECT_LT(format_archs(archs, out, sizeof out), sizeof out);
    }
  }
}

TEST(FatbinArchs, NotAFatbinIsMalformedAndEmpty) {
  const std::vector<unsigned char> junk(64, 0x41);
  const ArchSet archs = checked_archs(junk);
  EXPECT_TRUE(archs.malformed);
  EXPECT_TRUE(archs.empty());
  EXPECT_FALSE(checked_archs({}).malformed);  // nothing to read is no error
}

TEST(FatbinArchs, TextRoundTripsAndSkipsWhatItDoesNotKnow) {
  ArchSet archs;
  archs.add(FatbinEntryKind::kSass, 50);
  archs.add(FatbinEntryKind::kSass, 120);
  archs.add(FatbinEntryKind::kPtx, 90);
  EXPECT_EQ(text(archs), "sm_50 sm_120 compute_90");
  EXPECT_EQ(text(parse_archs(text(archs))), text(archs));
  EXPECT_EQ(text(parse_archs("sm_86 sm_x compute_ lto_90 sm_9999 compute_75")), "sm_86 compute_75");
  char small[12];
  EXPECT_EQ(format_archs(archs, small, sizeof small), 5u);  // whole names only
  EXPECT_STREQ(small, "sm_50");  // "sm_50 sm_120" would not fit with its terminator
}

TEST(ObjectFatbins, ProgramBuiltByNvccHasItsSection) {
  const ObjectFatbins o = object_fatbins(CBS_TEST_KERNEL_PROGRAM);
  EXPECT_TRUE(o.readable) << CBS_TEST_KERNEL_PROGRAM << " was not built: it needs nvcc (CUBLASSPY_NVCC)";
  EXPECT_TRUE(o.has_section);
  EXPECT_FALSE(o.archs.malformed);
  EXPECT_EQ(text(o.archs), "sm_80 compute_100");
}

TEST(ObjectFatbins, ObjectsWithoutOneSayWhy) {
  const ObjectFatbins self = object_fatbins("/proc/self/exe");
  EXPECT_TRUE(self.readable);
  EXPECT_FALSE(self.has_section);
  EXPECT_FALSE(object_fatbins("/nonexistent/libfoo.so").readable);
  EXPECT_FALSE(object_fatbins(CBS_TEST_FATBIN).readable);  // a fatbin is not an ELF
}

}  // namespace
}  // namespace cublasspy
