#include "measure/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>

#include "base/interrupt.hpp"
#include "base/nvtx.hpp"
#include "measure/progress.hpp"
#include "measure/test_slowdown.hpp"
#include "model/op_table.hpp"
#include "model/verify.hpp"

namespace gpb {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Batches are capped so that a case of very fast launches still takes bounded time.
constexpr std::int64_t kMaxBatch = 1 << 16;

ResultRecord skeleton(const CaseSpec& spec, const Problem& problem, const Backend& backend) {
  ResultRecord record;
  record.spec = spec;
  record.spec.shape = problem.shape;  // with nnz and sizes filled in by the problem
  record.device = backend.kind();
  record.input_distribution = problem.input_distribution;
  record.bytes = op_bytes(spec.op, problem.shape, spec.dtype);
  record.flops = op_flops(spec.op, problem.shape);
  return record;
}

// One timed phase of a sample (e2e: h2d, op, d2h; kernel mode: op alone).
struct TimedPhase {
  PhaseKind kind;
  std::function<void()> body;
  std::unique_ptr<SampleTimer> timer;
  std::vector<double> samples;
};

double clock_seconds(Clock::time_point time) { return std::chrono::duration<double>(time.time_since_epoch()).count(); }

// Removes the entries at the flagged positions.
void remove_flagged(std::vector<double>& values, const std::vector<bool>& flagged) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!flagged[i]) values[kept++] = values[i];
  values.resize(kept);
}

// What single cold launches shorter than a batch's target mean for their numbers.
std::string cold_timing_note(double median_s, double resolution_s) {
  char text[240];
  if (resolution_s > 0)
    std::snprintf(text, sizeof text,
                  "single cold launches (L2 flushed before each, no batching): the timer's %.2g us resolution is %.1f%% "
                  "of the %.3g us median, and each sample includes the launch",
                  resolution_s * 1e6, resolution_s / median_s * 100, median_s * 1e6);
  else
    std::snprintf(text, sizeof text,
                  "single cold launches (L2 flushed before each, no batching): each sample of the %.3g us median "
                  "includes the launch",
                  median_s * 1e6);
  return text;
}

