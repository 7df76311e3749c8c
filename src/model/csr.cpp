#include "model/csr.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/random.hpp"

namespace gpb {

std::int64_t CsrMatrix::max_row_length() const {
  std::int64_t longest = 0;
  for (std::size_t row = 0; row + 1 < row_ptr.size(); ++row)
    longest = std::max<std::int64_t>(longest, row_ptr[row + 1] - row_ptr[row]);
  return longest;
}

namespace {

constexpr std::int64_t kMaxIndex = CsrMatrix::kMaxIndex;

// Stream labels under the generator's seed.
enum StreamLabel : std::uint64_t { kRowLengths = 1, kColumns = 2, kValues = 3 };

// Heavy-tailed rows: lengths are a discretised Lomax (Pareto II) law,
// floor(scale * (U^(-1/alpha) - 1)) capped at the column count. powerlaw takes alpha = 2.5:
// the tail is heavy (the longest of a million rows is a few hundred times the mean) yet the
// variance stays finite, so the mean over many rows settles near its target. longtail
// takes alpha = 1.5: infinite variance before the cap, rows ten times longer again, and
// the longest rows hold a visible share of all nonzeros.
constexpr double kPowerLawAlpha = 2.5;
constexpr double kLongTailAlpha = 1.5;

// P(length >= j) for the uncapped law.
double lomax_tail(double alpha, double scale, double j) { return std::pow(1 + j / scale, -alpha); }

// Mean capped row length, sum over j = 1..cap of P(length >= j): exact for the first terms,
// the rest by the integral of the tail.
double lomax_mean(double alpha, double scale, std::int64_t cap) {
  constexpr std::int64_t kExactTerms = 2048;
  const std::int64_t exact = std::min(cap, kExactTerms);
  double mean = 0;
  for (std::int64_t j = 1; j <= exact; ++j) mean += lomax_tail(alpha, scale, static_cast<double>(j));
  if (cap > exact) {
    const auto antiderivative = [alpha, scale](double x) {
      return scale / (alpha - 1) * std::pow(1 + x / scale, 1 - alpha);
    };
    mean += antiderivative(static_cast<double>(exact) + 0.5) - antiderivative(static_cast<double>(cap) + 0.5);
  }
  return mean;
}

// The scale whose capped mean row length is the target (bisection; the mean grows with scale).
double lomax_scale(double alpha, double target_mean, std::int64_t cap) {
  double low = 1e-3;
  double high = 1.0;
  while (lomax_mean(alpha, high, cap) < target_mean && high < 1e15) high *= 2;
  for (int iteration = 0; iteration < 64; ++iteration) {
    const double middle = 0.5 * (low + high);
    (lomax_mean(alpha, middle, cap) < target_mean ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

std::vector<std::int32_t> lomax_lengths(double alpha, std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row,
                                        std::uint64_t length_key) {
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows));
  const double scale = lomax_scale(alpha, static_cast<double>(nnz_per_row), cols);
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    const double uniform_open_low = 1 - unit_interval(random_bits(length_key, static_cast<std::uint64_t>(row)));
    const double drawn = std::floor(scale * (std::pow(uniform_open_low, -1 / alpha) - 1));
    lengths[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(std::min(drawn, static_cast<double>(cols)));
  }
  return lengths;
}

// Contiguous rows: the first column and the length of each row.
struct ColumnRun {
  std::int64_t first_column;
  std::int64_t length;
};

// banded: nnz_per_row diagonals from -(nnz_per_row / 2) up, clipped to the matrix.
ColumnRun banded_row(std::int64_t row, std::int64_t rows, std::int64_t nnz_per_row) {
  const std::int64_t lowest = row - nnz_per_row / 2;
  const std::int64_t first = std::max<std::int64_t>(0, lowest);
  const std::int64_t last = std::min(rows - 1, lowest + nnz_per_row - 1);
  return {first, last - first + 1};
}

// blockdiag: dense nnz_per_row x nnz_per_row blocks on the diagonal; the last one clipped.
ColumnRun block_diagonal_row(std::int64_t row, std::int64_t rows, std::int64_t nnz_per_row) {
  const std::int64_t first = row / nnz_per_row * nnz_per_row;
  return {first, std::min(rows, first + nnz_per_row) - first};
}

// wide and tall: the aspect ratio between rows and columns.
constexpr std::int64_t kAspect = 64;

// skew: the heavy rows hold 7/8 of the nonzeros, each min(cols / 2, 2^20, 7/64 of all)
// long, so that at the sizes the zoo runs (16M nonzeros and more) a handful of rows of 10^5
// to 10^6 entries stand among millions of empty or tiny ones.
constexpr std::int64_t kSkewHeavyEighths = 7;
constexpr std::int64_t kSkewLongestRow = std::int64_t{1} << 20;

struct SkewRows {
  std::int64_t heavy_rows;
  std::int64_t heavy_length;
};

SkewRows skew_rows(std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row) {
  const std::int64_t heavy_total = rows * nnz_per_row * kSkewHeavyEighths / 8;
  const std::int64_t length =
      std::max<std::int64_t>(1, std::min({cols / 2, kSkewLongestRow, heavy_total / 8}));
  return {std::clamp<std::int64_t>(heavy_total / length, 1, rows), length};
}

// The heavy rows (distinct, at random places) get their length; the others are empty with
// probability 1 - p and otherwise uniform on 1..m, with p and m set so that their mean is
// what the heavy rows leave: p = min(1/2, mean), m = 2 mean / p - 1.
std::vector<std::int32_t> skew_lengths(std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row,
                                       std::uint64_t length_key) {
  const SkewRows heavy = skew_rows(rows, cols, nnz_per_row);
  const std::int64_t light_rows = rows - heavy.heavy_rows;
  const double light_mean =
      light_rows > 0 ? static_cast<double>(rows * nnz_per_row - heavy.heavy_rows * heavy.heavy_length) /
                           static_cast<double>(light_rows)
                     : 0;
  const double nonempty = std::clamp(light_mean, 0.0, 0.5);
  const std::int64_t longest_light =
      nonempty > 0 ? std::clamp<std::int64_t>(std::llround(2 * light_mean / nonempty - 1), 1, cols) : 0;
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto draw = static_cast<std::uint64_t>(row) * 2;
    const bool filled = unit_interval(random_bits(length_key, draw)) < nonempty;
    lengths[static_cast<std::size_t>(row)] =
        filled ? static_cast<std::int32_t>(1 + uniform_index(random_bits(length_key, draw + 1),
                                                             static_cast<std::uint64_t>(longest_light)))
               : 0;
  }
  SplitMix64 rng(derive_key(length_key, static_cast<std::uint64_t>(rows)));
  std::vector<std::int64_t> heavy_rows;
  sample_distinct_sorted(heavy.heavy_rows, rows, rng, heavy_rows);
  for (std::int64_t row : heavy_rows) lengths[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(heavy.heavy_length);
  return lengths;
}

// One entry per generated class: its column count, its row lengths and, for classes whose
// rows are runs of neighbouring columns, where each row's run lies (the others draw
// distinct random columns from the whole width). README.md's pattern list describes them.
struct PatternGenerator {
  SpmvPattern pattern;
  std::int64_t (*cols)(std::int64_t rows, std::int64_t nnz_per_row);
  std::vector<std::int32_t> (*lengths)(std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row,
                                       std::uint64_t length_key);
  ColumnRun (*contiguous_row)(std::int64_t row, std::int64_t rows, std::int64_t nnz_per_row);  // null: random columns
  // Classes whose column count follows from nnz per row (fewrows, dense) take rows longer
  // than the row count; the others are refused them.
  bool rows_longer_than_row_count = false;
  std::int64_t max_rows = 0;  // 0: no limit
};

std::int64_t square(std::int64_t rows, std::int64_t) { return rows; }

// fewrows: each row nnz_per_row distinct random columns of nnz_per_row + nnz_per_row / 8
// (rounded up), so about 8 in 9 columns are filled and the gaps fall anywhere; at most
// kFewRowsMax rows (a few rows holding all the work is the point of the class).
constexpr std::int64_t kFewRowsMax = 4096;
std::int64_t few_rows_cols(std::int64_t, std::int64_t nnz_per_row) { return nnz_per_row + (nnz_per_row + 7) / 8; }

// dense: every one of the nnz_per_row columns.
ColumnRun dense_row(std::int64_t, std::int64_t, std::int64_t nnz_per_row) { return {0, nnz_per_row}; }

// Row lengths that are a function of the row alone.
template <std::int32_t (*kLength)(std::int64_t row, std::int64_t rows, std::int64_t nnz_per_row, std::uint64_t key)>
std::vector<std::int32_t> lengths_by_row(std::int64_t rows, std::int64_t, std::int64_t nnz_per_row,
                                         std::uint64_t length_key) {
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row)
    lengths[static_cast<std::size_t>(row)] = kLength(row, rows, nnz_per_row, length_key);
  return lengths;
}

std::int32_t fixed_length(std::int64_t, std::int64_t, std::int64_t nnz_per_row, std::uint64_t) {
  return static_cast<std::int32_t>(nnz_per_row);
}
std::int32_t banded_length(std::int64_t row, std::int64_t rows, std::int64_t nnz_per_row, std::uint64_t) {
  return static_cast<std::int32_t>(banded_row(row, rows, nnz_per_row).length);
}
std::int32_t block_diagonal_length(std::int64_t row, std::int64_t rows, std::int64_t nnz_per_row, std::uint64_t) {
  return static_cast<std::int32_t>(block_diagonal_row(row, rows, nnz_per_row).length);
}
// short: uniform on 0..min(2, nnz_per_row).
std::int32_t short_length(std::int64_t row, std::int64_t, std::int64_t nnz_per_row, std::uint64_t key) {
  const auto choices = static_cast<std::uint64_t>(std::min<std::int64_t>(2, nnz_per_row) + 1);
  return static_cast<std::int32_t>(uniform_index(random_bits(key, static_cast<std::uint64_t>(row)), choices));
}

const PatternGenerator kGenerators[] = {
    {SpmvPattern::random, square, lengths_by_row<fixed_length>, nullptr},
    {SpmvPattern::banded, square, lengths_by_row<banded_length>, banded_row},
    {SpmvPattern::powerlaw, square,
     [](std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row, std::uint64_t key) {
       return lomax_lengths(kPowerLawAlpha, rows, cols, nnz_per_row, key);
     },
     nullptr},
    {SpmvPattern::skew, square, skew_lengths, nullptr},
    {SpmvPattern::short_rows, square, lengths_by_row<short_length>, nullptr},
    {SpmvPattern::block_diagonal, square, lengths_by_row<block_diagonal_length>, block_diagonal_row},
    {SpmvPattern::wide, [](std::int64_t rows, std::int64_t) { return rows * kAspect; }, lengths_by_row<fixed_length>,
     nullptr},
    {SpmvPattern::tall, [](std::int64_t rows, std::int64_t nnz_per_row) { return std::max(nnz_per_row, rows / kAspect); },
     lengths_by_row<fixed_length>, nullptr},
    {SpmvPattern::longtail, square,
     [](std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row, std::uint64_t key) {
       return lomax_lengths(kLongTailAlpha, rows, cols, nnz_per_row, key);
     },
     nullptr},
    {SpmvPattern::few_rows, few_rows_cols, lengths_by_row<fixed_length>, nullptr, true, kFewRowsMax},
    {SpmvPattern::dense, [](std::int64_t, std::int64_t nnz_per_row) { return nnz_per_row; },
     lengths_by_row<fixed_length>, dense_row, true},
};

const PatternGenerator& generator_for(SpmvPattern pattern) {
  for (const PatternGenerator& generator : kGenerators)
    if (generator.pattern == pattern) return generator;
  throw std::invalid_argument("generate_csr: pattern '" + to_string(pattern) + "' is read, not generated");
}

}  // namespace

std::int64_t generated_cols(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern) {
  return generator_for(pattern).cols(rows, nnz_per_row);
}

void validate_generated_size(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern) {
  const PatternGenerator& generator = generator_for(pattern);
  if (rows <= 0) throw UsageError("spmv rows must be positive (got " + std::to_string(rows) + ")");
  if (nnz_per_row <= 0) throw UsageError("spmv nnz per row must be positive (got " + std::to_string(nnz_per_row) + ")");
  if (generator.max_rows > 0 && rows > generator.max_rows)
    throw UsageError("spmv " + to_string(pattern) + " matrices have at most " + std::to_string(generator.max_rows) +
                     " rows (got " + std::to_string(rows) + "; set --rows, or use dense or random for more rows)");
  // A row holds distinct columns: at most the row count in the square patterns (and tall, whose
  // columns are fewer), the column count in wide (64 a row; rows * 64 fits: rows < 2^41).
  if (!generator.rows_longer_than_row_count) {
    const bool wide = pattern == SpmvPattern::wide;
    const std::int64_t most = wide ? generated_cols(rows, nnz_per_row, pattern) : rows;
    if (nnz_per_row > most)
      throw UsageError("spmv nnz per row (" + std::to_string(nnz_per_row) + ") cannot exceed the " +
                       (wide ? "column count (" + std::to_string(most) + ") of a wide matrix of " + std::to_string(rows) +
                                   (rows == 1 ? " row" : " rows")
                             : "row count (" + std::to_string(rows) + ")"));
  }
  if (rows > kMaxIndex || nnz_per_row > kMaxIndex / rows)
    throw UsageError("spmv matrix " + std::to_string(rows) + " rows x " + std::to_string(nnz_per_row) +
                     " nnz/row does not fit 32-bit indices (at most " + std::to_string(kMaxIndex) + " nonzeros)");
  if (generated_cols(rows, nnz_per_row, pattern) > kMaxIndex)
    throw UsageError("spmv " + to_string(pattern) + " matrix of " + std::to_string(rows) + " rows has " +
                     std::to_string(generated_cols(rows, nnz_per_row, pattern)) +
                     " columns, too many for 32-bit indices (at most " + std::to_string(kMaxIndex) + ")");
}

CsrMatrix generate_csr(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern, std::uint64_t seed) {
  const PatternGenerator& generator = generator_for(pattern);
  validate_generated_size(rows, nnz_per_row, pattern);

  CsrMatrix matrix;
  matrix.rows = rows;
  matrix.cols = generator.cols(rows, nnz_per_row);
  const std::vector<std::int32_t> lengths =
      generator.lengths(rows, matrix.cols, nnz_per_row, derive_key(seed, kRowLengths));
  matrix.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  std::int64_t total = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    matrix.row_ptr[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(total);
    total += lengths[static_cast<std::size_t>(row)];
    if (total > kMaxIndex)
      throw UsageError("spmv " + to_string(pattern) + " matrix has more than " + std::to_string(kMaxIndex) +
                       " nonzeros, too many for 32-bit indices");
  }
  matrix.row_ptr.back() = static_cast<std::int32_t>(total);
  matrix.col_idx.resize(static_cast<std::size_t>(total));
  matrix.values.resize(static_cast<std::size_t>(total));

  const std::uint64_t column_key = derive_key(seed, kColumns);
  const std::uint64_t value_key = derive_key(seed, kValues);
  // Every row draws from its own stream, so dynamic scheduling (skewed rows are very
  // uneven) cannot change the result.
#pragma omp parallel
  {
    std::vector<std::int32_t> columns;
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t row = 0; row < rows; ++row) {
      const auto begin = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)]);
      const std::int64_t length = lengths[static_cast<std::size_t>(row)];
      std::int32_t* row_columns = matrix.col_idx.data() + begin;
      if (generator.contiguous_row) {
        const std::int64_t first = generator.contiguous_row(row, rows, nnz_per_row).first_column;
        for (std::int64_t offset = 0; offset < length; ++offset)
          row_columns[offset] = static_cast<std::int32_t>(first + offset);
      } else {
        SplitMix64 rng(derive_key(column_key, static_cast<std::uint64_t>(row)));
        sample_distinct_sorted(length, matrix.cols, rng, columns);
        std::copy(columns.begin(), columns.end(), row_columns);
      }
      for (std::int64_t offset = 0; offset < length; ++offset) {
        const auto position = begin + static_cast<std::size_t>(offset);
        matrix.values[position] = 2 * unit_interval(random_bits(value_key, position)) - 1;
      }
    }
  }
  return matrix;
}

Shape spmv_shape(std::int64_t rows, std::int64_t nnz_per_row, SpmvPattern pattern) {
  Shape s;
  s.rows = rows;
  s.cols = generated_cols(rows, nnz_per_row, pattern);
  s.nnz_per_row = nnz_per_row;
  s.pattern = pattern;
  return s;
}

}  // namespace gpb
