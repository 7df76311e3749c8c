// gpubench command line: run, list, info, compare, report.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "backend.hpp"
#include "build_info.hpp"
#include "compare.hpp"
#include "config.hpp"
#include "context.hpp"
#include "nvtx.hpp"
#include "op_table.hpp"
#include "plan.hpp"
#include "problem.hpp"
#include "progress.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"
#include "roofline.hpp"
#include "runner.hpp"
#include "summary.hpp"
#include "telemetry.hpp"

namespace gpb {
namespace {

// Exit codes (documented in the README).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitCaseFailed = 3;

struct RunCli {
  std::vector<std::string> ops, backends, dtypes, sizes, shapes, timings, outs;
  std::string rows, pattern = "random", matrix, l2 = "flush", config, format, baseline, relative_to;
  std::int64_t nnz_per_row = 16;
  int threads = 0, device = 0, warmup = 3, repetitions = 1;
  std::size_t min_samples = 10, max_samples = 100000;
  double max_noise_percent = 0.5, min_time = 0.05, max_time = 2.0, threshold_percent = 5.0;
  double throttle_threshold = kDefaultThrottleThreshold, soak = 0;
  bool discard_throttled = false;
  std::string progress = "auto";
  std::uint64_t seed = 42;
  bool tf32 = false, profile = false, quiet = false, allow_missing = false, allow_machine_mismatch = false;
};

std::vector<std::string> flatten_lists(const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const auto& value : values)
    for (auto& item : split_list(value)) items.push_back(std::move(item));
  return items;
}

Backend& find_backend(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name) {
  std::string known;
  for (auto& backend : backends) {
    if (backend->name() == name) return *backend;
    known += (known.empty() ? "" : ", ") + backend->name();
  }
  throw UsageError("unknown backend '" + name + "' (expected one of: " + known + ")");
}

int resolve_threads(int requested) {
  if (requested < 0) throw UsageError("--threads must be 0 (all cores) or positive, not " + std::to_string(requested));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return requested == 0 ? cores : requested;
}

// Chooses backends for a group of cases and expands them into the plan. Explicitly named
// backends run every case (unsupported ones become skipped rows with the reason); with
// no names, every available backend that implements the op/dtype runs.
void plan_group(Plan& plan, const RunOptions& options, std::vector<std::unique_ptr<Backend>>& backends,
                bool unavailable_is_error, std::set<std::string>& notes) {
  std::vector<std::string> names;
  if (!options.backends.empty()) {
    for (const auto& name : options.backends) {
      Backend& backend = find_backend(backends, name);
      const Availability availability = backend.availability();
      if (!availability.available) {
        if (unavailable_is_error) throw UsageError("backend '" + name + "' is unavailable: " + availability.reason);
        notes.insert("backend " + name + " skipped: " + availability.reason);
        continue;
      }
      names.push_back(name);
    }
    for (auto& spec : expand_cases(options, names)) plan.cases.push_back(std::move(spec));
    return;
  }
  for (auto& backend : backends) {
    const Availability availability = backend->availability();
    if (availability.available)
      names.push_back(backend->name());
    else if (backend->kind() == DeviceKind::gpu)
      notes.insert("GPU backends unavailable: " + availability.reason);
  }
  for (auto& spec : expand_cases(options, names)) {
    Backend& backend = find_backend(backends, spec.backend);
    if (backend.supports(spec.op, spec.dtype).supported) plan.cases.push_back(std::move(spec));
  }
}

RunOptions options_from_cli(const RunCli& cli) {
  RunOptions options;
  for (const auto& op : flatten_lists(cli.ops)) options.ops.push_back(parse_op(op));
  options.backends = flatten_lists(cli.backends);
  if (!cli.dtypes.empty()) {
    options.dtypes.clear();
    for (const auto& d : flatten_lists(cli.dtypes)) options.dtypes.push_back(parse_dtype(d));
  }
  for (const auto& size : cli.sizes) {
    const auto parsed = parse_size_list(size);
    options.sizes.insert(options.sizes.end(), parsed.begin(), parsed.end());
  }
  for (const auto& shape : flatten_lists(cli.shapes)) options.matmul_shapes.push_back(parse_matmul_shape(shape));
  if (!cli.rows.empty()) options.spmv_rows = parse_size(cli.rows);
  if (cli.nnz_per_row <= 0) throw UsageError("--nnz-per-row must be positive");
  options.nnz_per_row = cli.nnz_per_row;
  options.pattern = parse_pattern(cli.pattern);
  options.matrix_path = cli.matrix;
  if (!cli.timings.empty()) {
    options.timings.clear();
    for (const auto& t : flatten_lists(cli.timings)) options.timings.push_back(parse_timing_mode(t));
  }
  options.l2 = parse_l2_mode(cli.l2);
  options.tf32 = cli.tf32;
  options.threads = cli.threads;
  options.device = cli.device;
  options.seed = cli.seed;
  return options;
}

// Destinations: each --out file takes its format from its extension; the terminal gets
// --format (console by default) when no file is named, and the console table otherwise.
struct Output {
  ReportFormat format;
  std::string path;  // empty: stdout
};

std::vector<Output> plan_outputs(const RunCli& cli, bool format_given) {
  std::vector<Output> outputs;
  const ReportFormat chosen = format_given ? parse_report_format(cli.format) : ReportFormat::console;
  for (const auto& path : cli.outs) outputs.push_back({report_format_for_path(path), path});
  if (outputs.empty())
    outputs.push_back({chosen, ""});
  else if (!cli.quiet)
    outputs.push_back({ReportFormat::console, ""});
  return outputs;
}

int command_run(const RunCli& cli, const CLI::App& run_app, const std::vector<std::string>& argv) {
  auto given = [&](const char* name) { return run_app.get_option(name)->count() > 0; };
  const bool format_given = given("--format");
  const auto outputs = plan_outputs(cli, format_given);  // validates paths before running

  auto backends = make_all_backends();
  Plan plan;
  std::set<std::string> notes;
  RunnerOptions runner;
  runner.warmup = cli.warmup;
  runner.stopping.min_samples = cli.min_samples;
  runner.stopping.max_samples = cli.max_samples;
  runner.stopping.max_noise = cli.max_noise_percent / 100.0;
  runner.stopping.min_time_s = cli.min_time;
  runner.stopping.max_time_s = cli.max_time;
  runner.device = cli.device;
  runner.repetitions = cli.repetitions;
  runner.profile = cli.profile;
  runner.progress = progress_wanted(parse_progress_mode(cli.progress), cli.quiet, isatty(STDERR_FILENO));
  runner.progress_on_terminal = isatty(STDERR_FILENO);
  runner.telemetry.throttle_threshold = cli.throttle_threshold;
  runner.telemetry.discard_throttled = cli.discard_throttled;
  runner.telemetry.soak_s = cli.soak;
  int threads = cli.threads;
  std::uint64_t seed = cli.seed;
  L2Mode l2 = parse_l2_mode(cli.l2);

  const bool use_suite = !cli.config.empty() || cli.ops.empty();
  if (use_suite) {
    for (const char* flag : {"--size", "--shape", "--rows", "--nnz-per-row", "--pattern", "--matrix", "--timing", "--tf32"})
      if (given(flag)) throw UsageError(std::string(flag) + " cannot be combined with a suite (--config, or no --op)");
    const Suite suite = cli.config.empty() ? parse_suite(build_info::default_suite, "configs/default.json (built in)")
                                           : load_suite(cli.config);
    // Suite settings apply unless the same flag was given explicitly.
    const SuiteSettings& s = suite.settings;
    if (s.warmup && !given("--warmup")) runner.warmup = *s.warmup;
    if (s.min_samples && !given("--min-samples")) runner.stopping.min_samples = *s.min_samples;
    if (s.max_samples && !given("--max-samples")) runner.stopping.max_samples = *s.max_samples;
    if (s.max_noise && !given("--max-noise")) runner.stopping.max_noise = *s.max_noise;
    if (s.min_time_s && !given("--min-time")) runner.stopping.min_time_s = *s.min_time_s;
    if (s.max_time_s && !given("--max-time")) runner.stopping.max_time_s = *s.max_time_s;
    if (s.seed && !given("--seed")) seed = *s.seed;
    if (s.l2 && !given("--l2")) l2 = *s.l2;
    if (s.threads && !given("--threads")) threads = *s.threads;
    if (s.repetitions && !given("--repetitions")) runner.repetitions = *s.repetitions;
    if (s.throttle_threshold && !given("--throttle-threshold")) runner.telemetry.throttle_threshold = *s.throttle_threshold;
    if (s.discard_throttled && !given("--discard-throttled")) runner.telemetry.discard_throttled = *s.discard_throttled;
    if (s.soak_s && !given("--soak")) runner.telemetry.soak_s = *s.soak_s;
    plan.thresholds = suite.thresholds;
    const auto backend_filter = flatten_lists(cli.backends);
    for (const auto& group : suite.groups) {
      RunOptions options = group.options;
      options.seed = seed;
      options.l2 = l2;
      options.threads = threads;
      options.device = cli.device;
      if (!backend_filter.empty()) options.backends = backend_filter;
      const std::size_t first = plan.cases.size();
      plan_group(plan, options, backends, !backend_filter.empty(), notes);
      if (group.threshold)
        for (std::size_t i = first; i < plan.cases.size(); ++i) plan.thresholds[plan.cases[i].id()] = *group.threshold;
    }
  } else {
    RunOptions options = options_from_cli(cli);
    options.l2 = l2;
    plan_group(plan, options, backends, true, notes);
  }
  if (!cli.relative_to.empty()) find_backend(backends, cli.relative_to);
  if (cli.threshold_percent <= 0) throw UsageError("--threshold must be a positive percentage");
  if (given("--threshold")) plan.thresholds["*"] = cli.threshold_percent / 100.0;
  if (runner.stopping.min_samples < 1 || runner.stopping.max_samples < runner.stopping.min_samples)
    throw UsageError("--min-samples must be at least 1 and no more than --max-samples");
  if (!(runner.stopping.max_noise > 0)) throw UsageError("--max-noise must be a positive percentage");
  if (runner.stopping.max_time_s < runner.stopping.min_time_s || runner.stopping.min_time_s < 0)
    throw UsageError("--max-time must be at least --min-time, and both non-negative");
  if (runner.warmup < 0) throw UsageError("--warmup must not be negative");
  if (runner.repetitions < 1) throw UsageError("--repetitions must be at least 1");
  if (!(runner.telemetry.throttle_threshold > 0 && runner.telemetry.throttle_threshold <= 1))
    throw UsageError("--throttle-threshold must be a fraction of the maximum SM clock above 0 and at most 1, such as 0.9");
  if (!(runner.telemetry.soak_s >= 0 && runner.telemetry.soak_s <= 3600))
    throw UsageError("--soak must be from 0 to 3600 seconds");
  if (cli.profile) runner.repetitions = 1;
  if (plan.cases.empty()) throw UsageError("nothing to run: no available backend implements the requested ops and dtypes");
  check_plan_fits_memory(plan);
  // An unreadable baseline is a usage error before the suite runs, not after.
  if (!cli.baseline.empty()) read_json_report(cli.baseline);
  // Matrix files are read (and cached) before anything runs, so a bad file is a usage
  // error up front rather than a failure halfway through a suite.
  for (const auto& spec : plan.cases)
    if (spec.op == Op::spmv && spec.shape.pattern == SpmvPattern::file) load_matrix_cached(spec.shape.matrix_path);

  const int threads_used = resolve_threads(threads);
  Context context = collect_context(argv, threads_used);
  for (const auto& note : notes)
    if (std::find(context.notes.begin(), context.notes.end(), note) == context.notes.end()) context.notes.push_back(note);
  context.thresholds = plan.thresholds;
  context.settings["seed"] = std::to_string(seed);
  context.settings["l2"] = to_string(l2);
  context.settings["warmup"] = std::to_string(runner.warmup);
  context.settings["min_samples"] = std::to_string(runner.stopping.min_samples);
  context.settings["max_samples"] = std::to_string(runner.stopping.max_samples);
  context.settings["max_noise"] = std::to_string(runner.stopping.max_noise);
  context.settings["min_time_s"] = std::to_string(runner.stopping.min_time_s);
  context.settings["max_time_s"] = std::to_string(runner.stopping.max_time_s);
  context.settings["min_sample_s"] = std::to_string(runner.min_sample_s);
  context.settings["profile"] = cli.profile ? "true" : "false";
  context.settings["repetitions"] = std::to_string(runner.repetitions);
  context.settings["throttle_threshold"] = std::to_string(runner.telemetry.throttle_threshold);
  context.settings["discard_throttled"] = runner.telemetry.discard_throttled ? "true" : "false";
  context.settings["soak_s"] = std::to_string(runner.telemetry.soak_s);
  if (!cli.config.empty()) context.settings["suite"] = cli.config;
  for (const auto& note : notes) std::cerr << "gpubench: " << note << "\n";

  nvtx::initialize();
  // Roofline ceilings: measured once, before any case, for the device kinds the plan uses.
  const auto plan_uses = [&](DeviceKind kind) {
    return std::any_of(plan.cases.begin(), plan.cases.end(),
                       [&](const CaseSpec& spec) { return find_backend(backends, spec.backend).kind() == kind; });
  };
  if (plan_uses(DeviceKind::cpu)) context.cpu_copy_gbps = measure_cpu_copy_gbps(threads_used);
  if (plan_uses(DeviceKind::gpu)) {
    measure_gpu_ceilings(context, cli.device);
    for (const auto& note : telemetry_notes(context, cli.device)) {
      context.notes.push_back(note);
      std::cerr << "gpubench: " << note << "\n";
    }
  }
  auto results = run_plan(plan, backends, runner);
  annotate_roofline(context, results, cli.device);

  ReportOptions report_options;
  if (!cli.relative_to.empty()) report_options.relative_to = cli.relative_to;
  for (const auto& output : outputs) {
    const std::string text = render_report(output.format, context, results, report_options);
    if (output.path.empty())
      std::cout << text << std::flush;
    else
      write_file_atomic(output.path, text);
  }

  const bool any_failed = std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.status == Status::failed; });
  int exit_code = any_failed ? kExitCaseFailed : kExitOk;
  if (!cli.baseline.empty()) {
    CompareOptions compare;
    if (given("--threshold")) compare.threshold = cli.threshold_percent / 100.0;
    compare.allow_missing = cli.allow_missing;
    compare.allow_machine_mismatch = cli.allow_machine_mismatch;
    const int verdict = compare_with_baseline(cli.baseline, context, results, compare, ReportFormat::console, std::cout, std::cerr);
    if (exit_code == kExitOk) exit_code = verdict;
  }
  return exit_code;
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
    const OpInfo& info = op_info(op);
    out << "  " << to_string(op) << std::string(8 - to_string(op).size(), ' ') << info.description << "  [" << info.shape_parameters
        << "; inputs " << info.input_distribution << "]\n";
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

