#include "measure/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <set>
#include <utility>

#include "base/interrupt.hpp"
#include "base/nvtx.hpp"
#include "base/text.hpp"
#include "measure/energy_meter.hpp"
#include "measure/host_interference.hpp"
#include "model/op_table.hpp"
#include "model/verify.hpp"

namespace gpb {
namespace {

// The energy reason of a run that asked for none (--no-energy).
constexpr const char* kEnergyNotAsked = "not measured: --no-energy";

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

// How one case's samples are taken. The loop around a strategy -- warm-up, soak, the
// stopping rule, telemetry, the record's statistics -- is the runner's and the same for
// every strategy; a strategy decides only what one untimed run and one timed sample are.
class Strategy {
 public:
  explicit Strategy(Prepared& prepared) : prepared_(prepared), timer_(prepared.make_timer()) {}
  virtual ~Strategy() = default;

  std::string timer_name() const { return timer_->name(); }
  // Before the warm-up: what sets itself up on first use (a GPU case's flush buffer) does so here.
  virtual void before_warmup() {}
  // The case once, untimed (warm-up and soak).
  virtual void run_once() { prepared_.run(); }
  // The case's first run: before_warmup() and then run_once() once, on the steady clock with a
  // wait for the work, and on the case's own timer.
  FirstCall first_call() {
    before_warmup();
    const auto start = Clock::now();
    timer_->start();
    run_once();
    timer_->stop();
    prepared_.synchronize();
    FirstCall call;
    call.host_s = seconds_since(start);
    call.timer_s = timer_->elapsed_seconds();
    return call;
  }
  // After the warm-up and soak: sizes the batches of launches a sample times.
  virtual void calibrate(double /*min_sample_s*/) {}
  // Rounds the batch up to a multiple of `multiple` (RunnerHooks::batch_multiple).
  void round_batch(std::int64_t multiple) {
    batch_ = (batch_ + multiple - 1) / multiple * multiple;
    set_multiple(multiple);
  }
  // After the batch is rounded, before the first sample: what the samples replay is made here.
  virtual void before_measuring() {}
  std::int64_t batch() const { return batch_; }
  // The multiple that round_batch kept the batch to, for a strategy that splits it.
  virtual void set_multiple(std::int64_t /*multiple*/) {}
  // Before each sample, outside the host-observed time: a cold cache.
  virtual void before_sample() {}
  // One sample, timed: seconds per launch.
  virtual double take_sample() = 0;
  // Leaves out the flagged samples of what it keeps per sample itself (the phases).
  virtual void drop(const std::vector<bool>& /*flagged*/) {}
  // Hands what it kept to the record before its statistics are computed (the phases).
  virtual void finish(ResultRecord& /*record*/) {}
  // What the numbers mean beyond themselves, given the record's median.
  virtual std::string timing_note(double /*median_s*/, double /*min_sample_s*/) const { return {}; }
  // Whether nothing but the op runs between the timed samples, so that an energy window can
  // span them (not so where the L2 is flushed before each).
  virtual bool samples_back_to_back() const { return true; }
  // After the samples: one untimed run for the energy window, and the op launches it holds.
  virtual void run_for_energy() { run_once(); }
  virtual std::int64_t launches_per_energy_run() const { return 1; }
  // Why this case's energy cannot be measured; empty where it can.
  virtual std::string energy_unavailable() const { return {}; }
  // What the host's cost of issuing a call (measured after the samples) says of them.
  virtual std::string host_pace_note(const ResultRecord& /*record*/) const { return {}; }

 protected:
  // Seconds per launch of `launches` runs of body.
  template <class Body>
  double time_launches(std::int64_t launches, Body body) {
    timer_->start();
    for (std::int64_t i = 0; i < launches; ++i) body();
    timer_->stop();
    return timer_->elapsed_seconds() / static_cast<double>(launches);
  }