void measure(ResultRecord& record, Prepared& prepared, const CaseSpec& spec, const RunnerOptions& options) {
  const bool end_to_end = spec.timing == TimingMode::e2e && prepared.has_transfers();
  std::vector<TimedPhase> phases;
  if (end_to_end) phases.push_back({PhaseKind::h2d, [&] { prepared.upload(); }, prepared.make_timer(), {}});
  const int repeat = test_slowdown_factor();  // 1 but under the test knob
  phases.push_back({PhaseKind::op, [&prepared, repeat] { for (int i = 0; i < repeat; ++i) prepared.run(); },
                    prepared.make_timer(), {}});
  if (end_to_end) phases.push_back({PhaseKind::d2h, [&] { prepared.download(); }, prepared.make_timer(), {}});
  record.timer = phases.front().timer->name();

  const int warmup = options.profile ? std::min(options.warmup, 2) : options.warmup;
  {
    nvtx::ScopedRange range("warmup");
    // The first flush sets the flusher up (a GPU case allocates its buffer then): here,
    // rather than in the first sample.
    if (spec.l2 == L2Mode::flush) prepared.flush_cache();
    for (int i = 0; i < std::max(warmup, 1); ++i)
      for (auto& phase : phases) phase.body();
    prepared.synchronize();
  }
  record.warmup = warmup;

  CaseTelemetry telemetry(prepared.telemetry_source(), options.telemetry);
  if (options.telemetry.soak_s > 0 && !options.profile) {
    nvtx::ScopedRange range("soak");
    record.soak = telemetry.soak([&] { for (auto& phase : phases) phase.body(); }, [&] { prepared.synchronize(); });
  }

  // One timed launch estimates the op's duration: short ones are batched so that event
  // resolution (~0.5 us) and launch overhead (2-5 us) stay small against the sample.
  // End-to-end samples are never batched: the transfers are what they measure. Nor are
  // flushed ones: every launch of a batch after the first would read a warm cache.
  const bool cold = spec.l2 == L2Mode::flush && prepared.has_cache_flush();
  std::int64_t batch = 1;
  if (!end_to_end && !options.profile && !cold) {
    auto& op = phases.front();
    op.timer->start();
    op.body();
    op.timer->stop();
    const double estimate = op.timer->elapsed_seconds();
    if (estimate < options.min_sample_s)
      // The 1e-9 keeps an exact ratio (20 us / 1 us) from rounding up to the next launch.
      batch = std::min<std::int64_t>(
          kMaxBatch, static_cast<std::int64_t>(std::ceil(options.min_sample_s / std::max(estimate, 1e-9) - 1e-9)));
  }
  record.batch = batch;

  StoppingRule rule = options.stopping;
  if (options.profile) {
    rule.min_samples = rule.max_samples = 5;
    rule.min_time_s = 0;
    rule.max_time_s = 1e9;
  }
  const double per_launch = 1.0 / static_cast<double>(batch);
  const bool discarding = options.telemetry.discard_throttled && telemetry.active();
  std::vector<bool> flagged;  // per sample: ran below the throttle threshold
  std::vector<double> kept;   // the samples the stopping rule judges when discarding
  {
    nvtx::ScopedRange range("measure");
    if (options.profile) profiler_capture_start();
    telemetry.start_measuring();
    const auto measure_start = Clock::now();
    std::optional<StopReason> stop;
    while (!stop) {
      if (spec.l2 == L2Mode::flush) {
        prepared.flush_cache();
      }
      const auto host_start = Clock::now();
      for (auto& phase : phases) {
        // Transfer phases get their own ranges so a profile shows h2d/op/d2h per sample.
        std::optional<nvtx::ScopedRange> phase_range;
        if (end_to_end) phase_range.emplace(to_string(phase.kind));
        phase.timer->start();
        for (std::int64_t b = 0; b < batch; ++b) phase.body();
        phase.timer->stop();
      }
      double total = 0;
      for (auto& phase : phases) {
        phase.samples.push_back(phase.timer->elapsed_seconds() * per_launch);
        total += phase.samples.back();
      }
      const auto host_end = Clock::now();
      record.host_samples_s.push_back(std::chrono::duration<double>(host_end - host_start).count() * per_launch);
      record.samples_s.push_back(total);
      flagged.push_back(telemetry.throttled(clock_seconds(host_start), clock_seconds(host_end)));
      if (!flagged.back()) kept.push_back(total);
      const double elapsed = seconds_since(measure_start);
      stop = should_stop(rule, discarding ? kept : record.samples_s, elapsed);
      // Discarding must not stretch the time budget: it stays a hard limit on all samples.
      if (!stop && discarding && elapsed >= rule.max_time_s && record.samples_s.size() >= 3) stop = StopReason::max_time;
      if (!stop && interrupt_requested()) break;
    }
    record.measure_seconds = seconds_since(measure_start);
    if (options.profile) profiler_capture_stop();
    // Stopped by a signal before the stopping rule held: the case is incomplete.
    if (!stop) throw RunInterrupted();
    record.stop_reasons = StopReasons(*stop);
  }
  record.telemetry = telemetry.finish(record.telemetry_readings);
  if (record.telemetry) {
    TelemetrySummary& summary = *record.telemetry;
    summary.flagged_samples = static_cast<std::size_t>(std::count(flagged.begin(), flagged.end(), true));
    // When every sample ran throttled, none is discarded: the flagged count says so.
    if (discarding && !kept.empty() && summary.flagged_samples > 0) {
      for (std::size_t i = 0; i < flagged.size(); ++i)
        if (flagged[i]) summary.discarded_samples_s.push_back(record.samples_s[i]);
      summary.discarded_samples = summary.discarded_samples_s.size();
      remove_flagged(record.samples_s, flagged);
      remove_flagged(record.host_samples_s, flagged);
      for (auto& phase : phases) remove_flagged(phase.samples, flagged);
    }
  }
  record.stats = compute_statistics(record.samples_s);
  record.host_stats = compute_statistics(record.host_samples_s);
  if (end_to_end)
    for (auto& phase : phases) record.phases.push_back({phase.kind, phase.samples, compute_statistics(phase.samples)});
  if (record.stats.median > 0) {
    record.gbps = record.bytes / record.stats.median / 1e9;
    record.gflops = record.flops / record.stats.median / 1e9;
  }
  if (record.telemetry) apply_energy(*record.telemetry, record.stats.median, record.flops, record.bytes);
  if (cold && !end_to_end && record.stats.median > 0 && record.stats.median < options.min_sample_s)
    record.timing_note = cold_timing_note(record.stats.median, phases.front().timer->resolution_s());
}

}  // namespace

