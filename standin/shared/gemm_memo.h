// A GEMM that repeats the previous large one exactly (the same shape, types, scalars and the same
// bytes in every operand it reads) is not computed again: its stored result is written instead.
// Autotuning loops (NVIDIA's CustomFind samples run one 4-GFLOP matmul up to 1000 times, once per
// configuration and repeat) would otherwise take the CPU stand-in an hour. The result is the one
// the computation gives, bit for bit; only large problems (where a compare costs far less than
// the multiply) are remembered, and only the last one.
#pragma once

#include "gemm_core.h"

namespace standin {

// Writes D (and amax) from the stored result when p repeats it; false otherwise.
bool gemm_memo_replay(const GemmProblem& p);
// Remembers p and the D it just computed (when p is large enough and small enough to keep).
void gemm_memo_store(const GemmProblem& p);

}  // namespace standin
