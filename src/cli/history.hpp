// `gpubench history ...`: the command line of the results store (`gpubench run --db` is the
// run configuration's, config/run_config.hpp). main.cpp adds the subcommand and calls in here.
#pragma once

#include <memory>

namespace CLI {
class App;
}

namespace gpb {

struct HistoryCli;  // the parsed options; defined in history.cpp

// Adds `history` and its subcommands to app; the returned handle owns what they parse into.
struct HistoryCommand {
  CLI::App* app = nullptr;
  std::shared_ptr<HistoryCli> options;
};
HistoryCommand add_history_command(CLI::App& app);

// Runs the parsed history subcommand; returns the exit code (history check: 1 when a case's
// newest runs are slower since a change point). UsageError for bad input (exit 2).
// `colour`: history check colours its verdict (stdout is a terminal, or --color always).
int run_history_command(const HistoryCommand& command, bool colour);

}  // namespace gpb
