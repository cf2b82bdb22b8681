// Older format versions read as the current one: the reader applies these, version by version,
// to its copies of the header, the function table and each record, so that the rest of the
// reader (and every tool) sees one layout. A field a version did not have reads as zero (or as
// none), whatever bytes the file holds there. trace_format.h's version table says what each
// version added.
#pragma once

#include <cstdint>

#include "trace/trace_format.h"

namespace cublasspy {

// The header's fields that `header.format_version` lacked, zeroed (an identity-checked header:
// trace_validation.h).
void upgrade_header(format::FileHeader& header);

// A function table entry of a version before 3 (names only): its slots' roles and its library,
// derived from the names (roles_from_names.h).
void upgrade_function(format::FunctionEntry& function, uint32_t version);

// A record's bytes that were padding, or meant nothing, in `version`, cleared.
void upgrade_record(format::RecordSlot& slot, uint32_t version);

}  // namespace cublasspy
