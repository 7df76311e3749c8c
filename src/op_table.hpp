// The workload table: per op, what it computes, how many bytes it must move and how
// many flops it does. GB/s and GFLOP/s everywhere come from these two functions.
#pragma once

#include <string>

#include "types.hpp"

namespace gpb {

struct OpInfo {
  Op op;
  std::string description;      // "y = sin(x)"
  std::string shape_parameters; // "n", "m x n x k", "rows, nnz/row, pattern | .mtx"
  std::string input_distribution;
  bool memory_bound;            // true: judged against bandwidth; false: against flop rate
};

const OpInfo& op_info(Op op);

// The fewest bytes the op must move through memory: every input read once, every output
// written once. For spmv this is the standard CSR byte model: values + column indices +
// row pointers + one x read per nonzero (gathers are not assumed to hit cache) + y written.
// Needs shape.nnz to be known for spmv.
double op_bytes(Op op, const Shape& shape, DType dtype);

// Floating-point operations: sin/sqrt n (one "op" per element, a convention we state),
// sum n-1 adds (counted as n), matmul 2mnk, spmv 2 nnz.
double op_flops(Op op, const Shape& shape);

// Number of output elements (sum: 1).
std::int64_t op_output_size(Op op, const Shape& shape);

}  // namespace gpb
