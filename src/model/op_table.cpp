// The built-in ops' entries and the registry that holds them.
//
// Tolerances. With u the unit roundoff of the arithmetic used (2^-24 f32, 2^-53 f64, 2^-11
// for f16 and TF32, 2^-8 for bf16; Rounding says which), entry i passes when
// |y - ref| <= tol * scale_i, where
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
// Sums and dot products take u of the accumulation type; where that is finer than the
// output's, the final rounding to the output adds the output's u (accumulated_tolerance).
// f16 and bf16 accumulate in f32 (the dtype table), so their matmul and spmv are held to
// 2^-24 (growth) + 2^-11 or 2^-8 (the one rounding of the stored result): the sum of
// products is as accurate as f32's, and only storing it loses bits. (Tensor cores align and
// add with truncation rather than rounding, Fasi et al. 2021: a bias of at most about
// sqrt(k) 2^-23 of the scale for random-sign data, which the output's u, 2^-11 times a scale
// that is about sqrt(k) times |ref|, absorbs many times over.) Their inputs are
// rounded to 16 bits when the problem is built and the reference is computed from those
// rounded inputs, so input rounding is no error of the backend's. sum stores its result in
// the accumulation type (f32 for the 16-bit dtypes), so it is held to f32's bound alone.
// sin and sqrt compute in f32 and round once to the output: f32's error (a few 2^-24) plus
// half an ulp of the output stays within 4u and 2u of the output's u.
#include "model/op_table.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "base/errors.hpp"
#include "base/random.hpp"
#include "base/text.hpp"
#include "model/problem.hpp"

