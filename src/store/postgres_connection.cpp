// The PostgreSQL engine over libpq: a connection URI, parameters sent as text, results
// read back by column type, every PQ* result checked. Built only where libpq is found;
// otherwise a PostgreSQL URL is a usage error that says so.
#include "store/sql.hpp"

#ifdef GPUBENCH_HAVE_LIBPQ

#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace gpb::store {
namespace {

const SqlDialect kPostgresDialect{
    "PostgreSQL", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?",
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name",
    // Two processes migrating a fresh database at once would both create the tables; an
    // advisory lock held to the end of the transaction makes the second wait and see them.
    "SELECT pg_advisory_xact_lock(7405046418765920301)"};

// Type OIDs from the server's catalog (pg_type.h is a server header; these never change).
constexpr Oid kBoolOid = 16, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kFloat4Oid = 700, kFloat8Oid = 701,
              kNumericOid = 1700;

struct ConnectionCloser {
  void operator()(PGconn* connection) const noexcept { PQfinish(connection); }
};
struct ResultClearer {
  void operator()(PGresult* result) const noexcept { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultClearer>;

// libpq's messages end in a newline and may run over several lines; the first says it.
std::string first_line(const char* message) {
  std::string text = message ? message : "";
  const auto end = text.find('\n');
  if (end != std::string::npos) text.erase(end);
  return text.empty() ? "unknown error" : text;
}

// '?' placeholders as $1, $2, ...; the store's statements carry no '?' inside literals.
std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  int next = 1;
  for (const char c : sql) {
    if (c == '?')
      out += "$" + std::to_string(next++);
    else
      out += c;
  }
  return out;
}

// 17 significant digits read back as the same double.
std::string exact_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

void ignore_notice(void*, const char*) {}

// The server's code for a statement cancelled, here by statement_timeout.
constexpr const char* kQueryCanceled = "57014";

const std::string* find_parameter(const std::vector<std::pair<std::string, std::string>>& parameters, const char* keyword) {
  for (const auto& [name, value] : parameters)
    if (name == keyword) return &value;
  return nullptr;
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(const std::string& conninfo, std::string shown, const std::string& password) : shown_(std::move(shown)) {
    auto parameters = postgres_parameters(conninfo, shown_);
    if (!password.empty()) parameters.emplace_back("password", password);
    std::vector<const char*> keywords, values;
    for (const auto& [keyword, value] : parameters) {
      keywords.push_back(keyword.c_str());
      values.push_back(value.c_str());
    }
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    connection_.reset(PQconnectdbParams(keywords.data(), values.data(), 0));
    if (!connection_) throw StoreError("cannot connect to database '" + shown_ + "': out of memory");
    if (PQstatus(connection_.get()) != CONNECTION_OK) {
      std::string message = first_line(PQerrorMessage(connection_.get()));
      const std::string* timeout = find_parameter(parameters, "connect_timeout");
      if (message.find("timeout expired") != std::string::npos && timeout)
        message += " after connect_timeout=" + *timeout + " s (gpubench waits " + std::to_string(kDefaultConnectTimeoutSeconds) +
                   " s unless the URL sets connect_timeout=N)";
      throw StoreError("cannot connect to database '" + shown_ + "': " + message);
    }
    // "relation already exists, skipping" and the like are not for the user's terminal.
    PQsetNoticeProcessor(connection_.get(), ignore_notice, nullptr);
    // Named in the error when a statement runs out of it.
    statement_timeout_ = query("SHOW statement_timeout", {}).at(0).text(0);
  }

  const SqlDialect& dialect() const override { return kPostgresDialect; }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (const auto* integer = std::get_if<std::int64_t>(&params[i])) {
        texts[i] = std::to_string(*integer);
      } else if (const auto* real = std::get_if<double>(&params[i])) {
        if (!std::isfinite(*real)) continue;  // NULL, as SQLite stores it
        texts[i] = exact_text(*real);
      } else if (const auto* text = std::get_if<std::string>(&params[i])) {
        texts[i] = *text;
      } else {
        continue;
      }
      values[i] = texts[i].c_str();
    }
    Result result(PQexecPrepared(connection_.get(), prepared(sql, static_cast<int>(params.size())).c_str(),
                                 static_cast<int>(params.size()), values.data(), nullptr, nullptr, 0));
    check(result);

    std::vector<SqlRow> rows;
    const int row_count = PQntuples(result.get()), column_count = PQnfields(result.get());
    rows.reserve(static_cast<std::size_t>(row_count));
    for (int row = 0; row < row_count; ++row) {
      std::vector<SqlValue> cells;
      cells.reserve(static_cast<std::size_t>(column_count));
      for (int column = 0; column < column_count; ++column) cells.push_back(cell(result.get(), row, column));
      rows.emplace_back(std::move(cells));
    }
    return rows;
  }

  void begin_write() override { query("BEGIN", {}); }
  void commit() override { query("COMMIT", {}); }
  void rollback() noexcept override {
    if (PQtransactionStatus(connection_.get()) == PQTRANS_IDLE) return;
    Result result(PQexec(connection_.get(), "ROLLBACK"));  // no-throw: runs in destructors
  }

