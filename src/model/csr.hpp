// CSR sparse matrices and their generation from a seeded pattern (model/matrix_market.hpp
// reads them from files).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model/types.hpp"

namespace gpb {

// Row-major compressed sparse rows with 32-bit indices (what cuSPARSE and Eigen take).
// Column indices are sorted within each row and unique. Values are kept in double;
// a Problem converts them to the case's dtype.
struct CsrMatrix {
  // The most rows, columns and nonzeros that 32-bit indices hold.
  static constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();

  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int32_t> row_ptr;  // rows + 1 entries
  std::vector<std::int32_t> col_idx;  // nnz entries
  std::vector<double> values;         // nnz entries

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
  std::int64_t max_row_length() const;
};

// A rows-row matrix with about rows * nnz_per_row nonzeros, deterministic from seed; its
// column count is generated_cols. The classes (README.md lists them for users):
//   random:    nnz_per_row distinct uniformly random columns per row
//   banded:    a band of nnz_per_row diagonals centred on the main diagonal (clipped at edges)
//   powerlaw:  row lengths drawn from a Lomax (Pareto II) law, alpha 2.5, with mean about
//              nnz_per_row (a few very long rows, many short ones, some empty), random columns
//   skew:      7/8 of the nonzeros in a few heavy rows of min(cols / 2, 2^20, nnz / 8 * 7/8)
//              entries each, the rest in rows that are mostly empty or a few entries long
//   short:     row lengths uniform on 0..min(2, nnz_per_row), random columns (nnz about rows
//              for nnz_per_row >= 2, rows / 2 for 1)
//   blockdiag: dense nnz_per_row x nnz_per_row blocks along the diagonal (the last clipped)
//   wide:      rows x 64 rows, nnz_per_row random columns per row
//   tall:      rows x max(nnz_per_row, rows / 64), nnz_per_row random columns per row
//   longtail:  as powerlaw with alpha 1.5: a tail of infinite variance, capped at the columns
//   fewrows:   rows (1 to 4096) x (nnz_per_row + nnz_per_row / 8), nnz_per_row random columns
//              per row: every row nearly dense, gaps anywhere
//   dense:     rows x nnz_per_row, every entry stored
// nnz is exact for random, wide, tall, fewrows, dense (rows * nnz_per_row), banded and
// blockdiag (less what the edges clip); the others draw row lengths, and their nnz is
// within a few percent of its expectation at a few thousand rows and more.
// Values are uniform in [-1, 1). Throws UsageError on sizes that do not fit 32-bit indices.
CsrMatrix generate_csr(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern, std::uint64_t seed);
// The column count of a generated matrix: rows, except for wide, tall, fewrows and dense.
std::int64_t generated_cols(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern);
// The checks generate_csr makes before it allocates: positive sizes, at most `rows` entries
// per row (except fewrows and dense, whose columns follow from nnz_per_row), at most 4096
// rows for fewrows, 32-bit indices (nonzeros and columns). Throws UsageError; the plan calls
// it before anything runs.
void validate_generated_size(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern);
// The shape of an spmv case on a generated matrix: its rows, generated_cols columns, the
// nonzeros per row and the pattern.
Shape spmv_shape(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern);

}  // namespace gpb
