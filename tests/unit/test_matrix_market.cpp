#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/matrix_market.hpp"
#include "model/problem.hpp"

namespace gpb {
namespace {

std::string data_file(const std::string& name) { return std::string(GPUBENCH_TEST_DATA) + "/" + name; }

// Row-major (row, column, value) listing, for readable expectations.
struct Entry {
  int row;
  int col;
  double value;
  bool operator==(const Entry& other) const { return row == other.row && col == other.col && value == other.value; }
};

std::ostream& operator<<(std::ostream& out, const Entry& entry) {
  return out << "(" << entry.row << ", " << entry.col << ", " << entry.value << ")";
}

std::vector<Entry> entries(const CsrMatrix& matrix) {
  std::vector<Entry> listed;
  for (std::int64_t row = 0; row < matrix.rows; ++row)
    for (auto position = matrix.row_ptr[static_cast<std::size_t>(row)];
         position < matrix.row_ptr[static_cast<std::size_t>(row) + 1]; ++position)
      listed.push_back({static_cast<int>(row), matrix.col_idx[static_cast<std::size_t>(position)],
                        matrix.values[static_cast<std::size_t>(position)]});
  return listed;
}

TEST(MatrixMarket, ReadsGeneralRealWithEmptyRowsAndSummedDuplicates) {
  const CsrMatrix matrix = read_matrix_market(data_file("mm_general.mtx"));
  EXPECT_EQ(matrix.rows, 4);
  EXPECT_EQ(matrix.cols, 5);
  EXPECT_EQ(matrix.row_ptr, (std::vector<std::int32_t>{0, 2, 4, 4, 5}));
  EXPECT_EQ(entries(matrix), (std::vector<Entry>{{0, 0, 1.5}, {0, 4, 0.3}, {1, 0, -1}, {1, 3, -1.5}, {3, 1, 4}}));
}

TEST(MatrixMarket, MirrorsSymmetricOffDiagonalEntries) {
  const CsrMatrix matrix = read_matrix_market(data_file("mm_symmetric.mtx"));
  EXPECT_EQ(matrix.rows, 3);
  EXPECT_EQ(matrix.cols, 3);
  EXPECT_EQ(entries(matrix),
            (std::vector<Entry>{{0, 0, 2}, {0, 1, -1}, {1, 0, -1}, {1, 2, -1}, {2, 1, -1}, {2, 2, 2}}));
}

TEST(MatrixMarket, PatternEntriesAreOne) {
  const CsrMatrix matrix = read_matrix_market(data_file("mm_pattern.mtx"));
  EXPECT_EQ(matrix.rows, 3);
  EXPECT_EQ(matrix.cols, 4);
  EXPECT_EQ(entries(matrix), (std::vector<Entry>{{0, 1, 1}, {1, 1, 1}, {2, 0, 1}, {2, 3, 1}}));
}

TEST(MatrixMarket, ReadsIntegerValues) {
  const CsrMatrix matrix = read_matrix_market(data_file("mm_integer.mtx"));
  EXPECT_EQ(entries(matrix), (std::vector<Entry>{{0, 0, 2}, {0, 2, 7}, {1, 0, -4}}));
}

TEST(MatrixMarket, KeepsEmptyRows) {
  const CsrMatrix matrix = read_matrix_market(data_file("mm_empty_rows.mtx"));
  EXPECT_EQ(matrix.rows, 8);
  EXPECT_EQ(matrix.nnz(), 7);
  EXPECT_EQ(matrix.row_ptr, (std::vector<std::int32_t>{0, 0, 2, 2, 2, 4, 4, 7, 7}));
  EXPECT_EQ(matrix.max_row_length(), 3);
}

TEST(MatrixMarket, CacheParsesEachPathOnce) {
  const auto first = load_matrix_cached(data_file("mm_general.mtx"));
  const auto second = load_matrix_cached(data_file("mm_general.mtx"));
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(first->nnz(), 5);
}

// Malformed inputs are written to a scratch directory, one small file per case, so each
// case's text sits next to the message it must produce.
class MalformedMatrixMarket : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("gpubench_mtx_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string write(const std::string& text) {
    const std::string path = (directory_ / ("case" + std::to_string(files_++) + ".mtx")).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // The message names the file and holds the fragment, on one line.
  static void expect_rejected(const std::string& path, const std::string& fragment) {
    try {
      read_matrix_market(path);
      ADD_FAILURE() << "accepted " << path << ", expected: " << fragment;
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
      EXPECT_NE(message.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }

  void expect_text_rejected(const std::string& text, const std::string& fragment) { expect_rejected(write(text), fragment); }

  std::filesystem::path directory_;
  int files_ = 0;
};

const std::string kGeneralHeader = "%%MatrixMarket matrix coordinate real general\n";

TEST_F(MalformedMatrixMarket, MissingOrUnreadableFile) {
  expect_rejected((directory_ / "absent.mtx").string(), "cannot read matrix file");
  expect_rejected(directory_.string(), "Is a directory");
}

TEST_F(MalformedMatrixMarket, EmptyFileOrMissingHeader) {
  expect_text_rejected("", "is empty");
  expect_text_rejected("3 3 1\n1 1 1.0\n", "line 1: missing '%%MatrixMarket' header");
  expect_text_rejected("% just a comment\n3 3 1\n1 1 1.0\n", "missing '%%MatrixMarket' header");
  expect_text_rejected("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", "header must read");
}

TEST_F(MalformedMatrixMarket, UnsupportedFormats) {
  expect_text_rejected("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "unsupported format 'array'");
  expect_text_rejected("%%MatrixMarket vector coordinate real general\n2 1 1\n1 1 1\n", "unsupported object 'vector'");
  expect_text_rejected("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "unsupported field 'complex'");
  expect_text_rejected("%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n", "unsupported field");
  expect_text_rejected("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
                       "symmetry 'hermitian' is for complex matrices");
  expect_text_rejected("%%MatrixMarket matrix coordinate real antisymmetric\n1 1 1\n1 1 1\n",
                       "unsupported symmetry 'antisymmetric' (supported: general, symmetric, skew-symmetric)");
}

// Skew-symmetric files store the strictly lower triangle; the reader mirrors it negated.
TEST_F(MalformedMatrixMarket, SkewSymmetricIsMirroredNegated) {
  const CsrMatrix matrix = read_matrix_market(
      write("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 1.5\n3 1 -2\n3 2 4\n"));
  EXPECT_EQ(entries(matrix), (std::vector<Entry>{{0, 1, -1.5}, {0, 2, 2}, {1, 0, 1.5}, {1, 2, -4}, {2, 0, -2}, {2, 1, 4}}));
  // Seeded random skew-symmetric matrices (duplicates included): A(j, i) = -A(i, j) and no diagonal.
  std::mt19937_64 random(20261208);
  for (int draw = 0; draw < 20; ++draw) {
    const int n = 2 + static_cast<int>(random() % 40);
    const int stored = static_cast<int>(random() % static_cast<std::uint64_t>(n * (n - 1) / 2 + 1));
    std::ostringstream text;
    text << "%%MatrixMarket matrix coordinate integer skew-symmetric\n" << n << " " << n << " " << stored << "\n";
    for (int e = 0; e < stored; ++e) {
      const int row = 2 + static_cast<int>(random() % static_cast<std::uint64_t>(n - 1));
      const int col = 1 + static_cast<int>(random() % static_cast<std::uint64_t>(row - 1));
      text << row << " " << col << " " << static_cast<int>(random() % 19) - 9 << "\n";
    }
    const CsrMatrix read = read_matrix_market(write(text.str()));
    std::map<std::pair<int, int>, double> dense;
    for (const Entry& entry : entries(read)) {
      EXPECT_NE(entry.row, entry.col) << "draw " << draw;
      dense[{entry.row, entry.col}] = entry.value;
    }
    for (const auto& [at, value] : dense) {
      const auto mirror = dense.find({at.second, at.first});
      ASSERT_NE(mirror, dense.end()) << "draw " << draw;
      EXPECT_EQ(mirror->second, -value) << "draw " << draw;
    }
  }
  expect_text_rejected("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n",
                       "line 3: entry (1, 1) lies on the diagonal; a skew-symmetric file stores only the strictly lower");
  expect_text_rejected("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 2 1\n",
                       "lies above the diagonal; a skew-symmetric file stores only the lower triangle");
  expect_text_rejected("%%MatrixMarket matrix coordinate real skew-symmetric\n2 3 1\n2 1 1\n",
                       "a skew-symmetric matrix must be square");
  expect_text_rejected("%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
                       "a pattern matrix cannot be skew-symmetric");
}

TEST_F(MalformedMatrixMarket, BadSizeLine) {
  expect_text_rejected(kGeneralHeader + "% comment only\n", "no size line");
  expect_text_rejected(kGeneralHeader + "3 3\n", "line 2: size line must hold 3 integers");
  expect_text_rejected(kGeneralHeader + "3 x 1\n1 1 1\n", "line 2: column count 'x' is not an integer");
  expect_text_rejected(kGeneralHeader + "0 3 0\n", "at least one row and one column");
  expect_text_rejected(kGeneralHeader + "3 3 -1\n", "entry count is negative");
  expect_text_rejected(kGeneralHeader + "2 2 5\n", "5 entries cannot fit a 2 x 2 matrix");
  expect_text_rejected(kGeneralHeader + "3000000000 3 1\n1 1 1\n", "32-bit indices");
  expect_text_rejected("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", "must be square");
}

TEST_F(MalformedMatrixMarket, BadCounts) {
  expect_text_rejected(kGeneralHeader + "3 3 3\n1 1 1.000\n2 2 1.000\n", "ends after 2 of the 3 declared entries");
  expect_text_rejected(kGeneralHeader + "3 3 1\n1 1 1\n2 2 1\n", "line 4: more entries than the 1 declared");
}

TEST_F(MalformedMatrixMarket, TruncatedLine) {
  expect_text_rejected(kGeneralHeader + "3 3 2\n1 1 1.0\n2 2", "line 4: expected 3 fields (row column value), found 2");
}

TEST_F(MalformedMatrixMarket, OutOfRangeIndices) {
  expect_text_rejected(kGeneralHeader + "3 3 1\n4 1 1\n", "line 3: row index 4 outside 1..3");
  expect_text_rejected(kGeneralHeader + "3 3 1\n0 1 1\n", "row index 0 outside 1..3");
  expect_text_rejected(kGeneralHeader + "3 3 1\n1 9 1\n", "column index 9 outside 1..3");
  expect_text_rejected("%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", "above the diagonal");
}

TEST_F(MalformedMatrixMarket, NonNumericTokens) {
  expect_text_rejected(kGeneralHeader + "3 3 1\n1 1 abc\n", "line 3: value 'abc' is not a number");
  expect_text_rejected(kGeneralHeader + "3 3 1\n1 1 1.5x\n", "value '1.5x' is not a number");
  expect_text_rejected(kGeneralHeader + "3 3 1\none 1 1\n", "row index 'one' is not an integer");
  expect_text_rejected(kGeneralHeader + "3 3 1\n1 1 inf\n", "is not finite");
  expect_text_rejected("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", "value '1.5' is not an integer");
  expect_text_rejected("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.0\n", "expected 2 fields");
}

TEST_F(MalformedMatrixMarket, AcceptsCarriageReturnsBlankLinesAndMixedCase) {
  const std::string path = write("%%MatrixMarket Matrix Coordinate Real General\r\n% comment\r\n\r\n2 2 2\r\n1 1 1.0\r\n\r\n2 2 -3.5e0\r\n");
  const CsrMatrix matrix = read_matrix_market(path);
  EXPECT_EQ(entries(matrix), (std::vector<Entry>{{0, 0, 1.0}, {1, 1, -3.5}}));
}

// The declared sizes drive allocations, so they are checked before any: against the bytes
// that follow the size line, and against the memory budget.
std::string budget_error_of(const std::string& text, std::uint64_t budget) {
  try {
    parse_matrix_market(text, "m.mtx", budget);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<accepted>";
}

TEST(MatrixMarketBounds, DeclaredEntriesMustFitTheFile) {
  // The file: a header declaring 2^31 - 1 entries made reserve ask for 32 GiB.
  EXPECT_EQ(budget_error_of(kGeneralHeader + "65536 65536 2147483647\n1 1 1\n", std::uint64_t{1} << 40),
            "matrix file 'm.mtx': line 2: entry count 2147483647 cannot fit in the 6 bytes that follow (an entry takes at least 6)");
  // Exactly enough bytes: "1 1 1\n2 2 1" is two real entries (the last without a line break).
  EXPECT_EQ(budget_error_of(kGeneralHeader + "2 2 2\n1 1 1\n2 2 1", 1 << 20), "<accepted>");
  EXPECT_EQ(budget_error_of("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2", 1 << 20), "<accepted>");
  EXPECT_NE(budget_error_of("%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 1\n2 2", 1 << 20)
                .find("entry count 3 cannot fit in the 7 bytes"),
            std::string::npos);
}

TEST(MatrixMarketBounds, DeclaredRowsAndEntriesMustFitTheMemoryBudget) {
  // The 69-byte file declaring 2^31 - 1 rows grew to 24 GB: 20 bytes a row to read.
  EXPECT_EQ(budget_error_of(kGeneralHeader + "2147483647 1 1\n1 1 1\n", std::uint64_t{16} << 30),
            "matrix file 'm.mtx': line 2: row count 2147483647: a 2147483647 x 1 matrix of 1 declared entries needs 40.0 GiB of "
            "memory to read, more than the 16 GiB available");
  // 1000 entries need 32 KB to read: over a 16 KiB budget it is the entries that do not fit.
  std::string text = kGeneralHeader + "40 40 1000\n";
  for (int i = 0; i < 1000; ++i) text += "1 1 1\n";
  EXPECT_NE(budget_error_of(text, 16 * 1024).find("entry count 1000: a 40 x 40 matrix of 1000 declared entries needs"),
            std::string::npos);
  EXPECT_EQ(budget_error_of(text, 1 << 20), "<accepted>");
}

TEST(MatrixMarketBounds, AcceptsAByteOrderMarkAndLoneCarriageReturns) {
  const std::string text = "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\r% comment\r\r2 2 2\r1 1 1.0\r2 2 -3.5\r";
  const CsrMatrix matrix = parse_matrix_market(text, "m.mtx", 1 << 20);
  EXPECT_EQ(entries(matrix), (std::vector<Entry>{{0, 0, 1.0}, {1, 1, -3.5}}));
}

TEST(MatrixMarketBounds, LineNumbersCountLoneCarriageReturns) {
  EXPECT_EQ(budget_error_of("%%MatrixMarket matrix coordinate real general\r3 3 1\r4 1 1.0\r", 1 << 20),
            "matrix file 'm.mtx': line 3: row index 4 outside 1..3");
}

// The text is read in 64 KiB blocks: lines, CRLF pairs and comments that straddle a block's
// end read as they would in one piece. Seeded random texts of many blocks, each line ended
// by LF, CRLF or a lone CR at random, with comments of random length between the entries.
TEST(MatrixMarketBounds, ReadsLinesAcrossBlocksWhateverTheirEnds) {
  const char* const kEnds[] = {"\n", "\r\n", "\r"};
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    const auto end_of_line = [&] { return std::string(kEnds[random() % 3]); };
    const int rows = 100, cols = 80, count = 3000;
    std::string text = "%%MatrixMarket matrix coordinate real general" + end_of_line();
    text += "% " + std::string(random() % 70000, 'c') + end_of_line();
    text += std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(count) + end_of_line();
    std::map<std::pair<int, int>, double> expected;
    for (int i = 0; i < count; ++i) {
      const int row = static_cast<int>(random() % rows), col = static_cast<int>(random() % cols);
      const double value = static_cast<double>(random() % 1000) / 8;  // exact in binary: sums do not round
      expected[{row, col}] += value;
      if (random() % 50 == 0) text += "%" + std::string(random() % 3000, 'x') + end_of_line();
      text += std::to_string(row + 1) + " " + std::to_string(col + 1) + " " + std::to_string(value) + end_of_line();
    }
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(text.size()) + " bytes");
    std::vector<Entry> listed;
    for (const auto& [position, value] : expected) listed.push_back({position.first, position.second, value});
    EXPECT_EQ(entries(parse_matrix_market(text, "m.mtx", 1 << 24)), listed);
  }
}

TEST(MatrixMarketBounds, RefusesALineLongerThanAnyMatrixMarketLine) {
  // /dev/zero, or a binary file: one endless line, refused after 1 MiB instead of filling memory.
  EXPECT_EQ(budget_error_of(std::string((1 << 20) + 2, '\0'), 1 << 30),
            "matrix file 'm.mtx': line 1: longer than 1 MiB (not a Matrix Market text?)");
  EXPECT_EQ(budget_error_of(kGeneralHeader + "% " + std::string(1 << 20, 'c') + "\n1 1 1\n1 1 1\n", 1 << 30),
            "matrix file 'm.mtx': line 2: longer than 1 MiB (not a Matrix Market text?)");
  // A long comment within the bound is read.
  EXPECT_EQ(budget_error_of(kGeneralHeader + "% " + std::string(1000000, 'c') + "\r\n1 1 1\n1 1 1\n", 1 << 30), "<accepted>");
}

}  // namespace
}  // namespace gpb