  Prepared& prepared_;
  std::unique_ptr<SampleTimer> timer_;
  std::int64_t batch_ = 1;  // launches per sample
};

// Single launches from an evicted L2 (nvbench's measure_cold): a batch would warm the cache
// for every launch after its first. Only a batch multiple of the hooks batches them.
class ColdLaunches final : public Strategy {
 public:
  using Strategy::Strategy;
  void before_warmup() override { prepared_.flush_cache(); }
  void before_sample() override { prepared_.flush_cache(); }
  double take_sample() override {
    return time_launches(batch_, [this] { prepared_.run(); });
  }
  bool samples_back_to_back() const override { return false; }
  std::string timing_note(double median_s, double min_sample_s) const override {
    if (!(median_s > 0) || median_s >= min_sample_s || batch_ > 1) return {};
    return cold_timing_note(median_s, timer_->resolution_s());
  }
};

// Batches of launches on a warm cache (nvbench's measure_hot): timed launches estimate the
// op's duration, and short ones are batched so that event resolution (~0.5 us) and launch
// overhead (2-5 us) stay small against the sample.
//
// One launch from an idle stream carries that overhead in its time, and the batch sized from
// it flipped from run to run (16-bit 1000 x 333 x 77 on an H200, 8-9 us of GPU time: 12-14 us
// a launch in batches of two, 17 us a sample alone, a first call of 27 us). So where one launch
// comes under kRefineBelow (at most kEstimateLaunches x kRefineBelow of GPU time), a batch of
// kEstimateLaunches, the overhead shared among them, gives a second estimate, and the lesser
// of the two sizes the batch.
constexpr double kRefineBelow = 1e-3;
constexpr std::int64_t kEstimateLaunches = 8;

class BatchedLaunches final : public Strategy {
 public:
  using Strategy::Strategy;
  void calibrate(double min_sample_s) override {
    double estimate = time_launches(1, [this] { prepared_.run(); });
    if (estimate < kRefineBelow)
      estimate = std::min(estimate, time_launches(kEstimateLaunches, [this] { prepared_.run(); }));
    if (estimate < min_sample_s)
      // The 1e-9 keeps an exact ratio (20 us / 1 us) from rounding up to the next launch.
      batch_ = std::min<std::int64_t>(kMaxBatch,
                                      static_cast<std::int64_t>(std::ceil(min_sample_s / std::max(estimate, 1e-9) - 1e-9)));
  }
  double take_sample() override {
    return time_launches(batch_, [this] { prepared_.run(); });
  }
  // Calls the host issues no faster than the GPU runs them leave the GPU waiting: between a
  // batch's launches, and, for a batch of one, between the start event (recorded on an idle
  // stream) and the call's work. The samples then time the issue rate (Python's, a
  // library's) more than the op. Where the host's cost of a call reaches this share of the
  // median, the note says so and names the timing that leaves the host out.
  std::string host_pace_note(const ResultRecord& record) const override {
    constexpr double kHostBoundShare = 0.9;
    if (!record.host_cost || !(record.stats.median > 0)) return {};
    const double host_s = record.host_cost->stats.median;
    if (host_s < kHostBoundShare * record.stats.median) return {};
    return "host-bound: issuing one call takes " + format_seconds(host_s) + " on the host against the " +
           format_seconds(record.stats.median) +
           " median per launch, so the GPU waited for the host and the median is the host's issue rate more than "
           "the op's time; graph timing replays the launches without the host";
  }
};

// End to end: the inputs' upload, the op and the outputs' download, each a timed phase of
// its own (with its NVTX range), the sample their sum. Not batched but for a batch multiple
// of the hooks: the transfers are what it measures.
class EndToEnd final : public Strategy {
 public:
  EndToEnd(Prepared& prepared, bool flushed) : Strategy(prepared), flushed_(flushed) {
    for (PhaseKind kind : all_phase_kinds()) phases_.push_back({kind, prepared.make_timer(), {}});
  }
  void before_warmup() override {
    if (flushed_) prepared_.flush_cache();
  }
  void run_once() override {
    for (auto& phase : phases_) run(phase.kind);
  }
  void before_sample() override {
    if (flushed_) prepared_.flush_cache();
  }
  double take_sample() override {
    for (auto& phase : phases_) {
      nvtx::ScopedRange range(to_string(phase.kind));
      phase.timer->start();
      for (std::int64_t launch = 0; launch < batch_; ++launch) run(phase.kind);
      phase.timer->stop();
    }
    double total = 0;
    for (auto& phase : phases_) {
      phase.samples.push_back(phase.timer->elapsed_seconds() / static_cast<double>(batch_));
      total += phase.samples.back();
    }
    return total;
  }
  void drop(const std::vector<bool>& flagged) override {
    for (auto& phase : phases_) remove_flagged(phase.samples, flagged);
  }
  void finish(ResultRecord& record) override {
    for (auto& phase : phases_) record.phases.push_back({phase.kind, std::move(phase.samples), {}});
  }
  bool samples_back_to_back() const override { return !flushed_; }

