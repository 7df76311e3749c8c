// The tiled GEMM kernels (kernels/gemm.cu, kernels/gemm_dmma.cu) take C's rows of tiles from
// grid y, which stops at 65535: a C of more rows of tiles (f32 8388737 x 40 x 40 on the
// 128 x 32 SIMT tile) is launched in slabs of rows, a launch each, each slab's A and C from
// its first row. The kernels themselves keep their 2-D numbering: numbering the tiles in x
// alone cost them registers (a division; ptxas then spilled 48 bytes in the f32 large tile).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpb::kernels {

inline constexpr int kMaxGridY = 65535;

// Calls launch(first_row, rows, grid) for each slab of at most 65535 rows of tiles of
// tile_m x tile_n (once where C is shorter), grid being the slab's: its tiles in x and y, k's
// parts in z. A split k is refused past one slab: the kernels put part z's partials at z times
// their m x n, which a slab's m would get wrong; the dispatch splits k only where the tiles are
// fewer than a wave, far below a slab.
template <class Launch>
void for_each_row_slab(int m, int n, int tile_m, int tile_n, int parts, const char* kernel, Launch&& launch) {
  const int slab = kMaxGridY * tile_m;
  if (m > slab && parts > 1)
    throw std::invalid_argument(std::string(kernel) + " of " + std::to_string(m) + " rows in " +
                                std::to_string(parts) + " parts of k: more than " + std::to_string(slab) +
                                " rows split in parts is not supported");
  for (std::int64_t first = 0; first < m; first += slab) {  // 64-bit: m + slab may pass INT_MAX
    const int rows = static_cast<int>(std::min<std::int64_t>(slab, m - first));
    launch(static_cast<int>(first), rows,
           dim3((n + tile_n - 1) / tile_n, (rows + tile_m - 1) / tile_m, static_cast<unsigned>(parts)));
  }
}

}  // namespace gpb::kernels
