#include "problem.hpp"

#include <cstdio>
#include <limits>
#include <map>
#include <mutex>

#include "random.hpp"
#include "system.hpp"

namespace gpb {
namespace {

constexpr double kPi = 3.141592653589793;

// Stream labels under a case's key: each input gets its own stream.
enum StreamRole : std::uint64_t { kInput = 1, kMatrixA = 2, kMatrixB = 3, kSparseMatrix = 4, kDenseVector = 5 };

// The key of a case's inputs: seed, op and the fields of the shape that matter for the op.
// The dtype is left out on purpose, so f32 and f64 problems hold the same draws, rounded.
std::uint64_t case_key(std::uint64_t seed, Op op, const Shape& shape) {
  std::uint64_t key = derive_key(seed, static_cast<std::uint64_t>(op));
  const auto mix_in = [&key](std::int64_t value) { key = derive_key(key, static_cast<std::uint64_t>(value)); };
  switch (op) {
    case Op::sin:
    case Op::sqrt:
    case Op::sum:
      mix_in(shape.n);
      break;
    case Op::matmul:
      mix_in(shape.m);
      mix_in(shape.n);
      mix_in(shape.k);
      break;
    case Op::spmv:
      mix_in(static_cast<std::int64_t>(shape.pattern));
      mix_in(shape.rows);
      if (shape.pattern == SpmvPattern::file) {
        // The loaded matrix's own sizes, not its path, which differs from machine to machine.
        mix_in(shape.cols);
        mix_in(shape.nnz);
      } else {
        mix_in(shape.nnz_per_row);
      }
      break;
  }
  return key;
}

// Values are drawn in double and rounded to T. Each entry is a function of its index alone,
// so the fill is parallel and the same for every thread count.
template <class T>
void fill_uniform(std::vector<T>& values, std::uint64_t key, double low, double high) {
  const auto count = static_cast<std::int64_t>(values.size());
  const double width = high - low;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i)
    values[static_cast<std::size_t>(i)] =
        static_cast<T>(low + width * unit_interval(random_bits(key, static_cast<std::uint64_t>(i))));
}

HostArray uniform_array(DType dtype, std::int64_t count, std::uint64_t key, double low, double high) {
  HostArray array(dtype, static_cast<std::size_t>(count));
  dispatch_dtype(dtype, [&](auto tag) { fill_uniform(array.as<decltype(tag)>(), key, low, high); });
  return array;
}

HostArray converted_values(DType dtype, const std::vector<double>& values) {
  HostArray array(dtype, values.size());
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T>& converted = array.as<T>();
    const auto count = static_cast<std::int64_t>(values.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
      converted[static_cast<std::size_t>(i)] = static_cast<T>(values[static_cast<std::size_t>(i)]);
  });
  return array;
}

std::string gibibytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// Refuses cases whose host footprint cannot fit in physical memory: failing here, with a
// clear line, beats being killed by the OOM killer halfway through a suite.
void check_fits_in_memory(Op op, DType dtype, const Shape& shape, double bytes) {
  const double available = physical_memory_bytes();
  if (available > 0 && bytes > available)
    throw UsageError(to_string(op) + " " + to_string(dtype) + " " + shape.label(op) + " needs " + gibibytes(bytes) +
                     " GiB, more than this machine's " + gibibytes(available) + " GiB");
}

double as_double(std::int64_t value) { return static_cast<double>(value); }

void require_positive(std::int64_t value, const std::string& what) {
  if (value <= 0) throw UsageError(what + " must be positive (got " + std::to_string(value) + ")");
}

void build_elementwise(Problem& problem, double low, double high) {
  require_positive(problem.shape.n, to_string(problem.op) + " size n");
  const auto element = static_cast<double>(dtype_size(problem.dtype));
  const double copies = problem.op == Op::sum ? 1 : 2;  // input, and the output where there is one
  check_fits_in_memory(problem.op, problem.dtype, problem.shape, copies * as_double(problem.shape.n) * element);
  problem.x = uniform_array(problem.dtype, problem.shape.n, derive_key(case_key(problem.seed, problem.op, problem.shape), kInput),
                            low, high);
}

