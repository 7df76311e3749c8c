#include "backend.hpp"

namespace gpb {

std::vector<std::unique_ptr<Backend>> make_all_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  append_cpu_backends(backends);
  append_gpu_backends(backends);
  return backends;
}

}  // namespace gpb