 private:
  struct TimedPhase {
    PhaseKind kind;
    std::unique_ptr<SampleTimer> timer;
    std::vector<double> samples;
  };
  void run(PhaseKind kind) {
    switch (kind) {
      case PhaseKind::h2d:
        prepared_.upload();
        return;
      case PhaseKind::op:
        prepared_.run();
        return;
      case PhaseKind::d2h:
        prepared_.download();
        return;
    }
  }

  bool flushed_;
  std::vector<TimedPhase> phases_;
};

// A case whose launches cannot be captured into a graph: skipped with the reason.
class CaptureUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Graph samples last at least this long, so that the one graph launch a sample starts with
// (a few microseconds of host work while the device may idle) stays under 0.5 % of it.
constexpr double kMinGraphSampleS = 1e-3;
// The most op launches one graph holds; a longer sample replays the graph several times.
constexpr std::int64_t kMaxGraphLaunches = 1024;

// Launch-free timing: a batch of the op's launches captured once into a CUDA graph on the
// case's stream (instantiated untimed) and replayed; the sample is replay time / launches.
// Every launch of the case, warm-up and soak included, goes through a graph, so the output
// that is verified is the graphs'. With a cold L2, an eviction node precedes every launch
// and a graph of the evictions alone, replayed beside each sample, gives what to subtract.
class GraphReplay final : public Strategy {
 public:
  GraphReplay(Prepared& prepared, bool flushed)
      : Strategy(prepared), flushed_(flushed), evictions_timer_(flushed ? prepared.make_timer() : nullptr) {}
  void before_warmup() override {
    if (flushed_) prepared_.flush_cache();  // what the flush allocates on first use, before any capture
    probe_ = capture(1, true);
  }
  void run_once() override { probe_->replay(); }
  void calibrate(double min_sample_s) override {
    target_s_ = std::max(min_sample_s, kMinGraphSampleS);
    const double estimate = time_launches(1, [this] { probe_->replay(); });
    batch_ = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(target_s_ / std::max(estimate, 1e-9) - 1e-9)), 1,
                                      kMaxGraphLaunches);
  }
  void before_measuring() override {
    // The batch (rounded to the hooks' multiple) is the graph's size where it fits one graph.
    const std::int64_t multiple = std::max<std::int64_t>(1, multiple_);
    std::int64_t launches = batch_;
    if (launches > kMaxGraphLaunches) launches = std::max(multiple, kMaxGraphLaunches / multiple * multiple);
    graph_ = capture(launches, true);
    if (flushed_) evictions_ = capture(launches, false);
    probe_.reset();
    replays_ = (batch_ + launches - 1) / launches;
    // One untimed replay (the first uploads the graph), then one timed to size the sample.
    graph_->replay();
    if (evictions_) evictions_->replay();
    if (target_s_ > 0) {
      const double replay_s = time_launches(1, [this] { graph_->replay(); });
      const auto needed = static_cast<std::int64_t>(std::ceil(target_s_ / std::max(replay_s, 1e-9) - 1e-9));
      replays_ = std::max(replays_, std::min(needed, std::max<std::int64_t>(1, kMaxBatch / launches)));
    }
    batch_ = launches * replays_;
  }
  void set_multiple(std::int64_t multiple) override { multiple_ = multiple; }
  double take_sample() override {
    const double with_ops = replay_seconds(*graph_, *timer_);
    if (!evictions_) return with_ops;
    const double evictions = replay_seconds(*evictions_, *evictions_timer_);
    eviction_samples_.push_back(evictions);
    return with_ops - evictions;
  }
  void drop(const std::vector<bool>& flagged) override { remove_flagged(eviction_samples_, flagged); }
  // The op's graph, back to back; with --l2 flush every launch in it carries an eviction.
  bool samples_back_to_back() const override { return !flushed_; }
  void run_for_energy() override { graph_->replay(); }
  std::int64_t launches_per_energy_run() const override { return graph_ ? graph_->launches() : 1; }
  std::string energy_unavailable() const override {
    return flushed_ ? "not measured with --timing graph --l2 flush: an L2 eviction precedes every launch in the graph"
                    : std::string();
  }
  void finish(ResultRecord& record) override {
    if (evictions_ && !(compute_statistics(record.samples_s).median > 0))
      throw std::runtime_error(
          "graph timing with --l2 flush: the op's time is lost in the noise of the L2 evictions subtracted from it (" +
          format_us(compute_statistics(eviction_samples_).median) + " per launch); use --l2 warm, or --timing kernel for cold single launches");
  }
  std::string timing_note(double median_s, double /*min_sample_s*/) const override {
    const std::int64_t launches = graph_ ? graph_->launches() : 0;
    std::string note = "CUDA graph of " + std::to_string(launches) + " launches, replayed " + std::to_string(replays_) +
                       "x per sample; time per op = replay time / launches (no per-launch host overhead)";
    if (evictions_) {
      const double eviction_s = compute_statistics(eviction_samples_).median;
      char share[64];
      std::snprintf(share, sizeof share, " (%.0f%% of each eviction + op)",
                    median_s > 0 ? median_s / (median_s + eviction_s) * 100 : 0.0);
      note += "; L2 cold for every launch: an L2 eviction node before each, and the median " + format_us(eviction_s) +
              " of a graph of the evictions alone, replayed beside each sample, subtracted" + (median_s > 0 ? share : "");
    }
    return note;
  }

