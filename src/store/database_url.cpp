#include "store/database_url.hpp"

#include <cctype>
#include <vector>

#include "base/secrets.hpp"
#include "model/types.hpp"
#include "store/sql.hpp"

namespace gpb::store {
namespace {

constexpr const char* kAccepted =
    "a SQLite file path, sqlite:PATH, postgresql://..., postgres://... or a libpq string (host=... dbname=...)";

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

bool is_blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

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

// "host=db user=ci": a libpq keyword string starts with a keyword (letters and '_') and '='.
bool is_keyword_string(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && is_blank(text[i])) ++i;
  const std::size_t key = i;
  while (i < text.size() && (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
  if (i == key) return false;
  while (i < text.size() && is_blank(text[i])) ++i;
  return i < text.size() && text[i] == '=';
}

// Everything but the unreserved characters of RFC 3986, so that libpq reads the user name
// back as written.
std::string percent_encode(const std::string& text) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string encoded;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 15];
    }
  }
  return encoded;
}

class UrlParser {
 public:
  explicit UrlParser(const std::string& text) : text_(text) { url_.shown = redact_secrets(text); }

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError("database '" + url_.shown + "': " + problem);
  }

  std::string decoded(const std::string& raw, const char* what) const {
    const auto value = percent_decode(raw);
    if (!value) fail(std::string("the ") + what + " holds a '%' that is not followed by two hex digits (write '%' as %25)");
    return *value;
  }

  // postgresql://[user[:password]@]host[:port][/dbname][?key=value&...]: the password comes
  // out of the user information and out of the query, the user name is re-encoded.
  DatabaseUrl uri() {
    url_.engine = Engine::postgresql;
    const std::size_t authority = text_.find("://") + 3;
    std::string target = text_.substr(0, authority);
    std::size_t rest = authority;
    if (const auto userinfo = find_url_userinfo(text_, authority)) {
      const std::size_t user_end = userinfo->colon == std::string::npos ? userinfo->end : userinfo->colon;
      const std::string user = decoded(text_.substr(userinfo->begin, user_end - userinfo->begin), "user name");
      if (userinfo->colon != std::string::npos)
        url_.password = decoded(text_.substr(userinfo->colon + 1, userinfo->end - userinfo->colon - 1), "password");
      if (!user.empty()) target += percent_encode(user) + "@";
      rest = userinfo->end + 1;
    }
    const std::size_t question = text_.find('?', rest);
    target += text_.substr(rest, question == std::string::npos ? std::string::npos : question - rest);
    if (question != std::string::npos) {
      std::string kept;
      for (const std::string& parameter : split(text_.substr(question + 1), '&')) {
        const auto equals = parameter.find('=');
        if (is_password_key(parameter.substr(0, equals))) {
          url_.password = decoded(equals == std::string::npos ? "" : parameter.substr(equals + 1), "password");
          continue;
        }
        kept += (kept.empty() ? "?" : "&") + parameter;
      }
      target += kept;
    }
    url_.target = target;
    return url_;
  }

  // keyword = value pairs as libpq reads them (values quoted with '...' and backslash
  // escapes, or bare up to a blank); the password comes out, the rest is written back quoted.
  DatabaseUrl keyword_string() {
    url_.engine = Engine::postgresql;
    std::string target;
    std::size_t i = 0;
    const auto skip_blanks = [&] {
      while (i < text_.size() && is_blank(text_[i])) ++i;
    };
    for (;;) {
      skip_blanks();
      if (i == text_.size()) break;
      const std::size_t key_begin = i;
      while (i < text_.size() && text_[i] != '=' && !is_blank(text_[i])) ++i;
      const std::string key = text_.substr(key_begin, i - key_begin);
      skip_blanks();
      if (i == text_.size() || text_[i] != '=') fail("not a libpq connection string: a word in it has no '=' after it");
      ++i;
      skip_blanks();
      std::string value;
      const bool quoted = i < text_.size() && text_[i] == '\'';
      if (quoted) ++i;
      for (;; ++i) {
        if (i == text_.size()) {
          if (quoted) fail("not a libpq connection string: a quoted value has no closing quote");
          break;
        }
        if (quoted ? text_[i] == '\'' : is_blank(text_[i])) {
          if (quoted) ++i;
          break;
        }
        if (text_[i] == '\\' && i + 1 < text_.size()) ++i;
        value += text_[i];
      }
      if (is_password_key(key)) {
        url_.password = value;
        continue;
      }
      std::string escaped;
      for (const char c : value) escaped += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
      target += (target.empty() ? "" : " ") + key + "='" + escaped + "'";
    }
    url_.target = target;
    return url_;
  }

 private:
  const std::string& text_;
  DatabaseUrl url_;
};

}  // namespace

DatabaseUrl parse_database_url(const std::string& text) {
  UrlParser parser(text);
  if (text.empty()) throw UsageError(std::string("--db needs a database: ") + kAccepted);
  if (starts_with(text, "postgresql://") || starts_with(text, "postgres://")) return parser.uri();
  DatabaseUrl url;
  url.shown = redact_secrets(text);
  if (starts_with(text, "sqlite:")) {
    url.target = text.substr(7);
    if (url.target.empty()) throw UsageError("database '" + url.shown + "': sqlite: needs a file path (sqlite:PATH)");
    return url;
  }
  if (text.find("://") != std::string::npos)
    throw UsageError("database '" + url.shown + "': unknown kind of URL (expected " + kAccepted + ")");
  if (is_keyword_string(text)) return parser.keyword_string();
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
  // The query starts after a URL's user information, which may hold a '?' of its password.
  std::size_t query_search = 0;
  if (const auto scheme = text.find("://"); scheme != std::string::npos)
    if (const auto userinfo = find_url_userinfo(text, scheme + 3)) query_search = userinfo->end;
  const auto question = text.find('?', query_search);
  std::string base = text.substr(0, question);
  HistoryBaselineSpec spec;
  spec.database = parse_database_url(base);  // the engine decides which parameters stay in the URL
  std::vector<std::string> kept;
  if (question != std::string::npos) {
    for (const std::string& parameter : split(text.substr(question + 1), '&')) {
      const auto equals = parameter.find('=');
      const std::string key = parameter.substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : parameter.substr(equals + 1);
      if (spec.database.engine == Engine::postgresql && (is_postgres_parameter(key) || is_password_key(key))) {
        kept.push_back(parameter);
      } else if (key == "last") {
        const bool digits = !value.empty() && value.size() < 10 &&
                            value.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(value) == 0)
          throw UsageError("baseline '" + redact_secrets(baseline) + "': last=" + value + " is not a positive number of runs");
        spec.last = std::stoul(value);
      } else {
        if (!valid_key(key) || equals == std::string::npos || value.empty())
          throw UsageError("baseline '" + redact_secrets(baseline) + "': '" + redact_secrets(parameter) +
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
