// Traces of format versions 1 and 2 name their functions' slots but do not say what they mean
// (ArgDescriptor::role) or which library a function belongs to (FunctionEntry::library); those
// before version 11 do not say what a function means (FunctionEntry::traits, element_type). The
// reader derives them from the names, here, when it opens such a trace: the one place in the
// project where a slot's name or a function's name is interpreted. Everything after reads
// roles and traits, whatever the version.
#pragma once

#include "trace/trace_format.h"

namespace cublasspy {

// Fills entry.library and every args[i].role of an entry of a version 1 or 2 trace from the
// names those versions' writers gave (the slot names of spec/slot_names.h), as the version 3
// writer's tags would have set them.
void derive_roles_from_names(format::FunctionEntry& entry);

// Fills entry.traits and entry.element_type of an entry of a trace before version 11 from its
// function's name, as the hook list's traits and the prototype would have set them. Reads the
// roles: after derive_roles_from_names for a version 1 or 2 trace.
void derive_traits_from_names(format::FunctionEntry& entry);

}  // namespace cublasspy
