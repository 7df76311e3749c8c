// The arithmetic kernels do on each element type they take (float, double, __half,
// __nv_bfloat16; gpu_backend/cuda_types.cuh maps the host element types to these): in its
// compute type, which is the dtype table's accumulation type (f32 for the 16-bit formats).
// load widens a stored value, store rounds a computed one to nearest, ties to even.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpb::kernels {

// float and double compute in themselves.
template <class D>
struct Arithmetic {
  using Compute = D;
  __host__ __device__ static Compute load(D value) { return value; }
  __host__ __device__ static D store(Compute value) { return value; }
};
// The 16-bit types also convert neighbouring pairs at once (load2, store2): one packed
// conversion instruction per pair (F2FP) where two single ones would take the conversion
// unit, a quarter of the FMA pipe's rate on sm_90, twice. Same rounding either way.
template <>
struct Arithmetic<__half> {
  using Compute = float;
  using Pair = __half2;
  __device__ static float load(__half value) { return __half2float(value); }
  __device__ static __half store(float value) { return __float2half_rn(value); }
  __device__ static float2 load2(Pair value) { return __half22float2(value); }
  __device__ static Pair store2(float2 value) { return __float22half2_rn(value); }
};
template <>
struct Arithmetic<__nv_bfloat16> {
  using Compute = float;
  using Pair = __nv_bfloat162;
  __device__ static float load(__nv_bfloat16 value) { return __bfloat162float(value); }
  __device__ static __nv_bfloat16 store(float value) { return __float2bfloat16_rn(value); }
  __device__ static float2 load2(Pair value) { return __bfloat1622float2(value); }
  __device__ static Pair store2(float2 value) { return __float22bfloat162_rn(value); }
};

// Calls X(T) for each element type the kernels take (explicit instantiations).
#define GPB_FOR_EACH_ELEMENT_TYPE(X) X(float) X(double) X(__half) X(__nv_bfloat16)

// What sums of T are kept in.
template <class D>
using Accumulate = typename Arithmetic<D>::Compute;

// A stored value widened to its compute type, as a functor (for transform iterators).
template <class D>
struct Widen {
  __device__ Accumulate<D> operator()(D value) const { return Arithmetic<D>::load(value); }
};

// fn of a stored value, computed in its compute type and rounded once to the stored type:
// what the cuda and cub backends both apply elementwise.
template <class Fn>
struct InComputeType {
  Fn fn;
  template <class D>
  __device__ D operator()(D value) const {
    return Arithmetic<D>::store(fn(Arithmetic<D>::load(value)));
  }
  // The same for a pair of neighbouring 16-bit values.
  template <class Pair, class D = decltype(Pair::x)>
  __device__ Pair pair(Pair values) const {
    float2 wide = Arithmetic<D>::load2(values);
    wide.x = fn(wide.x);
    wide.y = fn(wide.y);
    return Arithmetic<D>::store2(wide);
  }
};

}  // namespace gpb::kernels
