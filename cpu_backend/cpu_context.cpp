#include <cblas.h>

#include <Eigen/Core>
#include <string>

#include "context.hpp"

namespace gpb {

void append_cpu_context(Context& context) {
  context.libraries["eigen"] = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                               std::to_string(EIGEN_MINOR_VERSION);
  context.libraries["openblas"] = openblas_get_config();
}

}  // namespace gpb
