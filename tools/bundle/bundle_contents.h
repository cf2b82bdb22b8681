// What a bug-report bundle holds, decided before a byte is written: its members (text made here,
// or files copied as they are) and what it left out, and why. The MANIFEST member lists both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/report_model.h"

namespace cublasspy::tools::bundle {

class Redactor;

struct BundleOptions {
  uint64_t max_dump_bytes = uint64_t{16} << 20;  // GitHub takes attachments up to 25 MB
  bool doctor = true;                             // false: never run the doctor (--no-doctor)
};

struct Member {
  std::string name;         // in the archive, below its top folder: "report.md", "traces/x.cbt"
  std::string what;         // one line for the MANIFEST
  std::string text;         // its bytes, when made here
  std::string source;       // else the file copied as it is
  uint64_t bytes = 0;       // its size
};

struct LeftOut {
  std::string what;
  std::string why;
};

struct BundleContents {
  std::vector<Member> members;   // MANIFEST first, then report.md, report.json, ...
  std::vector<LeftOut> left_out;
};

// The members for `opened` (traces that could not be read are named in report.md and the
// MANIFEST, not copied). Every member made here has passed through `redactor`.
BundleContents collect_contents(const OpenedTraces& opened, const BundleOptions& options, const Redactor& redactor);

}  // namespace cublasspy::tools::bundle
