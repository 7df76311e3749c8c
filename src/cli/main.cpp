// gpubench command line: run, list, info, compare, report, history.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "measure/backend.hpp"
#include "base/atomic_file.hpp"
#include "base/build_info.hpp"
#include "analysis/compare.hpp"
#include "cli/compare.hpp"
#include "measure/context.hpp"
#include "measure/device_runner.hpp"
#include "analysis/fleet.hpp"
#include "analysis/history_baseline.hpp"
#include "cli/history.hpp"
#include "base/interrupt.hpp"
#include "fleet/launcher.hpp"
#include "base/nvtx.hpp"
#include "model/op_table.hpp"
#include "config/plan.hpp"
#include "fleet/process_group.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"
#include "measure/roofline.hpp"
#include "config/run_config.hpp"
#include "measure/runner.hpp"
#include "analysis/summary.hpp"
#include "base/system.hpp"
#include "model/telemetry.hpp"

namespace gpb {
namespace {

// Exit codes (documented in the README).
constexpr int kExitOk = 0;
constexpr int kExitOutlier = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCaseFailed = 3;

void add_notes(Context& context, const std::vector<std::string>& notes) {
  for (const auto& note : notes)
    if (std::find(context.notes.begin(), context.notes.end(), note) == context.notes.end()) context.notes.push_back(note);
}

// Roofline ceilings: measured once, before any case, for the device kinds the plan uses.
void measure_ceilings(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, const std::vector<int>& devices,
                      Context& context) {
  if (plan_uses(plan, backends, DeviceKind::cpu)) context.cpu_copy_gbps = measure_cpu_copy_gbps(context.threads);
  if (plan_uses(plan, backends, DeviceKind::gpu))
    for (int device : devices) measure_gpu_ceilings(context, device);
}

DeviceSchedule device_schedule(const RunConfig& config) {
  return config.settings.devices_serial ? DeviceSchedule::serial : DeviceSchedule::concurrent;
}

RankInfo rank_info(const RunConfig& config) {
  const LaunchInfo& launch = config.place.launch;
  const std::vector<int>& devices = config.devices.devices;
  return {launch.rank, launch.local_rank, launch.world_size, launch.launcher, config.place.host, launch.node, devices,
          devices.size() > 1 ? to_string(device_schedule(config)) : ""};
}

// Ranks wait for each other before every case: they must all run the same cases, on as
// many GPUs, in the same way. UsageError on every rank otherwise.
void require_same_plan(const Plan& plan, const RunConfig& config, const RunnerOptions& runner, ProcessGroup& processes) {
  std::string signature = std::to_string(config.devices.devices.size()) + " " + to_string(device_schedule(config)) + " " +
                          std::to_string(runner.repetitions);
  for (const auto& spec : plan.cases) signature += "\n" + spec.id();
  if (!processes.all(processes.broadcast(signature) == signature))
    throw UsageError("the ranks planned different runs (cases, GPU count, --devices-serial or --repetitions differ from "
                     "rank 0's): give every rank the same command and as many GPUs");
}

// An MPI run's report: rank 0 merges every rank's records (as gpubench merge does).
LoadedReport gather_ranks(const Context& context, const std::vector<ResultRecord>& results, ProcessGroup& processes) {
  const auto texts = processes.gather(render_records_json(context, results));
  std::vector<NamedReport> reports;
  for (std::size_t rank = 0; rank < texts.size(); ++rank) {
    const std::string origin = "rank " + std::to_string(rank);
    reports.push_back({origin, parse_json_report(texts[rank], origin)});
  }
  return reports.empty() ? LoadedReport{} : merge_reports(std::move(reports));
}

// Said once, on stderr and in the report, for a run with GPU cases: telemetry is unavailable
// and why, or the clocks are not locked.
void add_telemetry_notes(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, const std::vector<int>& devices,
                         Context& context) {
  if (!plan_uses(plan, backends, DeviceKind::gpu)) return;
  const auto notes = telemetry_notes(context, devices);
  add_notes(context, notes);
  for (const auto& note : notes) std::cerr << "gpubench: " << note << "\n";
}

void write_reports(const RunConfig& config, const Context& context, const std::vector<ResultRecord>& results) {
  ReportOptions options;
  options.relative_to = config.relative_to;
  // The files as one set (written under one lock, renamed together), then the terminal.
  std::vector<OutputFile> files;
  for (const auto& output : config.outputs)
    if (!output.path.empty()) files.push_back({output.path, render_report(output.format, context, results, options)});
  write_files_atomic(files);
  for (const auto& output : config.outputs)
    if (output.path.empty()) std::cout << render_report(output.format, context, results, options) << std::flush;
}

// After SIGINT/SIGTERM the runner stops after the current sample: the report holds the
// cases finished so far and says so.
void mark_interrupted(Context& context, std::size_t finished, std::size_t planned) {
  context.interrupted = true;
  context.notes.push_back("interrupted by " + interrupt_signal_name() + ": " + std::to_string(finished) + " of " +
                          std::to_string(planned) + " cases finished; the others are not in this report");
}

// 3 when a case failed, else the baseline's verdict (1 on a regression), else 0.
int run_exit_code(const RunConfig& config, const Context& context, const std::vector<ResultRecord>& results) {
  const bool any_failed = std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.status == Status::failed; });
  int exit_code = any_failed ? kExitCaseFailed : kExitOk;
  if (config.baseline || !config.history_baseline.empty()) {
    // A history baseline ("db:...") pools the earlier runs of this machine, so it is read now.
    const LoadedReport baseline = config.baseline ? *config.baseline : read_baseline(config.history_baseline, context);
    const int verdict =
        compare_with_baseline(baseline, context, results, compare_options(config), ReportFormat::console, std::cout, std::cerr);
    if (exit_code == kExitOk) exit_code = verdict;
  }
  return exit_code;
}

