// The "cub" backend: CUB's device-wide primitives. Temp-storage sizes are queried and
// the storage allocated in prepare; run() only launches.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_transform.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_types.cuh"
#include "gpu_backend/elementwise_functions.cuh"
#include "gpu_backend/gpu_backends.cuh"
#include "gpu_backend/gpu_prepared.cuh"
#include "kernels/numeric.cuh"
#include "measure/one_time_costs.hpp"
#include "model/op_table.hpp"

namespace gpb::cuda {
namespace {

// CUB temp storage of `bytes` (at least one byte: a null pointer means "query" to CUB).
DeviceBuffer<unsigned char> cub_temp_storage(std::size_t bytes, const std::string& what) {
  return DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1), what + " temp storage");
}

// The functor runs in the element type's compute type (f32 for f16 and bf16), as the cuda
// backend's does.
template <class T, class Fn>
class CubTransformCase final : public GpuPrepared {
  using D = DeviceType<T>;

 public:
  CubTransformCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings), n_(static_cast<std::int64_t>(problem.x.size())) {}
  void run() override {
    GPB_CUDA_CHECK(cub::DeviceTransform::Transform(device_x<D>(), device_output<D>(), n_,
                                                   kernels::InComputeType<Fn>{Fn{}}, stream()));
  }
  std::string details() const override {
    return std::string("algorithm=cub::DeviceTransform::Transform") + (kComputedWider<T> ? " compute=f32" : "");
  }

 private:
  std::int64_t n_;
};

// cub::DeviceReduce::Sum adds in the output's value type: the accumulation type, f32 for
// f16 and bf16, in which the result is stored.
template <class T>
class CubSumCase final : public GpuPrepared {
  using D = DeviceType<T>;
  using Acc = kernels::Accumulate<D>;

 public:
  CubSumCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings), n_(static_cast<std::int64_t>(problem.x.size())) {
    temp_ = timed_first_use("cub", "DeviceReduce::Sum temporary storage (size query and allocation)", [&] {
      GPB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes_, inputs(), device_output<Acc>(), n_, stream()));
      return cub_temp_storage(temp_bytes_, "cub::DeviceReduce::Sum");
    });
  }
  void run() override {
    GPB_CUDA_CHECK(cub::DeviceReduce::Sum(temp_.data(), temp_bytes_, inputs(), device_output<Acc>(), n_, stream()));
  }
  std::string details() const override {
    return std::string("algorithm=cub::DeviceReduce::Sum") +
           (kComputedWider<T> ? " over the inputs widened to f32 (transform_iterator), accumulate=f32" : "") +
           " temp_storage_bytes=" + std::to_string(temp_bytes_);
  }

 private:
  // f32 and f64 as they are (CUB's vectorised loads); the 16-bit formats widened to f32 as
  // they are read, so that CUB's accumulator, which follows the input and output value
  // types, is f32 and no __half + float overload is left to choose.
  auto inputs() const {
    if constexpr (kComputedWider<T>)
      return thrust::make_transform_iterator(device_x<D>(), kernels::Widen<D>{});
    else
      return device_x<D>();
  }
  std::int64_t n_;
  std::size_t temp_bytes_ = 0;
  DeviceBuffer<unsigned char> temp_;
};

// The CSR products values[j] * x[col_idx[j]], computed on the fly as the segmented
// reduction reads entry j; nothing is materialised.
template <class T>
struct CsrProduct {
  const T* values;
  const std::int32_t* col_idx;
  const T* x;
  __host__ __device__ T operator()(std::int32_t j) const { return values[j] * x[col_idx[j]]; }
};

template <class T>
class CubSpmvCase final : public GpuPrepared {
 public:
  CubSpmvCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings), rows_(problem.csr->rows) {
    temp_ = timed_first_use("cub", "DeviceSegmentedReduce::Sum temporary storage (size query and allocation)", [&] {
      GPB_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes_, products(), device_output<T>(), rows_,
                                                     device_row_ptr(), device_row_ptr() + 1, stream()));
      return cub_temp_storage(temp_bytes_, "cub::DeviceSegmentedReduce::Sum");
    });
  }
  // Row r of y is the sum of the products in segment [row_ptr[r], row_ptr[r + 1]).
  void run() override {
    GPB_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(temp_.data(), temp_bytes_, products(), device_output<T>(), rows_,
                                                   device_row_ptr(), device_row_ptr() + 1, stream()));
  }
  std::string details() const override {
    return "algorithm=cub::DeviceSegmentedReduce::Sum over transform_iterator(values[j]*x[col[j]])";
  }

 private:
  auto products() const {
    return thrust::make_transform_iterator(thrust::counting_iterator<std::int32_t>(0),
                                           CsrProduct<T>{device_csr_values<T>(), device_col_idx(), device_x<T>()});
  }

  std::int64_t rows_;
  std::size_t temp_bytes_ = 0;
  DeviceBuffer<unsigned char> temp_;
};

class CubBackend final : public GpuBackend {
 public:
  using GpuBackend::GpuBackend;
  // Every elementwise op through DeviceTransform with its device function.
  Support supports(Op op, DType dtype) const override {
    if (op_def(op).elementwise || op == Op::sum) return {};
    if (op == Op::spmv) {
      if (dtype_info(dtype).accumulation != dtype)
        return {false, "cub's segmented-reduction SpMV sums in the element type, and a " + to_string(dtype) +
                           " sum needs f32 accumulation; use cusparse"};
      return {};
    }
    if (op == Op::matmul) return {false, "CUB has no dense matrix product; use cublas or cuda"};
    return no_kernel_for(name(), op);
  }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      using T = decltype(tag);
      if (op_def(problem.op).elementwise)
        return with_elementwise_function(problem.op, [&](auto function) -> std::unique_ptr<Prepared> {
          return std::make_unique<CubTransformCase<T, decltype(function)>>(problem, settings);
        });
      if (problem.op == Op::sum) return std::make_unique<CubSumCase<T>>(problem, settings);
      if constexpr (!kComputedWider<T>) {
        if (problem.op == Op::spmv) return std::make_unique<CubSpmvCase<T>>(problem, settings);
      }
      throw std::invalid_argument("cub backend: unsupported op " + to_string(problem.op));
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_cub_backend(const GpuBackendEntry& entry) {
  return std::make_unique<CubBackend>(entry);
}

}  // namespace gpb::cuda
