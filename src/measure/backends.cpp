#include "measure/backend.hpp"

#include <mutex>
#include <stdexcept>

#include "base/text.hpp"

namespace gpb {
namespace {

struct Registered {
  std::mutex mutex;
  std::vector<std::function<std::unique_ptr<Backend>()>> factories;
};

Registered& registered() {
  static Registered backends;
  return backends;
}

}  // namespace

Support no_kernel_for(const std::string& backend, Op op) {
  return {false, backend + " has no " + to_string(op) + " kernel"};
}

Support timing_support(const Backend& backend, TimingMode timing) {
  if (timing == TimingMode::graph && backend.kind() != DeviceKind::gpu)
    return {false, "--timing graph captures GPU launches in a CUDA graph; " + backend.name() +
                       " runs on the CPU, where kernel timing already has no launch to leave out"};
  return {};
}

Backend& find_backend(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name) {
  std::vector<std::string> known;
  for (auto& backend : backends) {
    if (backend->name() == name) return *backend;
    known.push_back(backend->name());
  }
  throw UsageError(unknown_word_message("backend", name, known));
}

std::vector<std::unique_ptr<Backend>> make_all_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  append_cpu_backends(backends);
  append_gpu_backends(backends);
  std::lock_guard<std::mutex> lock(registered().mutex);
  for (const auto& factory : registered().factories) backends.push_back(factory());
  return backends;
}

void register_backend(std::function<std::unique_ptr<Backend>()> factory) {
  const std::string name = factory()->name();
  for (const auto& backend : make_all_backends())
    if (backend->name() == name) throw std::invalid_argument("a backend named '" + name + "' exists already");
  std::lock_guard<std::mutex> lock(registered().mutex);
  registered().factories.push_back(std::move(factory));
}

}  // namespace gpb