// The run's context before measuring: the machine, the settings, the plan's and the GPU
// choice's notes (said on stderr by the printing rank), and the baseline checked against it.
Context run_context(const RunConfig& config, const Plan& plan, const std::vector<std::string>& argv, bool print_notes) {
  Context context = collect_context(argv, worker_threads(static_cast<int>(config.settings.threads)));
  record_settings(config, context);
  context.thresholds = plan.thresholds;
  context.ranks = {rank_info(config)};
  add_notes(context, plan.notes);
  add_notes(context, config.devices.notes);
  check_baseline(config, context);
  if (print_notes)
    for (const auto* notes : {&plan.notes, &config.devices.notes})
      for (const auto& note : *notes) std::cerr << "gpubench: " << note << "\n";
  return context;
}

// run: every usage error surfaces in resolve(), build_plan() or check_baseline(),
// before anything is measured, so a long run never ends in one.
int command_run(const RunCommandLine& cli, const std::vector<std::string>& argv, const RunStoreOptions& store_options,
                ProcessGroup& processes) {
  const RunConfig config = cli.resolve(place_process(processes.rank(), processes.size()));
  const std::vector<int>& devices = config.devices.devices;
  if (processes.size() > 1 && devices.size() > 1 && device_schedule(config) == DeviceSchedule::concurrent &&
      !processes.any_thread_may_call())
    throw UsageError("this MPI library takes no calls from several threads: use --devices-serial, or one GPU per rank");
  // A bad database is a usage error before measuring; an MPI run's merged report is rank 0's to store.
  const auto recorder = processes.rank() == 0 ? open_run_recorder(store_options) : nullptr;
  auto backends = make_all_backends();
  const Plan plan = build_plan(config, backends);
  RunnerOptions runner = runner_options(config);
  runner.progress = runner.progress && processes.rank() == 0;
  if (processes.size() > 1) {
    require_same_plan(plan, config, runner, processes);
    runner.before_case = [&processes] { processes.barrier(); };
  }
  Context context = run_context(config, plan, argv, processes.rank() == 0);
  nvtx::initialize();
  measure_ceilings(plan, backends, devices, context);
  add_telemetry_notes(plan, backends, devices, context);
  auto results = run_plan_on_devices(plan, backends, make_all_backends, runner, devices, device_schedule(config));
  identify_gpus(context, results);
  annotate_roofline(context, results, devices.front());
  if (interrupt_requested())
    mark_interrupted(context, results.size(), planned_records(plan, backends, devices));
  if (processes.size() > 1) {
    // The other ranks write nothing and end with rank 0's exit code.
    LoadedReport merged = gather_ranks(context, results, processes);
    if (processes.rank() != 0) return std::stoi(processes.broadcast(""));
    context = std::move(merged.context);
    results = std::move(merged.results);
  }
  write_reports(config, context, results);
  int exit_code = interrupted_exit_code();
  if (!context.interrupted) {
    exit_code = run_exit_code(config, context, results);
    if (recorder) recorder->store(context, results, std::cerr);  // after compare: a db baseline pools earlier runs only
  }
  return processes.size() > 1 ? std::stoi(processes.broadcast(std::to_string(exit_code))) : exit_code;
}

