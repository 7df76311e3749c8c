// y = f(x) elementwise: one kernel template over the function and the dtype, defined here so
// that the backends instantiate it for the functions of the elementwise ops
// (gpu_backend/elementwise_functions.cuh) without a list of them in kernels/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_check.cuh"
#include "kernels/launch_config.cuh"
#include "kernels/numeric.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {

// 16-byte vectors each thread handles per grid-stride step, all loads issued before the
// first use so that several requests are in flight; a block's tile is threads times this.
inline constexpr int kElementwiseVectorsPerThread = 4;

// fn runs in T's compute type (numeric.cuh).
template <class T, class Fn>
__global__ void elementwise_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, Fn fn) {
  const InComputeType<Fn> computed{fn};
  using Vec = Vec16<T>;
  const std::int64_t vectors = n / Vec::kLanes;
  const Vec* in_vec = reinterpret_cast<const Vec*>(in);
  Vec* out_vec = reinterpret_cast<Vec*>(out);
  const std::int64_t tile = static_cast<std::int64_t>(blockDim.x) * kElementwiseVectorsPerThread;
  const std::int64_t stride = tile * gridDim.x;
  for (std::int64_t base = blockIdx.x * tile + threadIdx.x; base < vectors; base += stride) {
    Vec values[kElementwiseVectorsPerThread];
#pragma unroll
    for (int u = 0; u < kElementwiseVectorsPerThread; ++u) {
      const std::int64_t i = base + static_cast<std::int64_t>(u) * blockDim.x;
      if (i < vectors) values[u] = in_vec[i];
    }
#pragma unroll
    for (int u = 0; u < kElementwiseVectorsPerThread; ++u) {
      const std::int64_t i = base + static_cast<std::int64_t>(u) * blockDim.x;
      if (i < vectors) {
        if constexpr (sizeof(T) == 2) {
          using Pair = typename Arithmetic<T>::Pair;
          Pair* pairs = reinterpret_cast<Pair*>(values[u].lane);
#pragma unroll
          for (int l = 0; l < Vec::kLanes / 2; ++l) pairs[l] = computed.pair(pairs[l]);
        } else {
#pragma unroll
          for (int l = 0; l < Vec::kLanes; ++l) values[u].lane[l] = computed(values[u].lane[l]);
        }
        out_vec[i] = values[u];
      }
    }
  }
  const std::int64_t tail = vectors * Vec::kLanes + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tail < n) out[tail] = computed(in[tail]);
}

// Grid-stride over 16-byte vectors (a scalar tail covers n not divisible by the vector
// width); `in` and `out` must be 16-byte aligned, as cudaMalloc'd buffers are. Any grid
// is correct; one block per tile needs no second step. T is float, double, __half or
// __nv_bfloat16; the 16-bit types are computed in float (kernels/numeric.cuh).
template <class T, class Fn>
void launch_elementwise(Fn fn, const T* in, T* out, std::int64_t n, LaunchConfig config, cudaStream_t stream) {
  elementwise_kernel<T, Fn><<<config.blocks, config.threads, 0, stream>>>(in, out, n, fn);
  GPB_CHECK_LAUNCH();
}

}  // namespace gpb::kernels
