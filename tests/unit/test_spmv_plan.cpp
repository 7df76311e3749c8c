// The cuda backend's SpMV selection rule (src/spmv_plan.hpp) and the row-segment tables, on
// the host: the shapes on an H100, the extremes, and seeded random row-length
// distributions checked against what the rule promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "measure/spmv_plan.hpp"
#include "model/csr.hpp"

namespace gpb {
namespace {

// An H100: 132 SMs of 2048 resident threads.
SpmvTarget h100(DType dtype) {
  SpmvTarget target;
  target.value_bytes = dtype_size(dtype);
  target.vector_loads = dtype == DType::f32 || dtype == DType::f64;
  target.sm_count = 132;
  target.threads_per_sm = 2048;
  return target;
}

// Row lengths that are all alike.
RowLengthStats uniform_rows(std::int64_t rows, std::int64_t length) {
  RowLengthStats lengths;
  lengths.rows = rows;
  lengths.nnz = rows * length;
  lengths.mean = static_cast<double>(length);
  lengths.longest = length;
  return lengths;
}

// A matrix of the given row lengths; columns 0, 1, 2, ... in each row (contiguous).
CsrMatrix matrix_of_lengths(const std::vector<std::int32_t>& lengths) {
  CsrMatrix matrix;
  matrix.rows = static_cast<std::int64_t>(lengths.size());
  matrix.row_ptr.push_back(0);
  for (std::int32_t length : lengths) {
    for (std::int32_t j = 0; j < length; ++j) matrix.col_idx.push_back(j);
    matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
    matrix.cols = std::max<std::int64_t>(matrix.cols, length);
  }
  matrix.values.assign(matrix.col_idx.size(), 1.0);
  return matrix;
}

SpmvPlan automatic(const RowLengthStats& lengths, DType dtype, bool contiguous = false) {
  return plan_spmv(lengths, contiguous, h100(dtype), SpmvKernelChoice::automatic);
}

TEST(SpmvPlan, FewRowsOfManyNonzerosGoToTheRowSegments) {
  // The matrices: 1 row of 2M, 4 rows of 500K, 64 rows of 32K, 2048 x 2048 dense.
  for (const auto& [rows, length] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 2'000'000}, {4, 500'000}, {64, 32'768}, {2048, 2048}})
    for (DType dtype : all_dtypes()) {
      const SpmvPlan plan = automatic(uniform_rows(rows, length), dtype, true);
      SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(length) + " " + to_string(dtype) + ": " + plan.rule);
      EXPECT_EQ(plan.kernel, SpmvKernel::csr_row_segments);
      EXPECT_FALSE(plan.forced);
      EXPECT_NE(plan.rule.find("not skewed"), std::string::npos);
      EXPECT_NE(plan.rule.find(" resident threads (132 SMs x 2048)"), std::string::npos);
      EXPECT_NE(plan.rule.find("every row in segments"), std::string::npos);
    }
  const SpmvPlan dot = automatic(uniform_rows(1, 2'000'000), DType::f32);
  EXPECT_NE(dot.rule.find("row split: 1 rows x 32 lanes = 32 lanes < 270336 resident threads (132 SMs x 2048), avg "
                          "row nnz 2000000.0 >= 1024 (a segment unit): every row in segments"),
            std::string::npos)
      << dot.rule;
}