// Runs in this build's process group; an error on one rank of several ends them all, as the
// others may be waiting for it at a barrier.
int command_run_in_group(const RunCommandLine& cli, const std::vector<std::string>& argv,
                         const RunStoreOptions& store_options) {
  const std::unique_ptr<ProcessGroup> group = join_process_group();
  try {
    return command_run(cli, argv, store_options, *group);
  } catch (const std::exception& error) {
    if (group->size() == 1) throw;
    std::cerr << "gpubench: error: rank " << group->rank() << ": " << error.what() << "\n" << std::flush;
    group->abort(dynamic_cast<const UsageError*>(&error) ? kExitUsage : 1);
  }
}

// merge: the reports of a run's ranks as one.
int command_merge(const std::vector<std::string>& paths, const std::string& out) {
  if (paths.size() < 2) throw UsageError("merge needs at least two reports");
  if (report_format_for_path(out) != ReportFormat::json) throw UsageError("merge --out '" + out + "': the merged report is JSON (.json)");
  std::vector<NamedReport> reports;
  for (const auto& path : paths) reports.push_back({path, read_json_report(path)});
  const LoadedReport merged = merge_reports(std::move(reports));
  write_file_atomic(out, render_json(merged.context, merged.results));
  std::set<std::string> hosts;
  for (const auto& rank : merged.context.ranks) hosts.insert(rank.host);
  std::cout << "merged " << paths.size() << " reports (" << merged.context.ranks.size() << " ranks on " << hosts.size()
            << " host" << (hosts.size() == 1 ? "" : "s") << ", " << merged.results.size() << " records) into " << out << "\n";
  return kExitOk;
}

// report: re-renders a JSON report, with the CPU-versus-GPU summary and an HTML page.

struct ReportCli {
  std::string path, html, format = "console", relative_to;
  double fail_on_outlier_percent = 0;
  bool gate_on_outliers = false;  // --fail-on-outlier given
};

int command_report(const ReportCli& cli) {
  const ReportFormat format = parse_report_format(cli.format);
  const LoadedReport report = read_json_report(cli.path);
  ReportOptions options;
  if (!cli.relative_to.empty()) {
    const bool present = std::any_of(report.results.begin(), report.results.end(),
                                     [&](const ResultRecord& record) { return record.spec.backend == cli.relative_to; });
    if (!present) throw UsageError("--relative-to " + cli.relative_to + ": no results of that backend in " + cli.path);
    options.relative_to = cli.relative_to;
  }
  std::optional<FleetView> gate;
  if (cli.gate_on_outliers) {
    if (!(cli.fail_on_outlier_percent > 0)) throw UsageError("--fail-on-outlier must be a positive percentage");
    options.outlier_threshold = cli.fail_on_outlier_percent / 100.0;
    gate = analyze_fleet(report.context, report.results, options.outlier_threshold);
    if (!gate->applies())
      throw UsageError("--fail-on-outlier: " + cli.path + " holds one GPU's or rank's results; the fleet view needs several");
  }
  if (!cli.html.empty()) write_file_atomic(cli.html, render_html(report.context, report.results, options));
  // The console view adds the speed-up summary that the Markdown and JSON reports carry themselves.
  std::cout << render_report(format, report.context, report.results, options);
  if (format == ReportFormat::console)
    std::cout << '\n' << render_speedups_console(summarize_speedups(report.results));
  std::cout << std::flush;
  if (gate && (gate->outlier_count() > 0 || !gate->failures.empty())) return kExitOutlier;
  return kExitOk;
}


