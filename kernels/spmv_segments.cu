#include "kernels/spmv_segments.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/block_reduce.cuh"
#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

// One 16-byte vector of a row's values and the column indices of its entries.
template <class T>
struct SegmentVector {
  static constexpr int kEntries = 16 / sizeof(T);
  int4 value_bits;
  int columns[kEntries];
};

// Streaming loads (evict-first) of vector `vector` of the values and of its indices: 8
// (f64), 16 (f32) or 32 (16-bit) bytes of indices, in 16- or 8-byte loads.
template <class T>
__device__ __forceinline__ void load_vector(const T* __restrict__ values, const std::int32_t* __restrict__ col_idx,
                                            int vector, SegmentVector<T>& out) {
  constexpr int kEntries = SegmentVector<T>::kEntries;
  out.value_bits = __ldcs(reinterpret_cast<const int4*>(values) + vector);
  if constexpr (kEntries == 2) {
    const int2 columns = __ldcs(reinterpret_cast<const int2*>(col_idx) + vector);
    out.columns[0] = columns.x;
    out.columns[1] = columns.y;
  } else {
    const int4* quads = reinterpret_cast<const int4*>(col_idx) + vector * (kEntries / 4);
#pragma unroll
    for (int q = 0; q < kEntries / 4; ++q) {
      const int4 columns = __ldcs(quads + q);
      out.columns[4 * q] = columns.x;
      out.columns[4 * q + 1] = columns.y;
      out.columns[4 * q + 2] = columns.z;
      out.columns[4 * q + 3] = columns.w;
    }
  }
}

// The vector's products, summed in order. x through the read-only path: one 16-byte load
// where the columns are neighbours from a 16-byte boundary on, else one load an entry.
template <class T>
__device__ __forceinline__ Accumulate<T> vector_products(const SegmentVector<T>& vector, const T* __restrict__ x) {
  constexpr int kEntries = SegmentVector<T>::kEntries;
  bool neighbours = vector.columns[0] % kEntries == 0;
#pragma unroll
  for (int l = 1; l < kEntries; ++l) neighbours = neighbours && vector.columns[l] == vector.columns[0] + l;
  T x_values[kEntries];
  if (neighbours) {
    const int4 bits = __ldg(reinterpret_cast<const int4*>(x) + vector.columns[0] / kEntries);
    memcpy(x_values, &bits, sizeof bits);
  } else {
#pragma unroll
    for (int l = 0; l < kEntries; ++l) x_values[l] = __ldg(x + vector.columns[l]);
  }
  T a_values[kEntries];
  memcpy(a_values, &vector.value_bits, sizeof vector.value_bits);
  Accumulate<T> sum = 0;
#pragma unroll
  for (int l = 0; l < kEntries; ++l) sum += Arithmetic<T>::load(a_values[l]) * Arithmetic<T>::load(x_values[l]);
  return sum;
}

template <class T>
__global__ void __launch_bounds__(SpmvSegmentShape::kThreads)
    spmv_row_segments_kernel(CsrView matrix, const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y,
                             SpmvRowSegments segments, Accumulate<T>* __restrict__ partials) {
  using Acc = Accumulate<T>;
  constexpr int kThreads = SpmvSegmentShape::kThreads;
  constexpr int kSlots = SpmvSegmentShape::max_vectors_per_thread(sizeof(T));
  constexpr int kEntries = SegmentVector<T>::kEntries;
  const int thread = static_cast<int>(threadIdx.x);
  const SpmvSegment segment = segments.segments[blockIdx.x];
  const int begin = segment.begin;
  const int end = segment.end;

  // Whole vectors between the segment's first and last 16-byte boundary, all of a thread's
  // loaded before its first x gather; the fewer than kEntries entries before the first
  // vector and after the last one a thread each.
  const int first_vector = (begin + kEntries - 1) / kEntries;
  const int end_vector = max(first_vector, end / kEntries);
  const int head = min(first_vector * kEntries, end) - begin;
  const int tail_begin = end_vector * kEntries;
  const int tail = max(0, end - tail_begin);
  SegmentVector<T> vectors[kSlots];
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int vector = first_vector + thread + s * kThreads;
    if (vector < end_vector) load_vector(values, matrix.col_idx, vector, vectors[s]);
  }
  int single = -1;
  if (thread < head)
    single = begin + thread;
  else if (thread < head + tail)
    single = tail_begin + thread - head;
  Acc sum = 0;
#pragma unroll
  for (int s = 0; s < kSlots; ++s)
    if (first_vector + thread + s * kThreads < end_vector) sum += vector_products(vectors[s], x);
  if (single >= 0)
    sum += Arithmetic<T>::load(__ldcs(values + single)) * Arithmetic<T>::load(__ldg(x + __ldcs(matrix.col_idx + single)));

  const Acc total = block_sum(sum);
  if (segment.ticket < 0) {
    if (thread == 0) y[segment.row] = Arithmetic<T>::store(total);
    return;
  }
  const SpmvTicketRun run = segments.ticket_runs[segment.ticket];
  // The fence makes this segment's sum visible to every block before its arrival is.
  __shared__ bool last_segment;
  if (thread == 0) {
    partials[blockIdx.x] = total;
    __threadfence();
    last_segment = atomicAdd(segments.arrivals + segment.ticket, 1u) == static_cast<unsigned>(run.segments - 1);
  }
  __syncthreads();
  if (!last_segment) return;
  // Every other segment's sum is written; read them from L2 (__ldcg: not a stale L1 line).
  Acc partial = 0;
  for (int s = thread; s < run.segments; s += kThreads) partial += __ldcg(partials + run.first_segment + s);
  const Acc row_total = block_sum(partial);
  if (thread == 0) {
    y[segment.row] = Arithmetic<T>::store(row_total);
    segments.arrivals[segment.ticket] = 0;
  }
}

}  // namespace

template <class T>
void launch_spmv_row_segments(CsrView matrix, const T* values, const T* x, T* y, SpmvRowSegments segments,
                              Accumulate<T>* partials, cudaStream_t stream) {
  if (segments.count == 0) return;
  spmv_row_segments_kernel<T><<<segments.count, SpmvSegmentShape::kThreads, 0, stream>>>(matrix, values, x, y,
                                                                                             segments, partials);
  GPB_CHECK_LAUNCH();
}

template void launch_spmv_row_segments<float>(CsrView, const float*, const float*, float*, SpmvRowSegments, float*,
                                              cudaStream_t);
template void launch_spmv_row_segments<double>(CsrView, const double*, const double*, double*, SpmvRowSegments,
                                               double*, cudaStream_t);
template void launch_spmv_row_segments<__half>(CsrView, const __half*, const __half*, __half*, SpmvRowSegments,
                                               float*, cudaStream_t);
template void launch_spmv_row_segments<__nv_bfloat16>(CsrView, const __nv_bfloat16*, const __nv_bfloat16*,
                                                      __nv_bfloat16*, SpmvRowSegments, float*, cudaStream_t);

}  // namespace gpb::kernels
