// cuBLAS and cuSPARSE, loaded at run time when a case first needs them (dlopen of the
// sonames of the toolkit gpubench was built with) rather than linked. Linked, their
// initialisers ran in every process: about 0.1-0.2 s and 250 MB of resident memory
// (libcublasLt alone 216 MB) in `gpubench --version`, `report`, `compare` and every test
// process, whether or not it touched a GPU. The entry points are typed from the libraries'
// own headers (decltype), so a call through them is checked as a direct call would be. A
// library that cannot be loaded makes its backend unavailable, with the loader's reason.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <optional>
#include <string>

namespace gpb::cuda {

// cublasGemmEx's 32-bit entry point, the one the library exports under that name (the header
// adds a C++ overload for 64-bit sizes, an inline wrapper of cublasGemmEx_64).
using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                        const void*, const void*, cudaDataType, int, const void*, cudaDataType, int,
                                        const void*, void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasApi {
  decltype(&cublasCreate) create;
  decltype(&cublasDestroy) destroy;
  decltype(&cublasSetStream) set_stream;
  decltype(&cublasSetWorkspace) set_workspace;
  decltype(&cublasSetMathMode) set_math_mode;
  CublasGemmEx gemm_ex;
  decltype(&cublasGetProperty) get_property;
  decltype(&cublasGetStatusName) status_name;
  decltype(&cublasGetStatusString) status_string;
};

struct CusparseApi {
  decltype(&cusparseCreate) create;
  decltype(&cusparseDestroy) destroy;
  decltype(&cusparseSetStream) set_stream;
  decltype(&cusparseCreateConstCsr) create_const_csr;
  decltype(&cusparseDestroySpMat) destroy_sparse_matrix;
  decltype(&cusparseCreateConstDnVec) create_const_dense_vector;
  decltype(&cusparseCreateDnVec) create_dense_vector;
  decltype(&cusparseDestroyDnVec) destroy_dense_vector;
  decltype(&cusparseSpMV_bufferSize) spmv_buffer_size;
  decltype(&cusparseSpMV_preprocess) spmv_preprocess;
  decltype(&cusparseSpMV) spmv;
  decltype(&cusparseGetProperty) get_property;
  decltype(&cusparseGetErrorName) error_name;
  decltype(&cusparseGetErrorString) error_string;
};

// The library's entry points, loaded on the first call (once a process, kept loaded for its
// life: a handle released during exit may still call into it); throws std::runtime_error
// naming the library and the loader's reason where it cannot be loaded or lacks an entry point.
const CublasApi& cublas();
const CusparseApi& cusparse();

// Why the library cannot be loaded, or nullopt where it can (loading it if not yet loaded).
std::optional<std::string> cublas_load_error();
std::optional<std::string> cusparse_load_error();

// Whether the library is loaded by now; loads nothing.
bool cublas_loaded();
bool cusparse_loaded();

// The sonames loaded ("libcublas.so.13"), from the toolkit gpubench was built with.
const char* cublas_soname();
const char* cusparse_soname();

// Loads `soname` (found as the dynamic loader finds it, else in `fallback_directory`) and looks
// up `symbol` in it: the loader's reason where either fails, else nullopt. What cublas() and
// cusparse() do for each entry point.
std::optional<std::string> load_error(const std::string& soname, const std::string& fallback_directory,
                                      const char* symbol);

}  // namespace gpb::cuda