 private:
  std::unique_ptr<LaunchGraph> capture(std::int64_t launches, bool op) {
    GraphCapture captured = prepared_.capture_graph(launches, flushed_, op);
    if (!captured.graph) throw CaptureUnavailable(captured.reason.empty() ? "the case cannot be captured into a CUDA graph" : captured.reason);
    return std::move(captured.graph);
  }
  // Seconds per op launch of replays_ replays of `graph`.
  double replay_seconds(LaunchGraph& graph, SampleTimer& timer) {
    timer.start();
    for (std::int64_t i = 0; i < replays_; ++i) graph.replay();
    timer.stop();
    return timer.elapsed_seconds() / static_cast<double>(replays_ * graph.launches());
  }
  // "%.3g us": the figures the timing notes above give too.
  static std::string format_us(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g us", seconds * 1e6);
    return text;
  }

  bool flushed_;
  std::unique_ptr<SampleTimer> evictions_timer_;
  std::unique_ptr<LaunchGraph> probe_, graph_, evictions_;
  std::vector<double> eviction_samples_;
  double target_s_ = 0;  // 0: not calibrated (profile mode), one replay per sample
  std::int64_t replays_ = 1;
  std::int64_t multiple_ = 1;
};
// Whether no case of `backend` has run on `device` in this process yet; true once per backend
// and device (each GPU has its own context, module loads and handles; -1 for CPU backends).
// Device workers ask at once.
bool first_case_of(const std::string& backend, int device) {
  static std::mutex mutex;
  static std::set<std::pair<std::string, int>> seen;
  const std::lock_guard<std::mutex> lock(mutex);
  return seen.emplace(backend, device).second;
}

