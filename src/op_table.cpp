#include "op_table.hpp"

namespace gpb {
namespace {

const OpInfo kOpInfos[] = {
    {Op::sin, "y = sin(x)", "n", "x uniform[-pi,pi)", true},
    {Op::sqrt, "y = sqrt(x)", "n", "x uniform[0,1000)", true},
    {Op::sum, "s = sum(x)", "n", "x uniform[0,1)", true},
    {Op::matmul, "C = A B (row-major)", "m x n x k", "A, B uniform[-1,1)", false},
    {Op::spmv, "y = A x (CSR)", "rows, nnz/row, pattern | .mtx",
     "values and x uniform[-1,1) (a .mtx file keeps its own values)", true},
};

// Sizes are counted in double: products like m*n*k overflow 64-bit integers long before
// they stop being meaningful as rates.
double as_double(std::int64_t value) { return static_cast<double>(value); }

}  // namespace

const OpInfo& op_info(Op op) {
  for (const auto& info : kOpInfos)
    if (info.op == op) return info;
  throw std::logic_error("op_info: unknown op");
}

double op_bytes(Op op, const Shape& shape, DType dtype) {
  const auto element = static_cast<double>(dtype_size(dtype));
  constexpr double index = 4;  // 32-bit CSR indices
  switch (op) {
    case Op::sin:
    case Op::sqrt:
      return 2 * as_double(shape.n) * element;
    case Op::sum:
      return (as_double(shape.n) + 1) * element;
    case Op::matmul:
      return (as_double(shape.m) * as_double(shape.k) + as_double(shape.k) * as_double(shape.n) +
              as_double(shape.m) * as_double(shape.n)) *
             element;
    case Op::spmv: {
      const double nnz = as_double(shape.nnz);
      const double rows = as_double(shape.rows);
      return nnz * (element + index) + (rows + 1) * index + nnz * element + rows * element;
    }
  }
  throw std::logic_error("op_bytes: unknown op");
}

double op_flops(Op op, const Shape& shape) {
  switch (op) {
    case Op::sin:
    case Op::sqrt:
    case Op::sum:
      return as_double(shape.n);
    case Op::matmul:
      return 2 * as_double(shape.m) * as_double(shape.n) * as_double(shape.k);
    case Op::spmv:
      return 2 * as_double(shape.nnz);
  }
  throw std::logic_error("op_flops: unknown op");
}

std::int64_t op_output_size(Op op, const Shape& shape) {
  switch (op) {
    case Op::sin:
    case Op::sqrt:
      return shape.n;
    case Op::sum:
      return 1;
    case Op::matmul:
      return shape.m * shape.n;
    case Op::spmv:
      return shape.rows;
  }
  throw std::logic_error("op_output_size: unknown op");
}

}  // namespace gpb
