// The "cublas" backend: dense matmul through cublasGemmEx, with the element and compute types
// of the dtype (gpu_backend/cuda_types.cuh).
#include <cmath>
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

void destroy_cublas_handle(cublasHandle_t handle) noexcept { GPB_CUBLAS_CHECK_NOTHROW(cublas().destroy(handle)); }
using CublasHandle = UniqueHandle<cublasHandle_t, destroy_cublas_handle>;

CublasHandle create_cublas_handle() {
  cublasHandle_t handle = nullptr;
  GPB_CUBLAS_CHECK(cublas().create(&handle));
  return CublasHandle(handle);
}

template <class T>
class CublasGemmCase final : public GpuPrepared {
 public:
  CublasGemmCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        dims_(matmul_dimensions(problem.shape)),
        tf32_(dtype_info(problem.dtype).tf32_eligible && settings.tf32),
        tf32_ignored_(!dtype_info(problem.dtype).tf32_eligible && settings.tf32),
        handle_(timed_first_use("cublas", "handle creation (cublasCreate)", create_cublas_handle)),
        workspace_(kWorkspaceBytes, "cuBLAS workspace") {
    GPB_CUBLAS_CHECK(cublas().set_stream(handle_.get(), stream()));
    // A workspace of the case's own, set after the stream (cublasSetStream resets it to the
    // library's pool): cuBLAS then allocates nothing inside run(), which is what capturing a
    // GEMM into a CUDA graph needs.
    GPB_CUBLAS_CHECK(cublas().set_workspace(handle_.get(), workspace_.data(), workspace_.bytes()));
    GPB_CUBLAS_CHECK(cublas().set_math_mode(handle_.get(), math_mode()));
  }

  // Row-major C = A B is, read as column-major, C^T = B^T A^T: pass B first and swap
  // m and n; no transposes and no copies. --tf32 asks for TF32 tensor cores through the
  // compute type (CUBLAS_COMPUTE_32F_FAST_TF32), and the math mode set above matches it.
  void run() override {
    using Types = CudaTypes<T>;
    const typename Types::Scalar alpha = 1;
    const typename Types::Scalar beta = 0;
    const cublasComputeType_t compute = tf32_ ? CUBLAS_COMPUTE_32F_FAST_TF32 : Types::cublas_compute_type;
    GPB_CUBLAS_CHECK(cublas().gemm_ex(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, dims_.n, dims_.m, dims_.k, &alpha,
                                      device_b<T>(), Types::data_type, dims_.n, device_a<T>(), Types::data_type,
                                      dims_.k, &beta, device_output<T>(), Types::data_type, dims_.n, compute,
                                      CUBLAS_GEMM_DEFAULT));
  }

  // TF32 keeps 10 explicit mantissa bits: unit roundoff 2^-11.
  double unit_roundoff_override() const override { return tf32_ ? std::ldexp(1.0, -11) : 0.0; }

  std::string details() const override {
    std::string text = tf32_ ? "math=CUBLAS_TF32_TENSOR_OP_MATH" : "math=CUBLAS_DEFAULT_MATH";
    // 16-bit A, B and C with CUBLAS_COMPUTE_32F: tensor cores, f32 accumulation, split-k
    // partials included.
    if (kComputedWider<T>)
      text += "|CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION compute=CUBLAS_COMPUTE_32F (tensor cores, f32 "
              "accumulation)";
    if (tf32_ignored_) text += " (tf32 applies to f32 only)";
    return text;
  }

 private:
  // For 16-bit dtypes cuBLAS may by default reduce split-k partials in the output type
  // (2^-8 per reduction step for bf16), which breaks the f32-accumulation bound the
  // result is verified at (seen at bf16 9x72x14) and compares the custom kernels, whose
  // partials stay f32, with a less accurate product. Disallowing it holds both to one
  // accuracy.
  cublasMath_t math_mode() const {
    if (tf32_) return CUBLAS_TF32_TENSOR_OP_MATH;
    if (kComputedWider<T>)
      return static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    return CUBLAS_DEFAULT_MATH;
  }

  // The size cuBLAS's documentation recommends for Hopper (32 MiB; 4 MiB for earlier
  // architectures), the largest it names.
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

  MatmulDimensions dims_;
  bool tf32_;
  bool tf32_ignored_;
  CublasHandle handle_;
  DeviceBuffer<unsigned char> workspace_;
};

class CublasBackend final : public GpuBackend {
 public:
  using GpuBackend::GpuBackend;
  std::optional<std::string> library_load_error() const override { return cublas_load_error(); }
  Support supports(Op op, DType) const override {
    if (op == Op::matmul) return {};
    return {false, "cublas runs matmul only; use cuda or cub for " + to_string(op)};
  }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    if (problem.op != Op::matmul) throw std::invalid_argument("cublas backend: unsupported op " + to_string(problem.op));
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<CublasGemmCase<decltype(tag)>>(problem, settings);
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_cublas_backend(const GpuBackendEntry& entry) {
  return std::make_unique<CublasBackend>(entry);
}

}  // namespace gpb::cuda
