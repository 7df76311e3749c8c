// Verification rules.
//
// Which entries: outputs of up to kVerifyAllUpTo entries are checked in full. Larger ones
// are checked on kVerifySampleCount distinct pseudo-random entries (deterministic from the
// seed) plus the first and the last, where indexing bugs show first. The reference is
// computed in fp64 on the host for just those entries, from the typed inputs the backend
// saw, so verification costs about as much as a few thousand entries of the op. Every
// output entry is also scanned for NaN/Inf, which always fails: one pass over the output
// costs about as much as one run of an elementwise op and catches what a sample would miss.
//
// How close: with u the unit roundoff of the arithmetic used (2^-24 f32, 2^-53 f64, 2^-11
// for TF32), entry i passes when |y - ref| <= tol * scale_i, where
//   sqrt:   tol = 2u,               scale = |ref|              IEEE sqrt is correctly rounded.
//   sin:    tol = 4u,               scale = |ref| + 1/4        a few ulps, plus an absolute u
//                                                              for results near zero (|sin| <= 1).
//   matmul: tol = u (2 sqrt(k) + 16), scale = sum_p |a_ip||b_pj|
//   spmv:   tol = u,                scale = (2 sqrt(L) + 16) sum |a_ij||x_j|, L = the row's nnz
//           Dot products: the probabilistic rounding-error bound for random-sign data grows
//           like sqrt(L) u (Higham & Mary 2019); sum |a||x| is the componentwise condition
//           scale; 16u absorbs short rows and fused or reordered accumulation. A row's length
//           varies in spmv, so it moves into the scale and the tolerance is plain u.
//   sum:    tol = u (8 log2(n) + 64), scale = sum |x|
//           The inputs are positive and every backend sums as a tree of short sequential
//           chains, so the error grows with the tree's depth, not with n.
// Verification.max_error is the largest |y - ref| / scale_i: the case passes when it is
// at most Verification.tolerance.
#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <omp.h>

#include "op_table.hpp"
#include "random.hpp"

namespace gpb {

double tolerance(Op op, const Problem& problem, double unit, std::int64_t entry_length) {
  const double u = unit > 0 ? unit : unit_roundoff(problem.dtype);
  const auto length = static_cast<double>(std::max<std::int64_t>(entry_length, 1));
  switch (op) {
    case Op::sqrt:
      return 2 * u;
    case Op::sin:
      return 4 * u;
    case Op::sum:
      return u * (8 * std::log2(length) + 64);
    case Op::matmul:
    case Op::spmv:
      return u * (2 * std::sqrt(length) + 16);
  }
  throw std::logic_error("tolerance: unknown op");
}

namespace {

constexpr std::uint64_t kVerifyStream = 0x7665726966790001ull;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

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

// Kahan-Babuska-Neumaier summation: error about 2u|sum| independent of the count.
class CompensatedSum {
 public:
  void add(double value) {
    const double total = sum_ + value;
    compensation_ += std::abs(sum_) >= std::abs(value) ? (sum_ - total) + value : (value - total) + sum_;
    sum_ = total;
  }
  void add(const CompensatedSum& other) {
    add(other.sum_);
    add(other.compensation_);
  }
  double value() const { return sum_ + compensation_; }

