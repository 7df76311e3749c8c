#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "model/csr.hpp"

namespace gpb {
namespace {

// Row pointers, sorted distinct in-range columns, values in [-1, 1).
void expect_well_formed(const CsrMatrix& matrix) {
  ASSERT_EQ(matrix.row_ptr.size(), static_cast<std::size_t>(matrix.rows) + 1);
  EXPECT_EQ(matrix.row_ptr.front(), 0);
  EXPECT_EQ(matrix.row_ptr.back(), matrix.nnz());
  ASSERT_EQ(matrix.values.size(), matrix.col_idx.size());
  for (std::int64_t row = 0; row < matrix.rows; ++row) {
    const auto begin = matrix.col_idx.begin() + matrix.row_ptr[static_cast<std::size_t>(row)];
    const auto end = matrix.col_idx.begin() + matrix.row_ptr[static_cast<std::size_t>(row) + 1];
    ASSERT_LE(begin, end) << "row " << row;
    EXPECT_TRUE(std::adjacent_find(begin, end, [](int a, int b) { return a >= b; }) == end) << "row " << row;
    if (begin != end) {
      EXPECT_GE(*begin, 0);
      EXPECT_LT(*(end - 1), matrix.cols);
    }
  }
  for (double value : matrix.values) {
    EXPECT_GE(value, -1.0);
    EXPECT_LT(value, 1.0);
  }
}

std::int64_t row_length(const CsrMatrix& matrix, std::int64_t row) {
  return matrix.row_ptr[static_cast<std::size_t>(row) + 1] - matrix.row_ptr[static_cast<std::size_t>(row)];
}

void expect_usage_error(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern, const std::string& fragment) {
  try {
    generate_csr(rows, nnz_per_row, pattern, 1);
    ADD_FAILURE() << "no UsageError for " << rows << " rows, " << nnz_per_row << " nnz/row";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(Csr, GenerationIsDeterministicFromTheSeed) {
  for (SpmvPattern pattern : generated_patterns()) {
    const CsrMatrix first = generate_csr(4000, 8, pattern, 42);
    const CsrMatrix second = generate_csr(4000, 8, pattern, 42);
    EXPECT_EQ(first.row_ptr, second.row_ptr);
    EXPECT_EQ(first.col_idx, second.col_idx);
    EXPECT_EQ(first.values, second.values);
    const CsrMatrix other = generate_csr(4000, 8, pattern, 43);
    EXPECT_NE(first.values, other.values) << to_string(pattern);
    expect_well_formed(first);
    EXPECT_EQ(first.cols, generated_cols(4000, 8, pattern)) << to_string(pattern);
  }
}

std::vector<std::int64_t> sorted_row_lengths(const CsrMatrix& matrix) {
  std::vector<std::int64_t> lengths;
  for (std::int64_t row = 0; row < matrix.rows; ++row) lengths.push_back(row_length(matrix, row));
  std::sort(lengths.begin(), lengths.end());
  return lengths;
}

// The share of all nonzeros that the longest `fraction` of the rows hold.
double share_of_longest_rows(const CsrMatrix& matrix, double fraction) {
  const std::vector<std::int64_t> lengths = sorted_row_lengths(matrix);
  const auto count = static_cast<std::size_t>(fraction * static_cast<double>(lengths.size()));
  std::int64_t held = 0;
  for (std::size_t i = lengths.size() - count; i < lengths.size(); ++i) held += lengths[i];
  return static_cast<double>(held) / static_cast<double>(matrix.nnz());
}

TEST(Csr, SkewPutsMostNonzerosInAFewHeavyRowsAmongEmptyAndTinyOnes) {
  const std::int64_t rows = 20000;
  const CsrMatrix matrix = generate_csr(rows, 8, SpmvPattern::skew, 3);
  expect_well_formed(matrix);
  EXPECT_NEAR(static_cast<double>(matrix.nnz()), rows * 8.0, rows * 8.0 * 0.02);
  std::int64_t heavy = 0, heavy_nonzeros = 0, empty = 0, longest_light = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t length = row_length(matrix, row);
    if (length >= 1000) {
      ++heavy;
      heavy_nonzeros += length;
    } else {
      empty += length == 0;
      longest_light = std::max(longest_light, length);
    }
  }
  EXPECT_GE(heavy, 1);
  EXPECT_LE(heavy, 32);
  EXPECT_GE(static_cast<double>(heavy_nonzeros), 0.85 * static_cast<double>(matrix.nnz()));
  EXPECT_GT(empty, rows * 2 / 5);
  EXPECT_LE(longest_light, 8);
}

TEST(Csr, SkewHeavyRowsGrowWithTheNonzerosTowardsAMillion) {
  // 1M nonzeros: heavy rows of 7/64 of them, over 10^5 each.
  const std::int64_t rows = std::int64_t{1} << 20;
  const CsrMatrix matrix = generate_csr(rows, 1, SpmvPattern::skew, 9);
  EXPECT_GE(matrix.max_row_length(), 100000);
  EXPECT_LE(matrix.max_row_length(), std::int64_t{1} << 20);
  EXPECT_NEAR(static_cast<double>(matrix.nnz()), static_cast<double>(rows), 0.02 * static_cast<double>(rows));
  EXPECT_GE(share_of_longest_rows(matrix, 16.0 / static_cast<double>(rows)), 0.85);
}

TEST(Csr, ShortRowsHoldZeroToTwoEntriesEachEquallyOften) {
  const std::int64_t rows = 60000;
  const CsrMatrix matrix = generate_csr(rows, 16, SpmvPattern::short_rows, 4);
  expect_well_formed(matrix);
  std::int64_t counts[3] = {0, 0, 0};
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t length = row_length(matrix, row);
    ASSERT_LE(length, 2) << "row " << row;
    ++counts[length];
  }
  for (std::int64_t count : counts) EXPECT_NEAR(static_cast<double>(count), rows / 3.0, rows * 0.02);
  EXPECT_NEAR(static_cast<double>(matrix.nnz()), static_cast<double>(rows), rows * 0.02);
  // One nonzero per row asked for: rows of 0 or 1.
  EXPECT_EQ(generate_csr(1000, 1, SpmvPattern::short_rows, 4).max_row_length(), 1);
}

TEST(Csr, BlockDiagonalRowsFillTheirDiagonalBlock) {
  const CsrMatrix matrix = generate_csr(1000, 16, SpmvPattern::block_diagonal, 5);
  expect_well_formed(matrix);
  EXPECT_EQ(matrix.nnz(), 62 * 16 * 16 + 8 * 8);  // 62 whole blocks, the last clipped to 8 rows
  for (std::int64_t row = 0; row < matrix.rows; ++row) {
    const std::int64_t first = row / 16 * 16;
    const std::int64_t length = std::min<std::int64_t>(16, 1000 - first);
    ASSERT_EQ(row_length(matrix, row), length) << "row " << row;
    for (std::int64_t i = 0; i < length; ++i)
      ASSERT_EQ(matrix.col_idx[static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)] + i)], first + i);
  }
}

