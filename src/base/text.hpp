// Text helpers every layer shares: lists on the command line and in suites, and numbers
// formatted for people (reports, messages).
#pragma once

#include <string>
#include <vector>

namespace gpb {

// The text without leading and trailing blanks and tabs.
std::string trim(const std::string& text);
// "a, b,,c" -> {"a", "b", "c"}: items split at sep, trimmed, empty ones left out.
std::vector<std::string> split_list(const std::string& text, char sep = ',');

// `value` rounded to `digits` significant digits in fixed notation ("812", "12.3", "0.0456");
// "-" when it is not finite.
std::string format_significant(double value, int digits);
std::string format_seconds(double seconds);   // "812 ns", "12.3 us", "4.56 ms", "1.23 s"
std::string format_rate(double value, const char* unit);  // "123 GB/s", "1.23 TB/s" for unit "B/s"
// A fraction in percent through a printf format: (0.05, "%g%%") -> "5%", (0.123, "%+.1f%%") -> "+12.3%".
std::string format_percent(double fraction, const char* printf_format);
std::string format_short(double value);  // two significant digits: "0.0022", "3.1e-05"

}  // namespace gpb
