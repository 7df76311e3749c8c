#include "base/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace gpb {
namespace {

double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const double scale = std::pow(10.0, digits - 1 - magnitude);
  return std::round(value * scale) / scale;
}

// Picks the first unit (smallest first) in which the value, rounded to three significant
// digits, stays below 1000, so 999.96 ns reads "1.00 us" rather than "1000 ns".
template <std::size_t N>
std::string format_in_units(double value, const char* const (&prefixes)[N], double step, const std::string& unit) {
  if (!std::isfinite(value)) return "-";
  double scaled = value;
  std::size_t index = 0;
  while (index + 1 < N && std::fabs(round_significant(scaled, 3)) >= 1000) {
    scaled /= step;
    ++index;
  }
  return format_significant(scaled, 3) + " " + prefixes[index] + unit;
}

}  // namespace

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string> split_list(const std::string& text, char sep) {
  std::vector<std::string> items;
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(sep, start);
    const std::string item = trim(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (!item.empty()) items.push_back(item);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return items;
}

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  const double rounded = round_significant(value, digits);
  int decimals = 0;
  if (rounded != 0) {
    const double magnitude = std::floor(std::log10(std::fabs(value)));
    decimals = digits - 1 - static_cast<int>(magnitude);
    // Rounding can carry into the next decade (9.996 -> 10.0): one decimal fewer then.
    if (std::fabs(rounded) >= std::pow(10.0, magnitude + 1)) --decimals;
    decimals = std::max(decimals, 0);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, rounded);
  return text;
}

std::string format_seconds(double seconds) {
  static const char* const kUnits[] = {"ns", "us", "ms", "s"};
  if (seconds == 0) return "0 s";
  return format_in_units(seconds * 1e9, kUnits, 1000, "");
}

std::string format_rate(double value, const char* unit) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T"};
  return format_in_units(value, kPrefixes, 1000, unit);
}

std::string format_percent(double fraction, const char* printf_format) {
  char text[32];
  std::snprintf(text, sizeof text, printf_format, fraction * 100);
  return text;
}

std::string format_short(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", value);
  return text;
}

namespace {

// Optimal string alignment distance over lower-cased letters.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string nearest_word(const std::string& given, const std::vector<std::string>& candidates) {
  // Longer words take more slips; anything further is a different word, not a typo.
  const std::size_t allowed = std::max<std::size_t>(1, given.size() / 3);
  std::string nearest;
  std::size_t best = allowed + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(given, candidate);
    if (distance < best) {
      best = distance;
      nearest = candidate;
    }
  }
  if (!nearest.empty() || given.size() < 3) return nearest;
  // A word cut short ("rand", "pow"): the one candidate it begins, if only one.
  for (const auto& candidate : candidates) {
    if (candidate.size() <= given.size() || candidate.compare(0, given.size(), given) != 0) continue;
    if (!nearest.empty()) return "";
    nearest = candidate;
  }
  return nearest;
}

std::string join_words(const std::vector<std::string>& words, const std::string& last_separator) {
  std::string joined;
  for (std::size_t i = 0; i < words.size(); ++i)
    joined += (i == 0 ? "" : i + 1 == words.size() ? last_separator : ", ") + words[i];
  return joined;
}

std::string unknown_word_message(const std::string& what, const std::string& given, const std::vector<std::string>& accepted,
                                 const std::vector<std::string>& other_spellings, const WordMeanings& meanings) {
  std::vector<std::string> spellings = accepted;
  spellings.insert(spellings.end(), other_spellings.begin(), other_spellings.end());
  const auto meaning = std::find_if(meanings.begin(), meanings.end(), [&](const auto& entry) { return entry.first == given; });
  const std::string nearest = meaning != meanings.end() ? meaning->second : nearest_word(given, spellings);
  std::string listed;
  for (const auto& word : accepted) listed += (listed.empty() ? "" : ", ") + word;
  return "unknown " + what + " '" + given + "' (" + (nearest.empty() ? "" : "did you mean '" + nearest + "'? ") +
         "expected one of: " + listed + ")";
}

}  // namespace gpb
