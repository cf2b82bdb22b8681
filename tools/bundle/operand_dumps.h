// The operand dumps (CUBLASSPY_DUMP, docs/SCAN.md) the traces reference: the files next to a
// trace named after it, "<trace>.call<seq>.*.npy" and their ".json". A bundle holds them up to
// a cap, one call's dumps whole or not at all (a replay needs every operand), in the order of
// the calls; what does not fit is listed, with its size, as left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cublasspy::tools::bundle {

struct DumpFile {
  std::string path;   // on disk
  std::string name;   // its file name
  uint64_t bytes = 0;
};

// The dumps of one call of one trace.
struct CallDumps {
  std::string trace_path;
  uint64_t seq = 0;
  std::vector<DumpFile> files;
  uint64_t bytes() const;
};

struct DumpSelection {
  std::vector<CallDumps> kept;
  std::vector<CallDumps> left_out;  // over the cap
  uint64_t kept_bytes = 0;
};

// Every call's dumps for `trace_paths`, those that fit in `cap` bytes kept.
DumpSelection select_dumps(const std::vector<std::string>& trace_paths, uint64_t cap);

}  // namespace cublasspy::tools::bundle
