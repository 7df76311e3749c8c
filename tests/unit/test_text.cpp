// The "did you mean" rule (nearest_word) on named examples, on seeded random typos of the
// words the command line takes, and at the extremes; the messages built on it; the hints for
// sizes written as shapes or with thousands separators; the dtype aliases.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/case_selection.hpp"
#include "base/random.hpp"
#include "base/text.hpp"
#include "config/run_options.hpp"
#include "model/types.hpp"
#include "usage_error_of.hpp"

namespace gpb {
namespace {

using testing::usage_error_of;

// The words a user types most: commands, options, ops, backends, dtypes and patterns.
const std::vector<std::string> kVocabulary = {
    "run",       "list",     "info",      "compare",  "history",  "report",  "merge",   "completion", "ingest",
    "show",      "export",   "check",     "--size",   "--shape",  "--rows",  "--op",    "--backend",  "--dtype",
    "--timing",  "--config", "--out",     "--format", "--quiet",  "--seed",  "--db",    "--tag",      "--threshold",
    "--baseline", "sin",     "sqrt",      "sum",      "matmul",   "spmv",    "eigen",   "openblas",   "cuda",
    "cublas",    "cub",      "cusparse",  "f32",      "f64",      "f16",     "bf16",    "random",     "banded",
    "powerlaw",  "skew",     "short",     "blockdiag", "wide",    "tall",    "longtail"};

// The optimal string alignment distance, written out plainly for the test.
std::size_t reference_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const char x = static_cast<char>(std::tolower(a[i - 1])), y = static_cast<char>(std::tolower(b[j - 1]));
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x == y ? 0 : 1)});
      if (i > 1 && j > 1 && x == std::tolower(b[j - 2]) && std::tolower(a[i - 2]) == y) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// One random slip: a letter dropped, doubled, replaced, or two neighbours swapped.
std::string typo(const std::string& word, SplitMix64& rng) {
  std::string typed = word;
  const std::size_t at = uniform_index(rng.next(), word.size());
  const char letter = static_cast<char>('a' + uniform_index(rng.next(), 26));
  switch (uniform_index(rng.next(), 4)) {
    case 0:
      typed.erase(at, 1);
      break;
    case 1:
      typed.insert(at, 1, typed[at]);
      break;
    case 2:
      typed[at] = letter;
      break;
    default:
      if (at + 1 < typed.size()) std::swap(typed[at], typed[at + 1]);
  }
  return typed;
}

TEST(NearestWord, NamedExamples) {
  EXPECT_EQ(nearest_word("runn", kVocabulary), "run");
  EXPECT_EQ(nearest_word("--sizes", kVocabulary), "--size");
  EXPECT_EQ(nearest_word("sine", kVocabulary), "sin");
  EXPECT_EQ(nearest_word("spvm", kVocabulary), "spmv");
  EXPECT_EQ(nearest_word("cubla", kVocabulary), "cublas");
  EXPECT_EQ(nearest_word("powerlow", kVocabulary), "powerlaw");
  EXPECT_EQ(nearest_word("F32", kVocabulary), "f32");  // case alone
  EXPECT_EQ(nearest_word("hsitory", kVocabulary), "history");
  EXPECT_EQ(nearest_word("transpose", kVocabulary), "");  // a different word, not a typo
  EXPECT_EQ(nearest_word("xyz", kVocabulary), "");
}

