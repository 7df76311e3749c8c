// The tiled GEMM kernels (kernels/gemm.cu, kernels/gemm_dmma.cu) take C's rows of tiles from
// grid y, which stops at 65535: a C of more rows of tiles (f32 8388737 x 40 x 40 on the
// 128 x 32 SIMT tile) is launched in slabs of rows, a launch each, each slab's A and C from
// its first row. The kernels themselves keep their 2-D numbering: numbering the tiles in x
// alone cost them registers (a division; ptxas then spilled 48 bytes in the f32 large tile).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpb::kernels {

inline constexpr int kMaxGridY = 65535;

// Calls launch(first_row, rows) for each slab of at most 65535 rows of tiles of tile_m rows:
// once where C is shorter. k split in parts writes partials slab by slab of the whole C (the
// kernels' z-th slab is m x n), so a split C past one slab is refused; the dispatch splits k
// only where the tiles are fewer than a wave, far below it.
template <class Launch>
void for_each_row_slab(int m, int tile_m, int parts, const char* kernel, Launch&& launch) {
  const int slab = kMaxGridY * tile_m;
  if (m > slab && parts > 1)
    throw std::invalid_argument(std::string(kernel) + " of " + std::to_string(m) + " rows in " +
                                std::to_string(parts) + " parts of k: more than " + std::to_string(slab) +
                                " rows split in parts is not supported");
  for (int first = 0; first < m; first += slab) launch(first, std::min(slab, m - first));
}

}  // namespace gpb::kernels
