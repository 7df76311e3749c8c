// `gpubench ab`: an A/B comparison that settles itself. Two `gpubench run` command lines (two
// builds, two library versions, two settings, two GPUs) run in turn on this machine, round by
// round: both in full first, then only the cases still inconclusive, the order of the two
// alternating, each side's samples pooled over the rounds, until every case is decided at
// the chosen error rate (analysis/resolve.hpp) or the rounds or the time run out. A is the
// baseline, B the current side; the verdicts and exit codes are compare's.
#pragma once

#include <string>

#include "config/verdict_flags.hpp"

namespace CLI {
class App;
}

namespace gpb {

struct AbCli {
  std::string a, b;      // shell command lines, each a `gpubench run ...` without --out
  int rounds = 10;       // rounds of measurement in all, the first included
  double seconds = 0;    // with --time: start no round after this many seconds (0: no limit)
  std::string threshold, format = "console", keep;
  VerdictFlags verdict;
  bool allow_missing = false;
};

// Adds the `ab` subcommand, bound to `cli`.
CLI::App* add_ab_command(CLI::App& app, AbCli& cli);

// Runs it: the comparison on stdout, each round on stderr; returns compare's exit code (130 or
// 143 after SIGINT or SIGTERM). UsageError (exit 2) when a command cannot run or writes no
// report.
int command_ab(const AbCli& cli, bool colour = false);

}  // namespace gpb
