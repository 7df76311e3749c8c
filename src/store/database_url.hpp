// Where the history lives: `--db` values and `--baseline db:...` specifications.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpb::store {

enum class Engine { sqlite, postgresql };

// A password never travels with the rest: `target` and `shown` hold none, so nothing that
// writes or prints them can leak it, and libpq gets it on its own.
struct DatabaseUrl {
  Engine engine = Engine::sqlite;
  std::string target;    // the SQLite file, or a libpq connection URI or keyword string
  std::string password;  // the URL's password, decoded; empty: none (libpq reads PGPASSWORD, ~/.pgpass)
  std::string shown;     // for messages: the URL as given, every password as ***
};

// "gpubench.db", "sqlite:PATH" -> SQLite; "postgresql://..." or "postgres://..." (a libpq
// URI) or "host=... dbname=..." (a libpq keyword string: it starts with keyword=) ->
// PostgreSQL. A password is taken from the URI's user information (percent-encoded or not:
// see base/secrets.hpp), from a password=... parameter in any case, or from a keyword
// string. Anything else with "://", the empty string and malformed URLs are UsageErrors
// that show the URL without its password.
DatabaseUrl parse_database_url(const std::string& text);

// `compare --baseline db:URL[?branch=main&last=N]`: the runs to pool. Query parameters
// that libpq reads (host, port, sslmode, ...) stay in a PostgreSQL URL; of the others,
// `last` is the number of runs per case and every other key=value a tag the runs must carry.
inline constexpr std::size_t kDefaultBaselineRuns = 10;
struct HistoryBaselineSpec {
  DatabaseUrl database;
  std::map<std::string, std::string> tags;
  std::size_t last = kDefaultBaselineRuns;
};

inline constexpr const char* kHistoryBaselinePrefix = "db:";
// The SQLite file a --db value names, for the check that no command writes over one of its
// inputs; "" for PostgreSQL (no local file) and for "".
std::string database_file(const std::string& url);

bool is_history_baseline(const std::string& baseline);  // starts with "db:"
HistoryBaselineSpec parse_history_baseline(const std::string& baseline);

// "key=value" as a tag: the key is letters, digits, '_', '-' or '.'; the value is not empty.
std::pair<std::string, std::string> parse_tag(const std::string& text);
// Each of `--tag`'s values; UsageError for a key given twice.
std::map<std::string, std::string> parse_tags(const std::vector<std::string>& texts);

}  // namespace gpb::store