void print_list(std::ostream& out) {
  auto backends = make_all_backends();
  out << "Ops:\n";
  for (Op op : all_ops()) {
    const OpDef& def = op_def(op);
    out << "  " << def.name << std::string(std::max<std::size_t>(8, def.name.size() + 1) - def.name.size(), ' ')
        << def.description << "  [" << shape_parameters(def.shape_kind) << "; inputs " << def.input_distribution << "]\n";
  }
  out << "\nBackends:\n";
  for (auto& backend : backends) {
    const Availability availability = backend->availability();
    out << "  " << backend->name() << std::string(10 - std::min<std::size_t>(9, backend->name().size()), ' ')
        << to_string(backend->kind()) << "  " << (availability.available ? "available" : "unavailable: " + availability.reason) << "\n"
        << "            " << backend->description() << "\n";
  }
  out << "\nSupport (op/dtype):\n  backend   ";
  for (Op op : all_ops())
    for (DType dtype : all_dtypes()) {
      const std::string column = to_string(op) + "/" + to_string(dtype);
      out << column << std::string(column.size() < 12 ? 12 - column.size() : 1, ' ');
    }
  out << "\n";
  std::map<std::string, std::string> reasons;
  for (auto& backend : backends) {
    const bool available = backend->availability().available;
    out << "  " << backend->name() << std::string(10 - std::min<std::size_t>(9, backend->name().size()), ' ');
    for (Op op : all_ops()) {
      std::vector<std::pair<DType, std::string>> refused;
      for (DType dtype : all_dtypes()) {
        const Support support = backend->supports(op, dtype);
        const std::string column = to_string(op) + "/" + to_string(dtype);
        const std::string mark = support.supported ? "yes" : "-";
        out << mark << std::string(std::max<std::size_t>(12, column.size() + 1) - mark.size(), ' ');
        // An unavailable backend's reason is already on its line above.
        if (!support.supported && available) refused.emplace_back(dtype, support.reason);
      }
      // One line per op where every dtype is refused for one reason, else one per dtype.
      const bool one_reason = refused.size() == all_dtypes().size() &&
                              std::all_of(refused.begin(), refused.end(), [&](const auto& entry) { return entry.second == refused[0].second; });
      for (const auto& [dtype, reason] : refused)
        reasons[backend->name() + " " + to_string(op) + (one_reason ? "" : " " + to_string(dtype))] = reason;
    }
    out << "\n";
  }
  if (!reasons.empty()) {
    out << "\nWhy not:\n";
    for (const auto& [what, why] : reasons) out << "  " << what << ": " << why << "\n";
  }
}

int command_info(const std::string& format_name, const std::vector<std::string>& argv) {
  const ReportFormat format = parse_report_format(format_name);
  if (format != ReportFormat::console && format != ReportFormat::json) throw UsageError("info --format takes console or json");
  std::cout << render_report(format, collect_context(argv, usable_cores()), {}) << std::flush;
  return kExitOk;
}

struct CompareCli {
  std::string baseline, current, format = "console", threshold, match_devices = "uuid";
  CompareOptions options;
};

int command_compare(CompareCli cli) {
  if (!cli.threshold.empty()) cli.options.threshold = parse_threshold_flag("--threshold", cli.threshold);
  cli.options.match_devices = parse_device_match(cli.match_devices);
  return run_compare(cli.baseline, cli.current, cli.options, parse_report_format(cli.format), std::cout, std::cerr);
}

