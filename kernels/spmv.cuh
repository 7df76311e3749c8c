// y = A x for a CSR matrix with 32-bit indices.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_config.cuh"

namespace gpb::kernels {

struct CsrView {
  std::int64_t rows = 0;
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
};

// "Vector" CSR kernel: a group of threads_per_row lanes (2, 4, 8, 16 or 32) of one warp
// shares each row, strides over its entries (coalesced reads of values and indices) and
// combines its partial sums with shuffles. config.threads must be a multiple of 32.
template <class T>
void launch_spmv_vector(int threads_per_row, CsrView matrix, const T* values, const T* x, T* y, LaunchConfig config,
                        cudaStream_t stream);

// "Scalar" CSR kernel: one thread per row; for matrices whose rows are mostly empty or
// single entries, where a shared row would leave most lanes idle.
template <class T>
void launch_spmv_scalar(CsrView matrix, const T* values, const T* x, T* y, LaunchConfig config, cudaStream_t stream);

}  // namespace gpb::kernels
