// PyTorch's well-known kernels and the usual causes of their faults, in one table. The field's
// commonest "cuBLAS" failure is no GEMM's: an index out of range trips a device-side assert in
// one of these kernels, and the program hears of it at the next cuBLAS call (docs/DIAGNOSES.md,
// "A suspect kernel's usual cause"). When a finding names a suspect launch, its advice names the
// operation that kernel performs and what usually makes it fault, instead of GEMM advice.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_reader.h"

namespace cublasspy::diagnoses {

struct KernelCause {
  // Names found in the kernel's symbol: the identifier of the kernel, or of the function whose
  // lambda it runs. Matched as substrings, so they match the demangled name the launch ring
  // gives and the mangled one it keeps when the symbol was too long to keep whole.
  std::array<std::string_view, 4> names;
  std::string_view operation;  // in the user's words: "an embedding lookup or index_select"
  std::string_view cause;      // what usually makes it fault
  std::string_view check;      // what to check, in the order to try it
};

// Every row, in matching order (the more specific names first).
std::span<const KernelCause> kernel_causes();

// The row whose name the kernel's symbol contains, nullptr for a kernel the table does not know.
const KernelCause* kernel_cause(std::string_view kernel);
// The name of that row the kernel's symbol contains ("indexSelectSmallIndex"): a short name for
// a kernel whose full symbol runs to hundreds of characters.
std::string_view kernel_cause_name(const KernelCause& row, std::string_view kernel);

// "indexSelectSmallIndex is PyTorch's kernel for an embedding lookup or index_select; what
// usually makes it fault is <cause>. Check <check>. "
std::string kernel_cause_advice(std::string_view kernel, const KernelCause& row);

// The table's advice for the kernels among `launches` it knows, once per row; "" when it knows
// none of them.
std::string known_kernels_advice(const std::vector<LaunchView>& launches);

// What suspect launches were given to do: the table's words for the kernels it knows, and for
// any other launch (or none), to check the indices and sizes it was given. Every rule that names
// suspect launches advises through this.
std::string launches_advice(const std::vector<LaunchView>& launches);

}  // namespace cublasspy::diagnoses