TEST(SpmvPlan, TheZooClassesKeepTheirKernels) {
  // random 1M x 16: lanes, 16-byte loads, long rows over 32 x 4 x 4 entries.
  const SpmvPlan random = automatic(uniform_rows(1 << 20, 16), DType::f32);
  EXPECT_EQ(random.kernel, SpmvKernel::csr_vector);
  EXPECT_EQ(random.threads_per_row, 4);
  EXPECT_TRUE(random.vector_loads);
  EXPECT_EQ(random.long_row_limit, 512);
  EXPECT_NE(random.rule.find(">= 270336 resident threads"), std::string::npos) << random.rule;
  // f64 with 16-byte loads: 2 entries a lane.
  const SpmvPlan random64 = automatic(uniform_rows(1 << 20, 16), DType::f64);
  EXPECT_EQ(random64.threads_per_row, 8);
  EXPECT_EQ(random64.long_row_limit, 512);
  // Banded (contiguous columns): one entry a lane a step, 4 entries a lane.
  const SpmvPlan banded = automatic(uniform_rows(1 << 20, 16), DType::f64, true);
  EXPECT_EQ(banded.kernel, SpmvKernel::csr_vector);
  EXPECT_EQ(banded.threads_per_row, 4);
  EXPECT_FALSE(banded.vector_loads);
  // wide 256K x 64 and 1M x 16 in 16-bit: lanes, no 16-byte loads.
  EXPECT_EQ(automatic(uniform_rows(1 << 18, 64), DType::f32).threads_per_row, 16);
  const SpmvPlan half = automatic(uniform_rows(1 << 20, 16), DType::f16);
  EXPECT_EQ(half.kernel, SpmvKernel::csr_vector);
  EXPECT_FALSE(half.vector_loads);
  // short rows (mean 1): a thread a row, rows over 128 entries in segments.
  const SpmvPlan scalar = automatic(uniform_rows(24 << 20, 1), DType::f32);
  EXPECT_EQ(scalar.kernel, SpmvKernel::csr_scalar);
  EXPECT_EQ(scalar.threads_per_row, 1);
  EXPECT_EQ(scalar.long_row_limit, 128);
  // Skewed rows: the merge path, in every dtype, by the same rule and with the same words.
  RowLengthStats powerlaw = uniform_rows(1 << 20, 16);
  powerlaw.variation = 2.35;
  powerlaw.longest = 22150;
  for (DType dtype : all_dtypes()) {
    const SpmvPlan plan = automatic(powerlaw, dtype);
    EXPECT_EQ(plan.kernel, SpmvKernel::csr_merge_path) << to_string(dtype);
    EXPECT_FALSE(plan.forced);
    EXPECT_EQ(plan.rule, "merge_path when row_nnz_cv > 1 and max/avg row nnz > 8 (here 2.35 and 1384.4: skewed)")
        << to_string(dtype);
  }
  // Just under either bound: the row split, in every dtype.
  RowLengthStats edge = powerlaw;
  edge.variation = 1.0;
  for (DType dtype : all_dtypes()) EXPECT_NE(automatic(edge, dtype).kernel, SpmvKernel::csr_merge_path);
  edge = powerlaw;
  edge.longest = 8 * 16;
  for (DType dtype : all_dtypes()) EXPECT_NE(automatic(edge, dtype).kernel, SpmvKernel::csr_merge_path);
}

TEST(SpmvPlan, ForcedChoicesAreObeyedAndSaySo) {
  const RowLengthStats dense = uniform_rows(64, 32768);
  const SpmvPlan merge = plan_spmv(dense, true, h100(DType::f32), SpmvKernelChoice::merge_path);
  EXPECT_EQ(merge.kernel, SpmvKernel::csr_merge_path);
  EXPECT_TRUE(merge.forced);
  const SpmvPlan split = plan_spmv(dense, true, h100(DType::f32), SpmvKernelChoice::row_split);
  EXPECT_EQ(split.kernel, SpmvKernel::csr_row_segments);
  EXPECT_TRUE(split.forced);
  RowLengthStats skewed = uniform_rows(100000, 16);
  skewed.variation = 3;
  skewed.longest = 5000;
  const SpmvPlan skewed_split = plan_spmv(skewed, false, h100(DType::f32), SpmvKernelChoice::row_split);
  EXPECT_EQ(skewed_split.kernel, SpmvKernel::csr_vector);
  EXPECT_TRUE(skewed_split.forced);
}

