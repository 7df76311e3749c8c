// `gpubench history ...` and the `--db`/`--tag` options of `gpubench run`: the command line
// of the results store. main.cpp adds the subcommand and the run options and calls in here.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace CLI {
class App;
}

namespace gpb {

// ---- gpubench run --db URL [--tag key=value ...] ----

struct RunStoreOptions {
  std::string db;
  std::vector<std::string> tags;
};

void add_run_store_options(CLI::App& run, RunStoreOptions& options);

// Stores the run a `gpubench run` reports, with its tags. The database is opened (and its
// schema created or migrated) before anything is measured, so that a bad URL or tag is a
// usage error up front, and opened again to store: no connection idles through the suite.
class RunRecorder {
 public:
  RunRecorder(std::string database, std::map<std::string, std::string> tags);
  void store(const Context& context, const std::vector<ResultRecord>& results, std::ostream& log) const;

 private:
  std::string database_;
  std::map<std::string, std::string> tags_;
};

// Null without --db (and --tag without --db is a usage error).
std::unique_ptr<RunRecorder> open_run_recorder(const RunStoreOptions& options);

// ---- gpubench history ingest|list|show|export|check ----

struct HistoryCli;  // the parsed options; defined in history.cpp

// Adds `history` and its subcommands to app; the returned handle owns what they parse into.
struct HistoryCommand {
  CLI::App* app = nullptr;
  std::shared_ptr<HistoryCli> options;
};
HistoryCommand add_history_command(CLI::App& app);

// Runs the parsed history subcommand; returns the exit code (history check: 1 when a case's
// newest runs are slower since a change point). UsageError for bad input (exit 2).
int run_history_command(const HistoryCommand& command);

}  // namespace gpb
