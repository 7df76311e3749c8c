// Padded copies for the GEMMs whose global accesses are whole 16-byte chunks of rows (the
// 16-bit tensor-core kernels, and the SIMT kernel's 16-byte variant): an operand whose rows
// are not is copied into a buffer whose are.
#pragma once

#include <cuda_runtime_api.h>

namespace gpb::kernels {

// dst (rows x padded_cols, row-major) = src (rows x cols, row-major) with zeros in columns
// cols .. padded_cols - 1; padded_cols a multiple of 16 bytes' elements.
template <class T>
struct PaddedCopy {
  const T* src = nullptr;
  T* dst = nullptr;
  int rows = 0;
  int cols = 0;
  int padded_cols = 0;
};

// Makes `count` (1 or 2) padded copies (T = __half, __nv_bfloat16, float or double), in one
// launch.
template <class T>
void launch_padded_copies(const PaddedCopy<T>* copies, int count, cudaStream_t stream);

}  // namespace gpb::kernels
