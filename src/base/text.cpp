#include "base/text.hpp"

#include <algorithm>
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

}  // namespace gpb