void build_matmul(Problem& problem) {
  const Shape& shape = problem.shape;
  for (const auto& [value, name] : {std::pair{shape.m, "m"}, std::pair{shape.n, "n"}, std::pair{shape.k, "k"}}) {
    require_positive(value, std::string("matmul ") + name);
    if (value > std::numeric_limits<std::int32_t>::max())
      throw UsageError(std::string("matmul ") + name + " = " + std::to_string(value) +
                       " does not fit a 32-bit integer (BLAS takes int dimensions)");
  }
  const double elements = as_double(shape.m) * as_double(shape.k) + as_double(shape.k) * as_double(shape.n) +
                          as_double(shape.m) * as_double(shape.n);
  check_fits_in_memory(Op::matmul, problem.dtype, shape, elements * static_cast<double>(dtype_size(problem.dtype)));
  const std::uint64_t key = case_key(problem.seed, Op::matmul, shape);
  problem.a = uniform_array(problem.dtype, shape.m * shape.k, derive_key(key, kMatrixA), -1, 1);
  problem.b = uniform_array(problem.dtype, shape.k * shape.n, derive_key(key, kMatrixB), -1, 1);
}

void build_spmv(Problem& problem) {
  Shape& shape = problem.shape;
  const auto element = static_cast<double>(dtype_size(problem.dtype));
  if (shape.pattern == SpmvPattern::file) {
    if (shape.matrix_path.empty()) throw UsageError("spmv from a file needs a matrix path");
    problem.csr = load_matrix_cached(shape.matrix_path);
    problem.input_distribution = "matrix values from the file; x uniform[-1,1)";
  } else {
    // Before generating: the fp64 matrix, its indices and the dtype's values, x and y.
    const double nnz_estimate = as_double(shape.rows) * as_double(shape.nnz_per_row);
    check_fits_in_memory(Op::spmv, problem.dtype, shape,
                         nnz_estimate * (8 + 4 + element) + as_double(shape.rows) * (8 + 2 * element));
    const std::uint64_t matrix_seed = derive_key(case_key(problem.seed, Op::spmv, shape), kSparseMatrix);
    problem.csr = std::make_shared<const CsrMatrix>(generate_csr(shape.rows, shape.nnz_per_row, shape.pattern, matrix_seed));
    problem.input_distribution = "values and x uniform[-1,1)";
  }
  const CsrMatrix& matrix = *problem.csr;
  shape.rows = matrix.rows;
  shape.cols = matrix.cols;
  shape.nnz = matrix.nnz();
  if (shape.pattern == SpmvPattern::file)
    check_fits_in_memory(Op::spmv, problem.dtype, shape,
                         as_double(shape.nnz) * element + as_double(shape.rows + shape.cols) * element);
  problem.csr_values = converted_values(problem.dtype, matrix.values);
  problem.x = uniform_array(problem.dtype, shape.cols, derive_key(case_key(problem.seed, Op::spmv, shape), kDenseVector), -1, 1);
}

}  // namespace

Problem make_problem(Op op, DType dtype, const Shape& shape, std::uint64_t seed) {
  Problem problem;
  problem.op = op;
  problem.dtype = dtype;
  problem.shape = shape;
  problem.seed = seed;
  switch (op) {
    case Op::sin:
      problem.input_distribution = "uniform[-pi,pi)";
      build_elementwise(problem, -kPi, kPi);
      break;
    case Op::sqrt:
      problem.input_distribution = "uniform[0,1000)";
      build_elementwise(problem, 0, 1000);
      break;
    case Op::sum:
      problem.input_distribution = "uniform[0,1)";
      build_elementwise(problem, 0, 1);
      break;
    case Op::matmul:
      problem.input_distribution = "A, B uniform[-1,1)";
      build_matmul(problem);
      break;
    case Op::spmv:
      build_spmv(problem);
      break;
  }
  return problem;
}

std::shared_ptr<const CsrMatrix> load_matrix_cached(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CsrMatrix>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& entry = cache[path];
  if (!entry) entry = std::make_shared<const CsrMatrix>(read_matrix_market(path));
  return entry;
}

}  // namespace gpb
