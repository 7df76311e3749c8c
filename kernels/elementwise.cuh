// y = f(x) elementwise: one kernel template over the function and the dtype.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "kernels/launch_config.cuh"

namespace gpb::kernels {

// The functions themselves; the CUB backend applies these same functors, so both
// backends compute identical math and differ only in how they move the data.
struct SinFn {
  template <class T>
  __host__ __device__ T operator()(T value) const {
    if constexpr (std::is_same_v<T, float>)
      return sinf(value);
    else
      return sin(value);
  }
};

struct SqrtFn {
  template <class T>
  __host__ __device__ T operator()(T value) const {
    if constexpr (std::is_same_v<T, float>)
      return sqrtf(value);
    else
      return sqrt(value);
  }
};

// Grid-stride over 16-byte vectors (a scalar tail covers n not divisible by the vector
// width); `in` and `out` must be 16-byte aligned, as cudaMalloc'd buffers are.
template <class T, class Fn>
void launch_elementwise(Fn fn, const T* in, T* out, std::int64_t n, LaunchConfig config, cudaStream_t stream);

template <class T, class Fn>
int elementwise_blocks_per_sm(unsigned threads);

}  // namespace gpb::kernels
