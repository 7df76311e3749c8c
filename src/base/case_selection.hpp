// The cases a --case option picks: exact case ids and patterns ('*' any text, crossing '/';
// '?' one character; '[...]' a set: fnmatch), shared by run, history and export.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace gpb {

class CaseSelection {
 public:
  // `words` as given; `known`: the ids there are, so that a word that is one of them is that id
  // even with a '*' or '[' in it (a matrix file's name).
  CaseSelection(const std::vector<std::string>& words, const std::set<std::string>& known);

  bool empty() const { return words_.empty(); }
  bool has_patterns() const { return !patterns_.empty(); }
  bool is_pattern(const std::string& word) const;
  // Whether `id` is picked; the words that pick it are counted as matched.
  bool picks(const std::string& id);
  // The words that picked nothing, in the order given.
  std::vector<std::string> unmatched() const;

  // Whether a word would be read as a pattern where it names no known id.
  static bool looks_like_pattern(const std::string& word);

 private:
  std::vector<std::string> words_;
  std::set<std::string> exact_;
  std::vector<std::string> patterns_;
  std::set<std::string> matched_;
};

}  // namespace gpb
