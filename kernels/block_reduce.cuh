// Sums across a warp and across a block, in a fixed order (warp shuffles, then the first
// warp over the warps' sums): the same bits for the same inputs on every run.
#pragma once

namespace gpb::kernels {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned kFullWarp = 0xffffffffu;

// The warp's total, valid in lane 0.
template <class T>
__device__ T warp_sum(T value) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_down_sync(kFullWarp, value, offset);
  return value;
}

// The block's total, valid in thread 0. Every thread of the block must call it; a second
// call in the same kernel must come after a __syncthreads() that follows the first (the
// warps' sums share one shared-memory array). blockDim.x: a multiple of 32, at most 1024.
template <class T>
__device__ T block_sum(T value) {
  __shared__ T warp_sums[1024 / kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  value = warp_sum(value);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < blockDim.x / kWarpSize ? warp_sums[lane] : T(0);
    value = warp_sum(value);
  }
  return value;
}

}  // namespace gpb::kernels
