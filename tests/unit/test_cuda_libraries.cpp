// cuBLAS and cuSPARSE loaded at run time (gpu_backend/cuda_libraries.hpp): every entry point
// the backends call resolves in the toolkit's libraries, the loaded libraries are the versions
// the headers were, and a missing library or entry point is an error that names it. None of
// this needs a GPU: the libraries load and answer version queries without a device.
#if GPUBENCH_HAVE_CUDA
#include <gtest/gtest.h>

#include <string>

#include "gpu_backend/cuda_libraries.hpp"

namespace gpb::cuda {
namespace {

TEST(CudaLibraries, EveryEntryPointResolves) {
  const auto cublas_error = cublas_load_error();
  ASSERT_FALSE(cublas_error.has_value()) << *cublas_error;
  const auto cusparse_error = cusparse_load_error();
  ASSERT_FALSE(cusparse_error.has_value()) << *cusparse_error;
  EXPECT_TRUE(cublas_loaded());
  EXPECT_TRUE(cusparse_loaded());
  const CublasApi& blas = cublas();
  for (const void* entry : {reinterpret_cast<const void*>(blas.create), reinterpret_cast<const void*>(blas.destroy),
                            reinterpret_cast<const void*>(blas.set_stream),
                            reinterpret_cast<const void*>(blas.set_workspace),
                            reinterpret_cast<const void*>(blas.set_math_mode),
                            reinterpret_cast<const void*>(blas.gemm_ex), reinterpret_cast<const void*>(blas.get_property),
                            reinterpret_cast<const void*>(blas.status_name),
                            reinterpret_cast<const void*>(blas.status_string)})
    EXPECT_NE(entry, nullptr);
  const CusparseApi& sparse = cusparse();
  for (const void* entry :
       {reinterpret_cast<const void*>(sparse.create), reinterpret_cast<const void*>(sparse.destroy),
        reinterpret_cast<const void*>(sparse.set_stream), reinterpret_cast<const void*>(sparse.create_const_csr),
        reinterpret_cast<const void*>(sparse.destroy_sparse_matrix),
        reinterpret_cast<const void*>(sparse.create_const_dense_vector),
        reinterpret_cast<const void*>(sparse.create_dense_vector),
        reinterpret_cast<const void*>(sparse.destroy_dense_vector),
        reinterpret_cast<const void*>(sparse.spmv_buffer_size), reinterpret_cast<const void*>(sparse.spmv_preprocess),
        reinterpret_cast<const void*>(sparse.spmv), reinterpret_cast<const void*>(sparse.get_property),
        reinterpret_cast<const void*>(sparse.error_name), reinterpret_cast<const void*>(sparse.error_string)})
    EXPECT_NE(entry, nullptr);
}

// The library loaded is the one the headers describe: its major and minor version, and the
// names of its statuses, are the headers'.
TEST(CudaLibraries, TheLoadedLibrariesAreTheHeadersVersions) {
  int major = -1, minor = -1;
  ASSERT_EQ(cublas().get_property(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublas().get_property(MINOR_VERSION, &minor), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  EXPECT_EQ(minor, CUBLAS_VER_MINOR);
  ASSERT_EQ(cusparse().get_property(MAJOR_VERSION, &major), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparse().get_property(MINOR_VERSION, &minor), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(major, CUSPARSE_VER_MAJOR);
  EXPECT_EQ(minor, CUSPARSE_VER_MINOR);
  EXPECT_STREQ(cublas().status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_STREQ(cusparse().error_name(CUSPARSE_STATUS_INVALID_VALUE), "CUSPARSE_STATUS_INVALID_VALUE");
  EXPECT_EQ(std::string(cublas_soname()), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
  EXPECT_EQ(std::string(cusparse_soname()), "libcusparse.so." + std::to_string(CUSPARSE_VER_MAJOR));
}

// The cuBLAS header maps cublasCreate to cublasCreate_v2: the loader looks up the exported name.
TEST(CudaLibraries, MissingLibrariesAndEntryPointsAreNamed) {
  EXPECT_FALSE(load_error(cublas_soname(), "", "cublasCreate_v2").has_value());
  const auto no_library = load_error("libgpubench_no_such_library.so.1", "/nonexistent", "cublasCreate_v2");
  ASSERT_TRUE(no_library.has_value());
  EXPECT_NE(no_library->find("cannot load libgpubench_no_such_library.so.1: "), std::string::npos) << *no_library;
  EXPECT_NE(no_library->find("/nonexistent/libgpubench_no_such_library.so.1"), std::string::npos) << *no_library;
  const auto no_entry = load_error(cublas_soname(), "", "cublasNoSuchEntryPoint");
  ASSERT_TRUE(no_entry.has_value());
  EXPECT_NE(no_entry->find(std::string(cublas_soname()) + " has no entry point cublasNoSuchEntryPoint"),
            std::string::npos)
      << *no_entry;
}

}  // namespace
}  // namespace gpb::cuda
#endif
