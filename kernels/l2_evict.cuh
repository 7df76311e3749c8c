// Reads a buffer larger than L2 so that the next kernel finds none of its data cached.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_config.cuh"

namespace gpb::kernels {

// Reads `words` 16-byte words from `buffer` (grid-stride). Nothing is written unless the
// running XOR of everything read equals `impossible`, which keeps the loads alive
// without a store per thread; `sink` is a 16-byte word the caller owns.
void launch_l2_evict(const uint4* buffer, std::size_t words, uint4* sink, unsigned impossible, LaunchConfig config,
                     cudaStream_t stream);

}  // namespace gpb::kernels
