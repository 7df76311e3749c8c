#include "config/run_options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>

#include "base/text.hpp"

namespace gpb {
namespace {

constexpr std::int64_t kMaxSize = std::int64_t{1} << 40;

bool is_size(const std::string& text);

// What a malformed size probably meant, as "did you mean X? " or "": a byte unit (4KB, 1MiB: the
// same power of two), digit separators (1_000, 1'000), a power (2^10), two sizes where a range or
// a list was meant (1K-4K, 1K:4K; 1K 2K), an exponent (1e6) or a fraction (1.5K) that is a whole
// number of elements.
std::string meant_size(const std::string& text, std::size_t digits) {
  std::string plain;
  for (const char c : text)
    if (c != '_' && c != '\'') plain += c;
  if (plain != text && is_size(plain)) return "did you mean '" + plain + "'? ";
  if (const auto caret = text.find('^'); caret != std::string::npos) {
    const std::string base = text.substr(0, caret), power = text.substr(caret + 1);
    if (!base.empty() && !power.empty() && base.size() <= 4 && power.size() <= 2 &&
        base.find_first_not_of("0123456789") == std::string::npos &&
        power.find_first_not_of("0123456789") == std::string::npos) {
      const long double value = std::pow(static_cast<long double>(std::stoi(base)), std::stoi(power));
      if (value >= 1 && value <= static_cast<long double>(kMaxSize))
        return "did you mean " + std::to_string(static_cast<std::int64_t>(value)) + "? ";
    }
  }
  for (const char separator : {'-', ':', ' '}) {
    const auto at = text.find(separator);
    if (at == std::string::npos) continue;
    const std::string first = trim(text.substr(0, at)), second = trim(text.substr(at + 1));
    if (!is_size(first) || !is_size(second)) continue;
    if (separator == ' ') return "did you mean '" + first + "," + second + "'? a list's sizes are separated by commas; ";
    return "did you mean the range '" + first + ".." + second + "'? ";
  }
  std::string suffix = text.substr(digits);
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string number = text.substr(0, digits);
  for (const char* unit : {"K", "M", "G"})
    for (const char* tail : {"B", "IB"})
      if (suffix == std::string(unit) + tail) return "did you mean '" + number + unit + "'? a size counts elements; ";
  // 1e6, 2.5E3, 1.5K: exact in a long double, and a whole number within the limit.
  std::size_t used = 0;
  long double value = 0;
  try {
    value = std::stold(text, &used);
  } catch (const std::exception&) {
    return "";
  }
  std::string rest = text.substr(used);
  int shift = 0;
  if (rest == "K" || rest == "k") shift = 10;
  else if (rest == "M" || rest == "m") shift = 20;
  else if (rest == "G" || rest == "g") shift = 30;
  else if (!rest.empty()) return "";
  value = std::ldexp(value, shift);
  if (!(value >= 1) || value > static_cast<long double>(kMaxSize) || value != std::floor(value)) return "";
  return "did you mean " + std::to_string(static_cast<std::int64_t>(value)) + "? ";
}

bool is_size(const std::string& text) {
  try {
    parse_size(text);
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

}  // namespace

std::int64_t parse_size(const std::string& raw) {
  const std::string text = trim(raw);
  if (text.empty()) throw UsageError("empty size");
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) {
    // "--out" or "-o": the option's value was left out, and the next option read as the size.
    if (text[0] == '-' && text.size() > 1 && (text[1] == '-' || std::isalpha(static_cast<unsigned char>(text[1]))))
      throw UsageError("size '" + text + "' is an option, not a number: the value of the size option before it is missing (e.g. --size 4096)");
    if (text[0] == '-') throw UsageError("size '" + text + "' is negative; sizes must be positive");
    throw UsageError("malformed size '" + text + "' (expected e.g. 4096, 4K, 16M, 1G)");
  }
  if (digits > 15) throw UsageError("size '" + text + "' is absurdly large (limit 2^40)");
  const std::int64_t number = std::stoll(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix.empty()) {
    shift = 0;
  } else if (suffix.size() == 1 && (suffix[0] == 'K' || suffix[0] == 'k')) {
    shift = 10;
  } else if (suffix.size() == 1 && (suffix[0] == 'M' || suffix[0] == 'm')) {
    shift = 20;
  } else if (suffix.size() == 1 && (suffix[0] == 'G' || suffix[0] == 'g')) {
    shift = 30;
  } else if (suffix[0] == 'x' || suffix[0] == 'X') {
    throw UsageError("size '" + text + "' is a shape, and a size is one number (matmul's square n); a matmul shape "
                     "goes in --shape MxNxK (C is MxN, inner K: --shape 4096x4096x4096), a matrix's rows in --rows");
  } else {
    throw UsageError("malformed size '" + text + "' (" + meant_size(text, digits) +
                     "suffixes are K, M, G = 2^10, 2^20, 2^30)");
  }
  if (number == 0) throw UsageError("size '" + text + "' is zero; sizes must be positive");
  if (number > (kMaxSize >> shift)) throw UsageError("size '" + text + "' is absurdly large (limit 2^40)");
  return number << shift;
}

std::vector<std::int64_t> parse_size_list(const std::string& text) {
  std::vector<std::int64_t> sizes;
  const auto items = split_list(text);
  // "1,000": a thousands separator, which reads as the list 1 and 000.
  for (std::size_t i = 1; i < items.size(); ++i)
    if (items[i].size() > 1 && items[i][0] == '0' && std::isdigit(static_cast<unsigned char>(items[i][1])))
      throw UsageError("size list '" + text + "': a comma separates the sizes of a list, so this reads as " +
                       join_words(items) + "; write the number without commas (1000), or with a suffix (1K = 1024)");
  for (const auto& item : items) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(parse_size(item));
      continue;
    }
    // Range: FROM..TO[:xFACTOR | :+STEP], geometric x2 by default. Each part's refusal names
    // the range it is in ("size range '1K..1M:x0': its factor ...").
    const auto in_range = [&item](const std::string& part, const auto& parse) {
      try {
        return parse();
      } catch (const UsageError& error) {
        throw UsageError("size range '" + item + "': its " + part + ": " + error.what() + " (a range is FROM..TO, "
                         "e.g. 1K..1M, 1K..1M:x4 or 1K..8K:+1K)");
      }
    };
    if (item.find("...") != std::string::npos)
      throw UsageError("size range '" + item + "' has three dots; a range is FROM..TO (e.g. 1K..1M)");
    const std::int64_t from = in_range("start", [&] { return parse_size(item.substr(0, dots)); });
    std::string rest = item.substr(dots + 2);
    std::string step = "x2";
    if (const auto colon = rest.find(':'); colon != std::string::npos) {
      step = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
    }
    const std::int64_t to = in_range("end", [&] { return parse_size(rest); });
    if (to < from) throw UsageError("size range '" + item + "' runs backwards");
    if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
      throw UsageError("malformed range step '" + step + "' in '" + item + "' (expected xFACTOR or +STEP)");
    const std::int64_t amount = in_range(step[0] == 'x' ? "factor" : "step", [&] { return parse_size(step.substr(1)); });
    if (step[0] == 'x' && amount < 2) throw UsageError("range factor in '" + item + "' must be at least 2");
    // The next size is only computed when it is still within `to`, so it cannot overflow.
    const std::size_t first = sizes.size();
    for (std::int64_t v = from;;) {
      sizes.push_back(v);
      if (sizes.size() > 10000) throw UsageError("size range '" + item + "' has more than 10000 sizes");
      if (step[0] == 'x' ? v > to / amount : v > to - amount) break;
      v = step[0] == 'x' ? v * amount : v + amount;
    }
    // A range whose first step already passes its end holds only its start: a typo, most likely.
    if (from < to && sizes.size() == first + 1)
      throw UsageError("size range '" + item + "' holds only its start: its step " + step + " passes the end at once");
  }
  if (sizes.empty()) throw UsageError("no sizes in '" + text + "'");
  return sizes;
}

