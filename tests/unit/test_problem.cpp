#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <string>

#include "model/problem.hpp"

namespace gpb {
namespace {

template <class T>
std::pair<double, double> value_range(const std::vector<T>& values) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return {static_cast<double>(*low), static_cast<double>(*high)};
}

void expect_usage_error(Op op, const Shape& shape, const std::string& fragment) {
  try {
    make_problem(op, DType::f32, shape, 1);
    ADD_FAILURE() << "no UsageError for " << to_string(op) << " " << shape.label(op);
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(Problem, InputsFollowTheDocumentedRanges) {
  const double pi = 3.141592653589793;
  const Problem sin = make_problem(Op::sin, DType::f64, elementwise_shape(100000), 42);
  const auto [sin_low, sin_high] = value_range(sin.x.as<double>());
  EXPECT_GE(sin_low, -pi);
  EXPECT_LT(sin_high, pi);
  EXPECT_LT(sin_low, -3.1);
  EXPECT_GT(sin_high, 3.1);
  EXPECT_EQ(sin.input_distribution, "uniform[-pi,pi)");

  const Problem sqrt = make_problem(Op::sqrt, DType::f64, elementwise_shape(100000), 42);
  const auto [sqrt_low, sqrt_high] = value_range(sqrt.x.as<double>());
  EXPECT_GE(sqrt_low, 0);
  EXPECT_LT(sqrt_high, 1000);
  EXPECT_GT(sqrt_high, 990);

  const Problem sum = make_problem(Op::sum, DType::f64, elementwise_shape(100000), 42);
  const auto [sum_low, sum_high] = value_range(sum.x.as<double>());
  EXPECT_GE(sum_low, 0);
  EXPECT_LT(sum_high, 1);

  const Problem matmul = make_problem(Op::matmul, DType::f64, matmul_shape(30, 20, 10), 42);
  EXPECT_EQ(matmul.a.size(), 300u);
  EXPECT_EQ(matmul.b.size(), 200u);
  const auto [a_low, a_high] = value_range(matmul.a.as<double>());
  EXPECT_GE(a_low, -1);
  EXPECT_LT(a_high, 1);
  // A and B come from different streams: B differs from A's first 200 draws.
  EXPECT_NE(std::vector<double>(matmul.a.as<double>().begin(), matmul.a.as<double>().begin() + 200), matmul.b.as<double>());
}

TEST(Problem, DeterministicFromTheSeed) {
  const Problem first = make_problem(Op::sin, DType::f32, elementwise_shape(1000), 7);
  const Problem again = make_problem(Op::sin, DType::f32, elementwise_shape(1000), 7);
  const Problem other = make_problem(Op::sin, DType::f32, elementwise_shape(1000), 8);
  EXPECT_EQ(first.x.as<float>(), again.x.as<float>());
  EXPECT_NE(first.x.as<float>(), other.x.as<float>());
}

TEST(Problem, SinglePrecisionHoldsTheSameDrawsRounded) {
  const Problem f64 = make_problem(Op::matmul, DType::f64, matmul_shape(40, 30, 20), 3);
  const Problem f32 = make_problem(Op::matmul, DType::f32, matmul_shape(40, 30, 20), 3);
  for (std::size_t i = 0; i < f64.a.size(); ++i) ASSERT_EQ(f32.a.as<float>()[i], static_cast<float>(f64.a.as<double>()[i]));
  for (std::size_t i = 0; i < f64.b.size(); ++i) ASSERT_EQ(f32.b.as<float>()[i], static_cast<float>(f64.b.as<double>()[i]));
}

TEST(Problem, DoesNotDependOnTheThreadCount) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Problem serial = make_problem(Op::spmv, DType::f64, spmv_shape(50000, 8, SpmvPattern::powerlaw), 5);
  omp_set_num_threads(2);
  const Problem parallel = make_problem(Op::spmv, DType::f64, spmv_shape(50000, 8, SpmvPattern::powerlaw), 5);
  omp_set_num_threads(threads);
  EXPECT_EQ(serial.x.as<double>(), parallel.x.as<double>());
  EXPECT_EQ(serial.csr->col_idx, parallel.csr->col_idx);
  EXPECT_EQ(serial.csr_values.as<double>(), parallel.csr_values.as<double>());
}

TEST(Problem, SpmvFillsTheShapeFromTheMatrix) {
  const Problem generated = make_problem(Op::spmv, DType::f32, spmv_shape(1000, 16, SpmvPattern::banded), 1);
  EXPECT_EQ(generated.shape.rows, 1000);
  EXPECT_EQ(generated.shape.cols, 1000);
  EXPECT_EQ(generated.shape.nnz, generated.csr->nnz());
  EXPECT_EQ(generated.csr_values.size(), static_cast<std::size_t>(generated.csr->nnz()));
  EXPECT_EQ(generated.x.size(), 1000u);

  const Problem loaded =
      make_problem(Op::spmv, DType::f64, spmv_file_shape(std::string(GPUBENCH_TEST_DATA) + "/mm_general.mtx"), 1);
  EXPECT_EQ(loaded.shape.rows, 4);
  EXPECT_EQ(loaded.shape.cols, 5);
  EXPECT_EQ(loaded.shape.nnz, 5);
  EXPECT_EQ(loaded.x.size(), 5u);
  EXPECT_EQ(loaded.csr_values.as<double>(), loaded.csr->values);
}

TEST(Problem, RejectsEmptyAndAbsurdShapes) {
  expect_usage_error(Op::sin, elementwise_shape(0), "must be positive");
  expect_usage_error(Op::sum, elementwise_shape(-3), "must be positive");
  expect_usage_error(Op::matmul, matmul_shape(4, 0, 4), "matmul n must be positive");
  expect_usage_error(Op::matmul, matmul_shape(std::int64_t{1} << 32, 1, 1), "does not fit a 32-bit integer");
  expect_usage_error(Op::sqrt, elementwise_shape(std::int64_t{1} << 40), "GiB this process may allocate (the machine's memory, or ulimit -v)");
  expect_usage_error(Op::matmul, matmul_shape(1 << 30, 1 << 30, 1 << 30), "GiB this process may allocate (the machine's memory, or ulimit -v)");
  expect_usage_error(Op::spmv, spmv_shape(0, 16, SpmvPattern::random), "rows must be positive");
  expect_usage_error(Op::spmv, spmv_file_shape(""), "needs a matrix path");
  expect_usage_error(Op::spmv, spmv_file_shape("/nonexistent/matrix.mtx"), "cannot read matrix file");
}

}  // namespace
}  // namespace gpb
