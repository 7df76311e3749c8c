// y = A x for a CSR matrix of 16-bit values (__half, __nv_bfloat16) with f32 accumulation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_config.cuh"
#include "kernels/spmv.cuh"

namespace gpb::kernels {

// Row split: a group of threads_per_row lanes (1, 2, 4, 8, 16 or 32) of one warp shares each
// row, strides over its entries, multiplies and adds in f32 and combines its partial sums with
// shuffles; the row's sum is rounded once to T. Rows longer than long_row_limit entries are
// skipped, y left unwritten there for launch_spmv_row_segments (spmv_segments.cuh), as in
// the f32/f64 vector kernel. Skewed rows take the merge path (spmv.cuh), which takes
// 16-bit values too.
// config.threads must be a multiple of 32.
template <class T>
void launch_spmv_widened(int threads_per_row, CsrView matrix, const T* values, const T* x, T* y,
                         std::int32_t long_row_limit, LaunchConfig config, cudaStream_t stream);

}  // namespace gpb::kernels
