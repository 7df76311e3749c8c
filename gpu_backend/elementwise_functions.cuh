// The device function of each elementwise op (the op table's `elementwise` entries): the one
// place the GPU side names them. The cuda backend's kernel (kernels/elementwise.cuh) and
// CUB's DeviceTransform apply these same functors, in the element type's compute type
// (kernels/numeric.cuh), so both compute identical math and differ only in how they move the
// data. A new elementwise op is its functor and its case below.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "model/types.hpp"

namespace gpb::cuda {

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

// visit(function) with the op's device function; std::logic_error for an op without one.
template <class Visit>
auto with_elementwise_function(Op op, Visit&& visit) {
  switch (op) {
    case Op::sin:
      return visit(SinFn{});
    case Op::sqrt:
      return visit(SqrtFn{});
    default:
      break;
  }
  throw std::logic_error("no device function for the elementwise op " + to_string(op) +
                         " (gpu_backend/elementwise_functions.cuh)");
}

}  // namespace gpb::cuda
