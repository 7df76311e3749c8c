#include "kernels/reduce.cuh"

#include "kernels/launch_check.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

constexpr int kWarpSize = 32;
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr int kUnroll = 4;

template <class T>
__device__ T warp_sum(T value) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_down_sync(kFullWarp, value, offset);
  return value;
}

// Warp shuffles within each warp, then the first warp sums the per-warp results.
// The block's total is valid in thread 0.
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

// Each thread accumulates its grid-stride share in one register per vector lane
// (independent chains: more adds in flight, shorter rounding chains), then the block
// reduces those and thread 0 writes the block's sum.
// T is the stored type, Acc the type the sums are kept in.
template <class T, class Acc>
__global__ void sum_kernel(const T* __restrict__ in, std::int64_t n, Acc* __restrict__ block_sums) {
  using Vec = Vec16<T>;
  const std::int64_t vectors = n / Vec::kLanes;
  const Vec* in_vec = reinterpret_cast<const Vec*>(in);
  Acc lane_sums[Vec::kLanes] = {};
  const std::int64_t tile = static_cast<std::int64_t>(blockDim.x) * kUnroll;
  const std::int64_t stride = tile * gridDim.x;
  for (std::int64_t base = blockIdx.x * tile + threadIdx.x; base < vectors; base += stride) {
    Vec values[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t i = base + static_cast<std::int64_t>(u) * blockDim.x;
      values[u] = i < vectors ? in_vec[i] : Vec{};
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int l = 0; l < Vec::kLanes; ++l) lane_sums[l] += Arithmetic<T>::load(values[u].lane[l]);
  }
  Acc thread_sum = 0;
#pragma unroll
  for (int l = 0; l < Vec::kLanes; ++l) thread_sum += lane_sums[l];
  const std::int64_t tail = vectors * Vec::kLanes + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tail < n) thread_sum += Arithmetic<T>::load(in[tail]);

  const Acc total = block_sum(thread_sum);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

}  // namespace

template <class T>
void launch_sum(const T* in, std::int64_t n, Accumulate<T>* block_sums, Accumulate<T>* out, LaunchConfig partial_pass,
                cudaStream_t stream) {
  using Acc = Accumulate<T>;
  sum_kernel<T, Acc><<<partial_pass.blocks, partial_pass.threads, 0, stream>>>(in, n, block_sums);
  GPB_CHECK_LAUNCH();
  sum_kernel<Acc, Acc><<<1, partial_pass.threads, 0, stream>>>(block_sums, partial_pass.blocks, out);
  GPB_CHECK_LAUNCH();
}

template <class T>
int sum_blocks_per_sm(unsigned threads) {
  int blocks = 0;
  GPB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sum_kernel<T, Accumulate<T>>,
                                                               static_cast<int>(threads), 0));
  return blocks;
}

template void launch_sum<float>(const float*, std::int64_t, float*, float*, LaunchConfig, cudaStream_t);
template void launch_sum<double>(const double*, std::int64_t, double*, double*, LaunchConfig, cudaStream_t);
template void launch_sum<__half>(const __half*, std::int64_t, float*, float*, LaunchConfig, cudaStream_t);
template void launch_sum<__nv_bfloat16>(const __nv_bfloat16*, std::int64_t, float*, float*, LaunchConfig, cudaStream_t);
template int sum_blocks_per_sm<float>(unsigned);
template int sum_blocks_per_sm<double>(unsigned);
template int sum_blocks_per_sm<__half>(unsigned);
template int sum_blocks_per_sm<__nv_bfloat16>(unsigned);

}  // namespace gpb::kernels
