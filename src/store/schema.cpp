#include "store/schema.hpp"

#include "measure/context.hpp"

namespace gpb::store {
namespace {

std::string with_dialect(std::string statement, const SqlDialect& dialect) {
  const std::string placeholder = "{generated_id}";
  for (auto at = statement.find(placeholder); at != std::string::npos; at = statement.find(placeholder))
    statement.replace(at, placeholder.size(), dialect.generated_id);
  return statement;
}

int newest_version(const std::vector<Migration>& migrations) { return migrations.empty() ? 0 : migrations.back().version; }

void refuse_newer(int found, int known, const std::string& shown) {
  if (found > known)
    throw StoreError("database '" + shown + "' has schema version " + std::to_string(found) +
                     ", newer than this gpubench reads (" + std::to_string(known) + "); use a newer gpubench");
}

}  // namespace

// A run is the report's context (and its tags); a result is one record, with the fields
// that queries select on beside the record's JSON text; samples are the record's timed
// samples, one row each, for SQL users (the record's JSON holds them too).
const std::vector<Migration>& history_migrations() {
  static const std::vector<Migration> migrations{
      {1,
       {"CREATE TABLE runs ("
        " id {generated_id},"
        " digest TEXT NOT NULL UNIQUE,"
        " run_timestamp TEXT NOT NULL,"
        " ingested_at TEXT NOT NULL,"
        " machine TEXT NOT NULL,"
        " cpu_model TEXT NOT NULL,"
        " gpu_name TEXT NOT NULL,"
        " hostname TEXT NOT NULL,"
        " git_sha TEXT NOT NULL,"
        " tool_version TEXT NOT NULL,"
        " report_schema_version BIGINT NOT NULL,"
        " context_json TEXT NOT NULL)",
        "CREATE INDEX runs_by_time ON runs (run_timestamp, id)",
        "CREATE INDEX runs_by_machine ON runs (machine, run_timestamp, id)",
        "CREATE TABLE run_tags ("
        " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
        " tag_name TEXT NOT NULL,"
        " tag_value TEXT NOT NULL,"
        " PRIMARY KEY (run_id, tag_name))",
        "CREATE INDEX run_tags_by_value ON run_tags (tag_name, tag_value, run_id)",
        "CREATE TABLE results ("
        " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
        " result_index BIGINT NOT NULL,"
        " case_id TEXT NOT NULL,"
        " op TEXT NOT NULL,"
        " backend TEXT NOT NULL,"
        " dtype TEXT NOT NULL,"
        " device TEXT NOT NULL,"
        " status TEXT NOT NULL,"
        " verified BIGINT NOT NULL,"
        " sample_count BIGINT NOT NULL,"
        " median_s DOUBLE PRECISION,"
        " median_ci_low_s DOUBLE PRECISION,"
        " median_ci_high_s DOUBLE PRECISION,"
        " record_json TEXT NOT NULL,"
        " PRIMARY KEY (run_id, result_index))",
        "CREATE INDEX results_by_case ON results (case_id, run_id)",
        "CREATE TABLE samples ("
        " run_id BIGINT NOT NULL,"
        " result_index BIGINT NOT NULL,"
        " sample_index BIGINT NOT NULL,"
        " seconds DOUBLE PRECISION,"
        " PRIMARY KEY (run_id, result_index, sample_index))"}},
      // Version 2: a run whose report is of an interrupted run says so, as the report does.
      {2, {"ALTER TABLE runs ADD COLUMN interrupted BIGINT NOT NULL DEFAULT 0"}},
  };
  return migrations;
}

bool is_history_table(const std::string& table) {
  if (table == "schema_version") return true;
  const std::string create = "CREATE TABLE ";
  for (const Migration& migration : history_migrations())
    for (const std::string& statement : migration.statements)
      if (statement.compare(0, create.size(), create) == 0 &&
          statement.compare(create.size(), table.size() + 1, table + " ") == 0)
        return true;
  return false;
}

int schema_version(SqlConnection& connection) {
  const auto exists = connection.query(connection.dialect().table_exists, {std::string("schema_version")});
  if (exists.empty() || exists[0].integer(0) == 0) return 0;
  const auto rows = connection.query("SELECT MAX(version) FROM schema_version", {});
  return rows.empty() || rows[0].is_null(0) ? 0 : static_cast<int>(rows[0].integer(0));
}

void apply_migrations(SqlConnection& connection, const std::vector<Migration>& migrations, const std::string& shown) {
  const int known = newest_version(migrations);
  const int found = schema_version(connection);
  refuse_newer(found, known, shown);
  if (found == known) return;

  const SqlDialect& dialect = connection.dialect();
  for (const Migration& migration : migrations) {
    WriteTransaction transaction(connection);
    if (*dialect.lock_schema) connection.query(dialect.lock_schema, {});
    connection.query("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)", {});
    // Another process may have migrated while this one waited for the lock.
    const int current = schema_version(connection);
    refuse_newer(current, known, shown);
    if (migration.version <= current) continue;
    for (const std::string& statement : migration.statements) connection.query(with_dialect(statement, dialect), {});
    connection.query("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                     {std::int64_t{migration.version}, utc_timestamp()});
    transaction.commit();
  }
}

}  // namespace gpb::store
