// Eigen's fast math (on by default) computes float sqrt as rsqrt plus one Newton step, up
// to ~3 ulps off, which fails the correctly-rounded check every other backend meets. This
// file alone turns it off, so sqrt compiles to the IEEE sqrt instructions, as fast for a
// memory-bound op, while eigen_backend.cpp keeps fast math for Eigen's vectorised sin
// (without it float sin falls back to scalar std::sin, about 4x slower). Nothing else here
// may use Eigen: the setting must not differ for any code the two files share.
#define EIGEN_FAST_MATH 0

#include <Eigen/Core>

#include "cpu_backends.hpp"

namespace gpb {

template <class T>
void eigen_sqrt_block(const T* x, T* y, std::int64_t count) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<Array>(y, count) = Eigen::Map<const Array>(x, count).sqrt();
}

template void eigen_sqrt_block<float>(const float*, float*, std::int64_t);
template void eigen_sqrt_block<double>(const double*, double*, std::int64_t);

}  // namespace gpb
