#include "cpu_backend/threading.hpp"

#include <omp.h>

#include <Eigen/Core>
#include <string>

#include "base/system.hpp"
#include "model/types.hpp"

namespace gpb {

int resolve_thread_count(int requested) {
  if (requested < 0)
    throw UsageError("thread count must be 0 (all cores) or positive (got " + std::to_string(requested) + ")");
  return worker_threads(requested);
}

int apply_thread_count(int requested) {
  const int threads = resolve_thread_count(requested);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  return threads;
}

}  // namespace gpb
