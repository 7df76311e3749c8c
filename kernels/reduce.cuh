// Sum of n elements: a deterministic reduction in one launch (no atomic adds of values).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_config.cuh"
#include "kernels/numeric.cuh"

namespace gpb::kernels {

// One launch of `grid` (grid-stride, 16-byte loads): each block leaves its partial sum in
// `block_sums` (grid.blocks entries), and the last block to finish -- the one that takes
// the last ticket of `finished_blocks` with an atomic increment -- sums the partials in
// block order into out[0] and sets the counter back to 0 for the next launch. A grid of one
// block writes out[0] directly. The block count fixes the summation order, so equal inputs
// and configs give bitwise equal results. Every add is in T's accumulation type (float for
// __half and __nv_bfloat16), which the partials and the result are stored in.
// `finished_blocks` must be 0 before the first launch; launches that share it must not
// overlap (one stream). grid.threads must be a multiple of 32, at most 1024.
// Vectors each thread loads per grid-stride step: a block covers kSumUnroll * threads
// vectors in one pass, which is how the grid is sized (an input of up to 4096 f32 is one
// block, with no partials and no ticket: the one launch of a small sum is all it costs).
inline constexpr int kSumUnroll = 4;

template <class T>
void launch_sum(const T* in, std::int64_t n, Accumulate<T>* block_sums, unsigned* finished_blocks, Accumulate<T>* out,
                LaunchConfig grid, cudaStream_t stream);

// Blocks of `threads` threads that one SM keeps resident (the occupancy calculator, from
// the kernel's registers and shared memory): the grid is sized with it.
template <class T>
int sum_blocks_per_sm(unsigned threads);

}  // namespace gpb::kernels