// A word cut short finds the one word it begins; none where it begins several, or where it
// is under three letters (too little to go on).
TEST(NearestWord, WordsCutShort) {
  EXPECT_EQ(nearest_word("rand", kVocabulary), "random");
  EXPECT_EQ(nearest_word("pow", kVocabulary), "powerlaw");
  EXPECT_EQ(nearest_word("cusp", kVocabulary), "cusparse");
  EXPECT_EQ(nearest_word("--thr", kVocabulary), "--threshold");
  EXPECT_EQ(nearest_word("comp", kVocabulary), "");  // compare and completion
  EXPECT_EQ(nearest_word("bl", {"blockdiag"}), "");
  EXPECT_EQ(nearest_word("cub", kVocabulary), "cub");  // a word that is whole is itself
  // Every prefix of three letters or more of a word no other word shares finds that word.
  for (const auto& word : kVocabulary)
    for (std::size_t length = 3; length < word.size(); ++length) {
      const std::string prefix = word.substr(0, length);
      const auto begins = std::count_if(kVocabulary.begin(), kVocabulary.end(), [&](const std::string& other) {
        return other.size() > length && other.compare(0, length, prefix) == 0;
      });
      if (begins != 1) continue;
      // The word itself, or a word near by spelling, which comes first ("cubl": "cub").
      const std::string nearest = nearest_word(prefix, kVocabulary);
      ASSERT_FALSE(nearest.empty()) << prefix;
      if (nearest != word) {
        EXPECT_LE(reference_distance(prefix, nearest), std::max<std::size_t>(1, length / 3)) << prefix << " -> " << nearest;
      }
    }
}

TEST(NearestWord, Extremes) {
  EXPECT_EQ(nearest_word("", kVocabulary), "");
  EXPECT_EQ(nearest_word("run", {}), "");
  EXPECT_EQ(nearest_word("a", {"b"}), "b");  // one edit is always allowed
  EXPECT_EQ(nearest_word("a", {"bcd"}), "");
  EXPECT_EQ(nearest_word(std::string(300, 'x'), {std::string(299, 'x')}), std::string(299, 'x'));
  EXPECT_EQ(nearest_word("run", {"run"}), "run");
  EXPECT_EQ(nearest_word("sum", {"sin", "sum"}), "sum");  // the exact word wins over a near one
}

// Any single slip in a word of three or more letters finds a word that far from it or
// nearer (often the word itself), and never one further than the slip.
TEST(NearestWord, SeededRandomTypos) {
  SplitMix64 rng(20241125);
  std::size_t found_original = 0, trials = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::string& word = kVocabulary[uniform_index(rng.next(), kVocabulary.size())];
    const std::string typed = typo(word, rng);
    if (typed == word) continue;
    ++trials;
    const std::string nearest = nearest_word(typed, kVocabulary);
    ASSERT_FALSE(nearest.empty()) << word << " -> " << typed;
    EXPECT_LE(reference_distance(typed, nearest), reference_distance(typed, word)) << typed;
    for (const auto& other : kVocabulary) EXPECT_GE(reference_distance(typed, other), reference_distance(typed, nearest)) << typed;
    found_original += nearest == word;
  }
  // Most slips lead back to the word typed (ties go to the earlier word of the list).
  EXPECT_GT(found_original, trials * 8 / 10) << found_original << " of " << trials;
}

// Random strings far from every word are not taken for typos.
TEST(NearestWord, SeededRandomStrangersFindNothing) {
  SplitMix64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string stranger(6 + uniform_index(rng.next(), 6), ' ');
    for (char& c : stranger) c = static_cast<char>('0' + uniform_index(rng.next(), 10));
    EXPECT_EQ(nearest_word(stranger, kVocabulary), "") << stranger;
  }
}

TEST(UnknownWordMessage, ListsAndSuggests) {
  EXPECT_EQ(unknown_word_message("op", "sine", {"sin", "sqrt", "sum"}),
            "unknown op 'sine' (did you mean 'sin'? expected one of: sin, sqrt, sum)");
  EXPECT_EQ(unknown_word_message("op", "transpose", {"sin", "sqrt", "sum"}),
            "unknown op 'transpose' (expected one of: sin, sqrt, sum)");
  EXPECT_EQ(unknown_word_message("dtype", "flaot32", {"f32"}, {"float32"}),
            "unknown dtype 'flaot32' (did you mean 'float32'? expected one of: f32)");
  EXPECT_EQ(join_words({"a", "b", "c"}), "a, b and c");
  EXPECT_EQ(join_words({"a"}), "a");
  EXPECT_EQ(join_words({}), "");
}

