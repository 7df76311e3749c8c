// A small SQL layer under the result store: one connection interface, two engines (SQLite
// and PostgreSQL), so the store's schema and queries are written once.
//
// Statements use '?' placeholders; the PostgreSQL engine numbers them ($1, $2, ...). Values
// are NULL, 64-bit integers, doubles (a non-finite double is stored as NULL, as the JSON
// report writes null) or text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/types.hpp"

namespace gpb::store {

// A database that cannot be opened or read, or a statement that fails: one line naming the
// database and the engine's message. A usage error (exit 2): the caller's input (a URL, a
// file, a server) is at fault, not a measurement.
struct StoreError : UsageError {
  using UsageError::UsageError;
};

using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;

class SqlRow {
 public:
  explicit SqlRow(std::vector<SqlValue> cells) : cells_(std::move(cells)) {}
  std::size_t size() const { return cells_.size(); }
  bool is_null(std::size_t column) const;
  std::int64_t integer(std::size_t column) const;  // StoreError unless an integer
  double real(std::size_t column) const;           // NULL reads as NaN; integers convert
  const std::string& text(std::size_t column) const;  // StoreError unless text

 private:
  const SqlValue& at(std::size_t column) const;
  std::vector<SqlValue> cells_;
};

// What differs between the engines' SQL, beyond the placeholders.
struct SqlDialect {
  const char* name;                // "SQLite", "PostgreSQL"
  const char* generated_id;        // column definition of an auto-numbered primary key
  const char* table_exists;        // one '?' (the table name); returns one row with a count
  const char* list_tables;         // the names of the tables (of the current schema), one row each
  const char* lock_schema;         // taken inside a migration's transaction; empty where
                                   // begin_write already excludes other writers
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  SqlConnection() = default;
  SqlConnection(const SqlConnection&) = delete;
  SqlConnection& operator=(const SqlConnection&) = delete;

  virtual const SqlDialect& dialect() const = 0;
  // One statement with '?' placeholders bound, in order, to params; returns its rows.
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) = 0;
  // A transaction that writes. SQLite takes the write lock at once (BEGIN IMMEDIATE), so
  // concurrent writers queue on the busy timeout instead of failing when they upgrade.
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
};

// Rolls back unless committed: an exception, or the process dying, leaves nothing written.
class WriteTransaction {
 public:
  explicit WriteTransaction(SqlConnection& connection) : connection_(connection) { connection_.begin_write(); }
  ~WriteTransaction() {
    if (!done_) connection_.rollback();
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit() {
    connection_.commit();
    done_ = true;
  }

 private:
  SqlConnection& connection_;
  bool done_ = false;
};

// `shown` names the database in messages (a path, or a URL without its password).
// create: make the file when it does not exist (otherwise its absence is a StoreError).
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, bool create, const std::string& shown);

// How long a PostgreSQL connection may take to open, and a statement to run, unless the
// URL says otherwise (connect_timeout=N; options=-c statement_timeout=...): a server that
// accepts a connection and never answers, or a lock held elsewhere, ends in a StoreError
// naming the limit instead of a hang.
inline constexpr int kDefaultConnectTimeoutSeconds = 10;
inline constexpr int kDefaultStatementTimeoutSeconds = 60;

// conninfo: a libpq connection URI or keyword string without a password; password: the
// URL's own (empty: libpq looks in PGPASSWORD and ~/.pgpass). A StoreError when this build
// has no libpq.
std::unique_ptr<SqlConnection> open_postgres(const std::string& conninfo, const std::string& shown,
                                             const std::string& password = {});
// The keyword/value pairs open_postgres hands libpq for conninfo: its own, with the default
// connect_timeout where it sets none and the default statement_timeout ahead of its
// options (a statement_timeout there comes later and wins). StoreError when libpq cannot
// parse conninfo, or finds a password in it.
std::vector<std::pair<std::string, std::string>> postgres_parameters(const std::string& conninfo, const std::string& shown);
// Whether this build has the PostgreSQL engine.
bool have_postgres();
// Whether libpq reads `keyword` as a connection parameter (host, port, sslmode, ...);
// false without libpq.
bool is_postgres_parameter(const std::string& keyword);

}  // namespace gpb::store
