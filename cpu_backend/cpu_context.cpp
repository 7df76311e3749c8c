#include <Eigen/Core>
#include <stdexcept>
#include <string>

#include "cpu_backend/cpu_backends.hpp"
#include "cpu_backend/openblas_library.hpp"
#include "cpu_backend/threading.hpp"
#include "measure/context.hpp"

namespace gpb {

void append_cpu_context(Context& context) {
  context.libraries["eigen"] = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                               std::to_string(EIGEN_MINOR_VERSION);
  try {
    openblas_core_choice();  // first, so that the config names the core the cases run
    context.libraries["openblas"] = openblas_library().get_config();
  } catch (const std::runtime_error& error) {
    context.libraries["openblas"] = error.what();
  }
  context.settings["omp_wait_policy"] = openmp_wait_policy();
}

}  // namespace gpb
