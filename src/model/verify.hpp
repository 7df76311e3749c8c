// Verification against an fp64 host reference computed for a deterministic sample of
// output entries (all of them when the output is small).
#pragma once

#include <cstdint>

#include "model/host_array.hpp"
#include "model/problem.hpp"
#include "model/result.hpp"

namespace gpb {

// Outputs with at most this many entries are checked in full; larger ones on a sample.
inline constexpr std::int64_t kVerifyAllUpTo = 1 << 16;
inline constexpr std::int64_t kVerifySampleCount = 4096;

// The op table's tolerance for the problem; `unit` is the unit roundoff of the arithmetic
// actually used where it is coarser than the dtype's (TF32 matmul passes 2^-11), 0 for the
// dtype's own. op_table.cpp gives the reasoning.
double tolerance(const Problem& problem, double unit = 0);

// Checks `output` (the op's result in the problem's dtype) against the reference.
// `unit` defaults to the dtype's unit roundoff.
Verification verify(const Problem& problem, const HostArray& output, double unit = 0);

}  // namespace gpb
