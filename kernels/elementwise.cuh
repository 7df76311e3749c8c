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

// 16-byte vectors each thread handles per grid-stride step, all loads issued before the
// first use so that several requests are in flight; a block's tile is threads times this.
inline constexpr int kElementwiseVectorsPerThread = 4;

// Grid-stride over 16-byte vectors (a scalar tail covers n not divisible by the vector
// width); `in` and `out` must be 16-byte aligned, as cudaMalloc'd buffers are. Any grid
// is correct; one block per tile needs no second step. T is float, double, __half or
// __nv_bfloat16; the 16-bit types are computed in float (kernels/numeric.cuh).
template <class T, class Fn>
void launch_elementwise(Fn fn, const T* in, T* out, std::int64_t n, LaunchConfig config, cudaStream_t stream);

}  // namespace gpb::kernels
