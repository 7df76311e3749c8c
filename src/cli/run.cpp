#include "cli/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/fleet.hpp"
#include "analysis/resolve.hpp"
#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/nvtx.hpp"
#include "base/text.hpp"
#include "base/system.hpp"
#include "cli/compare.hpp"
#include "cli/exit_codes.hpp"
#include "cli/help.hpp"
#include "cli/progress.hpp"
#include "config/plan.hpp"
#include "config/test_knobs.hpp"
#include "fleet/launcher.hpp"
#include "fleet/process_group.hpp"
#include "measure/backend.hpp"
#include "measure/context.hpp"
#include "measure/device_runner.hpp"
#include "measure/one_time_costs.hpp"
#include "measure/roofline.hpp"
#include "measure/runner.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"

namespace gpb {
namespace {

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

void write_reports(const RunConfig& config, const Context& context, const std::vector<ResultRecord>& results, bool colour) {
  ReportOptions options;
  options.relative_to = config.relative_to;
  // The files as one set (written under one lock, renamed together), then the terminal.
  std::vector<OutputFile> files;
  for (const auto& output : config.outputs)
    if (!output.path.empty()) files.push_back({output.path, render_report(output.format, context, results, options)});
  write_files_atomic(files);
  options.colour = colour;
  for (const auto& output : config.outputs)
    if (output.path.empty()) std::cout << render_report(output.format, context, results, options) << std::flush;
}

void store_run(store::ResultStore& store, const store::Tags& tags, const Context& context, const std::vector<ResultRecord>& results) {
  const std::int64_t id = store.ingest(context, results, tags, ingest_pauses());
  std::cerr << "gpubench: stored as run " << id << " in " << store.shown() << settle_interrupt_after_commit() << "\n";
}

// SIGINT/SIGTERM while --resolve re-measured: every case is in the report, with the samples
// of the rounds it finished.
void mark_resolve_interrupted(Context& context) {
  context.interrupted = true;
  context.notes.push_back("interrupted by " + interrupt_signal_name() +
                          " while re-measuring inconclusive cases (--resolve): every case is in this report, with the "
                          "samples of the rounds finished before it");
}

// After SIGINT/SIGTERM the runner stops after the current sample: the report holds the
// cases finished so far and says so.
void mark_interrupted(Context& context, std::size_t finished, std::size_t planned) {
  context.interrupted = true;
  context.notes.push_back("interrupted by " + interrupt_signal_name() + ": " + std::to_string(finished) + " of " +
                          std::to_string(planned) + " cases finished; the others are not in this report");
}

// A round of re-measurement (--resolve), said on stderr: "gpubench: resolve round 2: 3 cases
// re-measured in 4.1 s; now 1 slower, 2 inconclusive".
void say_round(const ResolveRound& round) {
  if (round.round == 0) return;  // the first comparison: nothing was re-measured yet
  const VerdictCounts& n = round.counts;
  std::cerr << "gpubench: resolve round " << round.round << ": " << round.case_ids.size()
            << (round.case_ids.size() == 1 ? " case" : " cases") << " re-measured in " << format_significant(round.seconds, 3)
            << " s; now " << n.slower << " slower, " << n.faster << " faster, " << n.inconclusive << " inconclusive\n";
}

// With a baseline: the comparison, after up to --resolve rounds of re-measuring the cases it
// left inconclusive (their new samples pooled into `results`); nullopt without a baseline, and
// for a history baseline with no run to compare with yet (said here).
std::optional<Comparison> compare_with_run_baseline(const RunConfig& config, const Context& context,
                                                    std::vector<ResultRecord>& results, const Remeasure& remeasure) {
  if (!config.baseline) return std::nullopt;
  // A history baseline ("db:...") pools the earlier runs of this machine, so it is read now.
  LoadedReport baseline;
  try {
    baseline = config.baseline->report_for(context, config.compare.allow_interrupted);
  } catch (const NoHistoryError& error) {
    // The run still stands (and is stored): only the comparison has nothing to go on.
    std::cerr << "gpubench: no history yet: " << error.what() << "; nothing to compare with\n";
    return std::nullopt;
  }
  LoadedReport current{context, std::move(results)};
  const std::function<void(const ResolveRound&)> on_round = config.quiet ? nullptr : say_round;
  Comparison comparison = resolve_comparison(baseline, current, config.compare,
                                             {config.resolve_rounds, config.resolve_seconds}, remeasure, {}, on_round);
  results = std::move(current.results);
  return comparison;
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

// `run --dry-run`: the plan as it would run -- each case, or why it would be skipped -- and the
// time measuring would take: every case samples for at least --min-time and at most
// --max-time in all (split over --repetitions), plus any --soak per pass, on each GPU in
// turn with --devices-serial. Warm-ups, inputs and a sample longer than --max-time come on
// top. JSON with --format json.
void print_plan(const RunConfig& config, const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends) {
  struct PlannedCase {
    std::string id, backend, device, skipped;
  };
  std::vector<PlannedCase> cases;
  double least = 0, most = 0;
  const RunSettings& settings = config.settings;
  for (const auto& spec : plan.cases) {
    Backend& backend = find_backend(backends, spec.backend);
    const Support support = backend.supports(spec.op, spec.dtype);
    cases.push_back({spec.id(), spec.backend, to_string(backend.kind()), support.supported ? "" : support.reason});
    if (!support.supported) continue;
    const bool gpu = backend.kind() == DeviceKind::gpu;
    const double turns = gpu && settings.devices_serial ? static_cast<double>(config.devices.devices.size()) : 1.0;
    const double soak = gpu ? settings.soak_s * static_cast<double>(settings.repetitions) : 0.0;
    least += turns * (settings.min_time_s + soak);
    most += turns * (settings.max_time_s + soak);
  }
  const auto measured = std::count_if(cases.begin(), cases.end(), [](const PlannedCase& c) { return c.skipped.empty(); });
  const bool json = std::any_of(config.outputs.begin(), config.outputs.end(),
                                [](const ReportOutput& output) { return output.path.empty() && output.format == ReportFormat::json; });
  if (json) {
    nlohmann::ordered_json document = {{"cases", nlohmann::ordered_json::array()},
                                       {"notes", plan.notes},
                                       {"estimate_s", {{"least", least}, {"most", most}}}};
    for (const auto& c : cases)
      document["cases"].push_back({{"id", c.id}, {"backend", c.backend}, {"device", c.device},
                                   {"skipped", c.skipped.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.skipped)}});
    std::cout << document.dump(2) << "\n";
    return;
  }
  std::cout << "Plan: " << cases.size() << " case" << (cases.size() == 1 ? "" : "s") << ", " << measured << " to measure, "
            << cases.size() - static_cast<std::size_t>(measured) << " skipped";
  if (settings.repetitions > 1) std::cout << ", in " << settings.repetitions << " passes";
  std::cout << "\n";
  for (const auto& c : cases) {
    report_model::append_console_line(std::cout, "  " + c.id + " (" + c.device + ")");
    if (!c.skipped.empty()) report_model::append_wrapped(std::cout, "    ", 6, "skipped: " + c.skipped, kHelpWidth - 6);
  }
  for (const auto& note : plan.notes) report_model::append_wrapped(std::cout, "note: ", 6, note, kHelpWidth - 6);
  std::string time = "Time measuring: " + format_duration(least) + " to " + format_duration(most) +
                     " (minutes:seconds: each case at least --min-time " + format_seconds(settings.min_time_s) +
                     " and at most --max-time " + format_seconds(settings.max_time_s) + " in all";
  if (settings.soak_s > 0) time += ", and --soak per pass on the GPU";
  time += "), plus warm-ups and building inputs. Nothing was measured (--dry-run).";
  report_model::append_wrapped(std::cout, "", 0, time, kHelpWidth);
  std::cout << std::flush;
}

// Every usage error surfaces in resolve(), build_plan() or check_baseline(), before anything
// is measured, so a long run never ends in one.
int run_in_group(const RunCommandLine& cli, const std::vector<std::string>& argv, ProcessGroup& processes, bool colour) {
  const RunConfig config = cli.resolve(place_process(processes.rank(), processes.size()));
  if (config.resolve_rounds > 0 && processes.size() > 1)
    throw UsageError("--resolve re-measures in one process, and this run has " + std::to_string(processes.size()) +
                     " ranks: resolve with gpubench ab, or run without MPI");
  const std::vector<int>& devices = config.devices.devices;
  if (processes.size() > 1 && devices.size() > 1 && device_schedule(config) == DeviceSchedule::concurrent &&
      !processes.any_thread_may_call())
    throw UsageError("this MPI library takes no calls from several threads: use --devices-serial, or one GPU per rank");
  auto backends = make_all_backends();
  const Plan plan = build_plan(config, backends);
  RunnerOptions runner = runner_options(config);
  std::optional<ProgressLine> progress;  // on the printing rank
  const bool terminal = isatty(STDERR_FILENO);
  if (processes.rank() == 0 && shows_progress(config, terminal)) runner.observer = &progress.emplace(stderr, terminal);
  if (processes.size() > 1) {
    require_same_plan(plan, config, runner, processes);
    runner.hooks.before_case = [&processes] { processes.barrier(); };
  }
  if (config.dry_run) {
    if (processes.rank() == 0) print_plan(config, plan, backends);
    return kExitOk;
  }
  // First of all on the GPU: the context's creation, which nothing before has caused.
  std::optional<OneTimeCosts> one_time_costs;
  if (plan_uses(plan, backends, DeviceKind::gpu)) one_time_costs = measure_context_creation(devices.front());
  Context context = run_context(config, plan, argv, processes.rank() == 0);
  context.one_time_costs = std::move(one_time_costs);
  nvtx::initialize();
  measure_ceilings(plan, backends, devices, context);
  add_telemetry_notes(plan, backends, devices, context);
  const auto measure_plan = [&](const Plan& cases) {
    auto records = run_plan_on_devices(cases, backends, make_all_backends, runner, devices, device_schedule(config));
    identify_gpus(context, records);
    annotate_roofline(context, records, devices.front());
    return records;
  };
  auto results = measure_plan(plan);
  if (context.one_time_costs) context.one_time_costs->first_uses = recorded_first_uses();
  if (interrupt_requested())
    mark_interrupted(context, results.size(), planned_records(plan, backends, devices));
  if (processes.size() > 1) {
    // The other ranks write nothing and end with rank 0's exit code.
    LoadedReport merged = gather_ranks(context, results, processes);
    if (processes.rank() != 0) return std::stoi(processes.broadcast(""));
    context = std::move(merged.context);
    results = std::move(merged.results);
  }
  std::optional<Comparison> comparison;
  if (!context.interrupted) {
    // --resolve: the inconclusive cases again, on this process's GPUs (runs of one process only).
    comparison = compare_with_run_baseline(config, context, results, [&](const std::vector<std::string>& ids) {
      Plan round = plan;
      round.cases.erase(std::remove_if(round.cases.begin(), round.cases.end(),
                                       [&](const CaseSpec& spec) {
                                         return std::find(ids.begin(), ids.end(), spec.id()) == ids.end();
                                       }),
                        round.cases.end());
      return measure_plan(round);
    });
    // Records a round pooled have new medians. Only those: an MPI run's merged records keep
    // the ceilings of the rank that measured them (--resolve runs in one process).
    if (std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.resolve_rounds > 0; }))
      annotate_roofline(context, results, devices.front());
    if (interrupt_requested()) mark_resolve_interrupted(context);
  }
  write_reports(config, context, results, colour);
  int exit_code = interrupted_exit_code();
  if (!context.interrupted) {
    const bool any_failed =
        std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.status == Status::failed; });
    // A baseline without a comparison is a history with no run to compare with yet.
    const int verdict = comparison        ? print_comparison(*comparison, ReportFormat::console, std::cout, std::cerr, colour)
                        : config.baseline ? kExitNoHistory
                                          : kExitOk;
    exit_code = any_failed ? kExitCaseFailed : verdict;
    if (config.store) store_run(*config.store, config.tags, context, results);  // after compare: a db baseline pools earlier runs only
  }
  return processes.size() > 1 ? std::stoi(processes.broadcast(std::to_string(exit_code))) : exit_code;
}

}  // namespace

// Runs in this build's process group; an error on one rank of several ends them all, as the
// others may be waiting for it at a barrier.
int command_run(const RunCommandLine& cli, const std::vector<std::string>& argv, bool colour) {
  const std::unique_ptr<ProcessGroup> group = join_process_group();
  try {
    return run_in_group(cli, argv, *group, colour);
  } catch (const std::exception& error) {
    if (group->size() == 1) throw;
    std::cerr << "gpubench: error: rank " << group->rank() << ": " << error.what() << "\n" << std::flush;
    group->abort(dynamic_cast<const UsageError*>(&error) ? kExitUsage : 1);
  }
}

}  // namespace gpb
