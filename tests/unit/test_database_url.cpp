// Database URLs (--db) and history baselines (--baseline db:...): engines, masked
// passwords, selectors split from libpq's own parameters, and the errors.
#include <gtest/gtest.h>

#include "model/types.hpp"
#include "store/database_url.hpp"
#include "store/sql.hpp"

namespace gpb::store {
namespace {

TEST(DatabaseUrl, EnginesFromTheScheme) {
  EXPECT_EQ(parse_database_url("gpubench.db").engine, Engine::sqlite);
  EXPECT_EQ(parse_database_url("gpubench.db").target, "gpubench.db");
  EXPECT_EQ(parse_database_url("/var/lib/ci/history.sqlite").target, "/var/lib/ci/history.sqlite");
  const DatabaseUrl prefixed = parse_database_url("sqlite:runs/history.db");
  EXPECT_EQ(prefixed.engine, Engine::sqlite);
  EXPECT_EQ(prefixed.target, "runs/history.db");
  for (const char* url : {"postgresql://ci@db.example/perf", "postgres://ci@db.example:5433/perf?sslmode=require"}) {
    const DatabaseUrl parsed = parse_database_url(url);
    EXPECT_EQ(parsed.engine, Engine::postgresql);
    EXPECT_EQ(parsed.target, url);
  }
}

TEST(DatabaseUrl, BadUrlsAreUsageErrors) {
  EXPECT_THROW(parse_database_url(""), UsageError);
  EXPECT_THROW(parse_database_url("sqlite:"), UsageError);
  try {
    parse_database_url("mysql://root:hunter2@db/perf");
    FAIL() << "accepted a mysql URL";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("unknown kind of URL"), std::string::npos) << message;
    EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
  }
}

TEST(DatabaseUrl, PasswordsAreMaskedInMessages) {
  EXPECT_EQ(parse_database_url("postgresql://ci:s3cret@db/perf").shown, "postgresql://ci:***@db/perf");
  EXPECT_EQ(parse_database_url("postgresql://db/perf?user=ci&password=s3cret&sslmode=require").shown,
            "postgresql://db/perf?user=ci&password=***&sslmode=require");
  EXPECT_EQ(parse_database_url("postgresql://ci@db/perf").shown, "postgresql://ci@db/perf");
}

TEST(HistoryBaseline, SelectorsAndDefaults) {
  EXPECT_TRUE(is_history_baseline("db:history.db"));
  EXPECT_FALSE(is_history_baseline("baseline.json"));
  const HistoryBaselineSpec plain = parse_history_baseline("db:history.db");
  EXPECT_EQ(plain.database.target, "history.db");
  EXPECT_EQ(plain.last, kDefaultBaselineRuns);
  EXPECT_TRUE(plain.tags.empty());

  const HistoryBaselineSpec selected = parse_history_baseline("db:sqlite:history.db?branch=main&last=5&runner=gpu-1");
  EXPECT_EQ(selected.database.target, "history.db");
  EXPECT_EQ(selected.last, 5u);
  EXPECT_EQ(selected.tags, (std::map<std::string, std::string>{{"branch", "main"}, {"runner", "gpu-1"}}));
}

TEST(HistoryBaseline, LibpqParametersStayInThePostgresUrl) {
  if (!have_postgres()) GTEST_SKIP() << "built without libpq: every PostgreSQL URL is refused when opened";
  const HistoryBaselineSpec spec =
      parse_history_baseline("db:postgresql://ci@/perf?host=/tmp/socket&branch=main&sslmode=disable&last=3");
  EXPECT_EQ(spec.database.engine, Engine::postgresql);
  EXPECT_EQ(spec.database.target, "postgresql://ci@/perf?host=/tmp/socket&sslmode=disable");
  EXPECT_EQ(spec.tags, (std::map<std::string, std::string>{{"branch", "main"}}));
  EXPECT_EQ(spec.last, 3u);
}

// Where the URL says nothing, a server that never answers or a statement that never ends
// costs a bounded wait; what the URL (or the environment) sets wins.
TEST(PostgresParameters, DefaultTimeoutsUnlessTheUrlSetsThem) {
  if (!have_postgres()) GTEST_SKIP() << "built without libpq: every PostgreSQL URL is refused when opened";
  using Parameters = std::vector<std::pair<std::string, std::string>>;
  const auto value = [](const Parameters& parameters, const std::string& keyword) -> std::string {
    for (const auto& [name, text] : parameters)
      if (name == keyword) return text;
    return "(unset)";
  };
  const Parameters plain = postgres_parameters("postgresql://ci@db/perf", "shown");
  EXPECT_EQ(value(plain, "connect_timeout"), std::to_string(kDefaultConnectTimeoutSeconds));
  EXPECT_EQ(value(plain, "options"), "-c statement_timeout=" + std::to_string(kDefaultStatementTimeoutSeconds) + "s");
  EXPECT_EQ(value(plain, "user"), "ci");
  EXPECT_EQ(value(plain, "dbname"), "perf");

  const Parameters own = postgres_parameters("postgresql://ci@db/perf?connect_timeout=3&options=-c%20statement_timeout%3D5s",
                                             "shown");
  EXPECT_EQ(value(own, "connect_timeout"), "3");
  // The URL's statement_timeout comes later in the options, and the server keeps the last.
  EXPECT_EQ(value(own, "options"), "-c statement_timeout=" + std::to_string(kDefaultStatementTimeoutSeconds) +
                                       "s -c statement_timeout=5s");
  EXPECT_EQ(value(postgres_parameters("host=h connect_timeout=7", "shown"), "connect_timeout"), "7");

  // A password that reached libpq's parser would have travelled with the URL: refused.
  EXPECT_THROW(postgres_parameters("host=h password=x", "shown"), StoreError);
  EXPECT_THROW(postgres_parameters("postgresql://db/perf?nonsense=1", "shown"), StoreError);
}

TEST(HistoryBaseline, BadSelectorsAreUsageErrors) {
  for (const char* bad : {"db:h.db?last=0", "db:h.db?last=x", "db:h.db?last=", "db:h.db?branch", "db:h.db?=main",
                          "db:h.db?bad key=1", "db:", "db:ftp://x/y"})
    EXPECT_THROW(parse_history_baseline(bad), UsageError) << bad;
}

TEST(Tags, KeyValuePairs) {
  EXPECT_EQ(parse_tag("commit=abc123"), (std::pair<std::string, std::string>{"commit", "abc123"}));
  EXPECT_EQ(parse_tag("branch=feature/x=y"), (std::pair<std::string, std::string>{"branch", "feature/x=y"}));
  for (const char* bad : {"commit", "=abc", "commit=", "com mit=1", ""}) EXPECT_THROW(parse_tag(bad), UsageError) << bad;
}

}  // namespace
}  // namespace gpb::store