// The host's cost of issuing one op: the steady clock around run() alone, which returns once
// the work is queued. Each call starts on an idle stream (the previous call is waited for,
// untimed), so a full launch queue never blocks it. As many calls as fit in kHostCostBudget
// at the measured op time, within [kHostCostMinCalls, kHostCostMaxCalls].
constexpr double kHostCostBudget_s = 0.1;
constexpr std::int64_t kHostCostMinCalls = 5;
constexpr std::int64_t kHostCostMaxCalls = 100;

HostCost measure_host_cost(Prepared& prepared, const std::vector<double>& samples_s) {
  double op_s = 0;
  if (!samples_s.empty()) op_s = *std::min_element(samples_s.begin(), samples_s.end());
  const std::int64_t calls =
      op_s > 0 ? std::clamp(static_cast<std::int64_t>(kHostCostBudget_s / op_s), kHostCostMinCalls, kHostCostMaxCalls)
               : kHostCostMaxCalls;
  HostCost cost;
  for (std::int64_t call = 0; call < calls && !interrupt_requested(); ++call) {
    prepared.synchronize();
    const auto start = Clock::now();
    prepared.run();
    cost.samples_s.push_back(seconds_since(start));
  }
  prepared.synchronize();
  cost.stats = compute_statistics(cost.samples_s);
  return cost;
}

// The strategy of a case, and the one place its L2 mode is read: flushed where the case asks
// for a cold cache and its backend can evict one.
std::unique_ptr<Strategy> choose_strategy(const CaseSpec& spec, Prepared& prepared) {
  const bool flushed = spec.l2 == L2Mode::flush && prepared.has_cache_flush();
  if (spec.timing == TimingMode::graph) return std::make_unique<GraphReplay>(prepared, flushed);
  if (spec.timing == TimingMode::e2e && prepared.has_transfers()) return std::make_unique<EndToEnd>(prepared, flushed);
  if (flushed) return std::make_unique<ColdLaunches>(prepared);
  return std::make_unique<BatchedLaunches>(prepared);
}

