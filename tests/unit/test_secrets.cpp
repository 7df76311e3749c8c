// Passwords out of everything gpubench writes: redact_secrets on every form a database URL
// takes, and the same forms taken apart by parse_database_url (password out of the target),
// on named examples and on seeded random passwords of every awkward character.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/random.hpp"
#include "base/secrets.hpp"
#include "store/database_url.hpp"

namespace gpb {
namespace {

TEST(Secrets, UserinfoPasswordsAreHidden) {
  EXPECT_EQ(redact_secrets("postgresql://ci:TopSecret42@db/perf"), "postgresql://ci:***@db/perf");
  // Not percent-encoded: '/' and '@' inside the password.
  EXPECT_EQ(redact_secrets("postgresql://ci:pa/ssWd42@db/perf"), "postgresql://ci:***@db/perf");
  EXPECT_EQ(redact_secrets("postgresql://ci:pa@ssWd43@/perf?host=/tmp/s"), "postgresql://ci:***@/perf?host=/tmp/s");
  EXPECT_EQ(redact_secrets("postgresql://ci:pa%2FssWd44@db/perf"), "postgresql://ci:***@db/perf");
  EXPECT_EQ(redact_secrets("postgresql://ci:pa?ss@db/perf"), "postgresql://ci:***@db/perf");
  EXPECT_EQ(redact_secrets("--db=postgres://ci:x1@db"), "--db=postgres://ci:***@db");
  EXPECT_EQ(redact_secrets("db:postgresql://ci:x1@db/perf?branch=main"), "db:postgresql://ci:***@db/perf?branch=main");
  // No password: unchanged.
  for (const char* plain : {"postgresql://ci@db:5432/perf?sslmode=require", "postgresql://db/perf", "gpubench.db",
                            "--size", "postgresql://ci@/perf?host=/tmp/a@b", "sum/eigen/f32/1024"})
    EXPECT_EQ(redact_secrets(plain), plain);
}

TEST(Secrets, PasswordParametersAreHiddenInAnyCase) {
  EXPECT_EQ(redact_secrets("postgresql://db/perf?user=ci&password=s3cret&sslmode=require"),
            "postgresql://db/perf?user=ci&password=***&sslmode=require");
  EXPECT_EQ(redact_secrets("postgresql://db/perf?PASSWORD=s3cret"), "postgresql://db/perf?PASSWORD=***");
  EXPECT_EQ(redact_secrets("postgresql://db/perf?PassWord=s3cret&x=1"), "postgresql://db/perf?PassWord=***&x=1");
  EXPECT_EQ(redact_secrets("postgresql://db/perf?pass%77ord=s3cret"), "postgresql://db/perf?pass%77ord=***");
  EXPECT_EQ(redact_secrets("host=127.0.0.1 user=ci password=KvPw49 dbname=hist"),
            "host=127.0.0.1 user=ci password=*** dbname=hist");
  EXPECT_EQ(redact_secrets("host=h password = 'it\\'s a secret' dbname=x"), "host=h password = '***' dbname=x");
  EXPECT_EQ(redact_secrets("PASSWORD=abc"), "PASSWORD=***");
  // Other keys that merely contain the word stay: libpq reads only "password".
  EXPECT_EQ(redact_secrets("old_password_hint=x"), "old_password_hint=x");
}

TEST(Secrets, PercentDecoding) {
  EXPECT_EQ(percent_decode("pa%2Fss%40"), "pa/ss@");
  EXPECT_EQ(percent_decode("plain"), "plain");
  for (const char* bad : {"%", "%4", "%zz", "a%g1"}) EXPECT_FALSE(percent_decode(bad).has_value()) << bad;
  EXPECT_TRUE(is_password_key("password"));
  EXPECT_TRUE(is_password_key("PASSWORD"));
  EXPECT_TRUE(is_password_key("pass%77ord"));
  EXPECT_FALSE(is_password_key("passwords"));
}

// ---- taken apart for connecting ----

TEST(Secrets, UrlsGiveTheirPasswordSeparately) {
  struct Case {
    const char* url;
    const char* target;
    const char* password;
  };
  for (const Case& c : {
           Case{"postgresql://ci:TopSecret42@db/perf", "postgresql://ci@db/perf", "TopSecret42"},
           Case{"postgresql://ci:pa/ssWd42@db/perf", "postgresql://ci@db/perf", "pa/ssWd42"},
           Case{"postgresql://ci:pa@ssWd43@/perf?host=/tmp/s", "postgresql://ci@/perf?host=/tmp/s", "pa@ssWd43"},
           Case{"postgresql://ci:pa%2FssWd44@db/perf", "postgresql://ci@db/perf", "pa/ssWd44"},
           Case{"postgresql://c%40i:x@db/perf", "postgresql://c%40i@db/perf", "x"},
           Case{"postgres://db/perf?user=ci&PASSWORD=Up45&sslmode=disable", "postgres://db/perf?user=ci&sslmode=disable",
                "Up45"},
           Case{"postgresql://db/perf?pass%77ord=En%2646", "postgresql://db/perf", "En&46"},
           Case{"host=127.0.0.1 user=ci password=KvPw49 dbname=hist", "host='127.0.0.1' user='ci' dbname='hist'", "KvPw49"},
           Case{"host = h password='it\\'s' dbname=x", "host='h' dbname='x'", "it's"},
           Case{"postgresql://ci@db/perf", "postgresql://ci@db/perf", ""},
       }) {
    const store::DatabaseUrl parsed = store::parse_database_url(c.url);
    EXPECT_EQ(parsed.engine, store::Engine::postgresql) << c.url;
    EXPECT_EQ(parsed.target, c.target) << c.url;
    EXPECT_EQ(parsed.password, c.password) << c.url;
    EXPECT_EQ(parsed.shown, redact_secrets(c.url)) << c.url;
  }
}

TEST(Secrets, KeywordStringsAreNeverFileNames) {
  // Taken for a SQLite path before, this made a file whose name held the password.
  const store::DatabaseUrl parsed = store::parse_database_url("host=127.0.0.1 user=ci password=KvPw49 dbname=hist");
  EXPECT_EQ(parsed.engine, store::Engine::postgresql);
  for (const char* bad : {"host='unterminated password=x", "host=h password=x lonely"}) {
    try {
      store::parse_database_url(bad);
      FAIL() << "accepted " << bad;
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()).find("password=x"), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(store::parse_database_url("results.db").engine, store::Engine::sqlite);
  EXPECT_EQ(store::parse_database_url("sqlite:a=b.db").target, "a=b.db");
}

TEST(Secrets, BadPercentEncodingIsRefusedWithoutTheSecret) {
  try {
    store::parse_database_url("postgresql://ci:Sec%zzret@db/perf");
    FAIL() << "accepted a bad escape";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()).find("Sec"), std::string::npos) << error.what();
  }
}

// Seeded random passwords of every awkward character, in every form a URL takes: the
// redacted text never holds the password, and the parsed URL gives it back exactly, with a
// target and a shown text that hold none of it.
TEST(Secrets, RandomPasswordsInEveryForm) {
  const std::string awkward = "abcXYZ0189/@:?&=%#'\\ !$*+,;[]~-._";
  const std::uint64_t key = 20261124;
  std::uint64_t draw = 0;
  const auto next = [&](std::uint64_t bound) { return uniform_index(random_bits(key, draw++), bound); };
  const auto percent_encoded = [](const std::string& text) {
    std::string out;
    for (const unsigned char c : text) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += std::isalnum(c) ? std::string(1, static_cast<char>(c)) : std::string(hex);
    }
    return out;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    std::string password = "Zq";
    const std::size_t length = 4 + next(12);
    for (std::size_t i = 0; i < length; ++i) password += awkward[next(awkward.size())];
    std::string quoted;
    for (const char c : password) quoted += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    const bool bare_userinfo = password.find_first_of("?# ") == std::string::npos;
    std::vector<std::string> forms = {
        "postgresql://ci:" + percent_encoded(password) + "@db/perf?sslmode=disable",
        "postgresql://ci@db/perf?host=/tmp&password=" + percent_encoded(password),
        "postgresql://ci@db/perf?PASSWORD=" + percent_encoded(password) + "&sslmode=disable",
        "host=/tmp user=ci password='" + quoted + "' dbname=perf",
    };
    if (bare_userinfo && password.find('%') == std::string::npos)
      forms.push_back("postgresql://ci:" + password + "@/perf?host=/tmp/s");
    for (const std::string& url : forms) {
      const std::string redacted = redact_secrets(url);
      EXPECT_EQ(redacted.find(password), std::string::npos) << url << " -> " << redacted;
      const store::DatabaseUrl parsed = store::parse_database_url(url);
      EXPECT_EQ(parsed.password, password) << url;
      EXPECT_EQ(parsed.target.find(password), std::string::npos) << url << " -> " << parsed.target;
      EXPECT_EQ(parsed.shown.find(password), std::string::npos) << url << " -> " << parsed.shown;
      EXPECT_EQ(parsed.target.find("Zq"), std::string::npos) << url << " -> " << parsed.target;
    }
  }
}

}  // namespace
}  // namespace gpb
