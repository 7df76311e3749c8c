// A Problem holds one case's host inputs, built deterministically from a seed once per
// op/dtype/shape and shared by every backend that runs it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "csr.hpp"
#include "host_array.hpp"
#include "types.hpp"

namespace gpb {

struct Problem {
  Op op = Op::sin;
  DType dtype = DType::f32;
  Shape shape;          // for spmv, rows/cols/nnz filled in from the matrix
  std::uint64_t seed = 0;
  std::string input_distribution;  // recorded in the report, e.g. "uniform[-pi,pi)"

  HostArray x;          // sin/sqrt/sum input; spmv dense vector (cols)
  HostArray a;          // matmul A, m x k row-major
  HostArray b;          // matmul B, k x n row-major
  std::shared_ptr<const CsrMatrix> csr;  // spmv structure and fp64 values
  HostArray csr_values; // spmv values converted to dtype (what backends use)
};

// Builds the inputs. Input ranges (documented in the README):
//   sin: uniform [-pi, pi)    sqrt: uniform [0, 1000)    sum: uniform [0, 1)
//   matmul A, B: uniform [-1, 1)    spmv values and x: uniform [-1, 1)
// Throws UsageError for shapes that are empty or too large to allocate.
Problem make_problem(Op op, DType dtype, const Shape& shape, std::uint64_t seed);

// Loaded .mtx files are shared across dtypes; the cache keeps one parse per path.
std::shared_ptr<const CsrMatrix> load_matrix_cached(const std::string& path);

}  // namespace gpb
