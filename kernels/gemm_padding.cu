#include "kernels/gemm_padding.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;  // grids stride over the rest
constexpr int kLanes = 8;                   // 16-bit elements in 16 bytes
constexpr int kMaxCopies = 2;

struct alignas(16) Chunk {
  unsigned short lane[kLanes];
};

// The copies as the kernel takes them, by value: bits, 16-bit elements as unsigned short.
struct Copies {
  PaddedCopy<unsigned short> copy[kMaxCopies];
  int count;
};

std::int64_t chunks_of(const PaddedCopy<unsigned short>& copy) {
  return static_cast<std::int64_t>(copy.rows) * (copy.padded_cols / kLanes);
}

// Each thread writes 16-byte chunks of the destinations (the copies' chunks one after the
// other), reading the source entry by entry: its rows need not be aligned.
__global__ void __launch_bounds__(kThreads) padded_copies_kernel(Copies copies) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t first = 0;  // the current copy's first chunk in the joint index
#pragma unroll
  for (int which = 0; which < kMaxCopies; ++which) {
    if (which == copies.count) break;
    const PaddedCopy<unsigned short>& copy = copies.copy[which];
    const int chunks_per_row = copy.padded_cols / kLanes;
    const std::int64_t chunks = static_cast<std::int64_t>(copy.rows) * chunks_per_row;
    // This thread's first chunk of this copy: the joint grid-stride sequence continues.
    std::int64_t index = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x - first;
    if (index < 0) index += ((-index + stride - 1) / stride) * stride;
    for (; index < chunks; index += stride) {
      const std::int64_t row = index / chunks_per_row;
      const int col0 = static_cast<int>(index % chunks_per_row) * kLanes;
      const unsigned short* source = copy.src + row * copy.cols;
      Chunk chunk;
#pragma unroll
      for (int e = 0; e < kLanes; ++e) chunk.lane[e] = col0 + e < copy.cols ? source[col0 + e] : 0;
      *reinterpret_cast<Chunk*>(copy.dst + row * copy.padded_cols + col0) = chunk;
    }
    first += chunks;
  }
}

}  // namespace

template <class T>
void launch_padded_copies(const PaddedCopy<T>* copies, int count, cudaStream_t stream) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  if (count < 1 || count > kMaxCopies) throw std::logic_error("launch_padded_copies takes 1 or 2 copies");
  Copies bits{};
  bits.count = count;
  std::int64_t chunks = 0;
  for (int which = 0; which < count; ++which) {
    const PaddedCopy<T>& copy = copies[which];
    if (copy.padded_cols % kLanes != 0 || copy.padded_cols < copy.cols)
      throw std::logic_error("a padded copy's width must be a multiple of 8 and at least its source's");
    bits.copy[which] = {reinterpret_cast<const unsigned short*>(copy.src), reinterpret_cast<unsigned short*>(copy.dst),
                        copy.rows, copy.cols, copy.padded_cols};
    chunks += chunks_of(bits.copy[which]);
  }
  const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>((chunks + kThreads - 1) / kThreads, 1, kMaxBlocks));
  padded_copies_kernel<<<blocks, kThreads, 0, stream>>>(bits);
  GPB_CHECK_LAUNCH();
}

template void launch_padded_copies<__half>(const PaddedCopy<__half>*, int, cudaStream_t);
template void launch_padded_copies<__nv_bfloat16>(const PaddedCopy<__nv_bfloat16>*, int, cudaStream_t);

}  // namespace gpb::kernels
