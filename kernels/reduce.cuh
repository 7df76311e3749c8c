// Sum of n elements: a deterministic two-pass reduction (no atomics).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_config.cuh"
#include "kernels/numeric.cuh"

namespace gpb::kernels {

// Pass 1 runs `partial_pass` (grid-stride, 16-byte loads) and leaves one partial sum per
// block in `block_sums` (partial_pass.blocks entries); pass 2 is one block of
// partial_pass.threads threads that sums those into out[0]. The block count fixes the
// summation order, so equal inputs and configs give bitwise equal results. Both passes add
// in T's accumulation type (float for __half and __nv_bfloat16), which the partials and the
// result are stored in. partial_pass.threads must be a multiple of 32, at most 1024.
template <class T>
void launch_sum(const T* in, std::int64_t n, Accumulate<T>* block_sums, Accumulate<T>* out, LaunchConfig partial_pass,
                cudaStream_t stream);

// Blocks of `threads` threads that one SM keeps resident (the occupancy calculator, from
// the kernel's registers and shared memory): pass 1's grid is sized with it.
template <class T>
int sum_blocks_per_sm(unsigned threads);

}  // namespace gpb::kernels
