#include "store/database_url.hpp"

#include <cctype>
#include <vector>

#include "model/types.hpp"
#include "store/sql.hpp"

namespace gpb::store {
namespace {

constexpr const char* kAccepted = "a SQLite file path, sqlite:PATH, postgresql://... or postgres://...";

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

// postgresql://user:secret@host/db -> postgresql://user:***@host/db; also password=... parameters.
std::string masked(const std::string& url) {
  std::string shown = url;
  const auto scheme_end = shown.find("://");
  if (scheme_end != std::string::npos) {
    const auto authority = scheme_end + 3;
    const auto at = shown.find('@', authority);
    const auto slash = shown.find('/', authority);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      const auto colon = shown.find(':', authority);
      if (colon != std::string::npos && colon < at) shown.replace(colon + 1, at - colon - 1, "***");
    }
  }
  for (auto position = shown.find("password="); position != std::string::npos;
       position = shown.find("password=", position + 1)) {
    const auto value = position + 9;
    const auto end = shown.find('&', value);
    shown.replace(value, (end == std::string::npos ? shown.size() : end) - value, "***");
  }
  return shown;
}

bool valid_key(const std::string& key) {
  if (key.empty()) return false;
  for (const char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  for (;;) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

DatabaseUrl parse_database_url(const std::string& text) {
  DatabaseUrl url;
  url.shown = masked(text);
  if (text.empty()) throw UsageError(std::string("--db needs a database: ") + kAccepted);
  if (starts_with(text, "postgresql://") || starts_with(text, "postgres://")) {
    url.engine = Engine::postgresql;
    url.target = text;
    return url;
  }
  if (starts_with(text, "sqlite:")) {
    url.target = text.substr(7);
    if (url.target.empty()) throw UsageError("database '" + text + "': sqlite: needs a file path (sqlite:PATH)");
    return url;
  }
  if (text.find("://") != std::string::npos)
    throw UsageError("database '" + url.shown + "': unknown kind of URL (expected " + kAccepted + ")");
  url.target = text;
  return url;
}

std::string database_file(const std::string& url) {
  if (url.empty()) return "";
  const DatabaseUrl database = parse_database_url(url);
  return database.engine == Engine::sqlite ? database.target : "";
}

bool is_history_baseline(const std::string& baseline) { return starts_with(baseline, kHistoryBaselinePrefix); }

HistoryBaselineSpec parse_history_baseline(const std::string& baseline) {
  const std::string text = baseline.substr(std::string(kHistoryBaselinePrefix).size());
  const auto question = text.find('?');
  std::string base = text.substr(0, question);
  HistoryBaselineSpec spec;
  spec.database = parse_database_url(base);  // the engine decides which parameters stay in the URL
  std::vector<std::string> kept;
  if (question != std::string::npos) {
    for (const std::string& parameter : split(text.substr(question + 1), '&')) {
      const auto equals = parameter.find('=');
      const std::string key = parameter.substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : parameter.substr(equals + 1);
      if (spec.database.engine == Engine::postgresql && is_postgres_parameter(key)) {
        kept.push_back(parameter);
      } else if (key == "last") {
        const bool digits = !value.empty() && value.size() < 10 &&
                            value.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(value) == 0)
          throw UsageError("baseline '" + masked(baseline) + "': last=" + value + " is not a positive number of runs");
        spec.last = std::stoul(value);
      } else {
        if (!valid_key(key) || equals == std::string::npos || value.empty())
          throw UsageError("baseline '" + masked(baseline) + "': '" + parameter +
                           "' is not a tag filter (key=value), last=N or a PostgreSQL connection parameter");
        spec.tags[key] = value;
      }
    }
  }
  if (!kept.empty()) {
    std::string joined;
    for (const auto& parameter : kept) joined += (joined.empty() ? "?" : "&") + parameter;
    spec.database = parse_database_url(base + joined);
  }
  return spec;
}

std::pair<std::string, std::string> parse_tag(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals + 1 == text.size() || !valid_key(text.substr(0, equals)))
    throw UsageError("--tag '" + text + "': expected key=value (key of letters, digits, '_', '-', '.'; a value)");
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::map<std::string, std::string> parse_tags(const std::vector<std::string>& texts) {
  std::map<std::string, std::string> tags;
  for (const std::string& text : texts) {
    const auto [name, value] = parse_tag(text);
    if (!tags.emplace(name, value).second) throw UsageError("--tag " + name + " given twice");
  }
  return tags;
}

}  // namespace gpb::store