TEST(Csr, WideAndTallHaveTheirAspectAndRandomColumnsOverTheWholeWidth) {
  const CsrMatrix wide = generate_csr(4000, 16, SpmvPattern::wide, 6);
  EXPECT_EQ(wide.rows, 4000);
  EXPECT_EQ(wide.cols, 4000 * 64);
  const CsrMatrix tall = generate_csr(64000, 16, SpmvPattern::tall, 6);
  EXPECT_EQ(tall.rows, 64000);
  EXPECT_EQ(tall.cols, 1000);
  for (const CsrMatrix* matrix : {&wide, &tall}) {
    expect_well_formed(*matrix);
    EXPECT_EQ(matrix->nnz(), matrix->rows * 16);
    EXPECT_EQ(matrix->max_row_length(), 16);
    const auto [lowest, highest] = std::minmax_element(matrix->col_idx.begin(), matrix->col_idx.end());
    EXPECT_LT(*lowest, matrix->cols / 100);
    EXPECT_GT(*highest, matrix->cols * 99 / 100);
  }
  // A tall matrix keeps room for nnz_per_row distinct columns.
  EXPECT_EQ(generate_csr(100, 8, SpmvPattern::tall, 6).cols, 8);
}

// fewrows: R rows of exactly nnz_per_row distinct random columns out of nnz_per_row * 9/8
// (rounded up), rows far longer than the row count included; drawn over seeded sizes, from
// one row and one entry up.
TEST(Csr, FewRowsAreNearlyDenseRowsOfRandomColumns) {
  std::vector<std::pair<std::int64_t, std::int64_t>> sizes = {{1, 1}, {1, 7}, {1, 200000}, {4, 50000}, {64, 4096},
                                                              {4096, 3}};
  std::uint64_t state = 17;
  for (int draw = 0; draw < 12; ++draw) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const auto rows = static_cast<std::int64_t>(1 + (state >> 33) % 300);
    const auto nnz_per_row = static_cast<std::int64_t>(1 + (state >> 13) % 20000);
    sizes.emplace_back(rows, nnz_per_row);
  }
  for (const auto& [rows, nnz_per_row] : sizes) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(nnz_per_row));
    const CsrMatrix matrix = generate_csr(rows, nnz_per_row, SpmvPattern::few_rows, 9);
    expect_well_formed(matrix);
    EXPECT_EQ(matrix.rows, rows);
    EXPECT_EQ(matrix.cols, nnz_per_row + (nnz_per_row + 7) / 8);
    EXPECT_EQ(matrix.nnz(), rows * nnz_per_row);
    for (std::int64_t row = 0; row < rows; ++row) ASSERT_EQ(row_length(matrix, row), nnz_per_row) << "row " << row;
  }
  // About 8 of every 9 columns filled, the gaps anywhere in the row: most neighbouring
  // entries are neighbouring columns, and the first and last columns of the row vary.
  const CsrMatrix matrix = generate_csr(64, 8000, SpmvPattern::few_rows, 10);
  std::int64_t neighbours = 0;
  for (std::int64_t row = 0; row < matrix.rows; ++row)
    for (std::int64_t j = matrix.row_ptr[static_cast<std::size_t>(row)] + 1; j < matrix.row_ptr[static_cast<std::size_t>(row) + 1]; ++j)
      neighbours += matrix.col_idx[static_cast<std::size_t>(j)] == matrix.col_idx[static_cast<std::size_t>(j) - 1] + 1;
  EXPECT_NEAR(static_cast<double>(neighbours) / static_cast<double>(matrix.nnz()), 8.0 / 9.0, 0.02);
  std::vector<std::int32_t> first_columns;
  for (std::int64_t row = 0; row < matrix.rows; ++row)
    first_columns.push_back(matrix.col_idx[static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)])]);
  EXPECT_GT(*std::max_element(first_columns.begin(), first_columns.end()), 0);
}