 private:
  void check(const Result& result) const {
    if (!result) throw StoreError("database '" + shown_ + "': " + first_line(PQerrorMessage(connection_.get())));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    std::string message = first_line(PQresultErrorMessage(result.get()));
    const char* state = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    if (state && std::string(state) == kQueryCanceled && message.find("statement timeout") != std::string::npos)
      message += " (statement_timeout " + statement_timeout_ + "; gpubench allows " +
                 std::to_string(kDefaultStatementTimeoutSeconds) +
                 " s unless the URL sets options=-c statement_timeout=..., e.g. ?options=-c%20statement_timeout%3D10min)";
    throw StoreError("database '" + shown_ + "': " + message);
  }

  // Statements are prepared once per connection: ingestion runs the same few inserts many
  // times, and planning a many-row INSERT costs more than running it.
  const std::string& prepared(const std::string& sql, int parameters) {
    const auto found = statements_.find(sql);
    if (found != statements_.end()) return found->second;
    const std::string name = "gpubench_" + std::to_string(statements_.size() + 1);
    check(Result(PQprepare(connection_.get(), name.c_str(), numbered_placeholders(sql).c_str(), parameters, nullptr)));
    return statements_.emplace(sql, name).first->second;
  }

  SqlValue cell(const PGresult* result, int row, int column) const {
    if (PQgetisnull(result, row, column)) return std::monostate{};
    const char* text = PQgetvalue(result, row, column);
    switch (PQftype(result, column)) {
      case kBoolOid:
        return std::int64_t{text[0] == 't' ? 1 : 0};
      case kInt2Oid:
      case kInt4Oid:
      case kInt8Oid:
        return static_cast<std::int64_t>(std::strtoll(text, nullptr, 10));
      case kFloat4Oid:
      case kFloat8Oid:
      case kNumericOid:
        return std::strtod(text, nullptr);  // also reads "NaN" and "Infinity"
      default:
        return std::string(text, static_cast<std::size_t>(PQgetlength(result, row, column)));
    }
  }

  std::string shown_;
  std::unique_ptr<PGconn, ConnectionCloser> connection_;
  std::map<std::string, std::string> statements_;  // SQL -> prepared statement name
  std::string statement_timeout_;                  // as the server shows it ("1min")
};

}  // namespace

std::vector<std::pair<std::string, std::string>> postgres_parameters(const std::string& conninfo, const std::string& shown) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(PQconninfoParse(conninfo.c_str(), &error),
                                                                          PQconninfoFree);
  if (!options) {
    const std::string message = error ? first_line(error) : "out of memory";
    PQfreemem(error);
    throw StoreError("database '" + shown + "': " + message);
  }
  std::vector<std::pair<std::string, std::string>> parameters;
  // Where neither the URL nor the environment sets them, libpq would wait forever.
  const char* environment_options = std::getenv("PGOPTIONS");
  std::string extra_options = environment_options ? environment_options : "";
  bool has_connect_timeout = std::getenv("PGCONNECT_TIMEOUT") != nullptr;
  for (const PQconninfoOption* option = options.get(); option->keyword; ++option) {
    if (!option->val) continue;
    const std::string keyword = option->keyword;
    if (keyword == "password")
      throw StoreError("database '" + shown +
                       "': holds a password in a form gpubench cannot take apart; percent-encode it, or give it in "
                       "PGPASSWORD or ~/.pgpass");
    if (keyword == "options") {
      extra_options = option->val;
      continue;
    }
    has_connect_timeout = has_connect_timeout || keyword == "connect_timeout";
    parameters.emplace_back(keyword, option->val);
  }
  if (!has_connect_timeout) parameters.emplace_back("connect_timeout", std::to_string(kDefaultConnectTimeoutSeconds));
  parameters.emplace_back("options", "-c statement_timeout=" + std::to_string(kDefaultStatementTimeoutSeconds) + "s" +
                                         (extra_options.empty() ? "" : " " + extra_options));
  return parameters;
}

std::unique_ptr<SqlConnection> open_postgres(const std::string& conninfo, const std::string& shown, const std::string& password) {
  return std::make_unique<PostgresConnection>(conninfo, shown, password);
}

bool have_postgres() { return true; }

bool is_postgres_parameter(const std::string& keyword) {
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(PQconndefaults(), PQconninfoFree);
  if (!options) throw StoreError("libpq: out of memory listing its connection parameters");
  for (const PQconninfoOption* option = options.get(); option->keyword; ++option)
    if (keyword == option->keyword) return true;
  return false;
}

}  // namespace gpb::store

#else

namespace gpb::store {

[[noreturn]] void no_libpq(const std::string& shown) {
  throw StoreError("database '" + shown +
                   "': this gpubench was built without libpq, so PostgreSQL is not available (install libpq-dev "
                   "and rebuild, or use a SQLite file)");
}

std::unique_ptr<SqlConnection> open_postgres(const std::string&, const std::string& shown, const std::string&) {
  no_libpq(shown);
}

std::vector<std::pair<std::string, std::string>> postgres_parameters(const std::string&, const std::string& shown) {
  no_libpq(shown);
}

bool have_postgres() { return false; }

bool is_postgres_parameter(const std::string&) { return false; }

}  // namespace gpb::store

#endif
