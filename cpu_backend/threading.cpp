#include "cpu_backend/threading.hpp"

#include <omp.h>
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "base/input_file.hpp"
#include "base/system.hpp"
#include "model/types.hpp"

namespace gpb {
namespace {

bool names_variable(const char* entry, const char* name) {
  const std::size_t length = std::strlen(name);
  return std::strncmp(entry, name, length) == 0 && entry[length] == '=';
}

// Why the program could not start with passive waiting (an errno), 0 when it did or the
// environment chose.
int passive_waiting_error = 0;

}  // namespace

// libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its constructor, before main. The
// executable's .preinit_array runs before every shared library's initialisers, but a setenv
// there is undone: libc's own initialiser then resets the environment to the one the kernel
// passed. So where neither variable is set, the program image is started again, at once,
// with OMP_WAIT_POLICY=passive added (nothing has run yet: no library is initialised, no
// file or thread is open). Only if that fails does it go on with the runtime's default; the
// context then says why.
void start_with_passive_waiting(int, char** argv, char** environment) {
  std::size_t count = 0;
  for (; environment[count] != nullptr; ++count)
    if (names_variable(environment[count], "OMP_WAIT_POLICY") || names_variable(environment[count], "GOMP_SPINCOUNT"))
      return;
  char** extended = static_cast<char**>(std::malloc((count + 2) * sizeof(char*)));
  if (extended == nullptr) {
    passive_waiting_error = ENOMEM;
    return;
  }
  std::memcpy(extended, environment, count * sizeof(char*));
  static char passive[] = "OMP_WAIT_POLICY=passive";
  extended[count] = passive;
  extended[count + 1] = nullptr;
  execve("/proc/self/exe", argv, extended);
  passive_waiting_error = errno;
  std::free(extended);
}

int resolve_thread_count(int requested) {
  if (requested < 0)
    throw UsageError("thread count must be 0 (all cores) or positive (got " + std::to_string(requested) + ")");
  return worker_threads(requested);
}

int apply_thread_count(int requested) {
  int threads = resolve_thread_count(requested);
  // Threads started once stay in OpenMP's pool; more need address space of their own, which
  // a `ulimit -v` may not leave (libgomp ends the process when it cannot start one). Every
  // core (the default) becomes the cores that fit; a count asked for fails the case instead.
  // The threads the program started with (cli/program: the cores that fit) are in the pool.
  static int provisioned = omp_get_max_threads();
  const int fit = threads_that_fit(threads, provisioned);
  if (fit < threads) {
    if (requested != 0)
      throw std::runtime_error(std::to_string(threads) + " threads need about " +
                               describe_bytes(static_cast<std::uint64_t>(threads - provisioned) * thread_address_space_bytes()) +
                               " more address space (a stack each), and threads may take only " +
                               describe_bytes(thread_share_of_headroom_bytes()) + ", half of what this process may still map " +
                               "(ulimit -v): use fewer --threads or raise the limit");
    threads = fit;
  }
  omp_set_num_threads(threads);
  if (threads > provisioned) start_openmp_threads(threads);
  provisioned = std::max(provisioned, threads);
  Eigen::setNbThreads(threads);
  return threads;
}

std::string openmp_wait_policy() {
  if (passive_waiting_error != 0)
    return std::string("unset (the runtime's spinning default: could not restart with OMP_WAIT_POLICY=passive: ") +
           std::strerror(passive_waiting_error) + ")";
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin_count = std::getenv("GOMP_SPINCOUNT");
  std::string text = policy ? policy : "unset";
  if (spin_count) text += std::string(", GOMP_SPINCOUNT=") + spin_count;
  return text;
}

}  // namespace gpb
