#include "gpu_backend/cuda_libraries.hpp"

#include <dlfcn.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

// The macro's expansion as a string: cuBLAS's header names the _v2 entry points through
// macros (cublasCreate is cublasCreate_v2), which dlsym must be given.
#define GPB_EXPANDED_NAME_(name) #name
#define GPB_EXPANDED_NAME(name) GPB_EXPANDED_NAME_(name)

namespace gpb::cuda {
namespace {

struct LibraryCloser {
  void operator()(void* handle) const noexcept { dlclose(handle); }
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

std::string loader_error() {
  const char* error = dlerror();
  return error ? std::string(error) : std::string("no reason given");
}

// `soname` as the dynamic loader finds it (LD_LIBRARY_PATH, the program's run path, the
// system's directories), else in the toolkit's library directory; where neither loads, `why`
// says so with the loader's reasons.
LibraryHandle open_library(const std::string& soname, const std::string& fallback_directory, std::string& why) {
  if (void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return LibraryHandle(handle);
  why = "cannot load " + soname + ": " + loader_error();
  if (!fallback_directory.empty()) {
    const std::string path = fallback_directory + "/" + soname;
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return LibraryHandle(handle);
    why += "; " + loader_error();
  }
  return nullptr;
}

template <class Function>
Function lookup(void* library, const char* name, const std::string& soname) {
  dlerror();
  void* address = dlsym(library, name);
  if (address == nullptr) throw std::runtime_error(soname + " has no entry point " + name + ": " + loader_error());
  return reinterpret_cast<Function>(address);
}

#define GPB_LOOKUP(api, field, function, library, soname) \
  api.field = lookup<decltype(&function)>(library, GPB_EXPANDED_NAME(function), soname)

// A library loaded once a process, its entry points filled by `fill`, or the reason it could
// not be.
template <class Api>
struct Loaded {
  Api api{};
  std::string error;  // empty when loaded
};

template <class Api, class Fill>
Loaded<Api> load(const char* soname, Fill fill) {
  Loaded<Api> loaded;
  std::string why;
  LibraryHandle library = open_library(soname, GPUBENCH_CUDA_LIBRARY_DIR, why);
  if (!library) {
    loaded.error = why;
    return loaded;
  }
  try {
    fill(loaded.api, library.get(), std::string(soname));
  } catch (const std::exception& error) {
    loaded.error = error.what();
    return loaded;
  }
  // Kept loaded for the process's life (the handles it hands out may be released at exit).
  library.release();
  return loaded;
}

// The library loaded once a process (a static of each Api), `done` set where it loaded.
template <class Api, class Fill>
const Loaded<Api>& loaded_once(const char* soname, std::atomic<bool>& done, Fill fill) {
  static const Loaded<Api> loaded = [&] {
    Loaded<Api> result = load<Api>(soname, fill);
    done = result.error.empty();
    return result;
  }();
  return loaded;
}

void fill_cublas(CublasApi& api, void* library, const std::string& soname) {
  GPB_LOOKUP(api, create, cublasCreate, library, soname);
  GPB_LOOKUP(api, destroy, cublasDestroy, library, soname);
  GPB_LOOKUP(api, set_stream, cublasSetStream, library, soname);
  GPB_LOOKUP(api, set_workspace, cublasSetWorkspace, library, soname);
  GPB_LOOKUP(api, set_math_mode, cublasSetMathMode, library, soname);
  // The header's 32-bit overload has this type (no match, no compile).
  [[maybe_unused]] constexpr CublasGemmEx header_gemm_ex = &cublasGemmEx;
  api.gemm_ex = lookup<CublasGemmEx>(library, "cublasGemmEx", soname);
  GPB_LOOKUP(api, get_property, cublasGetProperty, library, soname);
  GPB_LOOKUP(api, status_name, cublasGetStatusName, library, soname);
  GPB_LOOKUP(api, status_string, cublasGetStatusString, library, soname);
}

void fill_cusparse(CusparseApi& api, void* library, const std::string& soname) {
  GPB_LOOKUP(api, create, cusparseCreate, library, soname);
  GPB_LOOKUP(api, destroy, cusparseDestroy, library, soname);
  GPB_LOOKUP(api, set_stream, cusparseSetStream, library, soname);
  GPB_LOOKUP(api, create_const_csr, cusparseCreateConstCsr, library, soname);
  GPB_LOOKUP(api, destroy_sparse_matrix, cusparseDestroySpMat, library, soname);
  GPB_LOOKUP(api, create_const_dense_vector, cusparseCreateConstDnVec, library, soname);
  GPB_LOOKUP(api, create_dense_vector, cusparseCreateDnVec, library, soname);
  GPB_LOOKUP(api, destroy_dense_vector, cusparseDestroyDnVec, library, soname);
  GPB_LOOKUP(api, spmv_buffer_size, cusparseSpMV_bufferSize, library, soname);
  GPB_LOOKUP(api, spmv_preprocess, cusparseSpMV_preprocess, library, soname);
  GPB_LOOKUP(api, spmv, cusparseSpMV, library, soname);
  GPB_LOOKUP(api, get_property, cusparseGetProperty, library, soname);
  GPB_LOOKUP(api, error_name, cusparseGetErrorName, library, soname);
  GPB_LOOKUP(api, error_string, cusparseGetErrorString, library, soname);
}

std::atomic<bool> cublas_done{false};
std::atomic<bool> cusparse_done{false};

const Loaded<CublasApi>& loaded_cublas() {
  return loaded_once<CublasApi>(GPUBENCH_CUBLAS_SONAME, cublas_done, fill_cublas);
}
const Loaded<CusparseApi>& loaded_cusparse() {
  return loaded_once<CusparseApi>(GPUBENCH_CUSPARSE_SONAME, cusparse_done, fill_cusparse);
}

template <class Api>
const Api& api_or_throw(const Loaded<Api>& loaded) {
  if (!loaded.error.empty()) throw std::runtime_error(loaded.error);
  return loaded.api;
}

template <class Api>
std::optional<std::string> error_of(const Loaded<Api>& loaded) {
  if (loaded.error.empty()) return std::nullopt;
  return loaded.error;
}

}  // namespace

const CublasApi& cublas() { return api_or_throw(loaded_cublas()); }
const CusparseApi& cusparse() { return api_or_throw(loaded_cusparse()); }
std::optional<std::string> cublas_load_error() { return error_of(loaded_cublas()); }
std::optional<std::string> cusparse_load_error() { return error_of(loaded_cusparse()); }
bool cublas_loaded() { return cublas_done; }
bool cusparse_loaded() { return cusparse_done; }
const char* cublas_soname() { return GPUBENCH_CUBLAS_SONAME; }
const char* cusparse_soname() { return GPUBENCH_CUSPARSE_SONAME; }

std::optional<std::string> load_error(const std::string& soname, const std::string& fallback_directory,
                                      const char* symbol) {
  std::string why;
  const LibraryHandle library = open_library(soname, fallback_directory, why);
  if (!library) return why;
  try {
    lookup<void (*)()>(library.get(), symbol, soname);
  } catch (const std::exception& error) {
    return std::string(error.what());
  }
  return std::nullopt;
}

}  // namespace gpb::cuda
