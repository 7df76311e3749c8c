#include "cpu_backend/cpu_backends.hpp"

namespace gpb {

void append_cpu_backends(std::vector<std::unique_ptr<Backend>>& out) {
  out.push_back(make_eigen_backend());
  out.push_back(make_openblas_backend());
}

}  // namespace gpb