TEST(Csr, DenseRowsHoldEveryColumn) {
  for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 1}, {1, 100000}, {3, 5}, {300, 17}, {17, 300}, {2048, 2048}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const CsrMatrix matrix = generate_csr(rows, cols, SpmvPattern::dense, 11);
    expect_well_formed(matrix);
    EXPECT_EQ(matrix.rows, rows);
    EXPECT_EQ(matrix.cols, cols);
    ASSERT_EQ(matrix.nnz(), rows * cols);
    for (std::int64_t j = 0; j < matrix.nnz(); ++j)
      ASSERT_EQ(matrix.col_idx[static_cast<std::size_t>(j)], j % cols) << "entry " << j;
  }
}

TEST(Csr, LongTailRowsHoldMoreOfTheNonzerosThanPowerLawRows) {
  const std::int64_t rows = 200000;
  const CsrMatrix longtail = generate_csr(rows, 16, SpmvPattern::longtail, 8);
  const CsrMatrix powerlaw = generate_csr(rows, 16, SpmvPattern::powerlaw, 8);
  expect_well_formed(longtail);
  EXPECT_NEAR(static_cast<double>(longtail.nnz()) / static_cast<double>(rows), 16.0, 1.6);
  EXPECT_GT(longtail.max_row_length(), 2 * powerlaw.max_row_length());
  EXPECT_GT(longtail.max_row_length(), 1000 * 16);
  EXPECT_GT(share_of_longest_rows(longtail, 0.01), 0.15);
  EXPECT_LT(share_of_longest_rows(powerlaw, 0.01), 0.15);
  EXPECT_LE(longtail.max_row_length(), rows);
}

