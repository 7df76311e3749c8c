// `gpubench history ...` and the `--db`/`--tag` options of `gpubench run`: the command line
// of the results store. main.cpp adds the subcommand and the run options and calls in here.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "result.hpp"

namespace CLI {
class App;
}

namespace gpb {

namespace store {
class ResultStore;
}

// ---- gpubench run --db URL [--tag key=value ...] ----

struct RunStoreOptions {
  std::string db;
  std::vector<std::string> tags;
};

void add_run_store_options(CLI::App& run, RunStoreOptions& options);

// Stores the run a `gpubench run` reports, with its tags.
class RunRecorder {
 public:
  RunRecorder(std::unique_ptr<store::ResultStore> store, std::map<std::string, std::string> tags);
  ~RunRecorder();
  void store(const Context& context, const std::vector<ResultRecord>& results, std::ostream& log);

 private:
  std::unique_ptr<store::ResultStore> store_;
  std::map<std::string, std::string> tags_;
};

// Opens the database before anything is measured, so that a bad URL or tag is a usage
// error up front; null without --db (and --tag without --db is a usage error).
std::unique_ptr<RunRecorder> open_run_recorder(const RunStoreOptions& options);

// ---- gpubench history ingest|list|show|export|check ----

struct HistoryCli;  // the parsed options; defined in history_command.cpp

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
