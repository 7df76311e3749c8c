// The Eigen backend: every op on the host, vectorised by Eigen and spread over threads
// with OpenMP (our own loops for elementwise and sum, Eigen's own for gemm and spmv).
// Double sin is the exception: Eigen 3.4 has no vectorised double sin, so it runs
// vector_sin.cpp's vectorised kernel instead of one std::sin call per element.
// f16 and bf16 are Eigen::half and Eigen::bfloat16 (eigen_types.hpp), computed in f32 as
// every backend computes them: each op reads the 16-bit values, casts them to float inside
// the Eigen expression, and rounds only the results back to 16 bits.

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cpu_backend/cpu_backends.hpp"
#include "cpu_backend/eigen_types.hpp"
#include "cpu_backend/threading.hpp"

namespace gpb {
namespace {

// Elementwise work is split into blocks large enough to amortise the per-block call and
// small enough to balance; the static schedule hands each thread one contiguous range.
constexpr std::int64_t kElementwiseBlock = 1 << 14;
// Sum blocks are short on purpose: each block's vectorised sum is a handful of sequential
// chains of length block / (2 * SIMD width), and the block sums are then added pairwise in
// double, so the rounding error grows with log(n) rather than n (see op_table.cpp).
constexpr std::int64_t kSumBlock = 1 << 10;

std::int64_t block_count(std::int64_t size, std::int64_t block) { return (size + block - 1) / block; }

// Adds the values pairwise (a balanced tree), overwriting them.
double pairwise_sum(std::vector<double>& values) {
  const std::size_t count = values.size();
  for (std::size_t width = 1; width < count; width *= 2)
    for (std::size_t i = 0; i + width < count; i += 2 * width) values[i] += values[i + width];
  return count == 0 ? 0 : values[0];
}

template <class T>
class EigenPrepared final : public CpuPrepared<T> {
 public:
  EigenPrepared(const Problem& problem, int threads) : CpuPrepared<T>(problem, threads) {
    if (problem.op == Op::sum) block_sums_.resize(static_cast<std::size_t>(block_count(problem.shape.n, kSumBlock)));
  }

  void compute() override {
    switch (this->problem().op) {
      case Op::sin:
        if constexpr (std::is_same_v<T, double>)
          elementwise(sin_block_f64);
        else if constexpr (kSixteenBit)
          elementwise([](const T* x, T* y, std::int64_t count) {
            Eigen::Map<Array>(eigen_data(y), count) =
                Eigen::Map<const Array>(eigen_data(x), count).template cast<float>().sin().template cast<Scalar>();
          });
        else
          elementwise([](const T* x, T* y, std::int64_t count) {
            Eigen::Map<Array>(y, count) = Eigen::Map<const Array>(x, count).sin();
          });
        break;
      case Op::sqrt:
        elementwise(eigen_sqrt_block<T>);
        break;
      case Op::sum:
        sum();
        break;
      case Op::matmul:
        matmul();
        break;
      case Op::spmv:
        spmv();
        break;
    }
  }

  std::string details() const override {
    const std::string threads = "; " + std::to_string(this->threads()) + " threads";
    switch (this->problem().op) {
      case Op::sin:
        return "OpenMP static over " + std::to_string(kElementwiseBlock) + "-element blocks, " +
               (std::is_same_v<T, double> ? "vectorised double sin per block (Eigen 3.4's double sin is scalar; see "
                                            "cpu_backend/vector_sin.cpp)"
                                          : "Eigen array sin per block") +
               computed_in_float() +
               threads;
      case Op::sqrt:
        return "OpenMP static over " + std::to_string(kElementwiseBlock) +
               "-element blocks, Eigen array sqrt per block (IEEE sqrt: EIGEN_FAST_MATH=0, " +
               (eigen_sqrt_is_vectorised<T>() ? "vectorised" : "scalar: Eigen 3.4 has no exact AVX-512 sqrt packet") +
               ")" + computed_in_float() + threads;
      case Op::sum:
        return "OpenMP static over " + std::to_string(kSumBlock) +
               "-element blocks, Eigen sum per block" +
               (kSixteenBit ? " accumulated in f32 (the 16-bit values cast to float), the f32 result stored as f32" : "") +
               ", block sums added pairwise in double" + threads;
      case Op::matmul:
        if constexpr (kSixteenBit)
          return "Eigen gemm in f32 on row-major maps: A and B cast to float (inside the timed run), C = A B accumulated "
                 "in f32 and rounded to " + to_string(this->problem().dtype) + " (Eigen's OpenMP-parallel gemm)" + threads;
        return "Eigen gemm on row-major maps (Eigen's OpenMP-parallel gemm)" + threads;
      case Op::spmv:
        if constexpr (kSixteenBit)
          return "OpenMP loop over rows (dynamic schedule), each row's products of Eigen 16-bit values accumulated in "
                 "f32 and rounded once (Eigen's sparse product would accumulate in 16 bits)" + threads;
        return "Eigen row-major sparse x dense product (Eigen's own OpenMP loop over rows, dynamic schedule, "
               "used above 20000 nonzeros; y is zeroed first)" +
               threads;
    }
    return {};
  }

