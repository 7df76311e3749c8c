// How the cuda backend splits y = A x over the GPU: the selection rule for its SpMV kernels,
// a pure function of the matrix's row lengths and the device's size (no CUDA here, so the
// rule is tested without a GPU), and the host tables the row-segment kernel reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/csr.hpp"
#include "model/types.hpp"

namespace gpb {

// The spread of the row lengths, over all rows.
struct RowLengthStats {
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  double mean = 0;
  double variation = 0;  // coefficient of variation: standard deviation / mean
  std::int64_t longest = 0;
};

RowLengthStats row_length_stats(const CsrMatrix& matrix);

// Whether a matrix's rows hold runs of neighbouring columns (banded, stencils, dense rows):
// most neighbouring entries of a row, over a sample of rows, are neighbouring columns.
bool columns_are_contiguous(const CsrMatrix& matrix);

// What a plan is made for: the value type and the kernels built for it, and the device.
// Every type has the merge path (16-bit values with f32 sums).
struct SpmvTarget {
  std::size_t value_bytes = 4;  // 4 f32, 8 f64, 2 f16 and bf16
  bool vector_loads = true;     // the row-split kernel has 16-byte loads for the type (f32, f64)
  int sm_count = 1;
  int threads_per_sm = 2048;    // resident threads per SM
};

// The row-segment kernel's block: kThreads threads, each taking up to
// max_vectors_per_thread 16-byte vectors of a segment's values (and their indices): 16
// entries a thread, at least 4 vectors (f32 4, f64 8, 16-bit 4); a segment holds a whole
// number of "segment units", one vector a thread. kernels/spmv_segments.cuh states the same
// numbers.
struct SpmvSegmentBlock {
  static constexpr int kThreads = 256;
  static constexpr int max_vectors_per_thread(std::size_t value_bytes) { return value_bytes == 8 ? 8 : 4; }
  // Blocks per SM that the segment length aims for: a full wave of the resident blocks, so
  // that no SM idles while others work through the rows.
  static constexpr int kBlocksPerSm = 4;
};

enum class SpmvKernel { csr_scalar, csr_vector, csr_row_segments, csr_merge_path };
std::string to_string(SpmvKernel kernel);

struct SpmvPlan {
  SpmvKernel kernel = SpmvKernel::csr_scalar;
  int threads_per_row = 1;          // csr_vector: the lanes of a warp that share a row (csr_scalar: 1)
  bool vector_loads = false;        // csr_vector: 16-byte loads (scattered columns)
  std::int32_t long_row_limit = 0;  // csr_scalar, csr_vector: longer rows go to the row segments
  bool forced = false;              // chosen by --spmv-kernel, not by the row lengths
  std::string rule;                 // why, for the details: the rule and this matrix's numbers
};

// The selection rule, in order:
//   1. merge path, in every dtype, when the row lengths vary more than their mean and some
//      row is more than 8 times the mean: a row split would leave each warp as slow as its
//      longest row;
//   2. otherwise a row split: a thread per row for rows averaging under 1.5 entries, else a
//      group of lanes per row (2 to 32, about 4 entries a lane; f64 with 16-byte loads 2
//      entries a lane up to 16). Where rows x lanes cannot fill the device's resident
//      threads and rows average at least a segment unit, every row goes to the row-segment
//      kernel (a block per segment of a row); else rows over 32 times their thread's or
//      group's share go there and the rest to the thread or the lanes.
// --spmv-kernel merge_path or row_split forces step 1's answer.
SpmvPlan plan_spmv(const RowLengthStats& lengths, bool contiguous_columns, const SpmvTarget& target,
                   SpmvKernelChoice choice);

// Entries per segment: the segmented rows' nonzeros spread over kBlocksPerSm blocks per SM,
// rounded up to a whole segment unit (kThreads 16-byte vectors), from one unit to
// max_vectors_per_thread units.
std::int32_t segment_unit(const SpmvTarget& target);
std::int32_t segment_length(std::int64_t segmented_nonzeros, const SpmvTarget& target);

// The segments the row-segment kernel takes, a block each: entries [begin, end) of `row`, at
// most segment_length of them (an empty row is one empty segment, so that it is written
// too). A row of several segments has a ticket: ticket_runs[ticket] names its segments
// (consecutive), whose sums the row's last block to finish adds in order; a row of one
// segment has ticket -1 and its block writes it. kernels/spmv_segments.cuh's SpmvSegment
// and SpmvTicketRun are the same layouts.
struct RowSegment {
  std::int32_t row;
  std::int32_t begin;
  std::int32_t end;
  std::int32_t ticket;
};
struct TicketRun {
  std::int32_t first_segment;
  std::int32_t segments;
};
struct RowSegmentTable {
  std::vector<RowSegment> segments;
  std::vector<TicketRun> ticket_runs;
  std::int64_t rows = 0;  // the rows segmented
  std::int32_t segment_length = 0;
  std::int64_t nonzeros = 0;  // in those rows
  std::int32_t most_segments = 0;  // of one row
};

// For csr_row_segments every row; for csr_scalar and csr_vector the rows over the plan's
// long-row limit; none for the merge path.
RowSegmentTable row_segment_table(const CsrMatrix& matrix, const SpmvPlan& plan, const SpmvTarget& target);

// " segments=..." for the details: how many rows, segments and entries each.
std::string describe(const RowSegmentTable& table);

}  // namespace gpb
