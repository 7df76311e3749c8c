#include <cblas.h>

#include <Eigen/Core>
#include <string>

#include "cpu_backend/cpu_backends.hpp"
#include "measure/context.hpp"

namespace gpb {

void append_cpu_context(Context& context) {
  context.libraries["eigen"] = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                               std::to_string(EIGEN_MINOR_VERSION);
  openblas_core_choice();  // first, so that the config names the core the cases run
  context.libraries["openblas"] = openblas_get_config();
}

}  // namespace gpb
