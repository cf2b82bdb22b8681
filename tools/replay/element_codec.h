// Host-side reading and writing of GEMM elements of every cudaDataType the replay handles
// (fp64, fp32, fp16, bf16, fp8 E4M3/E5M2, int8, uint8, int32 and their complex forms), without
// the CUDA headers: the runner fills operands with it and the host reference reads them.
// Conversions round to nearest even once, from double, like a correctly rounded cast.
#pragma once

#include <cstdint>

#include "gemm/gemm_call.h"

namespace cublasspy::replay {

// 2 for complex types (stored re, im), 1 otherwise.
int element_parts(DataType t);
// Bytes of one part (element_bytes / parts); 0 for unknown types.
int part_bytes(DataType t);

// Part `part` (0 real, 1 imaginary) of the element at `p`.
double decode_part(DataType t, const void* p, int part);
void encode_part(DataType t, void* p, int part, double value);

// The small float formats, exposed for the tests: bits of `value` rounded to nearest even.
uint16_t to_half_bits(double value);
uint16_t to_bf16_bits(double value);
uint8_t to_e4m3_bits(double value);  // the "FN" variant: no infinities, 0x7f is NaN, max 448
uint8_t to_e5m2_bits(double value);
double from_half_bits(uint16_t bits);
double from_bf16_bits(uint16_t bits);
double from_e4m3_bits(uint8_t bits);
double from_e5m2_bits(uint8_t bits);

// The replay's seeded values. splitmix64, so that the emitted C++ reproducer (which carries the
// same dozen lines) fills its operands with exactly the values the runner used.
struct SeededValues {
  uint64_t state;
  // One stream per operand: the seed mixed with the operand's name.
  SeededValues(uint64_t seed, const char* operand_name);
  uint64_t next_bits();
  // A value suited to the type: uniform in [-1, 1) for floating types, small integers for
  // integer types (int8 in [-8, 8], uint8 in [0, 16], int32 in [-64, 64]) so sums stay exact.
  double next(DataType t);
};

// Fills `elements` elements of type `t` at `p` with the stream's next values.
void fill_seeded(SeededValues& values, DataType t, void* p, uint64_t elements);
// Fills with 1 (real part), 0 (imaginary part).
void fill_ones(DataType t, void* p, uint64_t elements);

}  // namespace cublasspy::replay
