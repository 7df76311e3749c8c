#include "kernels/spmv.cuh"

#include <stdexcept>
#include <string>

#include "gpu_backend/cuda_check.cuh"

namespace gpb::kernels {
namespace {

constexpr int kWarpSize = 32;
constexpr unsigned kFullWarp = 0xffffffffu;

template <class T, int kThreadsPerRow>
__global__ void spmv_vector_kernel(CsrView matrix, const T* __restrict__ values, const T* __restrict__ x,
                                   T* __restrict__ y) {
  constexpr int kRowsPerWarp = kWarpSize / kThreadsPerRow;
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const int lane_in_row = lane % kThreadsPerRow;
  const int row_in_warp = lane / kThreadsPerRow;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  // The loop bound depends only on the warp, so all 32 lanes reach the shuffles together.
  for (std::int64_t first = warp * kRowsPerWarp; first < matrix.rows; first += warps * kRowsPerWarp) {
    const std::int64_t row = first + row_in_warp;
    T sum = 0;
    if (row < matrix.rows) {
      const std::int32_t end = matrix.row_ptr[row + 1];
      for (std::int32_t j = matrix.row_ptr[row] + lane_in_row; j < end; j += kThreadsPerRow)
        sum += values[j] * x[matrix.col_idx[j]];
    }
#pragma unroll
    for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(kFullWarp, sum, offset, kThreadsPerRow);
    if (lane_in_row == 0 && row < matrix.rows) y[row] = sum;
  }
}

template <class T>
__global__ void spmv_scalar_kernel(CsrView matrix, const T* __restrict__ values, const T* __restrict__ x,
                                   T* __restrict__ y) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < matrix.rows;
       row += stride) {
    T sum = 0;
    const std::int32_t end = matrix.row_ptr[row + 1];
    for (std::int32_t j = matrix.row_ptr[row]; j < end; ++j) sum += values[j] * x[matrix.col_idx[j]];
    y[row] = sum;
  }
}

}  // namespace

template <class T>
void launch_spmv_vector(int threads_per_row, CsrView matrix, const T* values, const T* x, T* y, LaunchConfig config,
                        cudaStream_t stream) {
  switch (threads_per_row) {
    case 2:
      spmv_vector_kernel<T, 2><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y);
      break;
    case 4:
      spmv_vector_kernel<T, 4><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y);
      break;
    case 8:
      spmv_vector_kernel<T, 8><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y);
      break;
    case 16:
      spmv_vector_kernel<T, 16><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y);
      break;
    case 32:
      spmv_vector_kernel<T, 32><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y);
      break;
    default:
      throw std::invalid_argument("spmv vector kernel: unsupported threads per row " + std::to_string(threads_per_row));
  }
  GPB_CHECK_LAUNCH();
}

template <class T>
void launch_spmv_scalar(CsrView matrix, const T* values, const T* x, T* y, LaunchConfig config, cudaStream_t stream) {
  spmv_scalar_kernel<T><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y);
  GPB_CHECK_LAUNCH();
}

template void launch_spmv_vector<float>(int, CsrView, const float*, const float*, float*, LaunchConfig, cudaStream_t);
template void launch_spmv_vector<double>(int, CsrView, const double*, const double*, double*, LaunchConfig,
                                         cudaStream_t);
template void launch_spmv_scalar<float>(CsrView, const float*, const float*, float*, LaunchConfig, cudaStream_t);
template void launch_spmv_scalar<double>(CsrView, const double*, const double*, double*, LaunchConfig, cudaStream_t);

}  // namespace gpb::kernels
