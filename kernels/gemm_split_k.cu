#include "kernels/gemm_split_k.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

constexpr int kThreads = 256;
// Grids are capped at this many blocks and stride over the rest.
constexpr std::int64_t kMaxBlocks = 65535;

unsigned grid_for(std::int64_t items) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((items + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

// One thread per entry of C: its parts sit m * ldp apart, and neighbouring threads read
// neighbouring entries of each part.
template <class T>
__global__ void __launch_bounds__(kThreads) add_partials_kernel(const Accumulate<T>* __restrict__ partials, int parts,
                                                                int m, int n, std::int64_t ldp, T* __restrict__ c,
                                                                std::int64_t ldc) {
  const std::int64_t entries = static_cast<std::int64_t>(m) * n;
  const std::int64_t part_stride = static_cast<std::int64_t>(m) * ldp;
  for (std::int64_t index = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; index < entries;
       index += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t row = index / n, col = index % n;
    const Accumulate<T>* entry = partials + row * ldp + col;
    Accumulate<T> sum = entry[0];
    for (int part = 1; part < parts; ++part) sum += entry[part * part_stride];
    c[row * ldc + col] = Arithmetic<T>::store(sum);
  }
}

// The copy moves bits: 16-bit elements as unsigned short.
template <class T>
using Bits = std::conditional_t<sizeof(T) == 2, unsigned short, std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>>;

// Each thread writes kLanes neighbouring entries of one row of dst (16 bytes), as one 16-byte
// store when kVectorStore (dst_cols and ld_dst multiples of kLanes), reading src entry by
// entry (its rows need not be aligned).
template <class B, bool kVectorStore>
__global__ void __launch_bounds__(kThreads) copy_matrix_kernel(const B* __restrict__ src, int src_rows, int src_cols,
                                                               std::int64_t ld_src, B* __restrict__ dst, int dst_rows,
                                                               int dst_cols, std::int64_t ld_dst) {
  constexpr int kLanes = 16 / sizeof(B);
  struct alignas(16) Chunk {
    B lane[kLanes];
  };
  const std::int64_t chunks_per_row = (dst_cols + kLanes - 1) / kLanes;
  const std::int64_t chunks = chunks_per_row * dst_rows;
  for (std::int64_t index = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; index < chunks;
       index += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t row = index / chunks_per_row;
    const int col0 = static_cast<int>(index % chunks_per_row) * kLanes;
    Chunk chunk;
#pragma unroll
    for (int e = 0; e < kLanes; ++e) {
      const int col = col0 + e;
      chunk.lane[e] = row < src_rows && col < src_cols ? src[row * ld_src + col] : B(0);
    }
    B* out = dst + row * ld_dst + col0;
    if constexpr (kVectorStore) {
      *reinterpret_cast<Chunk*>(out) = chunk;
    } else {
#pragma unroll
      for (int e = 0; e < kLanes; ++e)
        if (col0 + e < dst_cols) out[e] = chunk.lane[e];
    }
  }
}

}  // namespace

template <class T>
void launch_add_partials(const Accumulate<T>* partials, int parts, int m, int n, std::int64_t ldp, T* c,
                         std::int64_t ldc, cudaStream_t stream) {
  add_partials_kernel<T><<<grid_for(static_cast<std::int64_t>(m) * n), kThreads, 0, stream>>>(partials, parts, m, n,
                                                                                              ldp, c, ldc);
  GPB_CHECK_LAUNCH();
}

template <class T>
void launch_copy_matrix(const T* src, int src_rows, int src_cols, std::int64_t ld_src, T* dst, int dst_rows,
                        int dst_cols, std::int64_t ld_dst, cudaStream_t stream) {
  using B = Bits<T>;
  constexpr int kLanes = 16 / sizeof(B);
  const std::int64_t chunks = static_cast<std::int64_t>(dst_rows) * ((dst_cols + kLanes - 1) / kLanes);
  const auto* from = reinterpret_cast<const B*>(src);
  auto* to = reinterpret_cast<B*>(dst);
  if (dst_cols % kLanes == 0 && ld_dst % kLanes == 0)
    copy_matrix_kernel<B, true><<<grid_for(chunks), kThreads, 0, stream>>>(from, src_rows, src_cols, ld_src, to,
                                                                            dst_rows, dst_cols, ld_dst);
  else
    copy_matrix_kernel<B, false><<<grid_for(chunks), kThreads, 0, stream>>>(from, src_rows, src_cols, ld_src, to,
                                                                             dst_rows, dst_cols, ld_dst);
  GPB_CHECK_LAUNCH();
}

#define GPB_INSTANTIATE(T)                                                                                   \
  template void launch_add_partials<T>(const Accumulate<T>*, int, int, int, std::int64_t, T*, std::int64_t, \
                                       cudaStream_t);                                                        \
  template void launch_copy_matrix<T>(const T*, int, int, std::int64_t, T*, int, int, std::int64_t, cudaStream_t);
GPB_INSTANTIATE(float)
GPB_INSTANTIATE(double)
GPB_INSTANTIATE(__half)
GPB_INSTANTIATE(__nv_bfloat16)
#undef GPB_INSTANTIATE

}  // namespace gpb::kernels