void measure(ResultRecord& record, Prepared& prepared, const CaseSpec& spec, const RunnerOptions& options) {
  const std::unique_ptr<Strategy> strategy = choose_strategy(spec, prepared);
  record.timer = strategy->timer_name();

  const int warmup = options.profile ? std::min(options.warmup, 2) : options.warmup;
  {
    nvtx::ScopedRange range("first_call");
    record.first_call = strategy->first_call();
    record.first_call->first_of_backend =
        first_case_of(spec.backend, record.device == DeviceKind::gpu ? options.device : -1);
  }
  {
    nvtx::ScopedRange range("warmup");
    for (int i = 0; i < std::max(warmup, 1); ++i) strategy->run_once();
    prepared.synchronize();
  }
  record.warmup = warmup;

  CaseTelemetry telemetry(prepared.telemetry_source(), options.telemetry);
  HostInterference interference(prepared.runs_on_host_threads());
  // Energy is left out of --profile runs: a profile is of the timed samples alone.
  std::optional<EnergyMeter> energy;
  if (!options.profile) {
    const std::string unavailable = options.energy ? strategy->energy_unavailable() : kEnergyNotAsked;
    energy.emplace(unavailable.empty() ? prepared.energy_source() : EnergySource{nullptr, unavailable});
  }
  if (options.telemetry.soak_s > 0 && !options.profile) {
    nvtx::ScopedRange range("soak");
    record.soak = telemetry.soak([&] { strategy->run_once(); }, [&] { prepared.synchronize(); });
  }
  if (!options.profile) strategy->calibrate(options.min_sample_s);
  strategy->round_batch(options.hooks.batch_multiple);
  strategy->before_measuring();
  record.batch = strategy->batch();

  StoppingRule rule = options.stopping;
  if (options.profile) {
    rule.min_samples = rule.max_samples = 5;
    rule.min_time_s = 0;
    rule.max_time_s = 1e9;
  }
  const double per_launch = 1.0 / static_cast<double>(record.batch);
  const bool discarding = options.telemetry.discard_throttled && telemetry.active();
  std::vector<bool> flagged;  // per sample: ran below the throttle threshold
  std::vector<double> kept;   // the samples the stopping rule judges when discarding
  {
    nvtx::ScopedRange range("measure");
    if (options.profile) profiler_capture_start();
    if (energy && strategy->samples_back_to_back()) energy->begin();
    telemetry.start_measuring();
    interference.start_measuring();
    const auto measure_start = Clock::now();
    std::optional<StopReason> stop;
    while (!stop) {
      strategy->before_sample();
      interference.before_sample();
      const auto host_start = Clock::now();
      const double sample = strategy->take_sample();
      const auto host_end = Clock::now();
      const double host_wall = std::chrono::duration<double>(host_end - host_start).count();
      const HostInterference::Sample host = interference.finish_sample(host_wall);
      if (!std::isnan(host.run_queue_wait_s)) record.sample_waits_s.push_back(host.run_queue_wait_s * per_launch);
      record.host_samples_s.push_back(host_wall * per_launch);
      record.samples_s.push_back(sample);
      flagged.push_back(telemetry.throttled(clock_seconds(host_start), clock_seconds(host_end)));
      if (!flagged.back()) kept.push_back(sample);
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
    if (energy) {
      nvtx::ScopedRange energy_range("energy");
      const auto timed_launches = static_cast<std::int64_t>(record.samples_s.size()) * record.batch;
      record.energy = energy->finish(timed_launches, compute_statistics(record.samples_s).median,
                                     [&] { strategy->run_for_energy(); }, [&] { prepared.synchronize(); },
                                     strategy->launches_per_energy_run());
    }
  }
  record.telemetry = telemetry.finish(record.telemetry_readings);
  record.cpu_telemetry = interference.finish(record.measure_seconds);
  // A wait per sample or none: a run whose counters became unreadable part-way keeps none.
  if (record.sample_waits_s.size() != record.samples_s.size()) record.sample_waits_s.clear();
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
      if (record.sample_waits_s.size() == flagged.size()) remove_flagged(record.sample_waits_s, flagged);
      strategy->drop(flagged);
    }
  }
  // After the telemetry and interference windows closed: the host's cost of issuing the op,
  // where its work runs off this process's threads. Not for graph timing, whose every launch
  // goes through its graphs (the output verified is theirs); its kernel-timing case has it.
  if (!prepared.runs_on_host_threads() && spec.timing != TimingMode::graph) {
    nvtx::ScopedRange range("host_cost");
    record.host_cost = measure_host_cost(prepared, record.samples_s);
  }
  strategy->finish(record);
  finalize_record(record);
  record.timing_note = strategy->timing_note(record.stats.median, options.min_sample_s);
  const std::string pace = strategy->host_pace_note(record);
  if (!pace.empty()) record.timing_note += (record.timing_note.empty() ? "" : "; ") + pace;
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
  const Support timing = timing_support(backend, spec.timing);
  if (!timing.supported) {
    record.status = Status::skipped;
    record.reason = timing.reason;
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
      if (options.hooks.wrap_prepared) prepared = options.hooks.wrap_prepared(std::move(prepared));
    }
    try {
      measure(record, *prepared, spec, options);
    } catch (const CaptureUnavailable& unavailable) {
      record.status = Status::skipped;
      record.reason = std::string("graph timing: ") + unavailable.what();
      return record;
    }
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

