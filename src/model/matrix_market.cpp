#include "model/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "base/input_file.hpp"

namespace gpb {

namespace {

// Reads a Matrix Market text line by line, in blocks, with the line number at hand for
// error messages: memory holds a block and the line being read, never the whole text. The
// header's declared sizes are checked against the text's length (where it is known) and
// the memory budget before anything is allocated from them.
class MatrixMarketReader {
 public:
  // read(buffer, size) fills up to size bytes and returns how many; 0 at the end.
  using Source = std::function<std::size_t(char*, std::size_t)>;
  // text_bytes: the text's length where it is known (a regular file), else nothing.
  MatrixMarketReader(Source read, std::optional<std::uint64_t> text_bytes, std::string path, std::uint64_t memory_budget)
      : path_(std::move(path)), read_(std::move(read)), text_bytes_(text_bytes), memory_budget_(memory_budget) {}

  CsrMatrix read() {
    skip_byte_order_mark();
    parse_header();
    parse_size();
    parse_entries();
    return assemble();
  }

 private:
  struct Entry {
    std::int32_t row;
    std::int32_t col;
    double value;
  };

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError("matrix file '" + path_ + "': " + problem);
  }
  [[noreturn]] void fail_at_line(const std::string& problem) const {
    fail("line " + std::to_string(line_number_) + ": " + problem);
  }

  // Appends the next block of the text to the buffer, after dropping the lines already
  // read; false at the end of the text.
  bool read_block() {
    if (at_end_) return false;
    buffer_.erase(0, position_);
    consumed_ += position_;
    position_ = 0;
    const std::size_t kept = buffer_.size();
    buffer_.resize(kept + kBlockBytes);
    const std::size_t count = read_(buffer_.data() + kept, kBlockBytes);
    buffer_.resize(kept + count);
    at_end_ = count == 0;
    return !at_end_;
  }

  // Editors on Windows save UTF-8 with a byte order mark.
  void skip_byte_order_mark() {
    constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
    while (buffer_.size() < kUtf8Bom.size() && read_block()) {
    }
    if (std::string_view(buffer_).substr(0, kUtf8Bom.size()) == kUtf8Bom) position_ = kUtf8Bom.size();
  }

  // The next line without its terminator (LF, CRLF or a lone CR); false at the end of the
  // text. The view lasts until the next call. A line longer than kMaxLineBytes is refused:
  // no Matrix Market line is, and /dev/zero would otherwise fill memory with one line.
  bool next_line(std::string_view& line) {
    std::size_t searched = position_;
    for (;;) {
      const std::size_t end = buffer_.find_first_of("\r\n", searched);
      // A CR at the end of the buffer may be the first half of a CRLF.
      const bool complete = end != std::string::npos && (end + 1 < buffer_.size() || buffer_[end] == '\n' || at_end_);
      const bool last = end == std::string::npos && at_end_;
      if (last && position_ >= buffer_.size()) return false;
      const std::size_t line_end = complete ? end : buffer_.size();
      if (line_end - position_ > kMaxLineBytes) {
        ++line_number_;
        fail_at_line("longer than " + describe_bytes(kMaxLineBytes) + " (not a Matrix Market text?)");
      }
      if (complete || last) {
        line = std::string_view(buffer_).substr(position_, line_end - position_);
        position_ = complete ? end + 1 : buffer_.size();
        if (complete && buffer_[end] == '\r' && position_ < buffer_.size() && buffer_[position_] == '\n') ++position_;
        ++line_number_;
        return true;
      }
      // Where to search on from, counted from the first unread byte (read_block moves it to
      // the front): the CR that may start a CRLF, or the start of the new block.
      const std::size_t resume = (end == std::string::npos ? buffer_.size() : end) - position_;
      read_block();
      searched = position_ + resume;
    }
  }

  // The next line that is neither a comment nor blank; false at the end of the text.
  bool next_content_line(std::string_view& line) {
    while (next_line(line)) {
      const std::size_t first = line.find_first_not_of(" \t");
      if (first == std::string_view::npos || line[first] == '%') continue;
      line.remove_prefix(first);
      return true;
    }
    return false;
  }

