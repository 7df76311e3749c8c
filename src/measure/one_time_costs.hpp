// One-time costs of a process: what each backend's first use cost (library handles,
// temporary storage), recorded where it happens and read once into the run's context, and
// the CUDA context's creation, timed before anything else creates it.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// Keeps the first duration recorded for each (backend, what) in this process; later ones of
// the same pair are no first use and are dropped. Thread-safe (device workers prepare at once).
void record_first_use(const std::string& backend, const std::string& what, double seconds);

// The first uses recorded so far, in the order they happened.
std::vector<FirstUse> recorded_first_uses();

// Runs `body` and records its duration on the steady clock as a first use of `backend`
// (only the first of the process is kept); returns what body returns. A body that throws
// records nothing.
template <class Body>
auto timed_first_use(const std::string& backend, const std::string& what, Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  auto result = std::forward<Body>(body)();
  record_first_use(backend, what, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return result;
}

// Times the creation of the CUDA primary context on `device`, the module loading mode and
// CUDA_MODULE_LOADING, as the process's first calls that create a context: call it before
// anything else uses the device. Where the context already existed, or there is no device,
// context_creation_s stays empty and context_note says why. Provided by gpu_backend/ (or
// its stand-in, which says the build has no CUDA).
OneTimeCosts measure_context_creation(int device);

}  // namespace gpb
