#include "kernels/spmv_widened.cuh"

#include <stdexcept>
#include <string>

#include "kernels/block_reduce.cuh"
#include "kernels/launch_check.cuh"
#include "kernels/numeric.cuh"

namespace gpb::kernels {
namespace {

template <class T, int kThreadsPerRow>
__global__ void spmv_widened_kernel(CsrView matrix, const T* __restrict__ values, const T* __restrict__ x,
                                    T* __restrict__ y, std::int32_t long_row_limit) {
  using Acc = Accumulate<T>;
  constexpr int kRowsPerWarp = kWarpSize / kThreadsPerRow;
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const int lane_in_row = lane % kThreadsPerRow;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  // The loop bound depends only on the warp, so all 32 lanes reach the shuffles together.
  for (std::int64_t first = warp * kRowsPerWarp; first < matrix.rows; first += warps * kRowsPerWarp) {
    const std::int64_t row = first + lane / kThreadsPerRow;
    bool owned = row < matrix.rows;
    Acc sum = 0;
    if (owned) {
      const std::int32_t start = matrix.row_ptr[row];
      const std::int32_t end = matrix.row_ptr[row + 1];
      owned = end - start <= long_row_limit;
      if (owned)
        for (std::int32_t j = start + lane_in_row; j < end; j += kThreadsPerRow)
          sum += Arithmetic<T>::load(values[j]) * Arithmetic<T>::load(x[matrix.col_idx[j]]);
    }
#pragma unroll
    for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(kFullWarp, sum, offset, kThreadsPerRow);
    if (lane_in_row == 0 && owned) y[row] = Arithmetic<T>::store(sum);
  }
}

template <class T, int kThreadsPerRow>
void launch_with(CsrView matrix, const T* values, const T* x, T* y, std::int32_t long_row_limit, LaunchConfig config,
                 cudaStream_t stream) {
  spmv_widened_kernel<T, kThreadsPerRow><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y,
                                                                                        long_row_limit);
}

}  // namespace

template <class T>
void launch_spmv_widened(int threads_per_row, CsrView matrix, const T* values, const T* x, T* y,
                         std::int32_t long_row_limit, LaunchConfig config, cudaStream_t stream) {
  switch (threads_per_row) {
    case 1:
      launch_with<T, 1>(matrix, values, x, y, long_row_limit, config, stream);
      break;
    case 2:
      launch_with<T, 2>(matrix, values, x, y, long_row_limit, config, stream);
      break;
    case 4:
      launch_with<T, 4>(matrix, values, x, y, long_row_limit, config, stream);
      break;
    case 8:
      launch_with<T, 8>(matrix, values, x, y, long_row_limit, config, stream);
      break;
    case 16:
      launch_with<T, 16>(matrix, values, x, y, long_row_limit, config, stream);
      break;
    case 32:
      launch_with<T, 32>(matrix, values, x, y, long_row_limit, config, stream);
      break;
    default:
      throw std::invalid_argument("16-bit spmv kernel: unsupported threads per row " + std::to_string(threads_per_row));
  }
  GPB_CHECK_LAUNCH();
}

template void launch_spmv_widened<__half>(int, CsrView, const __half*, const __half*, __half*, std::int32_t,
                                          LaunchConfig, cudaStream_t);
template void launch_spmv_widened<__nv_bfloat16>(int, CsrView, const __nv_bfloat16*, const __nv_bfloat16*,
                                                 __nv_bfloat16*, std::int32_t, LaunchConfig, cudaStream_t);

}  // namespace gpb::kernels