// The edges of each condition: the scalar mean, the segment unit, the device's resident
// threads, the skew thresholds; empty and one-entry matrices.
TEST(SpmvPlan, Extremes) {
  EXPECT_EQ(automatic(uniform_rows(1, 0), DType::f32).kernel, SpmvKernel::csr_scalar);
  EXPECT_EQ(automatic(uniform_rows(1, 1), DType::f32).kernel, SpmvKernel::csr_scalar);
  EXPECT_EQ(automatic(uniform_rows(3000, 0), DType::f64).kernel, SpmvKernel::csr_scalar);
  RowLengthStats mean_under_scalar = uniform_rows(2, 1);
  mean_under_scalar.mean = 1.49;
  EXPECT_EQ(automatic(mean_under_scalar, DType::f32).kernel, SpmvKernel::csr_scalar);
  mean_under_scalar.mean = 1.5;
  EXPECT_EQ(automatic(mean_under_scalar, DType::f32).kernel, SpmvKernel::csr_vector);
  // One row a unit long (256 threads x 4 floats): segments; one entry short of it: lanes.
  EXPECT_EQ(automatic(uniform_rows(1, 1024), DType::f32).kernel, SpmvKernel::csr_row_segments);
  EXPECT_EQ(automatic(uniform_rows(1, 1023), DType::f32).kernel, SpmvKernel::csr_vector);
  EXPECT_EQ(automatic(uniform_rows(1, 512), DType::f64).kernel, SpmvKernel::csr_row_segments);
  EXPECT_EQ(automatic(uniform_rows(1, 2047), DType::bf16).kernel, SpmvKernel::csr_vector);
  EXPECT_EQ(automatic(uniform_rows(1, 2048), DType::bf16).kernel, SpmvKernel::csr_row_segments);
  // rows x 32 lanes against 270336 resident threads: 8448 rows fill them exactly.
  EXPECT_EQ(automatic(uniform_rows(8447, 5000), DType::f32).kernel, SpmvKernel::csr_row_segments);
  EXPECT_EQ(automatic(uniform_rows(8448, 5000), DType::f32).kernel, SpmvKernel::csr_vector);
  // A one-SM device is filled by 64 rows of 32 lanes; their rows of 32K are still long rows.
  SpmvTarget small = h100(DType::f32);
  small.sm_count = 1;
  const SpmvPlan one_sm = plan_spmv(uniform_rows(64, 32768), true, small, SpmvKernelChoice::automatic);
  EXPECT_EQ(one_sm.kernel, SpmvKernel::csr_vector);
  EXPECT_LT(one_sm.long_row_limit, 32768);
  // Skew: both thresholds strictly.
  RowLengthStats edge = uniform_rows(1000, 10);
  edge.variation = 1.0;
  edge.longest = 1000;
  EXPECT_NE(automatic(edge, DType::f32).kernel, SpmvKernel::csr_merge_path);
  edge.variation = 1.01;
  EXPECT_EQ(automatic(edge, DType::f32).kernel, SpmvKernel::csr_merge_path);
  edge.longest = 80;
  EXPECT_NE(automatic(edge, DType::f32).kernel, SpmvKernel::csr_merge_path);
}

// One to 4 units (f64: 8, so that a thread takes 16 entries in every dtype but 16-bit).
TEST(SpmvPlan, SegmentLengthFillsTheDeviceWithinOneToFourUnits) {
  const SpmvTarget target = h100(DType::f32);  // unit 1024, 528 blocks wanted
  EXPECT_EQ(segment_unit(target), 1024);
  EXPECT_EQ(segment_unit(h100(DType::f64)), 512);
  EXPECT_EQ(segment_unit(h100(DType::f16)), 2048);
  EXPECT_EQ(segment_length(0, target), 1024);
  EXPECT_EQ(segment_length(1, target), 1024);
  EXPECT_EQ(segment_length(528 * 1024, target), 1024);
  EXPECT_EQ(segment_length(528 * 1024 + 1, target), 2048);
  EXPECT_EQ(segment_length(2'000'000, target), 4096);
  EXPECT_EQ(segment_length(std::int64_t{1} << 31, target), 4096);
  EXPECT_EQ(segment_length(2'000'000, h100(DType::f64)), 4096);
  EXPECT_EQ(segment_length(528 * 512 * 3, h100(DType::f64)), 1536);
  EXPECT_EQ(segment_length(std::int64_t{1} << 31, h100(DType::bf16)), 8192);
}

TEST(SpmvPlan, RowDetailsAreComputedFromTheMatrix) {
  const CsrMatrix matrix = matrix_of_lengths({0, 3, 1, 0, 8});
  const RowLengthStats lengths = row_length_stats(matrix);
  EXPECT_EQ(lengths.rows, 5);
  EXPECT_EQ(lengths.nnz, 12);
  EXPECT_EQ(lengths.longest, 8);
  EXPECT_DOUBLE_EQ(lengths.mean, 2.4);
  const double variance = (0 + 9 + 1 + 0 + 64) / 5.0 - 2.4 * 2.4;
  EXPECT_NEAR(lengths.variation, std::sqrt(variance) / 2.4, 1e-12);
  EXPECT_TRUE(columns_are_contiguous(matrix));
  EXPECT_FALSE(columns_are_contiguous(matrix_of_lengths({1, 0, 1})));
  CsrMatrix scattered = matrix_of_lengths({4});
  scattered.col_idx = {0, 5, 9, 12};
  EXPECT_FALSE(columns_are_contiguous(scattered));
}

