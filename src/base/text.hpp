// Text helpers every layer shares: lists on the command line and in suites, and numbers
// formatted for people (reports, messages).
#pragma once

#include <string>
#include <utility>
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

// The candidate nearest `given` by edit distance (insertions, deletions, substitutions and
// swaps of neighbours; letters compared without case, so "F32" finds "f32"), or "" when none
// is near enough to be a likely typo: one edit, or up to a third of the word's length. A word
// of three letters or more that begins exactly one candidate finds it ("rand": "random").
std::string nearest_word(const std::string& given, const std::vector<std::string>& candidates);

// "unknown op 'sine' (did you mean 'sin'? expected one of: sin, sqrt, sum)": the message
// for a word that is none of the accepted ones, with the nearest of them (or of the other
// spellings also accepted, such as aliases) where one is near. `meanings` pairs words that are
// far from every accepted one by spelling but mean one of them ("cold": "flush"); a given word
// found there suggests its meaning.
using WordMeanings = std::vector<std::pair<std::string, std::string>>;
std::string unknown_word_message(const std::string& what, const std::string& given, const std::vector<std::string>& accepted,
                                 const std::vector<std::string>& other_spellings = {}, const WordMeanings& meanings = {});

// "a, b and c"
std::string join_words(const std::vector<std::string>& words, const std::string& last_separator = " and ");

}  // namespace gpb
