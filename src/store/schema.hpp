// The store's schema and its versioned migrations. schema_version holds one row per
// migration applied; each migration runs in one transaction with its version row, so a
// database is always at some whole version.
#pragma once

#include <string>
#include <vector>

#include "store/sql.hpp"

namespace gpb::store {

struct Migration {
  int version = 0;
  // Statements; "{generated_id}" stands for the dialect's auto-numbered primary key.
  std::vector<std::string> statements;
};

// The history schema, oldest first.
const std::vector<Migration>& history_migrations();

// Whether `table` is one of the history's own tables (schema_version, or one a migration
// creates): a database being migrated by another process holds some of them.
bool is_history_table(const std::string& table);

// The newest version applied; 0 for a database without schema_version.
int schema_version(SqlConnection& connection);

// Brings the database to the newest of `migrations`, each in its own transaction (taking
// the dialect's schema lock, so concurrent processes migrate once). A database newer than
// the migrations is a StoreError: this gpubench cannot read it.
void apply_migrations(SqlConnection& connection, const std::vector<Migration>& migrations, const std::string& shown);

}  // namespace gpb::store