TEST(DTypeAliases, TheEcosystemsSpellings) {
  for (const char* alias : {"float32", "fp32", "single"}) EXPECT_EQ(parse_dtype(alias), DType::f32) << alias;
  for (const char* alias : {"float64", "fp64", "double"}) EXPECT_EQ(parse_dtype(alias), DType::f64) << alias;
  for (const char* alias : {"float16", "fp16", "half"}) EXPECT_EQ(parse_dtype(alias), DType::f16) << alias;
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  // Words for no one dtype here say what was probably meant.
  EXPECT_NE(usage_error_of([] { parse_dtype("float"); }).find("f32 in C and CUDA but f64 in Python"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_dtype("TF32"); }).find("write --dtype f32 --tf32"), std::string::npos);
  for (const char* other : {"int8", "int32", "uint16", "fp8", "fp8_e4m3", "e5m2", "float8_e4m3fn", "bool"})
    EXPECT_NE(usage_error_of([&] { parse_dtype(other); }).find("is not measured: gpubench's dtypes are the floating-point"),
              std::string::npos) << other;
  EXPECT_EQ(usage_error_of([] { parse_dtype("bfloat61"); }),
            "unknown dtype 'bfloat61' (did you mean 'bfloat16'? expected one of: f32, f64, f16, bf16)");
}

TEST(SizeHints, ShapesAndThousandsSeparators) {
  EXPECT_NE(usage_error_of([] { parse_size("4096x4096"); }).find("--shape MxNxK"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_size("64X64"); }).find("is a shape"), std::string::npos);
  for (const char* separated : {"1,000", "4,096", "1,000,000", "2,048"}) {
    const std::string message = usage_error_of([&] { parse_size_list(separated); });
    EXPECT_NE(message.find("a comma separates the sizes of a list"), std::string::npos) << message;
  }
  EXPECT_EQ(parse_size_list("16,256"), (std::vector<std::int64_t>{16, 256}));
  EXPECT_EQ(parse_size_list("1K,2K"), (std::vector<std::int64_t>{1024, 2048}));
}

// A malformed size names the size it probably was: byte units, digit separators, a power, a
// range or list written otherwise, exponents and fractions that come to a whole number; nothing
// where none is whole or the text is no number.
TEST(SizeHints, WhatWasProbablyMeant) {
  const auto refusal = [](const std::string& text) { return usage_error_of([&] { parse_size(text); }); };
  EXPECT_EQ(refusal("4KB"), "malformed size '4KB' (did you mean '4K'? a size counts elements; suffixes are K, M, G = "
                            "2^10, 2^20, 2^30)");
  for (const auto& [text, meant] : std::vector<std::pair<std::string, std::string>>{
           {"16MiB", "did you mean '16M'?"},
           {"1gb", "did you mean '1G'?"},
           {"1e6", "did you mean 1000000?"},
           {"2.5E3", "did you mean 2500?"},
           {"1.5K", "did you mean 1536?"},
           {"4096.0", "did you mean 4096?"},
           {"1_000", "did you mean '1000'?"},
           {"1'024", "did you mean '1024'?"},
           {"2^10", "did you mean 1024?"},
           {"1K-4K", "did you mean the range '1K..4K'?"},
           {"1K:64K", "did you mean the range '1K..64K'?"},
           {"1K 2K", "did you mean '1K,2K'? a list's sizes are separated by commas"},
       })
    EXPECT_NE(refusal(text).find(meant), std::string::npos) << refusal(text);
  for (const char* no_whole_number : {"1.5", "1e-3", "1e400", "1.3K", "2e13", "1.5e", "4Q", "12abc", "2^50", "1-2-3",
                                      "1K-", "3^", "99999^99"})
    EXPECT_EQ(refusal(no_whole_number).find("did you mean"), std::string::npos) << refusal(no_whole_number);
}