namespace gpb {
namespace {

constexpr double kPi = 3.141592653589793;

// Stream labels under a problem's input_key: each input gets its own stream.
enum InputStream : std::uint64_t {
  kInput = 1,
  kMatrixA = 2,
  kMatrixB = 3,
  kSparseMatrix = 4,
  kDenseVector = 5,
  kSparseValues = 6,  // a generated matrix's values under a distribution other than uniform
};

double as_double(std::int64_t value) { return static_cast<double>(value); }
double element_bytes(DType dtype) { return static_cast<double>(dtype_size(dtype)); }

OpDef named_op(std::string name, std::string description, std::string listed_distribution, ShapeKind shape_kind) {
  OpDef def;
  def.name = std::move(name);
  def.description = std::move(description);
  def.input_distribution = std::move(listed_distribution);
  def.shape_kind = shape_kind;
  return def;
}

double accumulated_tolerance(const Rounding& rounding, double growth) {
  return rounding.accumulation * growth + (rounding.output > rounding.accumulation ? rounding.output : 0);
}

// ---- elementwise ops and reductions over x (n elements) ----

// x from the problem's distribution over the op's range [low, high) (`range` as the report
// writes it); folded: the magnitudes (sqrt). The footprint is the input and the output.
std::function<void(Problem&)> elementwise_x(double low, double high, std::string range, bool folded = false) {
  return [low, high, range, folded](Problem& problem) {
    problem.input_distribution = input_text(problem.data, low, high, range, folded);
    const std::int64_t n = problem.shape.n;
    require_positive(n, to_string(problem.op) + " size n");
    const double elements = as_double(n) + as_double(op_output_size(problem.op, problem.shape));
    check_fits_in_memory(problem, elements * element_bytes(problem.dtype));
    problem.x = input_array(problem.dtype, n, derive_key(input_key(problem), kInput), problem.data, low, high, folded);
  };
}

// f of each checked entry's input; the scale is |f(x)| + floor.
template <class Function>
decltype(OpDef::references) elementwise_references(Function function, double floor) {
  return [function, floor](const Problem& problem, const std::vector<std::int64_t>& entries) {
    std::vector<Reference> references(entries.size());
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const double value = function(problem.x.at(static_cast<std::size_t>(entries[e])));
      references[e] = {value, std::abs(value) + floor};
    }
    return references;
  };
}

OpDef elementwise_op(std::string name, std::string description, std::string listed_distribution) {
  OpDef def = named_op(std::move(name), std::move(description), std::move(listed_distribution), ShapeKind::elements);
  def.elementwise = true;
  def.shows_flop_rate = false;
  def.bytes = [](const Shape& shape, DType dtype) { return 2 * as_double(shape.n) * element_bytes(dtype); };
  def.flops = [](const Shape& shape) { return as_double(shape.n); };
  def.output_size = [](const Shape& shape) { return shape.n; };
  return def;
}

OpDef sin_op() {
  OpDef def = elementwise_op("sin", "y = sin(x)", "x uniform[-pi,pi)");
  def.build_inputs = elementwise_x(-kPi, kPi, "[-pi,pi)");
  def.references = elementwise_references([](double x) { return std::sin(x); }, 0.25);
  def.tolerance = [](const Problem&, const Rounding& rounding) { return 4 * rounding.output; };
  def.error_scale = "error / (|ref| + 1/4)";
  return def;
}

OpDef sqrt_op() {
  OpDef def = elementwise_op("sqrt", "y = sqrt(x)", "x uniform[0,1000)");
  // Under --data normal, sqrt takes the magnitudes of the normal draws: its inputs stay in
  // its domain, and the distribution's shape is what changes.
  def.build_inputs = elementwise_x(0, 1000, "[0,1000)", true);
  def.references = elementwise_references([](double x) { return std::sqrt(x); }, 0);
  def.tolerance = [](const Problem&, const Rounding& rounding) { return 2 * rounding.output; };
  def.error_scale = "error / |ref|";
  return def;
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

OpDef sum_op() {
  OpDef def = named_op("sum", "s = sum(x)", "x uniform[0,1)", ShapeKind::elements);
  def.shows_flop_rate = false;
  def.output_in_accumulation_type = true;
  def.bytes = [](const Shape& shape, DType dtype) {
    return as_double(shape.n) * element_bytes(dtype) + element_bytes(dtype_info(dtype).accumulation);
  };
  def.flops = [](const Shape& shape) { return as_double(shape.n); };  // n-1 adds, counted as n
  def.output_size = [](const Shape&) { return std::int64_t{1}; };
  def.build_inputs = elementwise_x(0, 1, "[0,1)");
  def.references = [](const Problem& problem, const std::vector<std::int64_t>&) {
    return dispatch_dtype(problem.dtype, [&](auto tag) {
      return std::vector<Reference>(1, sum_reference(problem.x.as<decltype(tag)>()));
    });
  };
  def.tolerance = [](const Problem& problem, const Rounding& rounding) {
    return accumulated_tolerance(rounding, 8 * std::log2(as_double(std::max<std::int64_t>(problem.shape.n, 1))) + 64);
  };
  def.error_scale = "error / sum|x| (reference: compensated fp64 sum)";
  return def;
}

// ---- matmul: C (m x n) = A (m x k) B (k x n), row-major ----

void build_matmul_inputs(Problem& problem) {
  problem.input_distribution = "A, B " + input_text(problem.data, -1, 1, "[-1,1)");
  const Shape& shape = problem.shape;
  for (const auto& [value, name] : {std::pair{shape.m, "m"}, std::pair{shape.n, "n"}, std::pair{shape.k, "k"}}) {
    require_positive(value, std::string("matmul ") + name);
    if (value > std::numeric_limits<std::int32_t>::max())
      throw UsageError(std::string("matmul ") + name + " = " + std::to_string(value) +
                       " does not fit a 32-bit integer (BLAS takes int dimensions)");
  }
  check_fits_in_memory(problem, op_bytes(problem.op, shape, problem.dtype));
  const std::uint64_t key = input_key(problem);
  problem.a = input_array(problem.dtype, shape.m * shape.k, derive_key(key, kMatrixA), problem.data, -1, 1);
  problem.b = input_array(problem.dtype, shape.k * shape.n, derive_key(key, kMatrixB), problem.data, -1, 1);
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

OpDef matmul_op() {
  OpDef def = named_op("matmul", "C = A B (row-major)", "A, B uniform[-1,1)", ShapeKind::dense_matrix);
  def.bound = Bound::compute;
  def.shape_bound = [](const Shape& shape) { return matmul_is_matrix_vector(shape) ? Bound::memory : Bound::compute; };
  def.shows_bandwidth = false;
  def.accepts_tf32 = true;
  def.bytes = [](const Shape& shape, DType dtype) {
    return (as_double(shape.m) * as_double(shape.k) + as_double(shape.k) * as_double(shape.n) +
            as_double(shape.m) * as_double(shape.n)) *
           element_bytes(dtype);
  };
  def.flops = [](const Shape& shape) { return 2 * as_double(shape.m) * as_double(shape.n) * as_double(shape.k); };
  def.output_size = [](const Shape& shape) { return shape.m * shape.n; };
  def.build_inputs = build_matmul_inputs;
  def.references = [](const Problem& problem, const std::vector<std::int64_t>& entries) {
    return dispatch_dtype(problem.dtype, [&](auto tag) { return matmul_references<decltype(tag)>(problem, entries); });
  };
  def.tolerance = [](const Problem& problem, const Rounding& rounding) {
    return accumulated_tolerance(rounding, 2 * std::sqrt(as_double(std::max<std::int64_t>(problem.shape.k, 1))) + 16);
  };
  def.error_scale = "error / sum_p |a_ip||b_pj|";
  return def;
}

// ---- spmv: y = A x, A in CSR with 32-bit indices ----

void build_spmv_inputs(Problem& problem) {
  Shape& shape = problem.shape;
  const double element = element_bytes(problem.dtype);
  if (shape.pattern == SpmvPattern::file) {
    if (shape.matrix_path.empty()) throw UsageError("spmv from a file needs a matrix path");
    problem.csr = load_matrix_cached(shape.matrix_path);
    problem.input_distribution = "matrix values from the file; x " + input_text(problem.data, -1, 1, "[-1,1)");
  } else {
    // Before generating: the fp64 matrix, its indices and the dtype's values, the row
    // lengths and pointers, y and x (cols entries: 64 times the rows for a wide matrix).
    const double nnz_estimate = as_double(shape.rows) * as_double(shape.nnz_per_row);
    check_fits_in_memory(problem, nnz_estimate * (8 + 4 + element) + as_double(shape.rows) * (8 + element) +
                                      as_double(shape.cols) * element);
    const std::uint64_t matrix_seed = derive_key(input_key(problem), kSparseMatrix);
    problem.csr = std::make_shared<const CsrMatrix>(generate_csr(shape.rows, shape.nnz_per_row, shape.pattern, matrix_seed));
    problem.input_distribution = "values and x " + input_text(problem.data, -1, 1, "[-1,1)");
  }
  const CsrMatrix& matrix = *problem.csr;
  shape.rows = matrix.rows;
  shape.cols = matrix.cols;
  shape.nnz = matrix.nnz();
  if (shape.pattern == SpmvPattern::file)
    check_fits_in_memory(problem, as_double(shape.nnz) * element + as_double(shape.rows + shape.cols) * element);
  // A generated matrix draws uniform values with its structure; other distributions replace
  // them (same structure). A file's values are the file's under every distribution.
  if (shape.pattern == SpmvPattern::file || problem.data == InputData::uniform)
    problem.csr_values = converted_values(problem.dtype, matrix.values);
  else
    problem.csr_values =
        input_array(problem.dtype, shape.nnz, derive_key(input_key(problem), kSparseValues), problem.data, -1, 1);
  problem.x = input_array(problem.dtype, shape.cols, derive_key(input_key(problem), kDenseVector), problem.data, -1, 1);
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

OpDef spmv_op() {
  OpDef def = named_op("spmv", "y = A x (CSR)", "values and x uniform[-1,1) (a .mtx file keeps its own values)",
                       ShapeKind::sparse_matrix);
  // The standard CSR byte model: values + column indices + row pointers + one x read per
  // nonzero (gathers are not assumed to hit cache) + y written. Needs shape.nnz.
  def.bytes = [](const Shape& shape, DType dtype) {
    constexpr double index = 4;  // 32-bit CSR indices
    const double element = element_bytes(dtype);
    const double nnz = as_double(shape.nnz);
    const double rows = as_double(shape.rows);
    return nnz * (element + index) + (rows + 1) * index + nnz * element + rows * element;
  };
  def.flops = [](const Shape& shape) { return 2 * as_double(shape.nnz); };
  def.output_size = [](const Shape& shape) { return shape.rows; };
  def.build_inputs = build_spmv_inputs;
  def.references = [](const Problem& problem, const std::vector<std::int64_t>& rows) {
    return dispatch_dtype(problem.dtype, [&](auto tag) { return spmv_references<decltype(tag)>(problem, rows); });
  };
  def.tolerance = [](const Problem&, const Rounding& rounding) { return accumulated_tolerance(rounding, 1); };
  def.error_scale = "error / ((2 sqrt(row nnz) + 16) sum|a||x|)";
  return def;
}

// A function measured from Python (gpubench.benchmark): what it moves and computes is
// unknown here, so its records have no rates, and its output stays in Python, where the
// caller's reference= check compares it. The program reads such records (compare, report,
// merge, history) and runs no such case.
OpDef callable_definition() {
  OpDef def = named_op("callable", "a function measured from Python", "the caller's", ShapeKind::elements);
  def.recorded_only = true;
  def.shows_bandwidth = false;
  def.shows_flop_rate = false;
  def.bytes = [](const Shape&, DType) { return 0.0; };
  def.flops = [](const Shape&) { return 0.0; };
  def.output_size = [](const Shape&) { return std::int64_t{0}; };
  def.build_inputs = [](Problem& problem) {
    require_positive(problem.shape.n, "callable size");
    problem.input_distribution = "the caller's";
  };
  def.references = [](const Problem&, const std::vector<std::int64_t>& entries) {
    return std::vector<Reference>(entries.size());
  };
  def.tolerance = [](const Problem&, const Rounding&) { return 0.0; };
  def.error_scale = "|y - reference| / (atol + rtol |reference|)";
  return def;
}

// Indexed by the Op value: the built-in ops in enumerator order, then registered ones. A
// deque, so that entries handed out by op_def stay where they are when one is added.
struct Registry {
  std::deque<OpDef> ops{sin_op(), sqrt_op(), sum_op(), matmul_op(), spmv_op(), callable_definition()};
  std::size_t builtin_count = ops.size();
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace


const OpDef& op_def(Op op) {
  const auto index = static_cast<std::size_t>(op);
  const std::deque<OpDef>& ops = registry().ops;
  if (index >= ops.size()) throw std::logic_error("no op table entry for op " + std::to_string(index));
  return ops[index];
}

Op register_op(OpDef def) {
  if (def.name.empty()) throw std::invalid_argument("register_op: an op needs a name");
  for (Op op : recorded_ops())
    if (op_def(op).name == def.name) throw std::invalid_argument("register_op: op '" + def.name + "' exists already");
  if (!def.bytes || !def.flops || !def.output_size || !def.build_inputs || !def.references || !def.tolerance)
    throw std::invalid_argument("register_op: op '" + def.name +
                                "' lacks a rule (bytes, flops, output_size, build_inputs, references, tolerance)");
  std::deque<OpDef>& ops = registry().ops;
  ops.push_back(std::move(def));
  return static_cast<Op>(ops.size() - 1);
}

namespace {

std::vector<std::string> names_of_ops(const std::vector<Op>& ops) {
  std::vector<std::string> names;
  for (Op op : ops) names.push_back(to_string(op));
  return names;
}

}  // namespace

// Here rather than with the other parsers (types.cpp): an op's name is its table entry's.
Op parse_op(std::string_view text) {
  for (Op op : recorded_ops())
    if (to_string(op) == text && op_def(op).recorded_only)
      throw UsageError("op '" + to_string(op) + "' is " + op_def(op).description +
                       ": its records come from gpubench.benchmark, the program runs no such case (ops: " +
                       join_words(names_of_ops(all_ops()), ", ") + ")");
  for (Op op : all_ops())
    if (to_string(op) == text) return op;
  throw UsageError(unknown_word_message("op", std::string(text), names_of_ops(all_ops())));
}

Op parse_recorded_op(std::string_view text) {
  for (Op op : recorded_ops())
    if (to_string(op) == text) return op;
  throw UsageError(unknown_word_message("op", std::string(text), names_of_ops(recorded_ops())));
}

// The entry after the enumerators' (the registry's order).
Op callable_op() { return static_cast<Op>(static_cast<int>(Op::spmv) + 1); }

std::vector<Op> recorded_ops() {
  std::vector<Op> ops(registry().ops.size());
  for (std::size_t index = 0; index < ops.size(); ++index) ops[index] = static_cast<Op>(index);
  return ops;
}

std::vector<Op> all_ops() {
  std::vector<Op> ops;
  for (Op op : recorded_ops())
    if (!op_def(op).recorded_only) ops.push_back(op);
  return ops;
}

bool is_builtin(Op op) {
  return static_cast<std::size_t>(op) < registry().builtin_count && !op_def(op).recorded_only;
}

ShapeKind shape_kind(Op op) { return op_def(op).shape_kind; }

std::string to_string(Op op) { return op_def(op).name; }

Problem make_problem(Op op, DType dtype, const Shape& shape, std::uint64_t seed, InputData data) {
  Problem problem;
  problem.data = data;
  problem.op = op;
  problem.dtype = dtype;
  problem.shape = shape;
  problem.seed = seed;
  op_def(op).build_inputs(problem);
  return problem;
}

DType op_output_dtype(Op op, DType dtype) {
  return op_def(op).output_in_accumulation_type ? dtype_info(dtype).accumulation : dtype;
}

bool matmul_is_matrix_vector(const Shape& shape) {
  return std::min(shape.m, shape.n) <= kMatmulVectorMaxSide;
}

Bound op_bound(Op op, const Shape& shape) {
  const OpDef& def = op_def(op);
  return def.shape_bound ? def.shape_bound(shape) : def.bound;
}

double op_bytes(Op op, const Shape& shape, DType dtype) { return op_def(op).bytes(shape, dtype); }
double op_flops(Op op, const Shape& shape) { return op_def(op).flops(shape); }
std::int64_t op_output_size(Op op, const Shape& shape) { return op_def(op).output_size(shape); }

std::int64_t op_footprint(Op op, const Shape& shape) {
  switch (shape_kind(op)) {
    case ShapeKind::elements:
      return shape.n;
    case ShapeKind::dense_matrix:
      return shape.m * shape.n;
    case ShapeKind::sparse_matrix:
      return shape.nnz > 0 ? shape.nnz : shape.rows * shape.nnz_per_row;
  }
  return 0;
}

namespace {

// What an op's footprint counts: the axis title, and the unit after a number.
struct FootprintWords {
  const char* axis;
  const char* unit;
};

FootprintWords footprint_words(Op op) {
  switch (shape_kind(op)) {
    case ShapeKind::elements:
      return {"elements (n)", "elements"};
    case ShapeKind::dense_matrix:
      return {"m\u00b7n (entries of C)", "entries of C"};
    case ShapeKind::sparse_matrix:
      return {"nonzeros", "nonzeros"};
  }
  return {"size", ""};
}

}  // namespace

std::string op_footprint_name(Op op) { return footprint_words(op).axis; }

std::string op_footprint_unit(Op op) { return footprint_words(op).unit; }

}  // namespace gpb
