// gpubench command line: run, list, info, compare, report.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>

#include "backend.hpp"
#include "build_info.hpp"
#include "compare.hpp"
#include "context.hpp"
#include "nvtx.hpp"
#include "op_table.hpp"
#include "plan.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"
#include "roofline.hpp"
#include "run_config.hpp"
#include "runner.hpp"
#include "summary.hpp"
#include "system.hpp"
#include "telemetry.hpp"

namespace gpb {
namespace {

// Exit codes (documented in the README).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitCaseFailed = 3;

void add_notes(Context& context, const std::vector<std::string>& notes) {
  for (const auto& note : notes)
    if (std::find(context.notes.begin(), context.notes.end(), note) == context.notes.end()) context.notes.push_back(note);
}

// Roofline ceilings: measured once, before any case, for the device kinds the plan uses.
void measure_ceilings(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, const RunConfig& config,
                      Context& context) {
  if (plan_uses(plan, backends, DeviceKind::cpu)) context.cpu_copy_gbps = measure_cpu_copy_gbps(context.threads);
  if (plan_uses(plan, backends, DeviceKind::gpu)) measure_gpu_ceilings(context, static_cast<int>(config.settings.device));
}

// Said once, on stderr and in the report, for a run with GPU cases: telemetry is unavailable
// and why, or the clocks are not locked.
void add_telemetry_notes(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, const RunConfig& config,
                         Context& context) {
  if (!plan_uses(plan, backends, DeviceKind::gpu)) return;
  const auto notes = telemetry_notes(context, static_cast<int>(config.settings.device));
  add_notes(context, notes);
  for (const auto& note : notes) std::cerr << "gpubench: " << note << "\n";
}

void write_reports(const RunConfig& config, const Context& context, const std::vector<ResultRecord>& results) {
  ReportOptions options;
  options.relative_to = config.relative_to;
  for (const auto& output : config.outputs) {
    const std::string text = render_report(output.format, context, results, options);
    if (output.path.empty())
      std::cout << text << std::flush;
    else
      write_file_atomic(output.path, text);
  }
}

// 3 when a case failed, else the baseline's verdict (1 on a regression), else 0.
int run_exit_code(const RunConfig& config, const Context& context, const std::vector<ResultRecord>& results) {
  const bool any_failed = std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.status == Status::failed; });
  int exit_code = any_failed ? kExitCaseFailed : kExitOk;
  if (config.baseline) {
    const int verdict = compare_with_baseline(*config.baseline, context, results, compare_options(config), ReportFormat::console,
                                              std::cout, std::cerr);
    if (exit_code == kExitOk) exit_code = verdict;
  }
  return exit_code;
}

// run: every usage error surfaces in resolve() and build_plan(), before anything is measured.
int command_run(const RunCommandLine& cli, const std::vector<std::string>& argv) {
  const RunConfig config = cli.resolve();
  auto backends = make_all_backends();
  const Plan plan = build_plan(config, backends);
  Context context = collect_context(argv, worker_threads(static_cast<int>(config.settings.threads)));
  record_settings(config, context);
  context.thresholds = plan.thresholds;
  add_notes(context, plan.notes);
  for (const auto& note : plan.notes) std::cerr << "gpubench: " << note << "\n";

  nvtx::initialize();
  measure_ceilings(plan, backends, config, context);
  add_telemetry_notes(plan, backends, config, context);
  auto results = run_plan(plan, backends, runner_options(config));
  annotate_roofline(context, results, static_cast<int>(config.settings.device));
  write_reports(config, context, results);
  return run_exit_code(config, context, results);
}

// report: re-renders a JSON report, with the CPU-versus-GPU summary and an HTML page.

struct ReportCli {
  std::string path, html, format = "console", relative_to;
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
  if (!cli.html.empty()) write_file_atomic(cli.html, render_html(report.context, report.results, options));
  // The console view adds the speed-up summary that the Markdown and JSON reports carry themselves.
  std::cout << render_report(format, report.context, report.results, options);
  if (format == ReportFormat::console)
    std::cout << '\n' << render_speedups_console(summarize_speedups(report.results));
  std::cout << std::flush;
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
    for (Op op : all_ops())
      for (DType dtype : all_dtypes()) {
        const Support support = backend->supports(op, dtype);
        const std::string column = to_string(op) + "/" + to_string(dtype);
        const std::string mark = support.supported ? "yes" : "-";
        out << mark << std::string(std::max<std::size_t>(12, column.size() + 1) - mark.size(), ' ');
        // An unavailable backend's reason is already on its line above.
        if (!support.supported && available) reasons[backend->name() + " " + to_string(op)] = support.reason;
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
  std::string baseline, current, format = "console", threshold;
  CompareOptions options;
};

int command_compare(CompareCli cli) {
  if (!cli.threshold.empty()) cli.options.threshold = parse_threshold_flag("--threshold", cli.threshold);
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

  CLI::App* list_app = app.add_subcommand("list", "Ops, backends, availability and supported op/dtype pairs");

  std::string info_format = "console";
  CLI::App* info_app = app.add_subcommand("info", "The system context that goes into reports");
  info_app->add_option("--format", info_format, "console or json");

  CompareCli compare;
  CLI::App* compare_app = app.add_subcommand("compare", "Compare two JSON reports: verdict per case, exit 1 on regression");
  compare_app->add_option("baseline", compare.baseline, "Baseline report (JSON)")->required();
  compare_app->add_option("current", compare.current, "Current report (JSON)")->required();
  compare_app->add_option("--format", compare.format, "console, markdown or json");
  compare_app->add_option("--threshold", compare.threshold, "Practical threshold in percent (overrides the suite's global one)");
  compare_app->add_flag("--allow-missing", compare.options.allow_missing, "Cases missing from the current report do not fail");
  compare_app->add_flag("--allow-machine-mismatch", compare.options.allow_machine_mismatch, "Compare reports from different machines");

  ReportCli report;
  CLI::App* report_app = app.add_subcommand(
      "report", "Re-render a JSON report: results, CPU-versus-GPU speed-up and crossover sizes; --html writes a self-contained page");
  report_app->add_option("report", report.path, "Report (JSON) from gpubench run --out")->required();
  report_app->add_option("--html", report.html, "Also write an HTML report with plots to this file");
  report_app->add_option("--format", report.format, "console, json, csv or markdown (on stdout)");
  report_app->add_option("--relative-to", report.relative_to, "Add a speed-up column against this backend");

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

  if (run_app->parsed()) return command_run(run, args);
  if (list_app->parsed()) {
    print_list(std::cout);
    return kExitOk;
  }
  if (info_app->parsed()) return command_info(info_format, args);
  if (compare_app->parsed()) return command_compare(compare);
  if (report_app->parsed()) return command_report(report);
  return kExitUsage;
}

}  // namespace
}  // namespace gpb

int main(int argc, char** argv) {
  try {
    return gpb::dispatch(argc, argv);
  } catch (const gpb::UsageError& error) {
    std::cerr << "gpubench: error: " << error.what() << "\n";
    return gpb::kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "gpubench: error: " << error.what() << "\n";
    return 1;
  }
}
