// The host element types of the 16-bit dtypes: IEEE binary16 (f16) and bfloat16 (bf16),
// held as their bit patterns. src/ includes no CUDA header and the CPU backends' Eigen
// types are theirs, so these are the one layout every side agrees on: a backend
// reinterprets the bits as __half, __nv_bfloat16, Eigen::half or OpenBLAS's bfloat16.
// Conversions from double round to nearest, ties to even, once (no double rounding through
// float), with subnormals, overflow to infinity and NaN as IEEE 754 has them.
#pragma once

#include <cstdint>

namespace gpb {

// The bit layout of a 16-bit binary floating-point format: 1 sign bit, then the exponent,
// then mantissa_bits explicit significand bits.
struct Binary16Layout {
  int mantissa_bits;
  int exponent_bias;
};

inline constexpr Binary16Layout kFloat16Layout = {10, 15};    // 5 exponent bits: max 65504
inline constexpr Binary16Layout kBFloat16Layout = {7, 127};   // float's 8 exponent bits

// value rounded to the nearest representable number of the layout, as bits.
std::uint16_t round_to_bits(double value, Binary16Layout layout);
// The exact value of the bits.
double value_of_bits(std::uint16_t bits, Binary16Layout layout);

template <const Binary16Layout& kLayout>
struct Binary16 {
  std::uint16_t bits = 0;

  Binary16() = default;
  explicit Binary16(double value) : bits(round_to_bits(value, kLayout)) {}
  static Binary16 from_bits(std::uint16_t raw) {
    Binary16 number;
    number.bits = raw;
    return number;
  }
  explicit operator double() const { return value_of_bits(bits, kLayout); }
  explicit operator float() const { return static_cast<float>(value_of_bits(bits, kLayout)); }
  friend bool operator==(Binary16 a, Binary16 b) { return a.bits == b.bits; }
  friend bool operator!=(Binary16 a, Binary16 b) { return a.bits != b.bits; }
};

using Float16 = Binary16<kFloat16Layout>;
using BFloat16 = Binary16<kBFloat16Layout>;

}  // namespace gpb
