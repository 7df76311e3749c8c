// How the 16-bit tensor-core GEMMs store C from a tile held in shared memory, where C's rows
// are not whole 16-byte chunks (its width or leading dimension not a multiple of 8).
#pragma once

#include <cstdint>

namespace gpb::kernels {

// Stores the kRows x kColumns tile whose element (row, column) `element` reads (16 bits) into
// C at (row0 + row, column0 + column), element by element, leaving out those past m rows or
// c_columns columns. kThreads threads share it, thread `thread` of them: warp w takes rows w,
// w + kThreads / 32, .. and its lanes neighbouring columns, so a warp's store is 64 contiguous
// bytes of C, and only the tile's rows and columns inside C are visited (a tile mostly past C,
// as at 15 x 74 on a 128 x 256 tile, costs a few iterations). (Each lane storing its own
// 16-byte chunk element by element put a warp's 32 stores 16 bytes apart, a sector each: on an
// H200 that made the stores of C take 3-6 times the GEMM, 1000 x 333 x 80 in 17.9 us against
// 5.6 us at n = 336.)
template <int kRows, int kColumns, int kThreads, class Element>
__device__ __forceinline__ void store_tile_elements(void* c, int ldc, int row0, int column0, int m, int c_columns,
                                                    int thread, const Element& element) {
  static_assert(kThreads % 32 == 0 && kColumns % 32 == 0, "whole warps, whole warp-wide runs of columns");
  auto* out = static_cast<unsigned short*>(c);
  const int rows = min(kRows, m - row0), columns = min(kColumns, c_columns - column0);
  for (int row = thread / 32; row < rows; row += kThreads / 32) {
    unsigned short* out_row = out + static_cast<std::int64_t>(row0 + row) * ldc + column0;
    for (int column = thread % 32; column < columns; column += 32) out_row[column] = element(row, column);
  }
}

}  // namespace gpb::kernels
