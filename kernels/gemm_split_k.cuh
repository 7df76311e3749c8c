// The two small kernels around the GEMM kernels: the sum of split-k partials, and the
// padded copy that gives the 16-bit tensor-core kernels rows of whole 16-byte chunks.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/numeric.cuh"

namespace gpb::kernels {

// c (m x n, leading dimension ldc) = the sum of `parts` partial products, part p being the
// m x n matrix at partials + p * m * ldp (leading dimension ldp), added in part order in the
// accumulation type and rounded once to T: the same bits on every run.
template <class T>
void launch_add_partials(const Accumulate<T>* partials, int parts, int m, int n, std::int64_t ldp, T* c,
                         std::int64_t ldc, cudaStream_t stream);

// dst (dst_rows x dst_cols, leading dimension ld_dst) = the top-left src_rows x src_cols of
// src (leading dimension ld_src), zeros outside it. Bits are copied as they are.
template <class T>
void launch_copy_matrix(const T* src, int src_rows, int src_cols, std::int64_t ld_src, T* dst, int dst_rows,
                        int dst_cols, std::int64_t ld_dst, cudaStream_t stream);

}  // namespace gpb::kernels
