// How the 16-bit tensor-core GEMMs store C from a tile held in shared memory, where C's rows
// are not whole 16-byte chunks (its width or leading dimension not a multiple of 8).
#pragma once

#include <cstdint>

namespace gpb::kernels {

// Stores the kRows x kColumns tile whose element (row, column) `element` reads (16 bits) into
// C at (row0 + row, column0 + column), element by element, leaving out those past m rows or
// c_columns columns. kThreads threads share it, thread `thread` of them taking elements
// thread, thread + kThreads, ..: neighbouring threads on neighbouring columns of a row, so a
// warp's store is 64 contiguous bytes of C. (Each lane storing its own 16-byte chunk element
// by element put a warp's 32 stores 16 bytes apart, a sector each: on an H200 that made the
// stores of C take 3-6 times the GEMM, 1000 x 333 x 80 in 17.9 us against 5.6 us at n = 336.)
template <int kRows, int kColumns, int kThreads, class Element>
__device__ __forceinline__ void store_tile_elements(void* c, int ldc, int row0, int column0, int m, int c_columns,
                                                    int thread, const Element& element) {
  static_assert(kRows * kColumns % kThreads == 0 && kColumns % 32 == 0, "whole rows of whole warps");
  auto* out = static_cast<unsigned short*>(c);
#pragma unroll 4
  for (int index = thread; index < kRows * kColumns; index += kThreads) {
    const int row = index / kColumns, column = index % kColumns;
    if (row0 + row < m && column0 + column < c_columns)
      out[static_cast<std::int64_t>(row0 + row) * ldc + column0 + column] = element(row, column);
  }
}

}  // namespace gpb::kernels
