#include "measure/spmv_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpb {

RowLengthStats row_length_stats(const CsrMatrix& matrix) {
  RowLengthStats lengths;
  lengths.rows = matrix.rows;
  lengths.nnz = matrix.nnz();
  if (matrix.rows == 0) return lengths;
  double sum = 0, sum_of_squares = 0;
  for (std::size_t row = 0; row < static_cast<std::size_t>(matrix.rows); ++row) {
    const std::int64_t length = matrix.row_ptr[row + 1] - matrix.row_ptr[row];
    sum += static_cast<double>(length);
    sum_of_squares += static_cast<double>(length) * static_cast<double>(length);
    lengths.longest = std::max(lengths.longest, length);
  }
  const double rows = static_cast<double>(matrix.rows);
  lengths.mean = sum / rows;
  const double variance = std::max(0.0, sum_of_squares / rows - lengths.mean * lengths.mean);
  lengths.variation = lengths.mean > 0 ? std::sqrt(variance) / lengths.mean : 0.0;
  return lengths;
}

bool columns_are_contiguous(const CsrMatrix& matrix) {
  constexpr std::int64_t kSampledRows = 4096;
  const std::int64_t step = std::max<std::int64_t>(1, matrix.rows / kSampledRows);
  std::int64_t pairs = 0, neighbours = 0;
  for (std::int64_t row = 0; row < matrix.rows; row += step) {
    const auto begin = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)]);
    const auto end = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row) + 1]);
    for (std::size_t j = begin + 1; j < end; ++j) {
      ++pairs;
      neighbours += matrix.col_idx[j] == matrix.col_idx[j - 1] + 1;
    }
  }
  return pairs > 0 && 2 * neighbours > pairs;
}

std::string to_string(SpmvKernel kernel) {
  switch (kernel) {
    case SpmvKernel::csr_scalar:
      return "csr_scalar";
    case SpmvKernel::csr_vector:
      return "csr_vector";
    case SpmvKernel::csr_row_segments:
      return "csr_row_segments";
    case SpmvKernel::csr_merge_path:
      return "csr_merge_path";
  }
  return "unknown";
}

namespace {

// Splitting by rows leaves each warp as slow as its longest row: where row lengths vary
// more than their mean (power-law: about 2.4, long-tail and skew far more; random, banded,
// blockdiag, wide, tall, fewrows, dense: 0) and some row is far longer than the mean, the
// merge-path kernel, which splits by rows and nonzeros together, takes the matrix. The
// second condition keeps rows of 0 or 1 entries (coefficient of variation 1 when half are
// empty, either side of it by chance) with the row split: a warp there waits at most for a
// row of one or two entries.
constexpr double kMergePathMinVariation = 1.0;
constexpr double kMergePathMinLongestOverMean = 8.0;
// Rows averaging under 1.5 entries (random at 1, short rows of 0-2) get a thread each: a
// row group of two lanes would leave one idle on most rows. Between 1 and 2 so that the
// mean of 0-2 entry rows (1, give or take a draw) does not flip the choice.
constexpr double kScalarMaxMean = 1.5;
// A row more than this many times as long as its row group's share goes to the row
// segments: it would keep its group, and its block, busy long after the rest of the grid.
constexpr int kLongRowShares = 32;

// Lanes per row, measured on an H200 (L2 flushed, 8M rows of 16 unless said otherwise,
// cuSPARSE CSR_ALG1 in brackets; docs/kernel-notes.md has the full table):
//   - streaming loads of values and indices: f32 random 1312 -> 1183 us; 16-byte loads on
//     top, 1152 us [1163]. f64 random with 16-byte loads: 2196 us at 8 lanes (2 entries per
//     lane) against 2317 us at 16 lanes with plain loads [2240]; 2M rows of 64: 1016 us at
//     16 lanes, 1026 at 32 [1031], hence at most 16 lanes for f64.
//   - contiguous columns (banded): one entry per lane per step and 4 entries per lane, f64
//     428 us against 566 us with 16-byte loads [601], f32 352 against 360 [383].
// The 16-bit kernel has no 16-byte loads: 4 entries a lane, up to 32 lanes.
struct LaneRule {
  bool vector_loads;
  double entries_per_lane;
  int max_lanes;
};

LaneRule lane_rule(bool contiguous_columns, const SpmvTarget& target) {
  const bool vector_loads = target.vector_loads && !contiguous_columns;
  const bool wide_values = vector_loads && target.value_bytes == 8;
  return {vector_loads, wide_values ? 2.0 : 4.0, wide_values ? 16 : 32};
}

}  // namespace

std::int32_t segment_unit(const SpmvTarget& target) {
  return static_cast<std::int32_t>(SpmvSegmentBlock::kThreads * (16 / target.value_bytes));
}

std::int32_t segment_length(std::int64_t segmented_nonzeros, const SpmvTarget& target) {
  const std::int64_t unit = segment_unit(target);
  const std::int64_t blocks = std::max<std::int64_t>(1, std::int64_t{target.sm_count} * SpmvSegmentBlock::kBlocksPerSm);
  const std::int64_t per_block = (segmented_nonzeros + blocks - 1) / blocks;
  const std::int64_t units = std::clamp<std::int64_t>((per_block + unit - 1) / unit, 1,
                                                      SpmvSegmentBlock::max_vectors_per_thread(target.value_bytes));
  return static_cast<std::int32_t>(units * unit);
}

