// gpubench command line: binds argv to the commands' options and dispatches to the one given
// (each command is a file of cli/: run, list, info, compare, ab, history, report, merge), and
// says what went wrong in one line (JSON with --format json) with the exit code for it.
#include "cli/program.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <new>

#include "base/build_info.hpp"
#include "base/interrupt.hpp"
#include "base/system.hpp"
#include "base/text.hpp"
#include "cli/ab.hpp"
#include "cli/compare.hpp"
#include "cli/exit_codes.hpp"
#include "cli/help.hpp"
#include "cli/history.hpp"
#include "cli/info.hpp"
#include "cli/list.hpp"
#include "cli/merge.hpp"
#include "cli/report.hpp"
#include "cli/run.hpp"
#include "config/run_config.hpp"
#include "report/report_model.hpp"

namespace gpb {
namespace {

// --color auto: on a terminal, unless NO_COLOR is set (https://no-color.org) or TERM is dumb.
bool colour_for(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto") throw UsageError("--color: " + unknown_word_message("mode", mode, {"auto", "always", "never"}));
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return isatty(fd) && !(no_color && *no_color) && !(term && std::string(term) == "dumb");
}

// Errors go out as JSON when the command line asks for JSON output, for tools that parse them.
bool wants_json(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--format=json" || (args[i] == "--format" && i + 1 < args.size() && args[i + 1] == "json")) return true;
  return false;
}

// The --color the command line gives (or "auto"), read before parsing: an error in parsing is
// coloured as asked too.
std::string colour_mode(const std::vector<std::string>& args) {
  std::string mode = "auto";
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--color" && i + 1 < args.size()) mode = args[i + 1];
    if (args[i].rfind("--color=", 0) == 0) mode = args[i].substr(8);
  }
  return mode == "always" || mode == "never" ? mode : "auto";
}

// One line on stderr: "gpubench: error: ..." (the kind, coloured on a terminal), or a JSON object.
int report_error(const std::vector<std::string>& args, const std::string& kind, const std::string& message, int exit_code) {
  if (wants_json(args)) {
    const nlohmann::ordered_json error = {{"error", {{"kind", kind}, {"message", message}, {"exit_code", exit_code}}}};
    std::cerr << error.dump() << "\n";
    return exit_code;
  }
  const std::string label = kind == "no_history" ? "no history yet" : "error";
  const bool colour = colour_for(colour_mode(args), STDERR_FILENO);
  std::cerr << "gpubench: "
            << report_model::painted(label + ":", kind == "no_history" ? report_model::Paint::warning
                                                                        : report_model::Paint::failure,
                                     colour)
            << " " << message << "\n";
  return exit_code;
}

// A PERCENT option takes "5%" as 5: the sign a percentage is written with is no error. Applied
// to every command's options of that type, so a new one takes it too.
void accept_percent_signs(CLI::App& command) {
  for (CLI::Option* option : command.get_options())
    if (option->get_type_name().rfind("PERCENT", 0) == 0)
      option->transform([](std::string value) {
        const std::size_t end = value.find_last_not_of(" \t");
        if (end == std::string::npos || value[end] != '%') return value;
        // Only a number before the sign: '%', '5%%' and 'five%' are refused as written.
        const std::string number = trim(value.substr(0, end));
        char* last = nullptr;
        std::strtod(number.c_str(), &last);
        return !number.empty() && last == number.c_str() + number.size() ? number : value;
      });
  for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) accept_percent_signs(*sub);
}

