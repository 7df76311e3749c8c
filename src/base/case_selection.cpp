#include "base/case_selection.hpp"

#include <fnmatch.h>

#include <algorithm>

namespace gpb {

bool CaseSelection::looks_like_pattern(const std::string& word) { return word.find_first_of("*?[") != std::string::npos; }

CaseSelection::CaseSelection(const std::vector<std::string>& words, const std::set<std::string>& known) : words_(words) {
  for (const std::string& word : words) {
    if (known.count(word) || !looks_like_pattern(word))
      exact_.insert(word);
    else if (std::find(patterns_.begin(), patterns_.end(), word) == patterns_.end())
      patterns_.push_back(word);
  }
}

bool CaseSelection::is_pattern(const std::string& word) const {
  return std::find(patterns_.begin(), patterns_.end(), word) != patterns_.end();
}

bool CaseSelection::picks(const std::string& id) {
  bool picked = false;
  if (exact_.count(id)) {
    matched_.insert(id);
    picked = true;
  }
  for (const std::string& pattern : patterns_)
    if (::fnmatch(pattern.c_str(), id.c_str(), 0) == 0) {
      matched_.insert(pattern);
      picked = true;
    }
  return picked;
}

std::vector<std::string> CaseSelection::unmatched() const {
  std::vector<std::string> missing;
  for (const std::string& word : words_)
    if (!matched_.count(word) && std::find(missing.begin(), missing.end(), word) == missing.end()) missing.push_back(word);
  return missing;
}

}  // namespace gpb