// What the row-segment kernel relies on: every row it takes is covered by its segments,
// in order, none longer than the segment length; a row of several segments has a ticket
// naming exactly them; every row it leaves is one the lanes or thread take (at most the
// long-row limit).
void expect_covering_segments(const CsrMatrix& matrix, const SpmvPlan& plan, const RowSegmentTable& table) {
  std::vector<char> taken(static_cast<std::size_t>(matrix.rows), 0);
  std::int64_t nonzeros = 0;
  for (std::size_t s = 0; s < table.segments.size();) {
    const RowSegment& first = table.segments[s];
    const std::int32_t row = first.row;
    ASSERT_FALSE(taken[static_cast<std::size_t>(row)]) << "row " << row << " listed twice";
    taken[static_cast<std::size_t>(row)] = 1;
    std::int32_t position = matrix.row_ptr[static_cast<std::size_t>(row)];
    std::size_t count = 0;
    for (; s + count < table.segments.size() && table.segments[s + count].row == row; ++count) {
      const RowSegment& segment = table.segments[s + count];
      ASSERT_EQ(segment.begin, position) << "row " << row;
      ASSERT_LE(segment.end - segment.begin, table.segment_length);
      ASSERT_EQ(segment.ticket, first.ticket);
      position = segment.end;
    }
    ASSERT_EQ(position, matrix.row_ptr[static_cast<std::size_t>(row) + 1]) << "row " << row;
    if (count == 1) {
      ASSERT_EQ(first.ticket, -1);
    } else {
      ASSERT_GE(first.ticket, 0);
      const TicketRun run = table.ticket_runs[static_cast<std::size_t>(first.ticket)];
      ASSERT_EQ(run.first_segment, static_cast<std::int32_t>(s));
      ASSERT_EQ(run.segments, static_cast<std::int32_t>(count));
      // All but the last segment full.
      for (std::size_t i = 0; i + 1 < count; ++i)
        ASSERT_EQ(table.segments[s + i].end - table.segments[s + i].begin, table.segment_length);
    }
    nonzeros += position - matrix.row_ptr[static_cast<std::size_t>(row)];
    s += count;
  }
  EXPECT_EQ(nonzeros, table.nonzeros);
  for (std::int64_t row = 0; row < matrix.rows; ++row) {
    const std::int64_t length =
        matrix.row_ptr[static_cast<std::size_t>(row) + 1] - matrix.row_ptr[static_cast<std::size_t>(row)];
    if (plan.kernel == SpmvKernel::csr_row_segments)
      EXPECT_TRUE(taken[static_cast<std::size_t>(row)]) << "row " << row;
    else
      EXPECT_EQ(taken[static_cast<std::size_t>(row)] != 0, length > plan.long_row_limit) << "row " << row;
  }
}