// --case words: ids exact, patterns by fnmatch ('*' crossing '/'), a known id with '[' or '*' in
// it still exact; the words that picked nothing, once each, in the order given.
TEST(CaseSelection, IdsAndPatterns) {
  const std::set<std::string> known = {"spmv/cuda/f32/file:a[1].mtx", "spmv/cuda/f32/file:a1.mtx", "sin/cuda/f32/1024",
                                       "sin/eigen/f32/1024", "sum/eigen/f64/4096"};
  CaseSelection selection({"sin/*", "spmv/cuda/f32/file:a[1].mtx", "sum/eigen/f64/4096", "cos/*", "sin/x/f32/1", "cos/*"},
                          known);
  EXPECT_TRUE(selection.has_patterns());
  EXPECT_TRUE(selection.is_pattern("sin/*"));
  EXPECT_FALSE(selection.is_pattern("spmv/cuda/f32/file:a[1].mtx"));
  std::vector<std::string> picked;
  for (const std::string& id : known)
    if (selection.picks(id)) picked.push_back(id);
  EXPECT_EQ(picked, (std::vector<std::string>{"sin/cuda/f32/1024", "sin/eigen/f32/1024", "spmv/cuda/f32/file:a[1].mtx",
                                              "sum/eigen/f64/4096"}));
  EXPECT_EQ(selection.unmatched(), (std::vector<std::string>{"cos/*", "sin/x/f32/1"}));
  // Unknown, a word with '[' is a pattern: [1] matches the character 1.
  CaseSelection unknown({"spmv/*/file:a[1].mtx", "*/f64/*", "s?n/*"}, {});
  EXPECT_TRUE(unknown.picks("spmv/cuda/f32/file:a1.mtx"));
  EXPECT_FALSE(unknown.picks("spmv/cuda/f32/file:a[1].mtx"));
  EXPECT_TRUE(unknown.picks("sum/eigen/f64/4096"));
  EXPECT_TRUE(unknown.picks("sin/eigen/f32/1024"));
  EXPECT_TRUE(unknown.unmatched().empty());
  EXPECT_TRUE(CaseSelection({}, known).empty());
}

// A range's refusal names the range and the part of it that is wrong; good ranges expand.
TEST(SizeRanges, RefusalsNameTheRangeAndItsPart) {
  const auto refusal = [](const std::string& text) { return usage_error_of([&] { parse_size_list(text); }); };
  EXPECT_EQ(refusal("1K..1M:x0").rfind("size range '1K..1M:x0': its factor: size '0' is zero", 0), 0u) << refusal("1K..1M:x0");
  EXPECT_EQ(refusal("..1M").rfind("size range '..1M': its start: empty size (a range is FROM..TO", 0), 0u);
  EXPECT_EQ(refusal("1K..").rfind("size range '1K..': its end: empty size", 0), 0u);
  EXPECT_EQ(refusal("1..1G:x1.5").rfind("size range '1..1G:x1.5': its factor: malformed size '1.5'", 0), 0u);
  EXPECT_EQ(refusal("1K..1M:+0").rfind("size range '1K..1M:+0': its step: size '0' is zero", 0), 0u);
  EXPECT_EQ(refusal("1K...1M"), "size range '1K...1M' has three dots; a range is FROM..TO (e.g. 1K..1M)");
  EXPECT_EQ(refusal("3..1"), "size range '3..1' runs backwards");
  EXPECT_EQ(refusal("1..1G:x1"), "range factor in '1..1G:x1' must be at least 2");
  EXPECT_EQ(parse_size_list("1K..4K:+1K"), (std::vector<std::int64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(parse_size_list("1K..1M:x1K"), (std::vector<std::int64_t>{1024, 1 << 20}));
  EXPECT_EQ(parse_size_list("4..64"), (std::vector<std::int64_t>{4, 8, 16, 32, 64}));
}

}  // namespace
}  // namespace gpb