// One pass over the plan: each case once, problems built once per (op, dtype, shape, seed).
// After an interrupt, the cases finished before it. `started` counts the case runs started
// over every pass, for the observer.
std::vector<ResultRecord> run_pass(const Plan& plan, std::map<std::string, Backend*>& by_name, const RunnerOptions& options,
                                   int pass, int passes, std::size_t& started) {
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
        problem = options.hooks.problem_source
                      ? options.hooks.problem_source(spec)
                      : std::make_shared<const Problem>(make_problem(spec.op, spec.dtype, spec.shape, spec.seed, spec.data));
      } catch (const UsageError&) {
        throw;
      } catch (const std::exception& error) {
        problem_error = std::string("cannot build the inputs: ") + error.what();
      }
    }
    if (options.observer) options.observer->case_started({spec, started, total * static_cast<std::size_t>(passes), pass, passes});
    ++started;
    if (options.hooks.before_case) options.hooks.before_case();
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
  return to_string(spec.op) + "/" + to_string(spec.dtype) + "/" + spec.shape.label(spec.op) + "/" + std::to_string(spec.seed) +
         "/" + to_string(spec.data);
}

ResultRecord merge_passes(std::vector<ResultRecord> passes) {
  // One pass is its own record, finalised when it was measured.
  if (passes.size() == 1) return std::move(passes.front());
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
    // Waits stand beside every sample or none: a pass without them leaves the merge without them.
    if (merged.sample_waits_s.empty() || pass.sample_waits_s.empty())
      merged.sample_waits_s.clear();
    else
      merged.sample_waits_s.insert(merged.sample_waits_s.end(), pass.sample_waits_s.begin(), pass.sample_waits_s.end());
    for (std::size_t i = 0; i < merged.phases.size() && i < pass.phases.size(); ++i)
      merged.phases[i].samples_s.insert(merged.phases[i].samples_s.end(), pass.phases[i].samples_s.begin(),
                                        pass.phases[i].samples_s.end());
    merged.measure_seconds += pass.measure_seconds;
    // The first call is the first pass's, the process's first; later passes' issue costs pool.
    if (merged.host_cost && pass.host_cost)
      merged.host_cost->samples_s.insert(merged.host_cost->samples_s.end(), pass.host_cost->samples_s.begin(),
                                         pass.host_cost->samples_s.end());
    if (merged.telemetry && pass.telemetry) {
      merged.telemetry_readings.insert(merged.telemetry_readings.end(), pass.telemetry_readings.begin(),
                                       pass.telemetry_readings.end());
      merged.telemetry = merge_telemetry(*merged.telemetry, *pass.telemetry, merged.telemetry_readings);
    }
    if (merged.energy && pass.energy)
      merged.energy = merge_energy(*merged.energy, *pass.energy, merged.flops, merged.bytes);
    if (merged.cpu_telemetry && pass.cpu_telemetry)
      merged.cpu_telemetry = merge_cpu_telemetry(*merged.cpu_telemetry, *pass.cpu_telemetry);
    if (merged.soak && pass.soak) {
      merged.soak->seconds += pass.soak->seconds;
      if (merged.soak->settled && pass.soak->settled) *merged.soak->settled = *merged.soak->settled && *pass.soak->settled;
    }
    if (merged.timing_note.empty()) merged.timing_note = pass.timing_note;
    merged.batch = std::max(merged.batch, pass.batch);
    merged.stop_reasons.add(pass.stop_reasons);
    if (pass.verification.max_error > merged.verification.max_error) merged.verification = pass.verification;
  }
  if (merged.status == Status::ok) finalize_record(merged);
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
  if (options.observer) options.observer->run_started();
  std::vector<std::vector<ResultRecord>> by_case(plan.cases.size());
  std::size_t started = 0;
  for (int pass = 0; pass < passes && !interrupt_requested(); ++pass) {
    auto results = run_pass(plan, by_name, pass_options, pass, passes, started);
    for (std::size_t i = 0; i < results.size(); ++i) by_case[i].push_back(std::move(results[i]));
  }
  if (options.observer) options.observer->run_finished();
  std::vector<ResultRecord> merged;
  for (auto& records : by_case)
    if (!records.empty()) merged.push_back(merge_passes(std::move(records)));
  return merged;
}

}  // namespace gpb
