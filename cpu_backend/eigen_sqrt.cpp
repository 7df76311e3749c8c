// Eigen's fast math (on by default) computes sqrt as a reciprocal-sqrt estimate plus Newton
// steps, a few ulps off (float on SSE/AVX, float and double on AVX-512), which fails the
// correctly-rounded check every other backend meets. This file alone turns it off, so sqrt
// compiles to the IEEE sqrt instructions, while eigen_backend.cpp keeps fast math for
// Eigen's vectorised sin (without it float sin falls back to scalar std::sin, about 4x
// slower). Nothing else here may use Eigen: the setting must not differ for any code the
// two files share.
#define EIGEN_FAST_MATH 0

#include <Eigen/Core>

#include "cpu_backends.hpp"

namespace gpb {

template <class T>
void eigen_sqrt_block(const T* x, T* y, std::int64_t count) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<Array>(y, count) = Eigen::Map<const Array>(x, count).sqrt();
}

// Eigen 3.4 offers exact sqrt packets on SSE and AVX but on AVX-512 only the fast-math
// approximation, so an AVX-512 build runs the exact sqrt one element at a time.
template <class T>
bool eigen_sqrt_is_vectorised() {
  return Eigen::internal::packet_traits<T>::Vectorizable && Eigen::internal::packet_traits<T>::HasSqrt;
}

template void eigen_sqrt_block<float>(const float*, float*, std::int64_t);
template void eigen_sqrt_block<double>(const double*, double*, std::int64_t);
template bool eigen_sqrt_is_vectorised<float>();
template bool eigen_sqrt_is_vectorised<double>();

}  // namespace gpb
