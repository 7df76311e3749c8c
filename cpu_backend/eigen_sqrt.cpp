// Eigen's fast math (on by default) computes sqrt as a reciprocal-sqrt estimate plus Newton
// steps, a few ulps off (float on SSE/AVX, float and double on AVX-512), which fails the
// correctly-rounded check every other backend meets. This file alone turns it off, so sqrt
// compiles to the IEEE sqrt instructions, while eigen_backend.cpp keeps fast math for
// Eigen's vectorised sin (without it float sin falls back to scalar std::sin, about 4x
// slower). Nothing else here may use Eigen: the setting must not differ for any code the
// two files share.
#define EIGEN_FAST_MATH 0

#include <Eigen/Core>

#include "cpu_backend/cpu_backends.hpp"
#include "cpu_backend/eigen_types.hpp"

namespace gpb {

// The 16-bit formats take the float sqrt (correctly rounded) and round its result to 16 bits.
template <class T>
void eigen_sqrt_block(const T* x, T* y, std::int64_t count) {
  using Scalar = EigenScalar<T>;
  using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
  const Eigen::Map<const Array> in(eigen_data(x), count);
  if constexpr (std::is_same_v<Scalar, T>)
    Eigen::Map<Array>(eigen_data(y), count) = in.sqrt();
  else
    Eigen::Map<Array>(eigen_data(y), count) = in.template cast<float>().sqrt().template cast<Scalar>();
}

// Eigen 3.4 offers exact sqrt packets on SSE and AVX but on AVX-512 only the fast-math
// approximation, so an AVX-512 build runs the exact sqrt one element at a time.
template <class T>
bool eigen_sqrt_is_vectorised() {
  using Computed = std::conditional_t<std::is_same_v<EigenScalar<T>, T>, T, float>;
  return Eigen::internal::packet_traits<Computed>::Vectorizable && Eigen::internal::packet_traits<Computed>::HasSqrt;
}

template void eigen_sqrt_block<float>(const float*, float*, std::int64_t);
template void eigen_sqrt_block<double>(const double*, double*, std::int64_t);
template bool eigen_sqrt_is_vectorised<float>();
template bool eigen_sqrt_is_vectorised<double>();
template void eigen_sqrt_block<Float16>(const Float16*, Float16*, std::int64_t);
template void eigen_sqrt_block<BFloat16>(const BFloat16*, BFloat16*, std::int64_t);
template bool eigen_sqrt_is_vectorised<Float16>();
template bool eigen_sqrt_is_vectorised<BFloat16>();

}  // namespace gpb