ResultRecord run_case(const CaseSpec& spec, const Problem& problem, Backend& backend, const RunnerOptions& options) {
  ResultRecord record = skeleton(spec, problem, backend);
  const Support support = backend.supports(spec.op, spec.dtype);
  if (!support.supported) {
    record.status = Status::skipped;
    record.reason = support.reason;
    return record;
  }
  const Availability availability = backend.availability();
  if (!availability.available) {
    record.status = Status::skipped;
    record.reason = availability.reason;
    return record;
  }
  BackendSettings settings;
  settings.threads = spec.threads;
  settings.tf32 = spec.tf32;
  settings.spmv_kernel = spec.spmv_kernel;
  settings.device = options.device;
  record.threads_used = backend.threads_used(settings);

  const std::string range_name = record.spec.id();
  nvtx::ScopedRange case_range(range_name);
  try {
    std::unique_ptr<Prepared> prepared;
    {
      nvtx::ScopedRange range("prepare");
      prepared = backend.prepare(problem, settings);
    }
    measure(record, *prepared, spec, options);
    record.details = prepared->details();
    {
      nvtx::ScopedRange range("verify");
      record.verification = verify(problem, prepared->result(), prepared->unit_roundoff_override());
    }
    if (!record.verification.passed) {
      record.status = Status::failed;
      char text[160];
      std::snprintf(text, sizeof text, "verification failed: max error %.3g exceeds tolerance %.3g", record.verification.max_error,
                    record.verification.tolerance);
      record.reason = text;
    }
  } catch (const std::exception& error) {
    record.status = Status::failed;
    record.reason = error.what();
  }
  return record;
}

namespace {

// Where the run stands, for the progress line: cases done over all passes.
struct RunProgress {
  ProgressLine line;
  std::size_t done = 0;
  std::size_t total = 0;
  Clock::time_point start = Clock::now();
};

// One pass over the plan: each case once, problems built once per (op, dtype, shape, seed).
// After an interrupt, the cases finished before it.
std::vector<ResultRecord> run_pass(const Plan& plan, std::map<std::string, Backend*>& by_name, const RunnerOptions& options,
                                   int pass, RunProgress* progress) {
  std::vector<ResultRecord> results;
  std::shared_ptr<const Problem> problem;
  std::string problem_key;
  std::string problem_error;
  const std::size_t total = plan.cases.size();
  for (std::size_t index = 0; index < total && !interrupt_requested(); ++index) {
    const CaseSpec& spec = plan.cases[index];
    Backend* backend = by_name.at(spec.backend);
    const std::string key = inputs_key(spec);
    if (key != problem_key) {
      problem.reset();  // free the last inputs before building the next
      problem_error.clear();
      problem_key = key;
      try {
        problem = options.problem_source
                      ? options.problem_source(spec)
                      : std::make_shared<const Problem>(make_problem(spec.op, spec.dtype, spec.shape, spec.seed));
      } catch (const UsageError&) {
        throw;
      } catch (const std::exception& error) {
        problem_error = std::string("cannot build the inputs: ") + error.what();
      }
    }
    if (progress) {
      const std::string current =
          options.repetitions > 1 ? "pass " + std::to_string(pass + 1) + "/" + std::to_string(options.repetitions) + ": " + spec.id()
                                  : spec.id();
      progress->line.show(progress_text(progress->done, progress->total, seconds_since(progress->start), current));
      ++progress->done;
    }
    if (options.before_case) options.before_case();
    if (!problem) {
      ResultRecord record;
      record.spec = spec;
      record.device = backend->kind();
      record.status = Status::failed;
      record.reason = problem_error;
      results.push_back(std::move(record));
      continue;
    }
    try {
      results.push_back(run_case(spec, *problem, *backend, options));
    } catch (const RunInterrupted&) {
      break;
    }
  }
  return results;
}

}  // namespace

std::string inputs_key(const CaseSpec& spec) {
  return to_string(spec.op) + "/" + to_string(spec.dtype) + "/" + spec.shape.label(spec.op) + "/" + std::to_string(spec.seed);
}

