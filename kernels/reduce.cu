#include "kernels/reduce.cuh"

#include "kernels/block_reduce.cuh"
#include "kernels/launch_check.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

constexpr int kUnroll = kSumUnroll;

// Each thread accumulates its grid-stride share in one register per vector lane
// (independent chains: more adds in flight, shorter rounding chains), then the block
// reduces those; thread 0 writes the block's sum, and the last block sums the blocks'.
// One launch rather than a second pass: for small inputs the launch is most of the time.
// T is the stored type, Acc the type the sums are kept in.
template <class T, class Acc>
__global__ void sum_kernel(const T* __restrict__ in, std::int64_t n, Acc* __restrict__ block_sums,
                           unsigned* __restrict__ finished_blocks, Acc* __restrict__ out) {
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
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) out[0] = total;
    return;
  }
  // The fence makes this block's partial visible to every block before its ticket is.
  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = total;
    __threadfence();
    last_block = atomicAdd(finished_blocks, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  // Every other block's partial is written; read them from L2 (__ldcg: not a stale L1 line).
  Acc partial = 0;
  for (unsigned block = threadIdx.x; block < gridDim.x; block += blockDim.x) partial += __ldcg(block_sums + block);
  const Acc sum = block_sum(partial);
  if (threadIdx.x == 0) {
    out[0] = sum;
    *finished_blocks = 0;
  }
}

}  // namespace

template <class T>
void launch_sum(const T* in, std::int64_t n, Accumulate<T>* block_sums, unsigned* finished_blocks, Accumulate<T>* out,
                LaunchConfig grid, cudaStream_t stream) {
  sum_kernel<T, Accumulate<T>><<<grid.blocks, grid.threads, 0, stream>>>(in, n, block_sums, finished_blocks, out);
  GPB_CHECK_LAUNCH();
}

template <class T>
int sum_blocks_per_sm(unsigned threads) {
  int blocks = 0;
  GPB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sum_kernel<T, Accumulate<T>>,
                                                               static_cast<int>(threads), 0));
  return blocks;
}

template void launch_sum<float>(const float*, std::int64_t, float*, unsigned*, float*, LaunchConfig, cudaStream_t);
template void launch_sum<double>(const double*, std::int64_t, double*, unsigned*, double*, LaunchConfig, cudaStream_t);
template void launch_sum<__half>(const __half*, std::int64_t, float*, unsigned*, float*, LaunchConfig, cudaStream_t);
template void launch_sum<__nv_bfloat16>(const __nv_bfloat16*, std::int64_t, float*, unsigned*, float*, LaunchConfig,
                                        cudaStream_t);
template int sum_blocks_per_sm<float>(unsigned);
template int sum_blocks_per_sm<double>(unsigned);
template int sum_blocks_per_sm<__half>(unsigned);
template int sum_blocks_per_sm<__nv_bfloat16>(unsigned);

}  // namespace gpb::kernels
