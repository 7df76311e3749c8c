// The 16-bit formats' conversions: exact values, rounding to nearest with ties to even,
// subnormals, overflow, infinities and NaN, checked bit for bit against IEEE 754's
// binary16 and the bfloat16 layout (float's upper 16 bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "base/half_float.hpp"
#include "model/host_array.hpp"

namespace gpb {
namespace {

std::uint16_t f16(double value) { return Float16(value).bits; }
std::uint16_t bf16(double value) { return BFloat16(value).bits; }

TEST(HalfFloat, Float16ExactValuesAndLimits) {
  EXPECT_EQ(f16(0.0), 0x0000);
  EXPECT_EQ(f16(-0.0), 0x8000);
  EXPECT_EQ(f16(1.0), 0x3C00);
  EXPECT_EQ(f16(-2.0), 0xC000);
  EXPECT_EQ(f16(0.5), 0x3800);
  EXPECT_EQ(f16(65504.0), 0x7BFF);                  // the largest finite
  EXPECT_EQ(f16(std::ldexp(1.0, -14)), 0x0400);     // the smallest normal
  EXPECT_EQ(f16(std::ldexp(1.0, -24)), 0x0001);     // the smallest subnormal
  EXPECT_EQ(f16(std::ldexp(1023.0, -24)), 0x03FF);  // the largest subnormal
  EXPECT_EQ(static_cast<double>(Float16::from_bits(0x7BFF)), 65504.0);
  EXPECT_EQ(static_cast<double>(Float16::from_bits(0x0001)), std::ldexp(1.0, -24));
  EXPECT_EQ(static_cast<double>(Float16::from_bits(0x3555)), 0x1.554p-2);
}

TEST(HalfFloat, Float16RoundsToNearestTiesToEven) {
  const double ulp_at_one = std::ldexp(1.0, -10);
  EXPECT_EQ(f16(1.0 + ulp_at_one / 2), 0x3C00);              // tie: down to the even 1.0
  EXPECT_EQ(f16(1.0 + 3 * ulp_at_one / 2), 0x3C02);          // tie: up to the even neighbour
  EXPECT_EQ(f16(1.0 + ulp_at_one / 2 + 1e-12), 0x3C01);      // just above the tie
  EXPECT_EQ(f16(2.0 - ulp_at_one / 4), 0x4000);              // rounds up into the next binade
  EXPECT_EQ(f16(std::ldexp(1.0, -25)), 0x0000);              // half the smallest subnormal: tie to 0
  EXPECT_EQ(f16(std::ldexp(3.0, -25)), 0x0002);              // 1.5 subnormal units: tie to even 2
  EXPECT_EQ(f16(std::ldexp(1.0, -14) - std::ldexp(1.0, -26)), 0x0400);  // up into the normals
  // 1/3 = 0x1.5555...p-2: the 11-bit significand 0x1.554 rounds down (the dropped bits are 0.0101...).
  EXPECT_EQ(f16(1.0 / 3.0), 0x3555);
}

TEST(HalfFloat, Float16OverflowInfinityAndNan) {
  EXPECT_EQ(f16(65519.0), 0x7BFF);  // below the midpoint to 2^16
  EXPECT_EQ(f16(65520.0), 0x7C00);  // the midpoint: ties to even, which is infinity
  EXPECT_EQ(f16(1e10), 0x7C00);
  EXPECT_EQ(f16(-1e10), 0xFC00);
  EXPECT_EQ(f16(std::numeric_limits<double>::infinity()), 0x7C00);
  const Float16 nan(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(nan.bits & 0x7C00, 0x7C00);
  EXPECT_NE(nan.bits & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(static_cast<double>(nan)));
  EXPECT_TRUE(std::isinf(static_cast<double>(Float16::from_bits(0xFC00))));
}

// bfloat16 is float's upper half: round-to-nearest-even of a float's bits is the reference.
std::uint16_t bf16_of_float(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

TEST(HalfFloat, BFloat16MatchesFloatsUpperHalfRoundedToNearestEven) {
  for (double value : {1.0, -1.0, 3.14159265358979, 1.0 / 3.0, 65504.0, 1e30, -2.5e-30, 0x1.01p0, 0x1.03p0, 0x1.0180p0,
                       0x1.fffp127, 1e-39, 1e-45})
    EXPECT_EQ(bf16(value), bf16_of_float(static_cast<float>(value))) << value;
  EXPECT_EQ(bf16(1.0), 0x3F80);
  EXPECT_EQ(bf16(0x1.01p0), 0x3F80);   // 1 + 2^-8: a tie, down to the even 1.0
  EXPECT_EQ(bf16(0x1.03p0), 0x3F82);   // 1 + 3 2^-8: a tie, up to the even neighbour
  EXPECT_EQ(bf16(0x1.fffp127), 0x7F80);  // rounds past the largest finite: infinity
  EXPECT_EQ(bf16(std::ldexp(1.0, -133)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(static_cast<double>(BFloat16::from_bits(0x7F7F)), 0x1.fep127);
}

TEST(HalfFloat, EveryFloat16RoundTripsThroughDouble) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto raw = static_cast<std::uint16_t>(bits);
    const double value = static_cast<double>(Float16::from_bits(raw));
    if (std::isnan(value)) continue;
    EXPECT_EQ(Float16(value).bits, raw) << std::hex << bits;
    EXPECT_EQ(BFloat16(static_cast<double>(BFloat16::from_bits(raw))).bits, raw) << std::hex << bits;
  }
}

TEST(HalfFloat, HostArraysHoldTheSixteenBitDtypes) {
  const HostArray f16_array(DType::f16, 3);
  EXPECT_EQ(f16_array.dtype(), DType::f16);
  EXPECT_EQ(f16_array.bytes(), 6u);
  HostArray bf16_array(std::vector<BFloat16>{BFloat16(1.5), BFloat16(-0.25)});
  EXPECT_EQ(bf16_array.dtype(), DType::bf16);
  EXPECT_EQ(bf16_array.at(0), 1.5);
  EXPECT_EQ(bf16_array.at(1), -0.25);
}

}  // namespace
}  // namespace gpb
