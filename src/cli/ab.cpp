#include "cli/ab.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <fstream>
#include <iostream>
#include <thread>

#include "analysis/resolve.hpp"
#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "cli/compare.hpp"
#include "cli/exit_codes.hpp"
#include "config/cli_checks.hpp"
#include "config/run_config.hpp"
#include "model/record_format.hpp"
#include "report/compare_render.hpp"
#include "report/report.hpp"

extern char** environ;

namespace gpb {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A directory of its own for the rounds' reports and logs, removed with it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpubench-ab-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      throw UsageError("cannot create a scratch directory in " + fs::path(pattern).parent_path().string() + ": " +
                       std::strerror(errno));
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

class SpawnFileActions {
 public:
  SpawnFileActions() { check(posix_spawn_file_actions_init(&actions_), "posix_spawn_file_actions_init"); }
  ~SpawnFileActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnFileActions(const SpawnFileActions&) = delete;
  SpawnFileActions& operator=(const SpawnFileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }
  static void check(int error, const char* call) {
    if (error != 0) throw std::system_error(error, std::generic_category(), call);
  }

 private:
  posix_spawn_file_actions_t actions_;
};

// The last non-empty line of a log, for an error message.
std::string last_line(const fs::path& log) {
  std::ifstream file(log);
  std::string line, last;
  while (std::getline(file, line))
    if (!trim(line).empty()) last = line;
  return last.empty() ? "(it printed nothing)" : last;
}

// One side of the comparison: a shell command line run with extra arguments appended.
struct Side {
  const char* name;  // "A" or "B"
  std::string command;
};