void append_size_list(std::vector<std::int64_t>& sizes, const std::string& text, const std::string& where) {
  const auto parsed = parse_size_list(text);
  if (parsed.size() > kMaxCases - std::min(kMaxCases, sizes.size()))
    throw UsageError(where + ": more than " + std::to_string(kMaxCases) + " sizes in all (a plan holds at most " +
                     std::to_string(kMaxCases) + " cases)");
  sizes.insert(sizes.end(), parsed.begin(), parsed.end());
}

std::vector<std::string> shape_sides(std::string text) {
  for (std::size_t at; (at = text.find("\xC3\x97")) != std::string::npos;) text.replace(at, 2, "x");  // ×
  for (auto& c : text)
    if (c == '*' || c == ',' || c == ';' || c == ':' || c == '/' || c == 'X' || std::isspace(static_cast<unsigned char>(c))) c = 'x';
  auto parts = split_list(text, 'x');
  for (const auto& part : parts) {
    try {
      parse_size(part);
    } catch (const UsageError&) {
      return {};
    }
  }
  return parts;
}

std::string meant_shape(const std::string& text) {
  const auto sides = shape_sides(text);
  if (sides.size() == 3) return "did you mean '" + sides[0] + "x" + sides[1] + "x" + sides[2] + "'? ";
  if (sides.size() == 2)
    return "two sizes, and a shape has three, the inner size k last: e.g. '" + sides[0] + "x" + sides[1] + "x" +
           sides[1] + "'; ";
  if (sides.size() > 3) return std::to_string(sides.size()) + " sizes, and a shape has three (m, n and the inner k); ";
  return "";  // one size: the run's refusal points at --size
}

Shape parse_matmul_shape(const std::string& raw) {
  // 4096X4096X4096 as 4096x4096x4096; an empty side is named (4096x4096x: k: empty size).
  std::string text = raw;
  for (auto& c : text) c = c == 'X' ? 'x' : c;
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find('x', start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (parts.size() != 3 || text.find(',') != std::string::npos)
    throw UsageError("malformed matmul shape '" + raw + "' (" + meant_shape(raw) + "expected MxNxK, e.g. 1000x333x77)");
  // A bad side names itself and the shape: "matmul shape '0x4x4': m: size '0' is zero; ...".
  std::int64_t sides[3];
  const char* names[3] = {"m", "n", "k"};
  for (int i = 0; i < 3; ++i) {
    try {
      sides[i] = parse_size(parts[static_cast<std::size_t>(i)]);
    } catch (const UsageError& error) {
      throw UsageError("matmul shape '" + raw + "' (MxNxK): " + names[i] + ": " + error.what());
    }
  }
  return matmul_shape(sides[0], sides[1], sides[2]);
}

bool sizes_apply(const RunOptions& options) {
  for (Op op : options.ops) {
    switch (shape_kind(op)) {
      case ShapeKind::elements:
        return true;
      case ShapeKind::dense_matrix:
        if (options.matmul_shapes.empty()) return true;
        break;
      case ShapeKind::sparse_matrix:
        if (options.matrix_path.empty() && options.spmv_rows == 0 && (options.ops.size() == 1 || options.sizes.size() > 1))
          return true;
        break;
    }
  }
  return false;
}

}  // namespace gpb