SpmvPlan plan_spmv(const RowLengthStats& lengths, bool contiguous_columns, const SpmvTarget& target,
                   SpmvKernelChoice choice) {
  const double longest_over_mean = lengths.mean > 0 ? static_cast<double>(lengths.longest) / lengths.mean : 0.0;
  const bool skewed = lengths.variation > kMergePathMinVariation && longest_over_mean > kMergePathMinLongestOverMean;
  SpmvPlan plan;
  plan.forced = choice != SpmvKernelChoice::automatic;
  char skew[160];
  std::snprintf(skew, sizeof skew,
                "merge_path when row_nnz_cv > 1 and max/avg row nnz > 8 (here %.2f and %.1f: %s)",
                lengths.variation, longest_over_mean, skewed ? "skewed" : "not skewed");
  plan.rule = skew;
  if (choice == SpmvKernelChoice::merge_path || (choice == SpmvKernelChoice::automatic && skewed)) {
    plan.kernel = SpmvKernel::csr_merge_path;
    return plan;
  }
  const LaneRule lanes = lane_rule(contiguous_columns, target);
  if (lengths.mean < kScalarMaxMean) {
    plan.long_row_limit = static_cast<std::int32_t>(kLongRowShares * lanes.entries_per_lane);
    plan.rule += "; csr_scalar when avg row nnz < 1.5, rows over " + std::to_string(plan.long_row_limit) +
                 " nnz in segments";
    return plan;
  }
  plan.vector_loads = lanes.vector_loads;
  plan.threads_per_row = 2;
  while (plan.threads_per_row < lanes.max_lanes && lengths.mean > lanes.entries_per_lane * plan.threads_per_row)
    plan.threads_per_row *= 2;

  // Is there enough independent work for every SM? A row group's lanes are all a row gets,
  // so rows x lanes is the parallelism of the row split; a block per segment of a row takes
  // the rest, once rows are long enough to give each of its threads a 16-byte vector.
  const std::int64_t lanes_in_use = lengths.rows * plan.threads_per_row;
  const std::int64_t resident = std::int64_t{target.sm_count} * target.threads_per_sm;
  const std::int32_t unit = segment_unit(target);
  const bool few_rows = lanes_in_use < resident && lengths.mean >= unit;
  char parallelism[256];
  std::snprintf(parallelism, sizeof parallelism,
                "; row split: %lld rows x %d lanes = %lld lanes %s %lld resident threads (%d SMs x %d), avg row nnz "
                "%.1f %s %d (a segment unit)",
                static_cast<long long>(lengths.rows), plan.threads_per_row, static_cast<long long>(lanes_in_use),
                lanes_in_use < resident ? "<" : ">=", static_cast<long long>(resident), target.sm_count,
                target.threads_per_sm, lengths.mean, lengths.mean >= unit ? ">=" : "<", unit);
  plan.rule += parallelism;
  if (few_rows) {
    plan.kernel = SpmvKernel::csr_row_segments;
    plan.rule += ": every row in segments, a block each";
    return plan;
  }
  plan.kernel = SpmvKernel::csr_vector;
  plan.long_row_limit = static_cast<std::int32_t>(kLongRowShares * lanes.entries_per_lane * plan.threads_per_row);
  plan.rule += ": lanes per row, rows over " + std::to_string(plan.long_row_limit) + " nnz in segments";
  return plan;
}

RowSegmentTable row_segment_table(const CsrMatrix& matrix, const SpmvPlan& plan, const SpmvTarget& target) {
  RowSegmentTable table;
  if (plan.kernel == SpmvKernel::csr_merge_path) return table;
  const bool every_row = plan.kernel == SpmvKernel::csr_row_segments;
  const auto begin = [&](std::int64_t row) { return matrix.row_ptr[static_cast<std::size_t>(row)]; };
  const auto end = [&](std::int64_t row) { return matrix.row_ptr[static_cast<std::size_t>(row) + 1]; };
  std::vector<std::int32_t> rows;
  for (std::int64_t row = 0; row < matrix.rows; ++row)
    if (every_row || end(row) - begin(row) > plan.long_row_limit) {
      rows.push_back(static_cast<std::int32_t>(row));
      table.nonzeros += end(row) - begin(row);
    }
  table.rows = static_cast<std::int64_t>(rows.size());
  table.segment_length = segment_length(table.nonzeros, target);
  for (std::int32_t row : rows) {
    const std::int32_t length = end(row) - begin(row);
    const std::int32_t segments = std::max(1, (length + table.segment_length - 1) / table.segment_length);
    table.most_segments = std::max(table.most_segments, segments);
    std::int32_t ticket = -1;
    if (segments > 1) {
      ticket = static_cast<std::int32_t>(table.ticket_runs.size());
      table.ticket_runs.push_back({static_cast<std::int32_t>(table.segments.size()), segments});
    }
    for (std::int32_t segment = 0; segment < segments; ++segment) {
      const std::int32_t first = begin(row) + segment * table.segment_length;
      table.segments.push_back({row, first, std::min(first + table.segment_length, end(row)), ticket});
    }
  }
  return table;
}

std::string describe(const RowSegmentTable& table) {
  return "segmented_rows=" + std::to_string(table.rows) + " (" + std::to_string(table.segments.size()) +
         " segments of " + std::to_string(table.segment_length) + " nnz, a block each; at most " +
         std::to_string(table.most_segments) + " in a row, joined in segment order by the row's last block)";
}

}  // namespace gpb
