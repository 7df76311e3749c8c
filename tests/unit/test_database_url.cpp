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