TEST(Csr, RandomRowsHaveExactlyNnzPerRowDistinctSortedColumns) {
  const CsrMatrix matrix = generate_csr(20000, 16, SpmvPattern::random, 7);
  EXPECT_EQ(matrix.rows, 20000);
  EXPECT_EQ(matrix.cols, 20000);
  EXPECT_EQ(matrix.nnz(), 20000 * 16);
  expect_well_formed(matrix);
  for (std::int64_t row = 0; row < matrix.rows; ++row) ASSERT_EQ(row_length(matrix, row), 16);
  EXPECT_EQ(matrix.max_row_length(), 16);
}

TEST(Csr, RandomColumnsSpreadOverTheWholeRange) {
  const CsrMatrix matrix = generate_csr(1000, 16, SpmvPattern::random, 3);
  const auto [lowest, highest] = std::minmax_element(matrix.col_idx.begin(), matrix.col_idx.end());
  EXPECT_LT(*lowest, 10);
  EXPECT_GT(*highest, 990);
}

TEST(Csr, FullRowsWhenNnzPerRowEqualsRows) {
  const CsrMatrix matrix = generate_csr(8, 8, SpmvPattern::random, 1);
  expect_well_formed(matrix);
  for (std::int64_t row = 0; row < 8; ++row)
    for (int col = 0; col < 8; ++col) EXPECT_EQ(matrix.col_idx[static_cast<std::size_t>(row * 8 + col)], col);
}

TEST(Csr, BandedRowsAreCentredOnTheDiagonalAndClippedAtTheEdges) {
  const CsrMatrix odd = generate_csr(10, 5, SpmvPattern::banded, 1);
  expect_well_formed(odd);
  const std::int64_t expected_lengths[] = {3, 4, 5, 5, 5, 5, 5, 5, 4, 3};
  for (std::int64_t row = 0; row < 10; ++row) {
    ASSERT_EQ(row_length(odd, row), expected_lengths[row]) << "row " << row;
    const int first = odd.col_idx[static_cast<std::size_t>(odd.row_ptr[static_cast<std::size_t>(row)])];
    EXPECT_EQ(first, std::max<std::int64_t>(0, row - 2)) << "row " << row;
  }
  // An even band has one more diagonal below the main one than above.
  const CsrMatrix even = generate_csr(6, 4, SpmvPattern::banded, 1);
  EXPECT_EQ(even.row_ptr, (std::vector<std::int32_t>{0, 2, 5, 9, 13, 17, 20}));
  EXPECT_EQ(std::vector<std::int32_t>(even.col_idx.begin() + 9, even.col_idx.begin() + 13),
            (std::vector<std::int32_t>{1, 2, 3, 4}));
}

TEST(Csr, PowerLawHasEmptyRowsLongRowsAndTheTargetMean) {
  const std::int64_t rows = 200000;
  const CsrMatrix matrix = generate_csr(rows, 16, SpmvPattern::powerlaw, 11);
  expect_well_formed(matrix);
  std::int64_t empty = 0;
  for (std::int64_t row = 0; row < rows; ++row) empty += row_length(matrix, row) == 0;
  EXPECT_GT(empty, rows / 50);
  EXPECT_GT(matrix.max_row_length(), 30 * 16);
  const double mean = static_cast<double>(matrix.nnz()) / static_cast<double>(rows);
  EXPECT_NEAR(mean, 16.0, 1.6);
}

