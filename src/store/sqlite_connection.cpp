// The SQLite engine: a file, WAL journaling so readers never wait for a writer, a busy
// timeout so concurrent writers queue, and every sqlite3_* result checked.
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "store/sql.hpp"

namespace gpb::store {
namespace {

// Writers wait this long for the lock: sixteen CI jobs ingesting at once on a slow disk
// still get through, and a stuck one fails with a message instead of hanging.
constexpr int kBusyTimeoutMs = 60000;

const SqlDialect kSqliteDialect{"SQLite", "INTEGER PRIMARY KEY",
                                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
                                ""};

struct DatabaseCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const noexcept { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(const std::string& path, bool create, std::string shown) : shown_(std::move(shown)) {
    refuse_special_file(path);
    sqlite3* raw = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    db_.reset(raw);  // a handle comes back even on failure, and must be closed
    if (rc != SQLITE_OK) {
      if (!create && (rc & 0xff) == SQLITE_CANTOPEN)
        throw NoHistoryError("database '" + shown_ + "' does not exist yet (no run stored)");
      throw StoreError("cannot open database '" + shown_ + "': " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    check(sqlite3_extended_result_codes(db_.get(), 1), "enabling extended result codes");
    check(sqlite3_busy_timeout(db_.get(), kBusyTimeoutMs), "setting the busy timeout");
    // Reads the header: a file that is not a database fails here rather than mid-command.
    query("PRAGMA foreign_keys = ON", {});
    if (create) switch_to_wal();
  }

  const SqlDialect& dialect() const override { return kSqliteDialect; }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* statement = prepared(sql);
    // Leaves the statement reset and unbound for its next use, whatever happens here.
    struct Reset {
      sqlite3_stmt* statement;
      ~Reset() {
        sqlite3_reset(statement);
        sqlite3_clear_bindings(statement);
      }
    } reset{statement};
    const int expected = sqlite3_bind_parameter_count(statement);
    if (expected != static_cast<int>(params.size()))
      throw StoreError("database '" + shown_ + "': statement takes " + std::to_string(expected) + " values, got " +
                       std::to_string(params.size()));
    for (std::size_t i = 0; i < params.size(); ++i) bind(statement, static_cast<int>(i) + 1, params[i]);

    std::vector<SqlRow> rows;
    for (;;) {
      const int rc = sqlite3_step(statement);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) check(rc, "running \"" + first_words(sql) + "\"");
      const int columns = sqlite3_column_count(statement);
      std::vector<SqlValue> cells;
      cells.reserve(static_cast<std::size_t>(columns));
      for (int column = 0; column < columns; ++column) cells.push_back(column_value(statement, column));
      rows.emplace_back(std::move(cells));
    }
    return rows;
  }

  void begin_write() override { query("BEGIN IMMEDIATE", {}); }
  void commit() override { query("COMMIT", {}); }
  void rollback() noexcept override {
    // Nothing to undo when no transaction is open (a failed BEGIN, or SQLite already rolled back).
    if (!sqlite3_get_autocommit(db_.get())) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }

 private:
  // A history is a regular file (or a new one): SQLite would otherwise open a device or a
  // fifo and create its journal beside it ("/dev/null-journal").
  void refuse_special_file(const std::string& path) const {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return;
    const char* kind = S_ISDIR(info.st_mode)                          ? "a directory"
                       : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device"
                       : S_ISFIFO(info.st_mode)                         ? "a fifo"
                                                                        : "a special file";
    throw StoreError("database '" + shown_ + "' is " + kind +
                     ", not a SQLite file; --db takes a history file (or a new path for one)");
  }

  // WAL is a property of the file: set once, by whichever process gets there first. The
  // switch needs the database to itself, and SQLite reports a busy database to it without
  // calling the busy handler, so processes opening a new file together retry here.
  void switch_to_wal() {
    if (query("PRAGMA journal_mode", {}).at(0).text(0) == "wal") return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
      sqlite3_stmt* raw = nullptr;
      check(sqlite3_prepare_v2(db_.get(), "PRAGMA journal_mode = WAL", -1, &raw, nullptr), "preparing the WAL switch");
      const Statement statement(raw);
      const int rc = sqlite3_step(statement.get());
      if (rc == SQLITE_ROW) {
        const auto* mode = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
        if (mode && std::string(mode) == "wal") return;
        throw StoreError("database '" + shown_ + "': cannot switch to WAL journaling (" + (mode ? mode : "no answer") + ")");
      }
      if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) check(rc, "switching to WAL journaling");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  void check(int rc, const std::string& doing) const {
    if (rc == SQLITE_OK) return;
    // A file of something else (a report given as --db, a text file): say what it is not, once.
    if ((rc & 0xff) == SQLITE_NOTADB)
      throw StoreError("database '" + shown_ +
                       "' is not a SQLite file (it holds something else); --db takes a history file (or a new path for one)");
    const std::string message = sqlite3_errmsg(db_.get()), code = sqlite3_errstr(rc);
    throw StoreError("database '" + shown_ + "': " + doing + ": " + message + (message == code ? "" : " (" + code + ")"));
  }

  static std::string first_words(const std::string& sql) { return sql.size() > 40 ? sql.substr(0, 40) + "..." : sql; }

  // Statements are kept prepared: ingestion runs the same few inserts many times.
  sqlite3_stmt* prepared(const std::string& sql) {
    auto found = statements_.find(sql);
    if (found != statements_.end()) return found->second.get();
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
    Statement statement(raw);
    check(rc, "preparing \"" + first_words(sql) + "\"");
    if (!statement) throw StoreError("database '" + shown_ + "': empty statement");
    return statements_.emplace(sql, std::move(statement)).first->second.get();
  }

  void bind(sqlite3_stmt* statement, int index, const SqlValue& value) const {
    int rc = SQLITE_OK;
    if (const auto* integer = std::get_if<std::int64_t>(&value)) {
      rc = sqlite3_bind_int64(statement, index, *integer);
    } else if (const auto* real = std::get_if<double>(&value)) {
      rc = std::isfinite(*real) ? sqlite3_bind_double(statement, index, *real) : sqlite3_bind_null(statement, index);
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      rc = sqlite3_bind_text64(statement, index, text->data(), text->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    } else {
      rc = sqlite3_bind_null(statement, index);
    }
    check(rc, "binding value " + std::to_string(index));
  }

  SqlValue column_value(sqlite3_stmt* statement, int column) const {
    switch (sqlite3_column_type(statement, column)) {
      case SQLITE_INTEGER:
        return static_cast<std::int64_t>(sqlite3_column_int64(statement, column));
      case SQLITE_FLOAT:
        return sqlite3_column_double(statement, column);
      case SQLITE_NULL:
        return std::monostate{};
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
        if (!text && sqlite3_errcode(db_.get()) == SQLITE_NOMEM) check(SQLITE_NOMEM, "reading text");
        const int bytes = sqlite3_column_bytes(statement, column);
        return std::string(text ? text : "", static_cast<std::size_t>(bytes));
      }
    }
  }

  std::string shown_;
  std::unique_ptr<sqlite3, DatabaseCloser> db_;
  std::map<std::string, Statement> statements_;  // finalized before db_ closes (declared after it)
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, bool create, const std::string& shown) {
  return std::make_unique<SqliteConnection>(path, create, shown);
}

}  // namespace gpb::store
