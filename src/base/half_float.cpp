#include "base/half_float.hpp"

#include <algorithm>
#include <cmath>

namespace gpb {

// With p mantissa bits and bias b, a finite nonzero |value| = q 2^(E-p) with E its binary
// exponent, clamped below at the smallest normal exponent 1-b (subnormals share it), and
// q < 2^(p+1) its significand scaled to an integer. Scaling by a power of two is exact, so
// nearbyint (the default mode: to nearest, ties to even) rounds exactly once. The encoding is
// then (E + b - 1) 2^p + q: for a normal q holds the implicit leading bit, which adds one to
// the exponent field, and a q rounded up to 2^(p+1) carries into the next binade, or into
// infinity at the top; for a subnormal (E = 1-b) the exponent field stays 0.
std::uint16_t round_to_bits(double value, Binary16Layout layout) {
  const int p = layout.mantissa_bits, bias = layout.exponent_bias;
  const std::uint32_t sign = std::signbit(value) ? 0x8000u : 0u;
  const std::uint32_t infinity = static_cast<std::uint32_t>(2 * bias + 1) << p;
  if (std::isnan(value)) return static_cast<std::uint16_t>(sign | infinity | (1u << (p - 1)));
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return static_cast<std::uint16_t>(sign);
  if (std::isinf(magnitude)) return static_cast<std::uint16_t>(sign | infinity);
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = f 2^exponent, f in [0.5, 1)
  const int binade = std::max(exponent - 1, 1 - bias);
  if (binade > bias) return static_cast<std::uint16_t>(sign | infinity);
  const auto q = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(magnitude, p - binade)));
  const std::uint32_t bits = static_cast<std::uint32_t>(binade + bias - 1) * (1u << p) + q;
  return static_cast<std::uint16_t>(sign | (bits > infinity ? infinity : bits));
}

double value_of_bits(std::uint16_t bits, Binary16Layout layout) {
  const int p = layout.mantissa_bits, bias = layout.exponent_bias;
  const std::uint32_t mantissa = bits & ((1u << p) - 1);
  const int field = static_cast<int>((bits & 0x7FFFu) >> p);
  const double sign = (bits & 0x8000u) != 0 ? -1.0 : 1.0;
  if (field == 2 * bias + 1) return mantissa != 0 ? std::nan("") : sign * HUGE_VAL;
  if (field == 0) return sign * std::ldexp(static_cast<double>(mantissa), 1 - bias - p);
  return sign * std::ldexp(static_cast<double>(mantissa + (1u << p)), field - bias - p);
}

}  // namespace gpb