TEST(Csr, PowerLawMeanHoldsForSmallTargetsAndCapsAtTheColumnCount) {
  const CsrMatrix sparse = generate_csr(100000, 1, SpmvPattern::powerlaw, 5);
  EXPECT_NEAR(static_cast<double>(sparse.nnz()) / 100000.0, 1.0, 0.1);
  const CsrMatrix small = generate_csr(50, 40, SpmvPattern::powerlaw, 5);
  expect_well_formed(small);
  EXPECT_LE(small.max_row_length(), 50);
}

TEST(Csr, EveryClassBuildsTinyMatrices) {
  for (SpmvPattern pattern : generated_patterns())
    for (std::int64_t rows = 1; rows <= 8; ++rows)
      for (std::int64_t nnz_per_row = 1; nnz_per_row <= rows; ++nnz_per_row) {
        const CsrMatrix matrix = generate_csr(rows, nnz_per_row, pattern, 2);
        SCOPED_TRACE(to_string(pattern) + " " + std::to_string(rows) + " x " + std::to_string(nnz_per_row));
        EXPECT_EQ(matrix.rows, rows);
        EXPECT_EQ(matrix.cols, generated_cols(rows, nnz_per_row, pattern));
        expect_well_formed(matrix);
      }
}

TEST(Csr, RejectsSizesThatCannotBeBuilt) {
  expect_usage_error(0, 16, SpmvPattern::random, "rows must be positive");
  expect_usage_error(-5, 16, SpmvPattern::random, "rows must be positive");
  expect_usage_error(100, 0, SpmvPattern::banded, "nnz per row must be positive");
  expect_usage_error(10, 11, SpmvPattern::random, "cannot exceed the row count");
  expect_usage_error(std::int64_t{1} << 20, 4096, SpmvPattern::random, "32-bit indices");
  expect_usage_error(std::int64_t{1} << 32, 1, SpmvPattern::banded, "32-bit indices");
  expect_usage_error(std::int64_t{1} << 26, 1, SpmvPattern::wide, "columns, too many for 32-bit indices");
  expect_usage_error(4097, 16, SpmvPattern::few_rows, "fewrows matrices have at most 4096 rows (got 4097;");
  expect_usage_error(1, std::int64_t{1} << 31, SpmvPattern::dense, "32-bit indices");
  expect_usage_error(2, std::int64_t{1} << 30, SpmvPattern::few_rows, "32-bit indices");
  // A row longer than the row count is what fewrows and dense are for, and wide's rows may be
  // as long as its 64 columns a row; the rest refuse it.
  for (SpmvPattern pattern : generated_patterns()) {
    if (pattern == SpmvPattern::few_rows || pattern == SpmvPattern::dense) {
      EXPECT_EQ(generate_csr(2, 1000, pattern, 1).nnz(), 2000) << to_string(pattern);
    } else if (pattern == SpmvPattern::wide) {
      expect_usage_error(2, 1000, pattern, "cannot exceed the column count (128) of a wide matrix of 2 rows");
      expect_usage_error(1, 65, pattern, "cannot exceed the column count (64) of a wide matrix of 1 row");
      const CsrMatrix wide = generate_csr(2, 128, pattern, 1);  // every column of both rows
      EXPECT_EQ(wide.nnz(), 256);
      expect_well_formed(wide);
      const CsrMatrix one_row = generate_csr(1, 2, pattern, 1);
      EXPECT_EQ(one_row.cols, 64);
      EXPECT_EQ(one_row.nnz(), 2);
      expect_well_formed(one_row);
    } else {
      expect_usage_error(2, 1000, pattern, "cannot exceed the row count");
    }
  }
}

TEST(Csr, NewClassesHaveTheirNames) {
  EXPECT_EQ(to_string(SpmvPattern::few_rows), "fewrows");
  EXPECT_EQ(to_string(SpmvPattern::dense), "dense");
  EXPECT_EQ(parse_pattern("fewrows"), SpmvPattern::few_rows);
  EXPECT_EQ(parse_pattern("dense"), SpmvPattern::dense);
}

}  // namespace
}  // namespace gpb
