// What a bundle says about itself: the MANIFEST member (every member with its size and what it
// is, what was left out and why, the cap on dumps) and the section report.md ends with (the
// reproducers and how to build them, what was left out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bundle/bundle_contents.h"
#include "bundle/reproducers.h"

namespace cublasspy::tools::bundle {

// `contents` without the MANIFEST itself; `dump_bytes` the dumps' bytes kept.
std::string manifest_text(const BundleContents& contents, uint64_t max_dump_bytes, uint64_t dump_bytes);

std::string bundle_section(const std::vector<Reproducer>& reproducers, const std::vector<LeftOut>& left_out,
                           uint64_t max_dump_bytes);

}  // namespace cublasspy::tools::bundle