int dispatch(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"gpubench: benchmark array operations on the CPU and the GPU side by side"};
  app.set_version_flag("--version", std::string("gpubench ") + build_info::version + " (" + build_info::git_sha + ", " +
                                        build_info::build_type + (build_info::have_cuda ? ", CUDA" : ", no CUDA") + ")");
  app.require_subcommand(1);

  CLI::App* run_app = app.add_subcommand("run", "Run benchmark cases (the default suite when no --op or --config is given)");
  const RunCommandLine run(*run_app);
  RunStoreOptions run_store;
  add_run_store_options(*run_app, run_store);

  CLI::App* list_app = app.add_subcommand("list", "Ops, backends, availability and supported op/dtype pairs");

  std::string info_format = "console";
  CLI::App* info_app = app.add_subcommand("info", "The system context that goes into reports");
  info_app->add_option("--format", info_format, "console or json");

  CompareCli compare;
  CLI::App* compare_app = app.add_subcommand("compare", "Compare two JSON reports: verdict per case, exit 1 on regression");
  compare_app->add_option("baseline", compare.baseline, "Baseline report (JSON), or db:URL[?key=value&last=N] (the history)")
      ->required();
  compare_app->add_option("current", compare.current, "Current report (JSON)")->required();
  compare_app->add_option("--format", compare.format, "console, markdown or json");
  compare_app->add_option("--threshold", compare.threshold, "Practical threshold in percent (overrides the suite's global one)")
      ->type_name("PERCENT");
  compare_app->add_option("--alpha", compare.options.alpha,
                          "Significance level of the rank test (default 0.001): a change is a verdict only below it")
      ->type_name("P");
  compare_app->add_flag("--allow-missing", compare.options.allow_missing, "Cases missing from the current report do not fail");
  compare_app->add_flag("--allow-machine-mismatch", compare.options.allow_machine_mismatch, "Compare reports from different machines");
  compare_app->add_option("--match-devices", compare.match_devices,
                          "Pair records of several GPUs by uuid (the same GPU) or ordinal (rank and GPU ordinal)");
  compare_app->add_flag("--allow-interrupted", compare.options.allow_interrupted,
                        "Compare reports of interrupted runs (the cases they finished)");

  const HistoryCommand history = add_history_command(app);

  ReportCli report;
  CLI::App* report_app = app.add_subcommand(
      "report", "Re-render a JSON report: results, CPU-versus-GPU speed-up and crossover sizes; --html writes a self-contained page");
  report_app->add_option("report", report.path, "Report (JSON) from gpubench run --out")->required();
  report_app->add_option("--html", report.html, "Also write an HTML report with plots to this file");
  report_app->add_option("--format", report.format, "console, json, csv or markdown (on stdout)");
  report_app->add_option("--relative-to", report.relative_to, "Add a speed-up column against this backend");
  report_app->add_option("--fail-on-outlier", report.fail_on_outlier_percent,
                         "Exit 1 when a GPU is slower than the fleet median by more than this percentage on a case (or failed one)");

  std::vector<std::string> merge_paths;
  std::string merge_out;
  CLI::App* merge_app = app.add_subcommand("merge", "Join the JSON reports of a run's ranks into one report, for the fleet view");
  merge_app->add_option("reports", merge_paths, "Reports (JSON), e.g. fleet-*.json")->required();
  merge_app->add_option("--out", merge_out, "The merged report (.json)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "gpubench: error: " << e.what() << " (see gpubench --help)\n";
    return kExitUsage;
  }

  if (run_app->parsed()) return command_run_in_group(run, args, run_store);
  if (history.app->parsed()) return run_history_command(history);
  if (list_app->parsed()) {
    print_list(std::cout);
    return kExitOk;
  }
  if (info_app->parsed()) return command_info(info_format, args);
  if (compare_app->parsed()) return command_compare(compare);
  if (report_app->parsed()) {
    report.gate_on_outliers = report_app->get_option("--fail-on-outlier")->count() > 0;
    return command_report(report);
  }
  if (merge_app->parsed()) return command_merge(merge_paths, merge_out);
  return kExitUsage;
}

}  // namespace
}  // namespace gpb

int main(int argc, char** argv) {
  gpb::install_interrupt_handlers();
  try {
    const int exit_code = gpb::dispatch(argc, argv);
    // A command other than run finishes what it was doing first (it is short) and then
    // reports the signal in its exit code.
    return gpb::interrupt_requested() ? gpb::interrupted_exit_code() : exit_code;
  } catch (const gpb::UsageError& error) {
    std::cerr << "gpubench: error: " << error.what() << "\n";
    return gpb::kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "gpubench: error: " << error.what() << "\n";
    return 1;
  }
}
