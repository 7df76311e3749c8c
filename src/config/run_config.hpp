// The run configuration: everything `gpubench run` decides before it measures, in one
// place. Each run-wide setting is one entry of the settings table (config/settings.hpp),
// which drives its command-line flag here, the merge (a flag given explicitly wins over the
// suite), validation and the typed write into the report context.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/history_baseline.hpp"
#include "config/settings.hpp"
#include "config/suite.hpp"
#include "config/test_knobs.hpp"
#include "config/verdict_flags.hpp"
#include "fleet/launcher.hpp"
#include "measure/runner.hpp"
#include "model/record_format.hpp"
#include "model/result.hpp"
#include "report/report.hpp"
#include "store/result_store.hpp"

namespace CLI {
class App;
}

namespace gpb {

RunSettings default_run_settings();

// --progress: the progress line on stderr always, never, or on a terminal without --quiet.
enum class ProgressMode { never, always, auto_detect };
ProgressMode parse_progress_mode(std::string_view text);  // "never", "always", "auto"; UsageError otherwise
bool progress_wanted(ProgressMode mode, bool quiet, bool stderr_is_terminal);

// A report destination: a file whose format follows its extension, or the terminal.
struct ReportOutput {
  ReportFormat format = ReportFormat::console;
  std::string path;  // empty: stdout
};

// Everything one `gpubench run` does, checked: a RunConfig that exists is one that can run
// to its end without a usage error (the plan and the baseline's machine are checked next,
// still before measuring: build_plan, check_baseline).
struct RunConfig {
  RunSettings settings;
  // What runs: the command line's one group, or a suite's groups after the --op, --backend,
  // --dtype and --timing filters.
  std::vector<SuiteGroup> groups;
  std::vector<Op> only_ops;                   // --op with a suite: its other ops are left out
  bool backends_named = false;                // --backend given: an unavailable one is a usage error
  std::map<std::string, double> thresholds;   // the suite's (fractions); the plan adds --threshold as "*"
  std::string suite_path;                     // --config, recorded in the report
  std::vector<ReportOutput> outputs;
  std::optional<Baseline> baseline;           // --baseline: a file read, or a history opened, before anything runs
  // --db: the store this run is kept in, opened (its schema created or migrated) once, before
  // anything runs; null without --db, and on the ranks of an MPI run other than rank 0,
  // whose merged report rank 0 stores. --tag: the stored run's tags.
  std::shared_ptr<store::ResultStore> store;
  store::Tags tags;
  TestSlowdown test_slowdown;  // GPUBENCH_TEST_SLOWDOWN (config/test_knobs.hpp)
  // With --baseline: how compare decides (--threshold as a fraction, --alpha, --p-adjust,
  // --inconclusive, the --allow-* flags), and the rounds of re-measurement that may settle
  // inconclusive cases (--resolve, --resolve-time).
  CompareOptions compare;
  int resolve_rounds = 0;
  double resolve_seconds = std::numeric_limits<double>::infinity();
  std::vector<std::string> only_cases;        // --case: the plan's cases with these ids, the others left out
  std::optional<std::string> relative_to;
  bool quiet = false;
  bool dry_run = false;  // print the plan and measure nothing
  ProcessPlace place;    // this process's rank and host ({rank} and {host} in the --out paths)
  DeviceChoice devices;  // the GPUs its GPU cases run on ({device})
  ProgressMode progress = ProgressMode::auto_detect;
};

// `gpubench run`'s flags: the constructor adds them to the run subcommand; after that
// command line is parsed, resolve() reads the suite, merges and validates. UsageError
// names the flag or the suite key and what was wrong.
class RunCommandLine {
 public:
  explicit RunCommandLine(CLI::App& run_command);
  RunCommandLine(const RunCommandLine&) = delete;  // the App holds pointers into it
  RunCommandLine& operator=(const RunCommandLine&) = delete;
  // `place`: where this process runs, for the GPU choice and the --out placeholders.
  RunConfig resolve(const ProcessPlace& place = {}) const;

 private:
  bool given(const std::string& flag) const;
  RunSettings merge_settings(const Suite* suite) const;
  std::vector<SuiteGroup> command_line_groups() const;
  void refuse_flags_without_effect(const RunOptions& options) const;
  std::vector<SuiteGroup> filtered_suite_groups(const Suite& suite) const;
  std::vector<ReportOutput> outputs(const ProcessPlace& place, const DeviceChoice& devices) const;

  CLI::App* app_;
  struct SettingInput {
    std::string text;  // a value flag's argument
    bool set = false;  // a switch (--profile)
  };
  std::vector<SettingInput> setting_inputs_;  // one per table entry, in its order
  std::vector<std::string> ops_, backends_, dtypes_, sizes_, shapes_, timings_, outs_, patterns_;
  std::string rows_, nnz_per_row_, matrix_, spmv_kernel_, config_, format_, baseline_, threshold_, relative_to_, db_;
  std::vector<std::string> tags_;
  std::string progress_ = "auto";
  std::vector<std::string> cases_;
  VerdictFlags verdict_;
  int resolve_rounds_ = 0;
  double resolve_seconds_ = 0;
  bool tf32_ = false, quiet_ = false, dry_run_ = false, allow_missing_ = false, allow_machine_mismatch_ = false,
       allow_interrupted_ = false;
};

// A threshold flag's percent as a fraction, held to compare's rule (require_threshold).
double parse_threshold_flag(const std::string& flag, const std::string& text);

// The run option a word is a value of ("--dtype" for "f16", "--size" for "4096", "--pattern" for
// "random,wide": every item of a comma list the same option's), or "" where it is none's: for
// telling a user where a stray word belongs.
std::string run_option_taking(const std::string& word);

// The runner's options for this configuration (its observer is the caller's to set).
RunnerOptions runner_options(const RunConfig& config);

// Whether this configuration shows a progress line, given where stderr goes.
bool shows_progress(const RunConfig& config, bool stderr_is_terminal);

// The one typed write of the run's settings into the report context.
void record_settings(const RunConfig& config, Context& context);

// Refuses, before measuring, a baseline that compare would refuse at the end: another
// machine (unless allowed), a case listed twice, thresholds out of range.
void check_baseline(const RunConfig& config, const Context& context);

}  // namespace gpb
