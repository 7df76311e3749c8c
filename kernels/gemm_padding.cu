#include "kernels/gemm_padding.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;  // grids stride over the rest
constexpr int kMaxCopies = 2;

// The elements' bits as words W of 16, 32 or 64 bits, kLanes<W> of them in 16 bytes.
template <class W>
constexpr int kLanes = static_cast<int>(16 / sizeof(W));

template <class W>
struct alignas(16) Chunk {
  W lane[kLanes<W>];
};

// The copies as the kernel takes them, by value: bits, as words of the elements' size.
template <class W>
struct Copies {
  PaddedCopy<W> copy[kMaxCopies];
  int count;
};

template <class W>
std::int64_t chunks_of(const PaddedCopy<W>& copy) {
  return static_cast<std::int64_t>(copy.rows) * (copy.padded_cols / kLanes<W>);
}

// Each thread writes 16-byte chunks of the destinations (the copies' chunks one after the
// other), reading the source entry by entry: its rows need not be aligned.
template <class W>
__global__ void __launch_bounds__(kThreads) padded_copies_kernel(Copies<W> copies) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // A GEMM launched after these copies as a programmatic dependent launch may start now: it
  // waits (griddepcontrol.wait) for the whole grid to finish before it reads the copies.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  constexpr int kChunkLanes = kLanes<W>;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t first = 0;  // the current copy's first chunk in the joint index
#pragma unroll
  for (int which = 0; which < kMaxCopies; ++which) {
    if (which == copies.count) break;
    const PaddedCopy<W>& copy = copies.copy[which];
    const int chunks_per_row = copy.padded_cols / kChunkLanes;
    const std::int64_t chunks = static_cast<std::int64_t>(copy.rows) * chunks_per_row;
    // This thread's first chunk of this copy: the joint grid-stride sequence continues.
    std::int64_t index = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x - first;
    if (index < 0) index += ((-index + stride - 1) / stride) * stride;
    for (; index < chunks; index += stride) {
      const std::int64_t row = index / chunks_per_row;
      const int col0 = static_cast<int>(index % chunks_per_row) * kChunkLanes;
      const W* source = copy.src + row * copy.cols;
      Chunk<W> chunk;
#pragma unroll
      for (int e = 0; e < kChunkLanes; ++e) chunk.lane[e] = col0 + e < copy.cols ? source[col0 + e] : W{0};
      *reinterpret_cast<Chunk<W>*>(copy.dst + row * copy.padded_cols + col0) = chunk;
    }
    first += chunks;
  }
}

// The copies as words of T's size: a padded copy moves bits.
template <class T>
using Word = std::conditional_t<sizeof(T) == 2, unsigned short,
                                std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>>;

}  // namespace

template <class T>
void launch_padded_copies(const PaddedCopy<T>* copies, int count, cudaStream_t stream) {
  using W = Word<T>;
  static_assert(sizeof(W) == sizeof(T), "elements of 2, 4 or 8 bytes");
  if (count < 1 || count > kMaxCopies) throw std::logic_error("launch_padded_copies takes 1 or 2 copies");
  Copies<W> bits{};
  bits.count = count;
  std::int64_t chunks = 0;
  for (int which = 0; which < count; ++which) {
    const PaddedCopy<T>& copy = copies[which];
    if (copy.padded_cols % kLanes<W> != 0 || copy.padded_cols < copy.cols)
      throw std::logic_error("a padded copy's width must be whole 16 bytes and at least its source's");
    bits.copy[which] = {reinterpret_cast<const W*>(copy.src), reinterpret_cast<W*>(copy.dst), copy.rows, copy.cols,
                        copy.padded_cols};
    chunks += chunks_of(bits.copy[which]);
  }
  const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>((chunks + kThreads - 1) / kThreads, 1, kMaxBlocks));
  padded_copies_kernel<W><<<blocks, kThreads, 0, stream>>>(bits);
  GPB_CHECK_LAUNCH();
}

template void launch_padded_copies<__half>(const PaddedCopy<__half>*, int, cudaStream_t);
template void launch_padded_copies<__nv_bfloat16>(const PaddedCopy<__nv_bfloat16>*, int, cudaStream_t);
template void launch_padded_copies<float>(const PaddedCopy<float>*, int, cudaStream_t);
template void launch_padded_copies<double>(const PaddedCopy<double>*, int, cudaStream_t);

}  // namespace gpb::kernels
