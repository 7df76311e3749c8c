#include "kernels/elementwise.cuh"

#include "kernels/launch_check.cuh"
#include "kernels/numeric.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

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

}  // namespace

template <class T, class Fn>
void launch_elementwise(Fn fn, const T* in, T* out, std::int64_t n, LaunchConfig config, cudaStream_t stream) {
  elementwise_kernel<T, Fn><<<config.blocks, config.threads, 0, stream>>>(in, out, n, fn);
  GPB_CHECK_LAUNCH();
}

template void launch_elementwise<float, SinFn>(SinFn, const float*, float*, std::int64_t, LaunchConfig, cudaStream_t);
template void launch_elementwise<double, SinFn>(SinFn, const double*, double*, std::int64_t, LaunchConfig, cudaStream_t);
template void launch_elementwise<float, SqrtFn>(SqrtFn, const float*, float*, std::int64_t, LaunchConfig, cudaStream_t);
template void launch_elementwise<double, SqrtFn>(SqrtFn, const double*, double*, std::int64_t, LaunchConfig, cudaStream_t);
template void launch_elementwise<__half, SinFn>(SinFn, const __half*, __half*, std::int64_t, LaunchConfig, cudaStream_t);
template void launch_elementwise<__nv_bfloat16, SinFn>(SinFn, const __nv_bfloat16*, __nv_bfloat16*, std::int64_t, LaunchConfig,
                                                       cudaStream_t);
template void launch_elementwise<__half, SqrtFn>(SqrtFn, const __half*, __half*, std::int64_t, LaunchConfig, cudaStream_t);
template void launch_elementwise<__nv_bfloat16, SqrtFn>(SqrtFn, const __nv_bfloat16*, __nv_bfloat16*, std::int64_t,
                                                        LaunchConfig, cudaStream_t);

}  // namespace gpb::kernels