  static std::vector<std::string_view> split_tokens(std::string_view line) {
    std::vector<std::string_view> tokens;
    std::size_t begin = line.find_first_not_of(" \t");
    while (begin != std::string_view::npos) {
      const std::size_t end = std::min(line.find_first_of(" \t", begin), line.size());
      tokens.push_back(line.substr(begin, end - begin));
      begin = line.find_first_not_of(" \t", end);
    }
    return tokens;
  }

  static std::string lowercase(std::string_view token) {
    std::string lower(token);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
  }

  std::int64_t parse_integer(std::string_view token, const char* what) const {
    if (!token.empty() && token.front() == '+') token.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size())
      fail_at_line(std::string(what) + " '" + std::string(token) + "' is not an integer");
    return value;
  }

  double parse_real(std::string_view token) const {
    if (!token.empty() && token.front() == '+') token.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size())
      fail_at_line("value '" + std::string(token) + "' is not a number");
    if (!std::isfinite(value)) fail_at_line("value '" + std::string(token) + "' is not finite");
    return value;
  }

  void parse_header() {
    std::string_view line;
    if (!next_line(line)) fail("is empty (expected a '%%MatrixMarket' header)");
    const auto tokens = split_tokens(line);
    if (tokens.empty() || lowercase(tokens[0]) != "%%matrixmarket")
      fail_at_line("missing '%%MatrixMarket' header");
    if (tokens.size() != 5)
      fail_at_line("header must read '%%MatrixMarket matrix coordinate <real|integer|pattern> "
                   "<general|symmetric|skew-symmetric>'");
    const std::string object = lowercase(tokens[1]);
    const std::string format = lowercase(tokens[2]);
    const std::string field = lowercase(tokens[3]);
    const std::string symmetry = lowercase(tokens[4]);
    if (object != "matrix") fail_at_line("unsupported object '" + object + "' (only 'matrix')");
    if (format != "coordinate")
      fail_at_line("unsupported format '" + format + "' (only sparse 'coordinate'; 'array' is dense)");
    if (field == "real")
      field_ = Field::real;
    else if (field == "integer")
      field_ = Field::integer;
    else if (field == "pattern")
      field_ = Field::pattern;
    else
      fail_at_line("unsupported field '" + field + "' (supported: real, integer, pattern)");
    if (symmetry == "general") {
      symmetric_ = false;
    } else if (symmetry == "symmetric") {
      symmetric_ = true;
    } else if (symmetry == "skew-symmetric") {
      // A(j, i) = -A(i, j): the strictly lower triangle is stored, the diagonal is zero.
      if (field_ == Field::pattern) fail_at_line("a pattern matrix cannot be skew-symmetric (its values are all 1)");
      symmetric_ = true;
      skew_ = true;
    } else if (symmetry == "hermitian") {
      fail_at_line("symmetry 'hermitian' is for complex matrices (supported: general, symmetric, skew-symmetric)");
    } else {
      fail_at_line("unsupported symmetry '" + symmetry + "' (supported: general, symmetric, skew-symmetric)");
    }
  }

  void parse_size() {
    std::string_view line;
    if (!next_content_line(line)) fail("no size line after the header (expected 'rows cols entries')");
    const auto tokens = split_tokens(line);
    if (tokens.size() != 3) fail_at_line("size line must hold 3 integers: rows cols entries");
    rows_ = parse_integer(tokens[0], "row count");
    cols_ = parse_integer(tokens[1], "column count");
    declared_entries_ = parse_integer(tokens[2], "entry count");
    if (rows_ <= 0 || cols_ <= 0) fail_at_line("matrix must have at least one row and one column");
    if (rows_ > CsrMatrix::kMaxIndex || cols_ > CsrMatrix::kMaxIndex) fail_at_line("dimensions do not fit 32-bit indices");
    if (declared_entries_ < 0) fail_at_line("entry count is negative");
    const std::int64_t stored_limit = symmetric_ ? CsrMatrix::kMaxIndex / 2 : CsrMatrix::kMaxIndex;
    if (declared_entries_ > stored_limit) fail_at_line("too many entries for 32-bit indices");
    if (declared_entries_ > rows_ * cols_)
      fail_at_line(std::to_string(declared_entries_) + " entries cannot fit a " + std::to_string(rows_) + " x " +
                   std::to_string(cols_) + " matrix");
    if (symmetric_ && rows_ != cols_) fail_at_line(std::string("a ") + (skew_ ? "skew-" : "") + "symmetric matrix must be square");
    check_declared_size_fits();
  }

  // The declared counts size the allocations, so a short header must not be able to ask
  // for more than the file holds or the machine has. Each entry line takes at least
  // "r c" (pattern) or "r c v" and a line break, except the last one's break.
  void check_declared_size_fits() const {
    const std::int64_t shortest_entry = field_ == Field::pattern ? 4 : 6;
    const std::uint64_t read_so_far = consumed_ + position_;
    const auto remaining =
        text_bytes_ ? static_cast<std::int64_t>(*text_bytes_ - std::min(*text_bytes_, read_so_far)) : std::int64_t{0};
    if (text_bytes_ && declared_entries_ > (remaining + 1) / shortest_entry)
      fail_at_line("entry count " + std::to_string(declared_entries_) + " cannot fit in the " + std::to_string(remaining) +
                   " bytes that follow (an entry takes at least " + std::to_string(shortest_entry) + ")");
    // Peak memory of parse_entries and assemble: the entries (16 bytes each), then entries
    // sorted by row (16 per stored entry; symmetric ones are stored twice), the row counts
    // and fill positions (8 + 8 per row), row pointers (4 per row), columns and values (12
    // per stored entry).
    const double rows = static_cast<double>(rows_) + 1;
    const double entries = static_cast<double>(declared_entries_);
    const double stored = symmetric_ ? 2 * entries : entries;
    const double while_sorting = 16 * entries + 16 * stored + 16 * rows;
    const double while_assembling = 16 * stored + 20 * rows + 12 * stored;
    const double needed = std::max(while_sorting, while_assembling);
    if (needed > static_cast<double>(memory_budget_)) {
      const bool rows_alone = 20 * rows > static_cast<double>(memory_budget_);
      fail_at_line((rows_alone ? "row count " + std::to_string(rows_) : "entry count " + std::to_string(declared_entries_)) +
                   ": a " + std::to_string(rows_) + " x " + std::to_string(cols_) + " matrix of " +
                   std::to_string(declared_entries_) + " declared entries needs " +
                   describe_bytes(static_cast<std::uint64_t>(needed)) + " of memory to read, more than the " +
                   describe_bytes(memory_budget_) + " available");
    }
  }

  void parse_entries() {
    // A pipe's length is unknown: its entries are counted as they come, not reserved.
    if (text_bytes_) entries_.reserve(static_cast<std::size_t>(declared_entries_));
    const std::size_t expected_tokens = field_ == Field::pattern ? 2 : 3;
    std::string_view line;
    while (next_content_line(line)) {
      if (static_cast<std::int64_t>(entries_.size()) == declared_entries_)
        fail_at_line("more entries than the " + std::to_string(declared_entries_) + " declared");
      const auto tokens = split_tokens(line);
      if (tokens.size() != expected_tokens)
        fail_at_line("expected " + std::to_string(expected_tokens) + " fields (row column" +
                     (field_ == Field::pattern ? "" : " value") + "), found " + std::to_string(tokens.size()));
      const std::int64_t row = parse_integer(tokens[0], "row index");
      const std::int64_t col = parse_integer(tokens[1], "column index");
      if (row < 1 || row > rows_) fail_at_line("row index " + std::to_string(row) + " outside 1.." + std::to_string(rows_));
      if (col < 1 || col > cols_)
        fail_at_line("column index " + std::to_string(col) + " outside 1.." + std::to_string(cols_));
      if (symmetric_ && col > row)
        fail_at_line("entry (" + std::to_string(row) + ", " + std::to_string(col) +
                     ") lies above the diagonal; a " + (skew_ ? "skew-" : "") + "symmetric file stores only the lower triangle");
      if (skew_ && col == row)
        fail_at_line("entry (" + std::to_string(row) + ", " + std::to_string(col) +
                     ") lies on the diagonal; a skew-symmetric file stores only the strictly lower triangle (its "
                     "diagonal is zero)");
      double value = 1;
      if (field_ == Field::real) value = parse_real(tokens[2]);
      if (field_ == Field::integer) value = static_cast<double>(parse_integer(tokens[2], "value"));
      entries_.push_back({static_cast<std::int32_t>(row - 1), static_cast<std::int32_t>(col - 1), value});
    }
    if (static_cast<std::int64_t>(entries_.size()) < declared_entries_)
      fail("ends after " + std::to_string(entries_.size()) + " of the " + std::to_string(declared_entries_) +
           " declared entries (truncated?)");
  }

  // Counting sort by row (mirroring symmetric entries, with the sign changed if
  // skew-symmetric), then per row: sort by column and sum duplicates.
  CsrMatrix assemble() {
    CsrMatrix matrix;
    matrix.rows = rows_;
    matrix.cols = cols_;
    std::vector<std::int64_t> counts(static_cast<std::size_t>(rows_) + 1, 0);
    for (const Entry& entry : entries_) {
      ++counts[static_cast<std::size_t>(entry.row) + 1];
      if (symmetric_ && entry.row != entry.col) ++counts[static_cast<std::size_t>(entry.col) + 1];
    }
    for (std::size_t row = 0; row < static_cast<std::size_t>(rows_); ++row) counts[row + 1] += counts[row];

    std::vector<std::pair<std::int32_t, double>> by_row(static_cast<std::size_t>(counts.back()));
    std::vector<std::int64_t> fill(counts.begin(), counts.end() - 1);
    for (const Entry& entry : entries_) {
      by_row[static_cast<std::size_t>(fill[static_cast<std::size_t>(entry.row)]++)] = {entry.col, entry.value};
      if (symmetric_ && entry.row != entry.col)
        by_row[static_cast<std::size_t>(fill[static_cast<std::size_t>(entry.col)]++)] = {entry.row,
                                                                                           skew_ ? -entry.value : entry.value};
    }
    entries_ = {};

    matrix.row_ptr.resize(static_cast<std::size_t>(rows_) + 1);
    matrix.col_idx.reserve(by_row.size());
    matrix.values.reserve(by_row.size());
    for (std::size_t row = 0; row < static_cast<std::size_t>(rows_); ++row) {
      matrix.row_ptr[row] = static_cast<std::int32_t>(matrix.col_idx.size());
      const auto begin = by_row.begin() + counts[row];
      const auto end = by_row.begin() + counts[row + 1];
      std::stable_sort(begin, end, [](const auto& x, const auto& y) { return x.first < y.first; });
      for (auto entry = begin; entry != end; ++entry) {
        if (matrix.col_idx.size() > static_cast<std::size_t>(matrix.row_ptr[row]) && matrix.col_idx.back() == entry->first)
          matrix.values.back() += entry->second;
        else {
          matrix.col_idx.push_back(entry->first);
          matrix.values.push_back(entry->second);
        }
      }
    }
    matrix.row_ptr.back() = static_cast<std::int32_t>(matrix.col_idx.size());
    return matrix;
  }

  enum class Field { real, integer, pattern };

  static constexpr std::size_t kBlockBytes = std::size_t{1} << 16;
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  std::string path_;
  Source read_;
  std::optional<std::uint64_t> text_bytes_;
  std::uint64_t memory_budget_;
  std::string buffer_;        // the unread part of the text read so far, from position_ on
  std::size_t position_ = 0;  // in buffer_
  std::uint64_t consumed_ = 0;  // bytes of the text before buffer_
  bool at_end_ = false;
  std::int64_t line_number_ = 0;
  Field field_ = Field::real;
  bool symmetric_ = false;  // the lower triangle stored, mirrored into the upper one
  bool skew_ = false;       // mirrored with the sign changed
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  std::int64_t declared_entries_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace

CsrMatrix parse_matrix_market(std::string text, const std::string& path, std::uint64_t memory_budget) {
  std::size_t offset = 0;
  const auto read = [&](char* buffer, std::size_t size) {
    const std::size_t count = std::min(size, text.size() - offset);
    std::copy_n(text.data() + offset, count, buffer);
    offset += count;
    return count;
  };
  return MatrixMarketReader(read, text.size(), path, memory_budget).read();
}

CsrMatrix read_matrix_market(const std::string& path) {
  InputStream file(path, "matrix file");
  const auto read = [&](char* buffer, std::size_t size) { return file.read(buffer, size); };
  const std::optional<std::uint64_t> text_bytes = file.has_size() ? std::optional<std::uint64_t>(file.size()) : std::nullopt;
  return MatrixMarketReader(read, text_bytes, path, available_memory_bytes()).read();
}

}  // namespace gpb