int dispatch(int argc, char** argv, const std::vector<std::string>& args) {
  CLI::App app{"gpubench: how fast is an array operation on this machine's CPU and GPU, and is it faster or slower "
               "than last time?",
               "gpubench"};
  use_wrapped_help(app);
  app.fallthrough();  // --color after the command too
  app.set_version_flag("--version", std::string("gpubench ") + build_info::version + " (" + build_info::git_sha + ", " +
                                        build_info::build_type + (build_info::have_cuda ? ", CUDA" : ", no CUDA") + ")");
  app.require_subcommand(1);
  std::string colour = "auto";
  app.add_option("--color", colour, "Colour for verdicts and failures: auto (a terminal, unless NO_COLOR is set), always "
                                    "or never")
      ->type_name("WHEN");

  CLI::App* run_app = app.add_subcommand("run", "Run benchmark cases (the default suite when no --op or --config is given)");
  const RunCommandLine run(*run_app);

  std::string list_format = "console";
  CLI::App* list_app = app.add_subcommand("list", "Ops, backends, availability and supported op/dtype pairs");
  list_app->add_option("--format", list_format, "console or json");

  std::string info_format = "console";
  CLI::App* info_app = app.add_subcommand("info", "The system context that goes into reports");
  info_app->add_option("--format", info_format, "console or json");

  CompareCli compare;
  CLI::App* compare_app = app.add_subcommand(
      "compare", "Compare two JSON reports: verdict per case, exit 1 on regression, 4 when a change is inconclusive");
  compare_app->add_option("baseline", compare.baseline, "Baseline report (JSON), or db:URL[?key=value&last=N] (the history)")
      ->required();
  compare_app->add_option("current", compare.current, "Current report (JSON)")->required();
  compare_app->add_option("--format", compare.format, "console, markdown or json (default console)");
  compare_app->add_option("--threshold", compare.threshold, "Practical threshold in percent (overrides the suite's global one)")
      ->type_name("PERCENT");
  add_verdict_flags(*compare_app, compare.verdict);
  compare_app->add_flag("--allow-missing", compare.options.allow_missing, "Cases missing from the current report do not fail");
  compare_app->add_flag("--allow-machine-mismatch", compare.options.allow_machine_mismatch, "Compare reports from different machines");
  compare_app->add_option("--match-devices", compare.match_devices,
                          "Pair records of several GPUs by uuid (the same GPU; the default) or ordinal (rank and GPU ordinal)");
  compare_app->add_flag("--allow-interrupted", compare.options.allow_interrupted,
                        "Compare reports of interrupted runs (the cases they finished)");

  AbCli ab;
  CLI::App* ab_app = add_ab_command(app, ab);

  const HistoryCommand history = add_history_command(app);

  ReportCli report;
  CLI::App* report_app = app.add_subcommand(
      "report", "Re-render a JSON report: results, CPU-versus-GPU speed-up and crossover sizes; --html writes a self-contained page");
  report_app->add_option("report", report.path, "Report (JSON) from gpubench run --out")->required();
  report_app->add_option("--html", report.html, "Also write an HTML report with plots to this file");
  report_app->add_option("--format", report.format, "console, json, csv or markdown (on stdout; default console)");
  report_app->add_option("--relative-to", report.relative_to, "Add a speed-up column against this backend");
  report_app->add_option("--fail-on-outlier", report.fail_on_outlier_percent,
                         "Exit 1 when a GPU is slower than the fleet median by more than this percentage on a case (or failed one)")
      ->type_name("PERCENT");

  std::vector<std::string> merge_paths;
  std::string merge_out;
  CLI::App* merge_app = app.add_subcommand("merge", "Join the JSON reports of a run's ranks into one report, for the fleet view");
  merge_app->add_option("reports", merge_paths, "Reports (JSON), e.g. fleet-*.json")->required();
  merge_app->add_option("--out", merge_out, "The merged report (.json)")->required();

  std::string shell;
  CLI::App* completion_app = app.add_subcommand("completion", "Print the shell completion script (bash or zsh)");
  completion_app->add_option("shell", shell, "bash or zsh")->required();

  describe_commands(app);
  accept_percent_signs(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = mistyped_word_message(app, args);
    if (message.empty() && dynamic_cast<const CLI::ExtrasError*>(&e)) message = extra_arguments_message(app, args);
    if (message.empty() && dynamic_cast<const CLI::ArgumentMismatch*>(&e)) message = repeated_option_message(e.what());
    if (message.empty()) message = value_refusal_message(e.what());
    if (message.empty() && dynamic_cast<const CLI::RequiredError*>(&e)) {
      const std::string text = e.what();
      const std::string tail = " is required";
      if (text.size() > tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0)
        message = missing_argument_message(app, args, text.substr(0, text.size() - tail.size()));
    }
    throw UsageError((message.empty() ? std::string(e.what()) : message) + " (see " + command_path(app, args) + " --help)");
  }

  const bool colour_out = colour_for(colour, STDOUT_FILENO);
  if (run_app->parsed()) return command_run(run, args, colour_out);
  if (history.app->parsed()) return run_history_command(history, colour_out);
  if (list_app->parsed()) return command_list(list_format, std::cout);
  if (info_app->parsed()) return command_info(info_format, args);
  if (compare_app->parsed()) return command_compare(compare, colour_out);
  if (ab_app->parsed()) return command_ab(ab, colour_out);
  if (report_app->parsed()) {
    report.gate_on_outliers = report_app->get_option("--fail-on-outlier")->count() > 0;
    return command_report(report, colour_out);
  }
  if (merge_app->parsed()) return command_merge(merge_paths, merge_out);
  if (completion_app->parsed()) {
    std::cout << completion_script(app, shell);
    return kExitOk;
  }
  return kExitUsage;
}

// Standard output that could not be written (a closed pipe: SIGPIPE is ignored, so the
// write fails instead of killing the process) is an error like an --out file that could not
// be: one line, exit 2. The command has done everything else, a store included.
int checked_exit(int exit_code) {
  std::cout.flush();
  if (std::cout) return exit_code;
  std::cerr << "gpubench: error: cannot write to standard output (a pipe closed early, or a full disk); everything "
               "else was done\n";
  return kExitUsage;
}

}  // namespace

int run_program(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  // Problems are built and results verified in parallel, on as many threads as an
  // address-space limit (ulimit -v) leaves stacks for.
  limit_openmp_threads_to_fit();
  try {
    const int exit_code = dispatch(argc, argv, args);
    // A command other than run finishes what it was doing first (it is short) and then
    // reports the signal in its exit code, unless the signal came after its point of no return.
    return interrupt_requested() && !interrupt_settled() ? interrupted_exit_code() : checked_exit(exit_code);
  } catch (const StoppedBySignal& stopped) {
    std::cerr << "gpubench: interrupted by " << interrupt_signal_name() << ": " << stopped.what << "\n";
    return interrupted_exit_code();
  } catch (const NoHistoryError& error) {
    return report_error(args, "no_history", error.what(), kExitNoHistory);
  } catch (const UsageError& error) {
    return report_error(args, "usage", error.what(), kExitUsage);
  } catch (const std::bad_alloc&) {
    // The machine, a cgroup or `ulimit -v` gave less memory than a step needed.
    return report_error(args, "usage",
                        "out of memory: an allocation failed (the memory this process may use is limited by the machine, "
                        "its cgroup or ulimit -v)",
                        kExitUsage);
  } catch (const std::exception& error) {
    return report_error(args, "failure", error.what(), 1);
  }
}

}  // namespace gpb
