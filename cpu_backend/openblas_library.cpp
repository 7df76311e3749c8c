#include "cpu_backend/openblas_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "base/input_file.hpp"
#include "base/system.hpp"

namespace gpb {
namespace {

// The library's soname, found when configuring (CMakeLists.txt).
constexpr const char* kLibrary = GPUBENCH_OPENBLAS_LIBRARY;

template <class Function>
Function symbol(void* handle, const char* name, bool required) {
  void* found = dlsym(handle, name);
  if (!found && required) throw std::runtime_error(std::string("OpenBLAS (") + kLibrary + ") has no " + name);
  return reinterpret_cast<Function>(found);
}

// dlopen with OPENBLAS_NUM_THREADS=1 (OpenBLAS reads it as it loads, before any call could
// set the count), then the variable as it was: gpubench sets the count itself before every
// openblas case, so the variable never chose anything.
void* load_with_one_thread() {
  const char* set = std::getenv("OPENBLAS_NUM_THREADS");
  const std::optional<std::string> before = set ? std::optional<std::string>(set) : std::nullopt;
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  const std::string error = handle ? "" : dlerror();
  if (before)
    setenv("OPENBLAS_NUM_THREADS", before->c_str(), 1);
  else
    unsetenv("OPENBLAS_NUM_THREADS");
  if (!handle) throw std::runtime_error("cannot load OpenBLAS: " + error);
  return handle;
}

OpenBlasLibrary load() {
  void* handle = load_with_one_thread();  // kept for the life of the process
  OpenBlasLibrary library;
  library.sgemm = symbol<decltype(library.sgemm)>(handle, "cblas_sgemm", true);
  library.dgemm = symbol<decltype(library.dgemm)>(handle, "cblas_dgemm", true);
  library.sbgemm = symbol<decltype(library.sbgemm)>(handle, "cblas_sbgemm", false);
  library.set_num_threads = symbol<decltype(library.set_num_threads)>(handle, "openblas_set_num_threads", true);
  library.get_num_threads = symbol<decltype(library.get_num_threads)>(handle, "openblas_get_num_threads", true);
  library.get_config = symbol<decltype(library.get_config)>(handle, "openblas_get_config", true);
  library.get_corename = symbol<decltype(library.get_corename)>(handle, "openblas_get_corename", true);
  library.dynamic_quit = symbol<decltype(library.dynamic_quit)>(handle, "gotoblas_dynamic_quit", false);
  library.dynamic_init = symbol<decltype(library.dynamic_init)>(handle, "gotoblas_dynamic_init", false);
  return library;
}

}  // namespace

const OpenBlasLibrary& openblas_library() {
  // Loaded once, or not at all: a failure is kept and said again by every later call.
  struct Loaded {
    OpenBlasLibrary library;
    std::string failure;
  };
  static const Loaded loaded = [] {
    Loaded result;
    try {
      result.library = load();
    } catch (const std::runtime_error& error) {
      result.failure = error.what();
    }
    return result;
  }();
  if (!loaded.failure.empty()) throw std::runtime_error(loaded.failure);
  return loaded.library;
}

void start_openblas_threads(int threads) {
  const OpenBlasLibrary& library = openblas_library();
  // Each thread that calls into OpenBLAS, the caller included, maps its buffer on its first
  // call: threads beyond those already running with theirs need room for them.
  static int provisioned = 0;
  if (threads > provisioned) {
    const auto starting = static_cast<std::uint64_t>(threads - provisioned);
    const std::uint64_t needed = starting * kOpenBlasThreadBytes;
    const std::uint64_t headroom = address_space_headroom_bytes();
    if (needed > headroom)
      throw std::runtime_error("openblas: " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") +
                               " need about " + describe_bytes(needed) +
                               " more address space (OpenBLAS maps a 128 MiB buffer for each as it starts), and this "
                               "process may map only " + describe_bytes(headroom) +
                               " more (ulimit -v): use fewer --threads or raise the limit");
    provisioned = threads;
  }
  library.set_num_threads(threads);
}

}  // namespace gpb
