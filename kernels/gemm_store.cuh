// How the 16-bit tensor-core GEMMs store C from a tile held in shared memory, where C's rows
// are not whole 16-byte chunks (its width or leading dimension not a multiple of 8).
#pragma once

#include <cstdint>

namespace gpb::kernels {

// Stores the kRows x kColumns tile whose element (row, column) `element` reads (16 bits) into
// C at (row0 + row, column0 + column), element by element, leaving out those past m rows or
// c_columns columns. kThreads threads share it, thread `thread` of them: warp w takes the
// batches of kBatch neighbouring rows that start at rows kBatch * w, kBatch * (w + kThreads /
// 32), .., and its lanes neighbouring columns, so a warp's store is 64 contiguous bytes of C;
// only the batches that start inside C are visited (a tile mostly past C, as at 15 x 74 on a
// 128 x 256 tile, costs a few iterations). A batch reads all its elements (16 a lane; every
// read stays inside the tile) before it stores any. (One element at a time, each store waiting
// on its read from shared memory, the 64 to 128 reads a lane made the epilogue latency-bound at
// 4 warps an SM partition: 555 x 777 x 104 took 8.6 us against 6.5 batched, on an H100. Each
// lane storing its own 16-byte chunk element by element put a warp's 32 stores 16 bytes apart,
// a sector each: on an H200 that made the stores of C take 3-6 times the GEMM, 1000 x 333 x 80
// in 17.9 us against 5.6 us at n = 336.)
template <int kRows, int kColumns, int kThreads, class Element>
__device__ __forceinline__ void store_tile_elements(void* c, int ldc, int row0, int column0, int m, int c_columns,
                                                    int thread, const Element& element) {
  static_assert(kThreads % 32 == 0 && kColumns % 32 == 0, "whole warps, whole warp-wide runs of columns");
  constexpr int kWarps = kThreads / 32, kColumnSteps = kColumns / 32;
  constexpr int kBatch = kColumnSteps >= 16 ? 1 : 16 / kColumnSteps;  // rows a batch: 16 reads a lane
  static_assert(kRows % (kWarps * kBatch) == 0, "the batches tile the rows, so no read leaves the tile");
  auto* out = static_cast<unsigned short*>(c);
  const int rows = min(kRows, m - row0), columns = min(kColumns, c_columns - column0);
  const int warp = thread / 32, lane = thread % 32;
  for (int first = warp * kBatch; first < rows; first += kWarps * kBatch) {
    unsigned short value[kBatch][kColumnSteps];
#pragma unroll
    for (int r = 0; r < kBatch; ++r)
#pragma unroll
      for (int s = 0; s < kColumnSteps; ++s) value[r][s] = element(first + r, lane + 32 * s);
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      if (first + r >= rows) break;
      unsigned short* out_row = out + static_cast<std::int64_t>(row0 + first + r) * ldc + column0;
#pragma unroll
      for (int s = 0; s < kColumnSteps; ++s)
        if (lane + 32 * s < columns) out_row[lane + 32 * s] = value[r][s];
    }
  }
}

}  // namespace gpb::kernels
