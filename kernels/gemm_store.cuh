// How the 16-bit tensor-core GEMMs store a 16-byte chunk of a row of C (8 elements).
#pragma once

namespace gpb::kernels {

// Stores `chunk` at `out`: as one 16-byte store where C's rows are whole 16-byte chunks
// (`whole_chunks`: its width and leading dimension multiples of 8), else element by element,
// the first `inside` of them (the rest lie past C's last column).
template <class T>
__device__ __forceinline__ void store_chunk(T* out, uint4 chunk, int inside, bool whole_chunks) {
  static_assert(sizeof(T) == 2, "16-bit elements: 8 to a chunk");
  if (whole_chunks) {
    *reinterpret_cast<uint4*>(out) = chunk;
    return;
  }
  const unsigned words[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
  auto* elements = reinterpret_cast<unsigned short*>(out);
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (e < inside) elements[e] = static_cast<unsigned short>(words[e / 2] >> (16 * (e % 2)));
}

}  // namespace gpb::kernels