ResultRecord merge_passes(std::vector<ResultRecord> passes) {
  ResultRecord merged = std::move(passes.front());
  for (std::size_t p = 1; p < passes.size(); ++p) {
    ResultRecord& pass = passes[p];
    // A pass that failed or was skipped decides the case: its reason is the one to report.
    if (merged.status != Status::ok) break;
    if (pass.status != Status::ok) {
      merged = std::move(pass);
      break;
    }
    merged.samples_s.insert(merged.samples_s.end(), pass.samples_s.begin(), pass.samples_s.end());
    merged.host_samples_s.insert(merged.host_samples_s.end(), pass.host_samples_s.begin(), pass.host_samples_s.end());
    for (std::size_t i = 0; i < merged.phases.size() && i < pass.phases.size(); ++i)
      merged.phases[i].samples_s.insert(merged.phases[i].samples_s.end(), pass.phases[i].samples_s.begin(),
                                        pass.phases[i].samples_s.end());
    merged.measure_seconds += pass.measure_seconds;
    if (merged.telemetry && pass.telemetry) {
      merged.telemetry_readings.insert(merged.telemetry_readings.end(), pass.telemetry_readings.begin(),
                                       pass.telemetry_readings.end());
      merged.telemetry = merge_telemetry(*merged.telemetry, *pass.telemetry, merged.telemetry_readings);
    }
    if (merged.soak && pass.soak) {
      merged.soak->seconds += pass.soak->seconds;
      if (merged.soak->settled && pass.soak->settled) *merged.soak->settled = *merged.soak->settled && *pass.soak->settled;
    }
    if (merged.timing_note.empty()) merged.timing_note = pass.timing_note;
    merged.batch = std::max(merged.batch, pass.batch);
    merged.stop_reasons.add(pass.stop_reasons);
    if (pass.verification.max_error > merged.verification.max_error) merged.verification = pass.verification;
  }
  if (merged.status != Status::ok) return merged;
  merged.stats = compute_statistics(merged.samples_s);
  merged.host_stats = compute_statistics(merged.host_samples_s);
  for (auto& phase : merged.phases) phase.stats = compute_statistics(phase.samples_s);
  if (merged.stats.median > 0) {
    merged.gbps = merged.bytes / merged.stats.median / 1e9;
    merged.gflops = merged.flops / merged.stats.median / 1e9;
  }
  if (merged.telemetry) apply_energy(*merged.telemetry, merged.stats.median, merged.flops, merged.bytes);
  return merged;
}

bool plan_uses(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, DeviceKind kind) {
  return std::any_of(plan.cases.begin(), plan.cases.end(),
                     [&](const CaseSpec& spec) { return find_backend(backends, spec.backend).kind() == kind; });
}

std::vector<ResultRecord> run_plan(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends,
                                   const RunnerOptions& options) {
  std::map<std::string, Backend*> by_name;
  for (auto& backend : backends) by_name[backend->name()] = backend.get();

  const int passes = std::max(1, options.repetitions);
  // Each pass gets an equal share of the stopping budget, so repetitions spread a case's
  // samples over the run (and over fresh allocations) without making the run longer.
  RunnerOptions pass_options = options;
  if (passes > 1) {
    const auto share = [passes](std::size_t count) {
      return std::max<std::size_t>(1, (count + static_cast<std::size_t>(passes) - 1) / static_cast<std::size_t>(passes));
    };
    pass_options.stopping.min_samples = share(options.stopping.min_samples);
    pass_options.stopping.max_samples = share(options.stopping.max_samples);
    pass_options.stopping.min_time_s = options.stopping.min_time_s / passes;
    pass_options.stopping.max_time_s = options.stopping.max_time_s / passes;
  }
  std::optional<RunProgress> progress;
  if (options.progress)
    progress.emplace(RunProgress{ProgressLine(stderr, options.progress_on_terminal), 0,
                                 plan.cases.size() * static_cast<std::size_t>(passes), Clock::now()});
  std::vector<std::vector<ResultRecord>> by_case(plan.cases.size());
  for (int pass = 0; pass < passes && !interrupt_requested(); ++pass) {
    auto results = run_pass(plan, by_name, pass_options, pass, progress ? &*progress : nullptr);
    for (std::size_t i = 0; i < results.size(); ++i) by_case[i].push_back(std::move(results[i]));
  }
  if (progress) progress->line.clear();
  std::vector<ResultRecord> merged;
  for (auto& records : by_case)
    if (!records.empty()) merged.push_back(merge_passes(std::move(records)));
  return merged;
}

}  // namespace gpb