int dispatch(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"gpubench: benchmark array operations on the CPU and the GPU side by side"};
  app.set_version_flag("--version", std::string("gpubench ") + build_info::version + " (" + build_info::git_sha + ", " +
                                        build_info::build_type + (build_info::have_cuda ? ", CUDA" : ", no CUDA") + ")");
  app.require_subcommand(1);

  RunCli run;
  CLI::App* run_app = app.add_subcommand("run", "Run benchmark cases (the default suite when no --op or --config is given)");
  run_app->add_option("--op", run.ops, "Ops: sin,sqrt,sum,matmul,spmv")->delimiter(',');
  run_app->add_option("--backend", run.backends, "Backends (default: all available)")->delimiter(',');
  run_app->add_option("--dtype", run.dtypes, "f32,f64 (default f32)")->delimiter(',');
  run_app->add_option("--size", run.sizes, "Sizes: 4096, 16M, 1M,16M, 1K..256M:x4 (n; matmul: square n; spmv: rows)");
  run_app->add_option("--shape", run.shapes, "matmul shape MxNxK (C is MxN, inner K)")->delimiter(',');
  run_app->add_option("--rows", run.rows, "spmv: rows (square matrix)");
  run_app->add_option("--nnz-per-row", run.nnz_per_row, "spmv: nonzeros per row (mean for powerlaw)");
  run_app->add_option("--pattern", run.pattern, "spmv: random, banded or powerlaw");
  run_app->add_option("--matrix", run.matrix, "spmv: a Matrix Market (.mtx) file");
  run_app->add_option("--timing", run.timings, "kernel (op alone) or e2e (h2d + op + d2h)")->delimiter(',');
  run_app->add_option("--l2", run.l2, "flush (cold cache before each sample) or warm");
  run_app->add_flag("--tf32", run.tf32, "cuBLAS f32 matmul on tensor cores (TF32)");
  run_app->add_option("--threads", run.threads, "CPU threads (0: all cores)");
  run_app->add_option("--device", run.device, "CUDA device ordinal");
  run_app->add_option("--seed", run.seed, "Seed for the inputs");
  run_app->add_option("--warmup", run.warmup, "Untimed warm-up iterations");
  run_app->add_option("--min-samples", run.min_samples, "Minimum samples per case");
  run_app->add_option("--max-samples", run.max_samples, "Maximum samples per case");
  run_app->add_option("--max-noise", run.max_noise_percent, "Stop once the median's 95% CI half-width is under this percentage");
  run_app->add_option("--min-time", run.min_time, "Measure each case at least this many seconds");
  run_app->add_option("--max-time", run.max_time, "Measure each case at most this many seconds");
  run_app->add_option("--repetitions", run.repetitions,
                      "Passes over the whole plan, each with an equal share of the sampling budget");
  run_app->add_option("--config", run.config, "Suite file (configs/*.json)");
  run_app->add_option("--format", run.format, "console, json, csv or markdown");
  run_app->add_option("--out", run.outs, "Write a report file (format from the extension: .json .csv .md .txt)");
  run_app->add_flag("--profile", run.profile, "Profiler session: few warm-ups and samples, capture range around measuring");
  run_app->add_flag("--quiet", run.quiet, "No progress and no console table when writing files");
  run_app->add_option("--progress", run.progress, "Progress line on stderr: always, never or auto (a terminal, not --quiet)");
  run_app->add_option("--throttle-threshold", run.throttle_threshold,
                      "Flag GPU samples taken while the SM clock was below this fraction of its maximum (default 0.9)");
  run_app->add_flag("--discard-throttled", run.discard_throttled, "Leave flagged GPU samples out of the statistics");
  run_app->add_option("--soak", run.soak, "Run each case untimed up to this many seconds, until clocks and power settle");
  run_app->add_option("--baseline", run.baseline, "Compare against this JSON report after running");
  run_app->add_option("--threshold", run.threshold_percent, "Regression threshold in percent (with --baseline)");
  run_app->add_flag("--allow-missing", run.allow_missing, "With --baseline: cases missing from this run do not fail");
  run_app->add_flag("--allow-machine-mismatch", run.allow_machine_mismatch, "With --baseline: compare across machines");
  run_app->add_option("--relative-to", run.relative_to, "Add a speed-up column against this backend");

  CLI::App* list_app = app.add_subcommand("list", "Ops, backends, availability and supported op/dtype pairs");

  std::string info_format = "console";
  CLI::App* info_app = app.add_subcommand("info", "The system context that goes into reports");
  info_app->add_option("--format", info_format, "console or json");

  std::string baseline_path, current_path, compare_format = "console";
  double compare_threshold = 5.0;
  CompareOptions compare;
  CLI::App* compare_app = app.add_subcommand("compare", "Compare two JSON reports: verdict per case, exit 1 on regression");
  compare_app->add_option("baseline", baseline_path, "Baseline report (JSON)")->required();
  compare_app->add_option("current", current_path, "Current report (JSON)")->required();
  compare_app->add_option("--format", compare_format, "console, markdown or json");
  compare_app->add_option("--threshold", compare_threshold, "Practical threshold in percent (overrides the suite's global one)");
  compare_app->add_flag("--allow-missing", compare.allow_missing, "Cases missing from the current report do not fail");
  compare_app->add_flag("--allow-machine-mismatch", compare.allow_machine_mismatch, "Compare reports from different machines");

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

  if (run_app->parsed()) return command_run(run, *run_app, args);
  if (list_app->parsed()) {
    print_list(std::cout);
    return kExitOk;
  }
  if (info_app->parsed()) {
    const ReportFormat format = parse_report_format(info_format);
    if (format != ReportFormat::console && format != ReportFormat::json) throw UsageError("info --format takes console or json");
    const Context context = collect_context(args, resolve_threads(0));
    std::cout << render_report(format, context, {}) << std::flush;
    return kExitOk;
  }
  if (compare_app->parsed()) {
    if (compare_app->get_option("--threshold")->count() > 0) {
      if (compare_threshold <= 0) throw UsageError("--threshold must be a positive percentage");
      compare.threshold = compare_threshold / 100.0;
    }
    return run_compare(baseline_path, current_path, compare, parse_report_format(compare_format), std::cout, std::cerr);
  }
  if (report_app->parsed()) return command_report(report);  // report
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
