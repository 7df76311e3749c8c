// OpenBLAS, loaded when first asked for rather than with the program. Its pthreads build
// starts a thread per core as it loads, and each thread allocates a 128 MiB buffer at once,
// in a loop that never ends when the allocation fails (under `ulimit -v`); exit() then waits
// for that thread, so every command, `gpubench --version` included, hung. Loaded here with
// OPENBLAS_NUM_THREADS=1 it starts no thread; the openblas backend grows the pool to the
// count it runs with (start_openblas_threads), after checking that the threads' buffers fit.
#pragma once

#include <cblas.h>

#include <string>

namespace gpb {

struct OpenBlasLibrary {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_sbgemm) sbgemm = nullptr;  // null where this OpenBLAS does not export it (built without BUILD_BFLOAT16)
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&openblas_get_num_threads) get_num_threads = nullptr;
  decltype(&openblas_get_config) get_config = nullptr;
  decltype(&openblas_get_corename) get_corename = nullptr;
  // Only DYNAMIC_ARCH builds have these: they rerun the library's choice of kernels.
  void (*dynamic_quit)() = nullptr;
  void (*dynamic_init)() = nullptr;
};

// The library, loaded on the first call (thread-safe); std::runtime_error saying why when it
// cannot be loaded (every later call says the same).
const OpenBlasLibrary& openblas_library();

// Address space one OpenBLAS thread takes when it starts: its 128 MiB buffer, its stack and
// a malloc arena.
inline constexpr unsigned long long kOpenBlasThreadBytes = 200ull << 20;

// Sets OpenBLAS's thread count. Each thread that runs OpenBLAS, the caller included, maps
// kOpenBlasThreadBytes when it starts or first calls in: std::runtime_error, before any
// starts, where the process's address-space limit (ulimit -v) cannot hold those not yet
// running. Called from prepare, never in a timed region; not thread-safe (one runner thread
// prepares CPU cases).
void start_openblas_threads(int threads);

}  // namespace gpb
