// The sum of split-k partials, the kernel after a GEMM kernel whose k was split.
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

}  // namespace gpb::kernels
