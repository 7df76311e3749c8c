// A Problem holds one case's host inputs, built deterministically from a seed once per
// op/dtype/shape and shared by every backend that runs it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/csr.hpp"
#include "model/host_array.hpp"
#include "model/types.hpp"

namespace gpb {

struct Problem {
  Op op = Op::sin;
  DType dtype = DType::f32;
  Shape shape;          // for spmv, rows/cols/nnz filled in from the matrix
  std::uint64_t seed = 0;
  InputData data = InputData::uniform;  // the value distribution the inputs are drawn from (--data)
  std::string input_distribution;  // recorded in the report, e.g. "uniform[-pi,pi)"

  HostArray x;          // sin/sqrt/sum input; spmv dense vector (cols)
  HostArray a;          // matmul A, m x k row-major
  HostArray b;          // matmul B, k x n row-major
  std::shared_ptr<const CsrMatrix> csr;  // spmv structure and fp64 values
  HostArray csr_values; // spmv values converted to dtype (what backends use)
};

// Builds the inputs with the op table's input builder (defined in op_table.cpp, with each
// op's ranges; the README documents them). Throws UsageError for shapes that are empty or too
// large to allocate.
// `data` picks the value distribution (--data); the default is each op's uniform range.
Problem make_problem(Op op, DType dtype, const Shape& shape, std::uint64_t seed, InputData data = InputData::uniform);

// Loaded .mtx files are shared across dtypes; the cache keeps one parse per path.
std::shared_ptr<const CsrMatrix> load_matrix_cached(const std::string& path);

// ---- for the op table's input builders ----

// The key of a problem's inputs: seed, op and the fields of the shape that matter for its
// shape kind. The dtype is left out on purpose, so f32 and f64 problems hold the same draws,
// rounded. Each input draws from its own stream under it (random.hpp's derive_key).
std::uint64_t input_key(const Problem& problem);

// `count` values uniform in [low, high), drawn in double and rounded to the dtype. Each entry
// is a function of its index alone, so the fill is parallel and the same for every thread count.
HostArray uniform_array(DType dtype, std::int64_t count, std::uint64_t key, double low, double high);

// `count` values of the distribution `data`, for an input whose uniform range is [low, high):
//   uniform  uniform_array(low, high), draw for draw
//   normal   the normal distribution with the uniform range's mean and standard deviation,
//            (low + high) / 2 and (high - low) / sqrt(12) (Box-Muller over two draws per entry)
//   zeros    0 everywhere;  ones  1 everywhere
// With `folded`, each value is replaced by its magnitude (sqrt's inputs under normal). Like
// uniform_array, each entry is a function of its index alone.
HostArray input_array(DType dtype, std::int64_t count, std::uint64_t key, InputData data, double low, double high,
                      bool folded = false);
// How input_array draws, for the report: "uniform[-1,1)", "normal(mean 0, sd 0.577)",
// "|normal(mean 500, sd 289)|", "zeros", "ones". `range` is the uniform range as the report
// writes it ("[-pi,pi)").
std::string input_text(InputData data, double low, double high, const std::string& range, bool folded = false);

// The values rounded to the dtype.
HostArray converted_values(DType dtype, const std::vector<double>& values);

void require_positive(std::int64_t value, const std::string& what);

// Refuses a problem whose host footprint of `bytes` cannot fit in physical memory: failing
// here, with a clear line, beats being killed by the OOM killer halfway through a suite.
void check_fits_in_memory(const Problem& problem, double bytes);

}  // namespace gpb
