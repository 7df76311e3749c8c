// y = A x over rows split into segments, a block each: for rows too long, or too few, for
// the lanes of a warp to cover (a dense row, a handful of rows holding most nonzeros).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/numeric.cuh"
#include "kernels/spmv.cuh"

namespace gpb::kernels {

// The kernel's block: kThreads threads, each taking up to max_vectors_per_thread 16-byte
// vectors of the segment's values (16 / value_bytes entries each) and their column indices:
// 16 entries a thread, at least 4 vectors (f32 4, f64 8, 16-bit 4). The host's selection
// rule (src/spmv_plan.hpp, SpmvSegmentBlock) sizes segments by the same numbers.
struct SpmvSegmentShape {
  static constexpr int kThreads = 256;
  static constexpr int max_vectors_per_thread(int value_bytes) { return value_bytes == 8 ? 8 : 4; }
};

// One segment, a block's work: entries [begin, end) of `row`. ticket -1: the row's only
// segment; otherwise the row's index into the ticket runs and its arrival counters.
struct alignas(16) SpmvSegment {
  std::int32_t row;
  std::int32_t begin;
  std::int32_t end;
  std::int32_t ticket;
};
// The segments of a row of several: first_segment .. first_segment + segments - 1.
struct SpmvTicketRun {
  std::int32_t first_segment;
  std::int32_t segments;
};

// The segments (the host lists them in prepare, src/spmv_plan.hpp's row_segment_table:
// at most max_vectors_per_thread * kThreads vectors of 16 bytes each), the ticket runs, and
// an arrival counter per ticket, 0 before the first launch.
struct SpmvRowSegments {
  const SpmvSegment* segments = nullptr;
  unsigned count = 0;
  const SpmvTicketRun* ticket_runs = nullptr;
  unsigned* arrivals = nullptr;
};

// A block per segment: its threads read the segment's values and indices 16 bytes at a time
// between its first and last 16-byte boundary (streaming loads, single entries at the two
// ends), and x 16 bytes at a time where a vector's columns are neighbours starting on a
// 16-byte boundary (dense rows), one entry at a time elsewhere; products and sums in T's
// accumulation type (f32 for the 16-bit types), a fixed shuffle-and-shared-memory tree over
// the block. A row of one segment is written at once; otherwise each segment leaves its sum
// in partials (one per segment), and the row's last block to finish (an integer counter per
// ticket) adds them in segment order, writes the row and resets the counter for the next
// launch.
// No float atomics, and an order fixed by the matrix: the same bits on every run. values,
// col_idx and x must be 16-byte aligned, as cudaMalloc'd buffers are. No launch for 0
// segments. Launches that share arrivals must not overlap (one stream).
template <class T>
void launch_spmv_row_segments(CsrView matrix, const T* values, const T* x, T* y, SpmvRowSegments segments,
                              Accumulate<T>* partials, cudaStream_t stream);

}  // namespace gpb::kernels
