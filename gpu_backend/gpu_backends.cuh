// Factories of the GPU backends; gpu_backends.cu registers them.
#pragma once

#include <memory>

#include "backend.hpp"

namespace gpb::cuda {

std::unique_ptr<Backend> make_cuda_kernels_backend();
std::unique_ptr<Backend> make_cublas_backend();
std::unique_ptr<Backend> make_cub_backend();
std::unique_ptr<Backend> make_cusparse_backend();

}  // namespace gpb::cuda
