#include "measure/backend.hpp"

namespace gpb {

Support no_kernel_for(const std::string& backend, Op op) {
  return {false, backend + " has no " + to_string(op) + " kernel"};
}

Backend& find_backend(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name) {
  std::string known;
  for (auto& backend : backends) {
    if (backend->name() == name) return *backend;
    known += (known.empty() ? "" : ", ") + backend->name();
  }
  throw UsageError("unknown backend '" + name + "' (expected one of: " + known + ")");
}

std::vector<std::unique_ptr<Backend>> make_all_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  append_cpu_backends(backends);
  append_gpu_backends(backends);
  return backends;
}

}  // namespace gpb
