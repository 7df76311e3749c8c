// The start of every gpubench executable: OpenMP's wait policy chosen before any library is
// initialised (threading.hpp). An executable's own .preinit_array, so it is linked into the
// programs and test executables (gpubench_program_start), never into the core library that
// the Python module, a shared object, is made of.
#include "cpu_backend/threading.hpp"

__attribute__((section(".preinit_array"), used)) static void (*const choose_openmp_wait_policy)(int, char**, char**) =
    gpb::start_with_passive_waiting;
