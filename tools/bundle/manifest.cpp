#include "bundle/manifest.h"

#include <algorithm>

#include <fmt/format.h>

#include "cublasspy_version.h"

namespace cublasspy::tools::bundle {

std::string manifest_text(const BundleContents& contents, uint64_t max_dump_bytes, uint64_t dump_bytes) {
  std::string out = fmt::format("cublasspy bundle, made by cublasspy {}\n\nmembers (bytes, name, what):\n", CUBLASSPY_VERSION);
  size_t width = 0;
  for (const Member& m : contents.members) width = std::max(width, m.name.size());
  for (const Member& m : contents.members) {
    out += fmt::format("  {:>10}  {:<{}}  {}\n", m.bytes, m.name, width, m.what);
  }
  out += fmt::format("\noperand dumps: {} bytes kept of a cap of {} bytes (--max-dump-bytes)\n", dump_bytes, max_dump_bytes);
  if (contents.left_out.empty()) {
    out += "\nnothing was left out\n";
  } else {
    out += "\nleft out:\n";
    for (const LeftOut& l : contents.left_out) out += fmt::format("  {}: {}\n", l.what, l.why);
  }
  return out;
}

std::string bundle_section(const std::vector<Reproducer>& reproducers, const std::vector<LeftOut>& left_out,
                           uint64_t max_dump_bytes) {
  std::string out = "\n## Reproducers\n\n";
  bool any = false;
  for (const Reproducer& r : reproducers) {
    if (!r.refusal.empty()) continue;
    any = true;
    out += fmt::format("- call #{} `{}` ({} in the program): `reproducers/{}` (build in `reproducers/`: `{}`), "
                       "`reproducers/{}` (PyTorch, run from the bundle's top folder)\n",
                       r.seq, r.function, r.outcome, r.cpp_name, r.build_command, r.python_name);
  }
  if (!any) out += "None: no failing GEMM that `cublasspy replay` can reproduce.\n";
  out += fmt::format("\n## Left out of this bundle\n\nOperand dumps are capped at {} bytes (`--max-dump-bytes`). ", max_dump_bytes);
  if (left_out.empty()) {
    out += "Nothing was left out.\n";
  } else {
    out += "Left out:\n\n";
    for (const LeftOut& l : left_out) out += fmt::format("- {}: {}\n", l.what, l.why);
  }
  return out;
}

}  // namespace cublasspy::tools::bundle