// Seeded random matrices: a log-uniform row count (1 to 64K) and mean row length (1 to 64K
// entries, within 1M nonzeros on average), lengths either alike, drawn uniformly around the mean, or
// mostly short with a few rows 10-1000 times the mean; each dtype, each choice. Whatever the
// rule picks, it keeps its promises: the merge path only where it is asked for or the rows
// are skewed; a thread a row only below 1.5 entries; a row split that cannot fill the
// device's resident threads only where rows are shorter than a segment unit; the segment
// tables cover what they should; and the rule text carries this matrix's numbers.
TEST(SpmvPlan, RandomRowLengthDistributionsKeepTheRulesPromises) {
  SplitMix64 rng(20250131);
  const auto uniform = [&rng] { return unit_interval(rng.next()); };
  for (int draw = 0; draw < 150; ++draw) {
    const auto rows = static_cast<std::int64_t>(std::exp2(uniform() * 16));
    const double mean = std::min(std::exp2(uniform() * 16), 1.0 * (1 << 20) / static_cast<double>(rows));
    const int shape = static_cast<int>(uniform() * 3);
    std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows));
    for (auto& length : lengths) {
      double drawn = mean;
      if (shape == 1) drawn = mean * 2 * uniform();
      if (shape == 2) drawn = uniform() < 0.01 ? mean * std::exp2(3.3 + uniform() * 6.7) : mean * uniform() * 0.5;
      length = static_cast<std::int32_t>(std::min(drawn, 1.0 * (1 << 20)));
    }
    const CsrMatrix matrix = matrix_of_lengths(lengths);
    const RowLengthStats stats = row_length_stats(matrix);
    for (DType dtype : all_dtypes())
      for (SpmvKernelChoice choice : {SpmvKernelChoice::automatic, SpmvKernelChoice::row_split, SpmvKernelChoice::merge_path}) {
        const SpmvTarget target = h100(dtype);
        const bool contiguous = draw % 2 == 0;
        const SpmvPlan plan = plan_spmv(stats, contiguous, target, choice);
        SCOPED_TRACE("draw " + std::to_string(draw) + " " + std::to_string(rows) + " rows, mean " +
                     std::to_string(stats.mean) + ", " + to_string(dtype) + " " + to_string(choice) + ": " + plan.rule);
        const double longest_over_mean = stats.mean > 0 ? static_cast<double>(stats.longest) / stats.mean : 0;
        const bool skewed = stats.variation > 1 && longest_over_mean > 8;
        EXPECT_EQ(plan.forced, choice != SpmvKernelChoice::automatic);
        EXPECT_EQ(plan.kernel == SpmvKernel::csr_merge_path,
                  choice == SpmvKernelChoice::merge_path ||
                      (choice == SpmvKernelChoice::automatic && skewed));
        char numbers[64];
        std::snprintf(numbers, sizeof numbers, "(here %.2f and %.1f: ", stats.variation, longest_over_mean);
        EXPECT_NE(plan.rule.find(numbers), std::string::npos);
        if (plan.kernel == SpmvKernel::csr_merge_path) continue;
        EXPECT_EQ(plan.kernel == SpmvKernel::csr_scalar, stats.mean < 1.5);
        const std::int64_t resident = std::int64_t{target.sm_count} * target.threads_per_sm;
        if (plan.kernel == SpmvKernel::csr_vector) {
          EXPECT_TRUE(plan.threads_per_row >= 2 && plan.threads_per_row <= 32 &&
                      (plan.threads_per_row & (plan.threads_per_row - 1)) == 0);
          EXPECT_TRUE(stats.rows * plan.threads_per_row >= resident || stats.mean < segment_unit(target));
          EXPECT_GE(plan.long_row_limit, 32 * 2 * plan.threads_per_row);
        }
        if (plan.kernel == SpmvKernel::csr_row_segments) {
          EXPECT_LT(stats.rows * plan.threads_per_row, resident);
          EXPECT_GE(stats.mean, segment_unit(target));
        }
        const RowSegmentTable table = row_segment_table(matrix, plan, target);
        EXPECT_GE(table.segment_length, segment_unit(target));
        EXPECT_LE(table.segment_length, SpmvSegmentBlock::max_vectors_per_thread(target.value_bytes) * segment_unit(target));
        EXPECT_EQ(table.segment_length % segment_unit(target), 0);
        expect_covering_segments(matrix, plan, table);
      }
  }
}

TEST(SpmvPlan, RowSegmentTablesOfTheExtremes) {
  const SpmvTarget target = h100(DType::f32);
  // One empty row: one empty segment, so that it is written.
  const CsrMatrix empty = matrix_of_lengths({0});
  SpmvPlan every_row;
  every_row.kernel = SpmvKernel::csr_row_segments;
  RowSegmentTable table = row_segment_table(empty, every_row, target);
  ASSERT_EQ(table.segments.size(), 1u);
  EXPECT_EQ(table.segments[0].begin, table.segments[0].end);
  EXPECT_EQ(table.segments[0].ticket, -1);
  EXPECT_TRUE(table.ticket_runs.empty());
  // One row of 2M: 489 segments of 4096, the last 1152 long, one ticket.
  const CsrMatrix dot = matrix_of_lengths({2'000'000});
  table = row_segment_table(dot, every_row, target);
  EXPECT_EQ(table.segment_length, 4096);
  EXPECT_EQ(table.segments.size(), 489u);
  EXPECT_EQ(table.segments.back().end - table.segments.back().begin, 2'000'000 - 488 * 4096);
  ASSERT_EQ(table.ticket_runs.size(), 1u);
  EXPECT_EQ(table.ticket_runs[0].segments, 489);
  EXPECT_EQ(table.most_segments, 489);
  expect_covering_segments(dot, every_row, table);
  EXPECT_EQ(describe(table),
            "segmented_rows=1 (489 segments of 4096 nnz, a block each; at most 489 in a row, joined in segment order "
            "by the row's last block)");
  // The merge path takes no segments; the lanes only the long rows.
  SpmvPlan merge;
  merge.kernel = SpmvKernel::csr_merge_path;
  EXPECT_TRUE(row_segment_table(dot, merge, target).segments.empty());
  SpmvPlan lanes;
  lanes.kernel = SpmvKernel::csr_vector;
  lanes.long_row_limit = 100;
  const CsrMatrix mixed = matrix_of_lengths({5, 101, 100, 0, 5000});
  table = row_segment_table(mixed, lanes, target);
  EXPECT_EQ(table.rows, 2);
  EXPECT_EQ(table.nonzeros, 5101);
  expect_covering_segments(mixed, lanes, table);
}

}  // namespace
}  // namespace gpb