// Runs `sh -c 'COMMAND "$@"' ARGS...` with its output in `log`; returns its exit status, or
// -1 once a signal asked gpubench to stop (the command was asked to stop too).
int run_command(const Side& side, const std::vector<std::string>& args, const fs::path& log) {
  SpawnFileActions actions;
  SpawnFileActions::check(posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0),
                          "posix_spawn_file_actions_addopen");
  SpawnFileActions::check(posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log.c_str(),
                                                           O_WRONLY | O_CREAT | O_TRUNC, 0644),
                          "posix_spawn_file_actions_addopen");
  SpawnFileActions::check(posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO),
                          "posix_spawn_file_actions_adddup2");
  std::vector<std::string> words{"sh", "-c", side.command + " \"$@\"", "gpubench-ab"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (const int error = posix_spawn(&child, "/bin/sh", actions.get(), nullptr, argv.data(), environ); error != 0)
    throw UsageError(std::string("cannot start the ") + side.name + " command: " + std::strerror(error));
  bool asked_to_stop = false;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) {
      if (interrupt_requested()) return -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (done < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
    if (interrupt_requested() && !asked_to_stop) {
      // It writes what it finished and ends; a second signal ends both at once. A child that
      // has just ended is no error.
      if (kill(child, interrupt_signal()) != 0 && errno != ESRCH) throw std::system_error(errno, std::generic_category(), "kill");
      asked_to_stop = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Runs the sides, each run's report and log in the scratch directory.
class AbRunner {
 public:
  explicit AbRunner(const fs::path& scratch) : scratch_(scratch) {}

  // The side's records of the cases with these ids (every case when empty); nullopt after a
  // signal.
  std::optional<LoadedReport> measure(const Side& side, const std::vector<std::string>& case_ids) {
    const std::string stem = std::string(side.name) + "-" + std::to_string(++runs_);
    const fs::path report = scratch_ / (stem + ".json");
    const fs::path log = scratch_ / (stem + ".log");
    std::vector<std::string> args{"--out", report.string(), "--quiet"};
    if (!case_ids.empty()) {
      std::string ids;
      for (const std::string& id : case_ids) ids += (ids.empty() ? "" : ",") + id;
      args.insert(args.end(), {"--case", ids});
    }
    const int status = run_command(side, args, log);
    if (status < 0) return std::nullopt;
    // A case failed: the report holds it, and compare calls it failed.
    if (status != kExitOk && status != kExitCaseFailed)
      throw UsageError(std::string("the ") + side.name + " command ended with exit " + std::to_string(status) + ": " +
                       last_line(log) + " (command: " + side.command + ")");
    if (!fs::exists(report))
      throw UsageError(std::string("the ") + side.name + " command wrote no report: it must be a gpubench run command line (" +
                       side.command + ")");
    return read_json_report(report.string());
  }

 private:
  fs::path scratch_;
  int runs_ = 0;
};

void say_round(int round, std::size_t cases, double seconds, const VerdictCounts& n) {
  std::cerr << "gpubench ab: round " << round << ": " << cases << (cases == 1 ? " case" : " cases")
            << " measured on A and B in " << format_significant(seconds, 3) << " s; " << n.slower << " slower, "
            << n.faster << " faster, " << n.inconclusive << " inconclusive\n";
}

}  // namespace

CLI::App* add_ab_command(CLI::App& app, AbCli& cli) {
  CLI::App* ab = app.add_subcommand(
      "ab", "Run two gpubench run command lines in turn, round by round, until every case is decided (A: baseline, B: "
            "current)");
  ab->add_option("--a", cli.a, "The baseline's command line, e.g. \"build-main/gpubench run --config configs/ci.json\"")
      ->required();
  ab->add_option("--b", cli.b, "The current side's command line")->required();
  ab->add_option("--rounds", cli.rounds, "Rounds of measurement in all, the first included (default 10; at least 3: a change must show in 3 rounds)")
      ->check(CLI::Range(1, 1000));
  ab->add_option("--time", cli.seconds, "Start no round after this many seconds from the start of the first")
      ->check(positive_number())
      ->type_name("SECONDS");
  ab->add_option("--threshold", cli.threshold, "Regression threshold in percent (overrides the suites' global one)")
      ->type_name("PERCENT");
  add_verdict_flags(*ab, cli.verdict);
  ab->add_option("--format", cli.format, "console, markdown or json");
  ab->add_option("--keep", cli.keep, "Write the pooled reports of both sides into this directory (a.json, b.json)");
  ab->add_flag("--allow-missing", cli.allow_missing, "Cases B lacks do not fail");
  return ab;
}

int command_ab(const AbCli& cli, bool colour) {
  CompareOptions options;
  if (!cli.threshold.empty()) options.threshold = parse_threshold_flag("--threshold", cli.threshold);
  apply_verdict_flags(cli.verdict, options);
  options.allow_missing = cli.allow_missing;
  options.min_rounds = kAbMinRounds;
  const ReportFormat format = parse_report_format(cli.format, kComparisonFormats);  // before anything runs
  if (!cli.keep.empty() && !fs::is_directory(cli.keep)) throw UsageError("--keep " + cli.keep + ": no such directory");
  for (const auto& [flag, line] : {std::pair<const char*, const std::string&>{"--a", cli.a}, {"--b", cli.b}})
    if (line.find_first_not_of(" \t\n") == std::string::npos)
      throw UsageError(std::string(flag) + " is empty: give a gpubench run command line, e.g. " + flag +
                       " \"build-main/gpubench run --config configs/ci.json\"");

  const ScratchDirectory scratch;
  AbRunner runner(scratch.path());
  const Side a{"A", cli.a}, b{"B", cli.b};
  ResolveLimits limits;
  if (cli.rounds < kAbMinRounds)
    throw UsageError("--rounds " + std::to_string(cli.rounds) + ": gpubench ab weighs at least " +
                     std::to_string(kAbMinRounds) + " rounds before a verdict (use --rounds " +
                     std::to_string(kAbMinRounds) + " or more)");
  limits.max_rounds = cli.rounds - 1;
  options.looks = resolve_looks(limits);
  const auto first_start = Clock::now();
  std::optional<LoadedReport> baseline = runner.measure(a, {});
  std::optional<LoadedReport> current = baseline ? runner.measure(b, {}) : std::nullopt;
  if (!current) return interrupted_exit_code();
  const double first_seconds = std::chrono::duration<double>(Clock::now() - first_start).count();
  // --time counts from the start of round 0; the rounds after it have what is left.
  if (cli.seconds > 0) limits.max_seconds = std::max(0.0, cli.seconds - first_seconds);

  // A side cut short by a signal adds nothing; the loop then stops.
  const auto remeasure = [&runner](const Side& side) {
    return [&runner, &side](const std::vector<std::string>& ids) {
      std::optional<LoadedReport> round = runner.measure(side, ids);
      return round ? std::move(round->results) : std::vector<ResultRecord>{};
    };
  };
  // Round 0 is the first comparison resolve_comparison makes (its look 1): said with the time
  // both sides took to measure it here.
  const Comparison comparison = resolve_comparison(
      *baseline, *current, options, limits, remeasure(b), remeasure(a), [first_seconds](const ResolveRound& round) {
        say_round(round.round, round.case_ids.size(), round.round == 0 ? first_seconds : round.seconds, round.counts);
      });
  if (interrupt_requested()) return interrupted_exit_code();
  if (!cli.keep.empty())
    write_files_atomic({{(fs::path(cli.keep) / "a.json").string(), render_json(baseline->context, baseline->results)},
                        {(fs::path(cli.keep) / "b.json").string(), render_json(current->context, current->results)}});
  return print_comparison(comparison, format, std::cout, std::cerr, colour);
}

}  // namespace gpb