 private:
  double sum_ = 0;
  double compensation_ = 0;
};

// The reference and the error scale of one checked entry.
struct Reference {
  double value = 0;
  double scale = 0;
};

template <class T>
std::vector<Reference> elementwise_references(Op op, const std::vector<T>& x, const std::vector<std::int64_t>& indices) {
  std::vector<Reference> references(indices.size());
  for (std::size_t e = 0; e < indices.size(); ++e) {
    const auto input = static_cast<double>(x[static_cast<std::size_t>(indices[e])]);
    const double value = op == Op::sin ? std::sin(input) : std::sqrt(input);
    references[e] = {value, op == Op::sin ? std::abs(value) + 0.25 : std::abs(value)};
  }
  return references;
}

// Fixed-size chunks summed in parallel and combined in order: the reference does not
// depend on the thread count.
template <class T>
Reference sum_reference(const std::vector<T>& x) {
  constexpr std::int64_t kChunk = 1 << 16;
  const auto size = static_cast<std::int64_t>(x.size());
  const std::int64_t chunks = (size + kChunk - 1) / kChunk;
  std::vector<CompensatedSum> sums(static_cast<std::size_t>(chunks));
  std::vector<double> magnitudes(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    CompensatedSum sum;
    double magnitude = 0;
    for (std::int64_t i = chunk * kChunk; i < std::min(size, (chunk + 1) * kChunk); ++i) {
      const auto value = static_cast<double>(x[static_cast<std::size_t>(i)]);
      sum.add(value);
      magnitude += std::abs(value);
    }
    sums[static_cast<std::size_t>(chunk)] = sum;
    magnitudes[static_cast<std::size_t>(chunk)] = magnitude;
  }
  CompensatedSum total;
  for (const auto& sum : sums) total.add(sum);
  return {total.value(), std::accumulate(magnitudes.begin(), magnitudes.end(), 0.0)};
}

// Sampled entries sit in scattered rows of A and columns of B. The inner dimension is
// walked in tiles of kTile rows of B: a tile stays in cache while every entry takes its
// kTile products from it, and A is read once along each entry's row, so the whole
// computation reads A's sampled rows and B about once. Each entry still sums in order of
// the inner index, so the split over threads does not change the result.
template <class T>
std::vector<Reference> matmul_references(const Problem& problem, const std::vector<std::int64_t>& indices) {
  constexpr std::size_t kTile = 16;
  const T* a = problem.a.as<T>().data();
  const T* b = problem.b.as<T>().data();
  const auto n = static_cast<std::size_t>(problem.shape.n);
  const auto k = static_cast<std::size_t>(problem.shape.k);
  const std::size_t count = indices.size();
  std::vector<Reference> references(count);
  const auto chunks = static_cast<std::int64_t>(std::min<std::size_t>(count, static_cast<std::size_t>(omp_get_max_threads())));
#pragma omp parallel for schedule(static)
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    const std::size_t begin = count * static_cast<std::size_t>(chunk) / static_cast<std::size_t>(chunks);
    const std::size_t end = count * static_cast<std::size_t>(chunk + 1) / static_cast<std::size_t>(chunks);
    for (std::size_t tile = 0; tile < k; tile += kTile) {
      const std::size_t tile_end = std::min(k, tile + kTile);
      for (std::size_t e = begin; e < end; ++e) {
        const auto entry = static_cast<std::size_t>(indices[e]);
        const T* a_row = a + entry / n * k;
        const T* b_column = b + entry % n;
        Reference reference = references[e];
        for (std::size_t p = tile; p < tile_end; ++p) {
          const double product = static_cast<double>(a_row[p]) * static_cast<double>(b_column[p * n]);
          reference.value += product;
          reference.scale += std::abs(product);
        }
        references[e] = reference;
      }
    }
  }
  return references;
}

template <class T>
std::vector<Reference> spmv_references(const Problem& problem, const std::vector<std::int64_t>& rows) {
  const CsrMatrix& matrix = *problem.csr;
  const std::vector<T>& values = problem.csr_values.as<T>();
  const std::vector<T>& x = problem.x.as<T>();
  std::vector<Reference> references(rows.size());
  const auto count = static_cast<std::int64_t>(rows.size());
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t e = 0; e < count; ++e) {
    const auto row = static_cast<std::size_t>(rows[static_cast<std::size_t>(e)]);
    const auto begin = static_cast<std::size_t>(matrix.row_ptr[row]);
    const auto end = static_cast<std::size_t>(matrix.row_ptr[row + 1]);
    Reference reference;
    for (std::size_t position = begin; position < end; ++position) {
      const double product = static_cast<double>(values[position]) *
                             static_cast<double>(x[static_cast<std::size_t>(matrix.col_idx[position])]);
      reference.value += product;
      reference.scale += std::abs(product);
    }
    const auto length = static_cast<double>(end - begin);
    reference.scale *= 2 * std::sqrt(length) + 16;
    references[static_cast<std::size_t>(e)] = reference;
  }
  return references;
}

