// A GPU matmul case measured for its energy, shared by the energy tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu_backend/nvml.hpp"
#include "measure/backend.hpp"
#include "measure/runner.hpp"
#include "model/problem.hpp"

namespace gpb {

// The backend of that name where it can run and its device has an energy counter; nullptr
// with the reason otherwise. The backends live for the process.
inline Backend* energy_test_backend(const std::string& name, std::string& why) {
  static const std::vector<std::unique_ptr<Backend>> backends = make_all_backends();
  for (const auto& backend : backends) {
    if (backend->name() != name) continue;
    const Availability availability = backend->availability();
    if (!availability.available) {
      why = name + " unavailable: " + availability.reason;
      return nullptr;
    }
    if (!nvml::Library::instance().available()) {
      why = "NVML unavailable: " + nvml::Library::instance().reason();
      return nullptr;
    }
    return backend.get();
  }
  why = "no backend " + name;
  return nullptr;
}

// matmul f32 n x n x n on `backend`, sampled for at least min_time_s.
inline ResultRecord run_energy_case(Backend& backend, std::int64_t n, double min_time_s, L2Mode l2 = L2Mode::warm) {
  const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(n, n, n), 7);
  CaseSpec spec;
  spec.op = Op::matmul;
  spec.backend = backend.name();
  spec.shape = problem.shape;
  spec.l2 = l2;
  RunnerOptions options;
  options.stopping.min_time_s = min_time_s;
  options.stopping.max_time_s = std::max(min_time_s, options.stopping.max_time_s);
  return run_case(spec, problem, backend, options);
}

}  // namespace gpb