 private:
  using Scalar = EigenScalar<T>;  // T itself, or Eigen's type of the 16-bit format
  static constexpr bool kSixteenBit = !std::is_same_v<Scalar, T>;
  using Accumulation = gpb::Accumulation<T>;  // the dtype table's: f32 for the 16-bit formats
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
  using RowMajorMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowMajorSparse = Eigen::SparseMatrix<Scalar, Eigen::RowMajor, int>;

  static std::string computed_in_float() { return kSixteenBit ? ", computed in f32 and rounded to 16 bits" : ""; }

  // At least kElementwiseBlock elements per thread: waking a team for a small input costs
  // more than the work, and on a busy machine one descheduled thread stalls the barrier.
  int team_size(std::int64_t elements) const {
    return static_cast<int>(std::clamp<std::int64_t>(elements / kElementwiseBlock, 1, this->threads()));
  }

  // block_function(x, y, count) computes one block.
  template <class BlockFunction>
  void elementwise(BlockFunction block_function) {
    const T* x = this->problem().x.template as<T>().data();
    T* y = this->output();
    const std::int64_t size = this->problem().shape.n;
    const std::int64_t blocks = block_count(size, kElementwiseBlock);
#pragma omp parallel for schedule(static) num_threads(team_size(size))
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t begin = block * kElementwiseBlock;
      block_function(x + begin, y + begin, std::min(kElementwiseBlock, size - begin));
    }
  }

  void sum() {
    const T* x = this->problem().x.template as<T>().data();
    const std::int64_t size = this->problem().shape.n;
    const auto blocks = static_cast<std::int64_t>(block_sums_.size());
    double* block_sums = block_sums_.data();
#pragma omp parallel for schedule(static) num_threads(team_size(size))
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t begin = block * kSumBlock;
      const std::int64_t length = std::min(kSumBlock, size - begin);
      const Eigen::Map<const Array> values(eigen_data(x + begin), length);
      if constexpr (kSixteenBit)
        block_sums[block] = static_cast<double>(values.template cast<float>().sum());
      else
        block_sums[block] = static_cast<double>(values.sum());
    }
    this->template output_as<Accumulation>()[0] = static_cast<Accumulation>(pairwise_sum(block_sums_));
  }

  void matmul() {
    const Problem& problem = this->problem();
    const Shape& shape = problem.shape;
    const Eigen::Map<const RowMajorMatrix> a(eigen_data(problem.a.template as<T>().data()), shape.m, shape.k);
    const Eigen::Map<const RowMajorMatrix> b(eigen_data(problem.b.template as<T>().data()), shape.k, shape.n);
    Eigen::Map<RowMajorMatrix> c(eigen_data(this->output()), shape.m, shape.n);
    if constexpr (kSixteenBit)
      c = (a.template cast<float>() * b.template cast<float>()).template cast<Scalar>();
    else
      c.noalias() = a * b;
  }

  void spmv() {
    if constexpr (kSixteenBit)
      spmv_accumulating_in_float();
    else
      spmv_in_eigen();
  }

  void spmv_in_eigen() {
    const Problem& problem = this->problem();
    const CsrMatrix& csr = *problem.csr;
    const Eigen::Map<const RowMajorSparse> matrix(csr.rows, csr.cols, csr.nnz(), csr.row_ptr.data(), csr.col_idx.data(),
                                                  problem.csr_values.template as<T>().data());
    const Eigen::Map<const Vector> x(problem.x.template as<T>().data(), csr.cols);
    Eigen::Map<Vector> y(this->output(), csr.rows);
    y.noalias() = matrix * x;
  }

  void spmv_accumulating_in_float() {
    const Problem& problem = this->problem();
    const CsrMatrix& csr = *problem.csr;
    const Scalar* values = eigen_data(problem.csr_values.template as<T>().data());
    const Scalar* x = eigen_data(problem.x.template as<T>().data());
    Scalar* y = eigen_data(this->output());
    const std::int32_t* row_ptr = csr.row_ptr.data();
    const std::int32_t* col_idx = csr.col_idx.data();
    const std::int64_t rows = csr.rows;
#pragma omp parallel for schedule(dynamic, 256) num_threads(this->threads())
    for (std::int64_t row = 0; row < rows; ++row) {
      float sum = 0;
      for (std::int32_t j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
        sum += static_cast<float>(values[j]) * static_cast<float>(x[col_idx[j]]);
      y[row] = static_cast<Scalar>(sum);
    }
  }

  std::vector<double> block_sums_;  // sum only; sized in prepare
};

class EigenBackend final : public Backend {
 public:
  std::string name() const override { return "eigen"; }
  std::string description() const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + " (SIMD: " + Eigen::SimdInstructionSetsInUse() +
           "), OpenMP threads; all ops";
  }
  DeviceKind kind() const override { return DeviceKind::cpu; }
  Availability availability() const override { return {}; }
  Support supports(Op op, DType) const override { return is_builtin(op) ? Support{} : no_kernel_for(name(), op); }

  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    const Support support = supports(problem.op, problem.dtype);
    if (!support.supported) throw std::runtime_error(support.reason);
    const int threads = apply_thread_count(settings.threads);
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<EigenPrepared<decltype(tag)>>(problem, threads);
    });
  }

  int threads_used(const BackendSettings& settings) const override { return resolve_thread_count(settings.threads); }
};

}  // namespace

std::unique_ptr<Backend> make_eigen_backend() { return std::make_unique<EigenBackend>(); }

}  // namespace gpb
