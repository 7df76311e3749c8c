// Verification: which entries are checked and how the verdict is reached. What each op's
// reference, error scale and tolerance are is the op table's (op_table.cpp explains them).
//
// Which entries: outputs of up to kVerifyAllUpTo entries are checked in full. Larger ones
// are checked on kVerifySampleCount distinct pseudo-random entries (deterministic from the
// seed) plus the first and the last, where indexing bugs show first. The reference is
// computed in fp64 on the host for just those entries, from the typed inputs the backend
// saw, so verification costs about as much as a few thousand entries of the op. Every
// output entry is also scanned for NaN/Inf, which always fails: one pass over the output
// costs about as much as one run of an elementwise op and catches what a sample would miss.
//
// How close: entry i passes when |y - ref| <= tol * scale_i, with the op's scale and tol.
// The unit roundoffs tol is built from come from the dtype table, per format: the output's
// (2^-24 f32, 2^-53 f64, 2^-11 f16: 11 significand bits, 2^-8 bf16: 8 bits) and the
// accumulation type's, in which sums and dot products run (f32 for f16 and bf16, so their
// long sums are held to 2^-24 growth plus one rounding of the stored 16-bit result; an op
// that stores its result in the accumulation type, sum, takes that type's u for both). A
// backend whose arithmetic is coarser than the dtype's (TF32 matmul: 2^-11) reports its own
// unit, which replaces both.
// Below the output format's normal range a rounding errs absolutely, by up to half its
// smallest subnormal (2^-25 for f16, whose normal range ends at 6.1e-5: a one-entry spmv row
// of two small inputs lands there). That half step is taken off |y - ref| before scaling.
// Verification.max_error is the largest such error / scale_i: the case passes when it is
// at most Verification.tolerance.
#include "model/verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "base/random.hpp"
#include "model/op_table.hpp"

namespace gpb {
namespace {

constexpr std::uint64_t kVerifyStream = 0x7665726966790001ull;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The arithmetic's unit roundoffs: the output's and the dtype's accumulation type's, or the
// coarser unit a backend reports for both.
Rounding rounding_of(const Problem& problem, double unit) {
  if (unit > 0) return {unit, unit};
  return {unit_roundoff(op_output_dtype(problem.op, problem.dtype)), unit_roundoff(dtype_info(problem.dtype).accumulation)};
}

struct EntrySelection {
  std::vector<std::int64_t> indices;  // sorted, distinct
  std::string description;
};

EntrySelection select_entries(std::int64_t size, std::uint64_t seed) {
  EntrySelection selection;
  if (size <= kVerifyAllUpTo) {
    selection.indices.resize(static_cast<std::size_t>(size));
    std::iota(selection.indices.begin(), selection.indices.end(), std::int64_t{0});
    selection.description = size == 1 ? "the single entry" : "all " + std::to_string(size) + " entries";
    return selection;
  }
  SplitMix64 rng(derive_key(seed, kVerifyStream));
  sample_distinct_sorted(kVerifySampleCount, size, rng, selection.indices);
  if (selection.indices.front() != 0) selection.indices.insert(selection.indices.begin(), 0);
  if (selection.indices.back() != size - 1) selection.indices.push_back(size - 1);
  selection.description = std::to_string(kVerifySampleCount) + " sampled entries + first/last";
  return selection;
}

// Index of the first NaN/Inf in the output, or -1.
template <class T>
std::int64_t first_non_finite(const std::vector<T>& output) {
  const auto size = static_cast<std::int64_t>(output.size());
  std::int64_t first = size;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t i = 0; i < size; ++i)
    if (!std::isfinite(static_cast<double>(output[static_cast<std::size_t>(i)]))) first = std::min(first, i);
  return first == size ? -1 : first;
}

}  // namespace

double tolerance(const Problem& problem, double unit) {
  return op_def(problem.op).tolerance(problem, rounding_of(problem, unit));
}

Verification verify(const Problem& problem, const HostArray& output, double unit) {
  const OpDef& op = op_def(problem.op);
  const std::int64_t expected = op.output_size(problem.shape);
  const DType output_dtype = op_output_dtype(problem.op, problem.dtype);
  if (output.dtype() != output_dtype || static_cast<std::int64_t>(output.size()) != expected) {
    Verification mismatch;
    mismatch.checked = true;
    mismatch.max_error = kInfinity;
    mismatch.method = "output is " + to_string(output.dtype()) + "[" + std::to_string(output.size()) + "], expected " +
                      to_string(output_dtype) + "[" + std::to_string(expected) + "]";
    return mismatch;
  }
  Verification verification;
  verification.checked = true;
  const EntrySelection selection = select_entries(expected, problem.seed);
  const std::vector<Reference> references = op.references(problem, selection.indices);
  if (references.size() != selection.indices.size())
    throw std::logic_error("op " + op.name + ": " + std::to_string(references.size()) + " references for " +
                           std::to_string(selection.indices.size()) + " entries");
  verification.tolerance = op.tolerance(problem, rounding_of(problem, unit));

  const double underflow_error = dtype_info(output_dtype).smallest_subnormal / 2;
  for (std::size_t e = 0; e < references.size(); ++e) {
    const double computed = output.at(static_cast<std::size_t>(selection.indices[e]));
    const double error = std::max(0.0, std::abs(computed - references[e].value) - underflow_error);
    // A scale of 0 (an empty spmv row, zeros inputs, sqrt(0)) admits no error at all: the
    // result must then be exact, and is never divided by 0.
    double normalised = error == 0 ? 0 : references[e].scale > 0 ? error / references[e].scale : kInfinity;
    if (!std::isfinite(computed)) normalised = kInfinity;
    verification.max_error = std::max(verification.max_error, normalised);
  }
  verification.entries_checked = static_cast<std::int64_t>(references.size());
  verification.method = selection.description + "; " + op.error_scale;

  const std::int64_t non_finite =
      dispatch_dtype(output_dtype, [&](auto tag) { return first_non_finite(output.as<decltype(tag)>()); });
  if (non_finite >= 0) {
    verification.max_error = kInfinity;
    verification.method += "; non-finite output at index " + std::to_string(non_finite);
  }
  verification.passed = verification.max_error <= verification.tolerance;
  return verification;
}

}  // namespace gpb
