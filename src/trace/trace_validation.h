// The reader's checks of a trace's header: a file may be truncated, corrupt or hostile (the
// reader is fuzzed), and nothing in it is used before these say it holds up. Each returns ""
// when the header passes, else what is wrong, in the words of the reader's refusal.
#pragma once

#include <cstdint>
#include <string>

#include "trace/trace_format.h"

namespace cublasspy {

// What the reader must know before it can read anything else: a cublasspy trace, of this byte
// order, of a version it reads, with this reader's header and record sizes, completely created.
// `header` is a copy of the header, `base` the file's mapping (of at least a header's bytes).
std::string identity_problem(const format::FileHeader& header, const char* base);

// Every section the header names lies inside the file of `size` bytes, where the format puts
// it, in entries of this reader's sizes. `header` is the upgraded copy (trace_upgrade.h): the
// fields its version lacks read as zero.
std::string section_problem(const format::FileHeader& header, uint64_t size);

}  // namespace cublasspy