template <class T>
std::vector<Reference> compute_references(const Problem& problem, const std::vector<std::int64_t>& indices) {
  switch (problem.op) {
    case Op::sin:
    case Op::sqrt:
      return elementwise_references(problem.op, problem.x.as<T>(), indices);
    case Op::sum:
      return std::vector<Reference>(1, sum_reference(problem.x.as<T>()));
    case Op::matmul:
      return matmul_references<T>(problem, indices);
    case Op::spmv:
      return spmv_references<T>(problem, indices);
  }
  throw std::logic_error("verify: unknown op");
}

// Index of the first NaN/Inf in the output, or -1.
template <class T>
std::int64_t first_non_finite(const std::vector<T>& output) {
  const auto size = static_cast<std::int64_t>(output.size());
  std::int64_t first = size;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t i = 0; i < size; ++i)
    if (!std::isfinite(output[static_cast<std::size_t>(i)])) first = std::min(first, i);
  return first == size ? -1 : first;
}

std::string error_normalisation(Op op) {
  switch (op) {
    case Op::sin:
      return "error / (|ref| + 1/4)";
    case Op::sqrt:
      return "error / |ref|";
    case Op::sum:
      return "error / sum|x| (reference: compensated fp64 sum)";
    case Op::matmul:
      return "error / sum_p |a_ip||b_pj|";
    case Op::spmv:
      return "error / ((2 sqrt(row nnz) + 16) sum|a||x|)";
  }
  return {};
}

template <class T>
Verification verify_typed(const Problem& problem, const std::vector<T>& output, double unit) {
  Verification verification;
  verification.checked = true;
  const Op op = problem.op;
  const auto size = static_cast<std::int64_t>(output.size());
  const EntrySelection selection = select_entries(size, problem.seed);

  const std::vector<Reference> references = compute_references<T>(problem, selection.indices);
  const std::int64_t entry_length = op == Op::matmul ? problem.shape.k : op == Op::sum ? problem.shape.n : 0;
  verification.tolerance = op == Op::spmv ? unit : tolerance(op, problem, unit, entry_length);

  for (std::size_t e = 0; e < references.size(); ++e) {
    const auto computed = static_cast<double>(output[static_cast<std::size_t>(selection.indices[e])]);
    const double error = std::abs(computed - references[e].value);
    double normalised = error / references[e].scale;
    if (!std::isfinite(computed)) normalised = kInfinity;
    if (error == 0) normalised = 0;  // also where the scale is 0 (an empty spmv row)
    verification.max_error = std::max(verification.max_error, normalised);
  }
  verification.entries_checked = static_cast<std::int64_t>(references.size());
  verification.method = selection.description + "; " + error_normalisation(op);

  const std::int64_t non_finite = first_non_finite(output);
  if (non_finite >= 0) {
    verification.max_error = kInfinity;
    verification.method += "; non-finite output at index " + std::to_string(non_finite);
  }
  verification.passed = verification.max_error <= verification.tolerance;
  return verification;
}

}  // namespace

Verification verify(const Problem& problem, const HostArray& output, double unit) {
  if (unit <= 0) unit = unit_roundoff(problem.dtype);
  const std::int64_t expected = op_output_size(problem.op, problem.shape);
  if (output.dtype() != problem.dtype || static_cast<std::int64_t>(output.size()) != expected) {
    Verification mismatch;
    mismatch.checked = true;
    mismatch.max_error = kInfinity;
    mismatch.method = "output is " + to_string(output.dtype()) + "[" + std::to_string(output.size()) + "], expected " +
                      to_string(problem.dtype) + "[" + std::to_string(expected) + "]";
    return mismatch;
  }
  return dispatch_dtype(problem.dtype, [&](auto tag) { return verify_typed(problem, output.as<decltype(tag)>(), unit); });
}

}  // namespace gpb
