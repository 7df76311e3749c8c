// The "cusparse" backend: CSR SpMV through the generic cusparseSpMV API, the library a
// user would otherwise reach for; the reference the custom kernel is compared against.
#include <stdexcept>
#include <string>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_libraries.hpp"
#include "gpu_backend/cuda_types.cuh"
#include "gpu_backend/gpu_backends.cuh"
#include "gpu_backend/gpu_prepared.cuh"
#include "gpu_backend/unique_handle.cuh"
#include "measure/one_time_costs.hpp"

namespace gpb::cuda {
namespace {

void destroy_cusparse_handle(cusparseHandle_t handle) noexcept { GPB_CUSPARSE_CHECK_NOTHROW(cusparse().destroy(handle)); }
void destroy_sparse_matrix(cusparseConstSpMatDescr_t matrix) noexcept {
  GPB_CUSPARSE_CHECK_NOTHROW(cusparse().destroy_sparse_matrix(matrix));
}
// For the read-only x and the written y, whose descriptor types differ in constness.
template <class Descriptor>
void destroy_dense_vector(Descriptor vector) noexcept {
  GPB_CUSPARSE_CHECK_NOTHROW(cusparse().destroy_dense_vector(vector));
}
using CusparseHandle = UniqueHandle<cusparseHandle_t, destroy_cusparse_handle>;
using SparseMatrixDescriptor = UniqueHandle<cusparseConstSpMatDescr_t, destroy_sparse_matrix>;
using InputVectorDescriptor = UniqueHandle<cusparseConstDnVecDescr_t, destroy_dense_vector<cusparseConstDnVecDescr_t>>;
using OutputVectorDescriptor = UniqueHandle<cusparseDnVecDescr_t, destroy_dense_vector<cusparseDnVecDescr_t>>;

constexpr cusparseSpMVAlg_t kAlgorithm = CUSPARSE_SPMV_CSR_ALG1;

CusparseHandle create_cusparse_handle(cudaStream_t stream) {
  cusparseHandle_t handle = nullptr;
  GPB_CUSPARSE_CHECK(cusparse().create(&handle));
  CusparseHandle owner(handle);
  GPB_CUSPARSE_CHECK(cusparse().set_stream(handle, stream));
  return owner;
}

template <class T>
class CusparseSpmvCase final : public GpuPrepared {
  using Types = CudaTypes<T>;

 public:
  CusparseSpmvCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings), handle_(timed_first_use("cusparse", "handle creation (cusparseCreate)",
                                                                [this] { return create_cusparse_handle(stream()); })) {
    const CsrMatrix& csr = *problem.csr;
    cusparseConstSpMatDescr_t matrix = nullptr;
    GPB_CUSPARSE_CHECK(cusparse().create_const_csr(&matrix, csr.rows, csr.cols, csr.nnz(), device_row_ptr(), device_col_idx(),
                                              device_csr_values<T>(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                              CUSPARSE_INDEX_BASE_ZERO, Types::data_type));
    matrix_ = SparseMatrixDescriptor(matrix);
    cusparseConstDnVecDescr_t x = nullptr;
    GPB_CUSPARSE_CHECK(cusparse().create_const_dense_vector(&x, csr.cols, device_x<T>(), Types::data_type));
    x_ = InputVectorDescriptor(x);
    cusparseDnVecDescr_t y = nullptr;
    GPB_CUSPARSE_CHECK(cusparse().create_dense_vector(&y, csr.rows, device_output<T>(), Types::data_type));
    y_ = OutputVectorDescriptor(y);

    std::size_t workspace_bytes = 0;
    GPB_CUSPARSE_CHECK(cusparse().spmv_buffer_size(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne,
                                                   matrix_.get(), x_.get(), &kZero, y_.get(),
                                                   Types::cusparse_compute_type, kAlgorithm, &workspace_bytes));
    workspace_ = DeviceBuffer<unsigned char>(workspace_bytes, "cusparseSpMV workspace");
    GPB_CUSPARSE_CHECK(cusparse().spmv_preprocess(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne,
                                                  matrix_.get(), x_.get(), &kZero, y_.get(),
                                                  Types::cusparse_compute_type, kAlgorithm, workspace_.data()));
    synchronize();
  }

  void run() override {
    GPB_CUSPARSE_CHECK(cusparse().spmv(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne, matrix_.get(),
                                       x_.get(), &kZero, y_.get(), Types::cusparse_compute_type, kAlgorithm,
                                       workspace_.data()));
  }
  std::string details() const override {
    return std::string("algorithm=CUSPARSE_SPMV_CSR_ALG1") + (kComputedWider<T> ? " compute=CUDA_R_32F" : "") +
           " workspace_bytes=" + std::to_string(workspace_.bytes());
  }

 private:
  static constexpr typename Types::Scalar kOne = 1;
  static constexpr typename Types::Scalar kZero = 0;
  CusparseHandle handle_;
  SparseMatrixDescriptor matrix_;
  InputVectorDescriptor x_;
  OutputVectorDescriptor y_;
  DeviceBuffer<unsigned char> workspace_;
};

class CusparseBackend final : public GpuBackend {
 public:
  using GpuBackend::GpuBackend;
  std::optional<std::string> library_load_error() const override { return cusparse_load_error(); }
  Support supports(Op op, DType) const override {
    if (op == Op::spmv) return {};
    return {false, "cusparse runs spmv only; use cuda, cub or cublas for " + to_string(op)};
  }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    if (problem.op != Op::spmv) throw std::invalid_argument("cusparse backend: unsupported op " + to_string(problem.op));
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<CusparseSpmvCase<decltype(tag)>>(problem, settings);
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_cusparse_backend(const GpuBackendEntry& entry) {
  return std::make_unique<CusparseBackend>(entry);
}

}  // namespace gpb::cuda
