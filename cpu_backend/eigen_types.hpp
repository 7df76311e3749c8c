// Eigen's types for the host element types: float and double are themselves; the 16-bit
// formats' bits (src/base/half_float.hpp) are read as Eigen::half and Eigen::bfloat16, which hold
// the same 16 bits in the same layout.
#pragma once

#include <Eigen/Core>
#include <type_traits>

#include "base/half_float.hpp"

namespace gpb {

template <class T>
struct EigenScalarOf {
  using type = T;
};
template <>
struct EigenScalarOf<Float16> {
  using type = Eigen::half;
};
template <>
struct EigenScalarOf<BFloat16> {
  using type = Eigen::bfloat16;
};
template <class T>
using EigenScalar = typename EigenScalarOf<T>::type;

static_assert(sizeof(Eigen::half) == sizeof(Float16) && std::is_standard_layout_v<Eigen::half>);
static_assert(sizeof(Eigen::bfloat16) == sizeof(BFloat16) && std::is_standard_layout_v<Eigen::bfloat16>);

template <class T>
EigenScalar<T>* eigen_data(T* data) {
  return reinterpret_cast<EigenScalar<T>*>(data);
}
template <class T>
const EigenScalar<T>* eigen_data(const T* data) {
  return reinterpret_cast<const EigenScalar<T>*>(data);
}

}  // namespace gpb
