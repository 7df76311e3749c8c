// The runner against a scripted backend: batching, stopping, skipped and failed cases, cold
// timing, telemetry (throttle flags, discarding, soak).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "config/test_knobs.hpp"
#include "measure/runner.hpp"
#include "model/problem.hpp"
#include "scripted_backend.hpp"

namespace gpb {
namespace {

// A timer that reports a scripted duration per run() between start and stop.
struct Script : testing::BackendScript {
  double seconds_per_run = 1e-3;
  std::atomic<int> runs{0};  // read by the telemetry sampler's thread too
  int flushes = 0;
  bool flushes_cache = false;  // the case evicts a cache, as a GPU case does
  bool transfers = false;      // the case has upload and download phases, as a GPU case does
  int uploads = 0, downloads = 0;
  bool corrupt_output = false;
  bool on_host_threads = false;  // the case runs on this process's threads, as a CPU case does
  // Telemetry: the SM clock (of a 2000 MHz maximum) reads clock_before until run number
  // clock_switch_run, clock_after from then on.
  bool telemetry = false;
  double clock_before = 2000, clock_after = 2000;
  int clock_switch_run = 1 << 30;
  std::atomic<int> readings_after_switch{0};
  // Energy: a counter of a 100 W device brought up to date every 5 ms of real time, and a
  // run() that takes busy_s of real time, so that a window is as long as its runs.
  bool energy = false;
  double busy_s = 0;

  // What a timed interval holding runs takes beyond them: a GPU launch's latency, once an
  // interval (the first launch's, from an idle stream).
  double interval_overhead_s = 0;

  // The timer's clock: the runs so far, seconds_per_run each.
  int timer_mark() const { return runs; }
  double seconds_between(int start, int stop) const {
    return (stop - start) * seconds_per_run + (stop > start ? interval_overhead_s : 0);
  }
};

class ScriptedEnergyCounter final : public EnergyCounter {
 public:
  std::string name() const override { return "scripted"; }
  std::string key() const override { return "runner-test-scripted"; }
  std::optional<double> read_j() override {
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return 100 * std::floor(now / 5e-3) * 5e-3;
  }
  double resolution_j() const override { return 1e-3; }
};

class ScriptedSource final : public TelemetrySource {
 public:
  explicit ScriptedSource(Script& script) : script_(script) {}
  TelemetryReading read() override {
    TelemetryReading reading;
    const bool after = script_.runs >= script_.clock_switch_run;
    if (after) ++script_.readings_after_switch;
    reading.sm_clock_mhz = after ? script_.clock_after : script_.clock_before;
    return reading;
  }
  std::optional<double> energy_j() override { return std::nullopt; }
  double max_sm_clock_mhz() override { return 2000; }

 private:
  Script& script_;
};

class ScriptedPrepared final : public Prepared {
 public:
  ScriptedPrepared(Script& script, const Problem& problem) : script_(script), problem_(problem) {}
  void run() override {
    const int run = ++script_.runs;
    if (script_.busy_s > 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(script_.busy_s);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    // The run that switches the clock waits until the sampler has read the new clock twice
    // (so the first of those readings is recorded), so every later sample begins in the
    // new state whatever the host's load.
    if (script_.telemetry && run == script_.clock_switch_run) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (script_.readings_after_switch < 2 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  void flush_cache() override { ++script_.flushes; }
  bool has_transfers() const override { return script_.transfers; }
  void upload() override { ++script_.uploads; }
  void download() override { ++script_.downloads; }
  bool runs_on_host_threads() const override { return script_.on_host_threads; }
  bool has_cache_flush() const override { return script_.flushes_cache; }
  std::unique_ptr<TelemetrySource> telemetry_source() override {
    return script_.telemetry ? std::make_unique<ScriptedSource>(script_) : nullptr;
  }
  EnergySource energy_source() override {
    if (!script_.energy) return {nullptr, "the scripted case has no energy counter"};
    return {std::make_unique<ScriptedEnergyCounter>(), ""};
  }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<testing::ScriptedTimer<Script>>(script_); }
  HostArray result() override {
    // sqrt computed exactly in double then rounded: what any correct backend returns.
    std::vector<float> out(problem_.x.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(std::sqrt(problem_.x.at(i)));
    if (script_.corrupt_output) out[out.size() / 2] += 1.0f;
    return HostArray(std::move(out));
  }

 private:
  Script& script_;
  const Problem& problem_;
};

using ScriptedBackend = testing::ScriptedBackend<Script, ScriptedPrepared>;

struct RunnerTest : testing::ScriptedCaseTest<Script, ScriptedPrepared> {
  void SetUp() override {
    ScriptedCaseTest::SetUp();
    spec.l2 = L2Mode::flush;  // as the plan sets it for a GPU backend's case
  }

  // What run_plan takes: the scripted backend alone.
  std::vector<std::unique_ptr<Backend>> scripted_backends() {
    std::vector<std::unique_ptr<Backend>> backends;
    backends.push_back(std::make_unique<ScriptedBackend>(script));
    return backends;
  }
  // The case at two sizes, 100 and 200 elements.
  Plan two_sizes() {
    Plan plan;
    spec.shape = elementwise_shape(100);
    plan.cases = {spec, spec};
    plan.cases[1].shape = elementwise_shape(200);
    return plan;
  }
};

TEST_F(RunnerTest, AShortCaseIsLengthenedByCountedUntimedRunsForItsEnergy) {
  script.energy = true;
  script.seconds_per_run = script.busy_s = 2e-4;
  spec.l2 = L2Mode::warm;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.energy.has_value());
  const EnergyMeasurement& energy = *record.energy;
  ASSERT_TRUE(energy.measured()) << energy.reason;
  EXPECT_TRUE(energy.includes_timed_samples);
  EXPECT_GE(energy.window_s, energy.min_window_s);
  // 10 samples of 0.2 ms are far shorter than 10 intervals of 5 ms: the rest were untimed runs.
  EXPECT_GT(energy.extra_launches, 0);
  const auto timed = static_cast<std::int64_t>(record.samples_s.size()) * record.batch;
  EXPECT_EQ(energy.launches, timed + energy.extra_launches);
  // Every run the record counts happened: the first call, the warm-up's, the calibration's (one
  // launch and, 0.2 ms being under 1 ms, a batch of 8), the samples', the extra ones, and the
  // host-cost calls after the window closed.
  ASSERT_TRUE(record.first_call.has_value());
  const auto host_cost_calls = record.host_cost ? static_cast<std::int64_t>(record.host_cost->samples_s.size()) : 0;
  EXPECT_EQ(script.runs, 1 + options.warmup + 1 + 8 + timed + energy.extra_launches + host_cost_calls);
  EXPECT_GT(energy.uncertainty_j, 0);
}

TEST_F(RunnerTest, AColdCasesEnergyWindowIsUntimedRunsWithoutFlushes) {
  script.energy = true;
  script.flushes_cache = true;
  script.seconds_per_run = script.busy_s = 2e-4;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.energy && record.energy->measured()) << (record.energy ? record.energy->reason : "none");
  EXPECT_FALSE(record.energy->includes_timed_samples);
  EXPECT_EQ(record.energy->launches, record.energy->extra_launches);
  EXPECT_EQ(script.flushes, 1 + static_cast<int>(record.samples_s.size()));  // none among the untimed runs
}

TEST_F(RunnerTest, ARunWithoutEnergyNeitherReadsTheCounterNorLengthensTheCase) {
  script.energy = true;
  script.seconds_per_run = script.busy_s = 2e-4;
  spec.l2 = L2Mode::warm;
  options.energy = false;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.energy.has_value());
  EXPECT_FALSE(record.energy->measured());
  EXPECT_EQ(record.energy->reason, "not measured: --no-energy");
  EXPECT_EQ(record.energy->extra_launches, 0);
  // Only the runs the timing needs (the calibration's one launch and batch of 8): no untimed
  // runs to fill the counter's window.
  const auto timed = static_cast<std::int64_t>(record.samples_s.size()) * record.batch;
  const auto host_cost_calls = record.host_cost ? static_cast<std::int64_t>(record.host_cost->samples_s.size()) : 0;
  EXPECT_EQ(script.runs, 1 + options.warmup + 1 + 8 + timed + host_cost_calls);
}

TEST_F(RunnerTest, ACaseWithoutACounterSaysWhy) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.energy.has_value());
  EXPECT_FALSE(record.energy->measured());
  EXPECT_EQ(record.energy->reason, "the scripted case has no energy counter");
}

TEST_F(RunnerTest, OkCaseKeepsEverySampleAndDerivesThroughput) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  EXPECT_EQ(record.batch, 1);
  EXPECT_EQ(record.samples_s.size(), 10u);  // identical samples converge at the minimum
  EXPECT_EQ(to_string(record.stop_reasons), "converged");
  EXPECT_DOUBLE_EQ(record.stats.median, 1e-3);
  EXPECT_DOUBLE_EQ(record.gbps, 2.0 * 1000 * 4 / 1e-3 / 1e9);
  EXPECT_TRUE(record.verification.passed);
  EXPECT_EQ(record.timer, "scripted");
  EXPECT_EQ(record.warmup, 2);
  EXPECT_EQ(script.flushes, 0);  // a case that evicts no cache is never asked to
}

TEST_F(RunnerTest, ACaseWithoutAnL2ModeIsNeverFlushed) {
  script.flushes_cache = true;
  spec.l2.reset();  // a CPU case
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(script.flushes, 0);
  EXPECT_EQ(record.batch, 1);  // 1 ms launches need no batch
}

// The test slowdown (config/test_knobs.hpp) wraps each prepared case: every timed launch runs
// the op that many times, whatever the backend, and the runner's own loop is unchanged.
TEST_F(RunnerTest, TheSlowdownHookRunsTheOpThatManyTimesPerLaunch) {
  options.hooks.wrap_prepared = slowdown_hook(parse_test_slowdown("3"));
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  EXPECT_EQ(record.batch, 1);
  // Warm-ups, the launch that sizes the batch, and the samples: each three runs of the op.
  EXPECT_EQ(script.runs % 3, 0);
  EXPECT_GE(script.runs, 3 * (options.warmup + static_cast<int>(record.samples_s.size())));
  EXPECT_DOUBLE_EQ(record.stats.median, 3 * script.seconds_per_run);
}

// A fractional factor: batches of a multiple of 100 launches, each with the fraction's extra
// runs (3 in 100 for 1.03), so every sample is 1.03 times the op -- in every timing mode,
// single cold launches and end-to-end samples included.
TEST_F(RunnerTest, AFractionalTestSlowdownBatchesByHundredsAndRunsTheFraction) {
  const TestSlowdown slowdown = parse_test_slowdown("1.03");
  options.hooks.wrap_prepared = slowdown_hook(slowdown);
  options.hooks.batch_multiple = slowdown.batch_multiple();
  for (const bool cold : {false, true}) {
    script.flushes_cache = cold;
    const ResultRecord record = run_case(spec, problem, backend, options);
    ASSERT_EQ(record.status, Status::ok) << record.reason;
    EXPECT_EQ(record.batch, 100) << cold;
    for (double sample : record.samples_s) EXPECT_NEAR(sample, 1.03e-3, 1e-12) << cold;
    EXPECT_EQ(record.timing_note, "") << cold;
  }
  script.transfers = true;
  spec.timing = TimingMode::e2e;
  const ResultRecord e2e = run_case(spec, problem, backend, options);
  ASSERT_EQ(e2e.status, Status::ok) << e2e.reason;
  EXPECT_EQ(e2e.batch, 100);
  ASSERT_EQ(e2e.phases.size(), 3u);
  for (double sample : e2e.phases[1].samples_s) EXPECT_NEAR(sample, 1.03e-3, 1e-12);
}

TEST(TestSlowdown, TakesWholeNumbersAndHundredths) {
  EXPECT_FALSE(parse_test_slowdown(nullptr).active());
  EXPECT_FALSE(parse_test_slowdown("").active());
  EXPECT_EQ(parse_test_slowdown("5").hundredths, 500);
  EXPECT_FALSE(parse_test_slowdown("5").fractional());
  EXPECT_EQ(parse_test_slowdown("5").text(), "5");
  EXPECT_EQ(parse_test_slowdown("1.03").hundredths, 103);
  EXPECT_TRUE(parse_test_slowdown("1.03").fractional());
  EXPECT_EQ(parse_test_slowdown("1.03").text(), "1.03");
  EXPECT_EQ(parse_test_slowdown("2.5").text(), "2.5");
  EXPECT_EQ(parse_test_slowdown("100").hundredths, 10000);
  for (const char* bad : {"fast", "0.99", "1.035", "100.01", "3x", "nan", "inf", "-2"})
    EXPECT_THROW(parse_test_slowdown(bad), UsageError) << bad;
}

TEST(TestSlowdown, BatchesAreMultiplesOfAHundredOnlyForFractions) {
  EXPECT_EQ(parse_test_slowdown("1.03").batch_multiple(), 100);
  EXPECT_EQ(parse_test_slowdown("3").batch_multiple(), 1);
  EXPECT_EQ(parse_test_slowdown(nullptr).batch_multiple(), 1);
}

// A batch the case's timing chose is rounded up to the multiple, never down.
TEST_F(RunnerTest, BatchesRoundUpToTheHooksMultiple) {
  script.seconds_per_run = 1e-6;  // batched to 20 launches of 20 us
  options.hooks.batch_multiple = 100;
  EXPECT_EQ(run_case(spec, problem, backend, options).batch, 100);
  script.seconds_per_run = 1e-7;  // 200 launches
  EXPECT_EQ(run_case(spec, problem, backend, options).batch, 200);
}

TEST(TestSlowdown, AnyHundredLaunchesRunTheFactorTimesAHundred) {
  for (const char* factor : {"1", "1.03", "1.5", "2.99", "7.01"}) {
    const TestSlowdown slowdown = parse_test_slowdown(factor);
    SlowdownRuns runs(slowdown);
    std::vector<int> per_launch;
    for (int i = 0; i < 1000; ++i) per_launch.push_back(runs.next());
    for (std::size_t start = 0; start + 100 <= per_launch.size(); start += 37) {
      int total = 0;
      for (std::size_t i = start; i < start + 100; ++i) total += per_launch[i];
      EXPECT_EQ(total, slowdown.hundredths) << factor << " from launch " << start;
    }
  }
}

TEST_F(RunnerTest, HostInterferenceIsRecordedForCasesOnHostThreadsOnly) {
  EXPECT_FALSE(run_case(spec, problem, backend, options).cpu_telemetry.has_value());
  script.on_host_threads = true;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.cpu_telemetry.has_value());
  const CpuTelemetry& telemetry = *record.cpu_telemetry;
  EXPECT_GE(telemetry.cores, 1);
  EXPECT_LE(telemetry.oversubscribed_samples, record.samples_s.size());
  EXPECT_GE(telemetry.involuntary_switches, 0);
  EXPECT_GE(telemetry.cpu_s, 0.0);
}

TEST_F(RunnerTest, ShortOpsAreBatchedAndReportedPerLaunch) {
  script.seconds_per_run = 1e-6;
  options.min_sample_s = 20e-6;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 20);
  EXPECT_DOUBLE_EQ(record.stats.median, 1e-6);
}

// An op under the target whose one launch, with its latency, is not: the batch is sized from
// the lesser of that launch and a batch of 8, which share the latency (15 us an op, 10 us of
// latency: 25 us alone, 16.25 us a launch over 8), so it is batched as ops under the target are.
TEST_F(RunnerTest, TheBatchIsSizedFromLaunchesThatShareTheirLatency) {
  script.seconds_per_run = 15e-6;
  script.interval_overhead_s = 10e-6;
  options.min_sample_s = 20e-6;
  ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 2);
  // 8 us an op: 18 us alone, 9.25 us a launch over 8: batches of 3.
  script.seconds_per_run = 8e-6;
  record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 3);
  // An op of 30 us is over the target: one launch a sample, whatever its first launch took.
  script.seconds_per_run = 30e-6;
  record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 1);
  // An op of 15 us whose single launch took 45 us (a latency of 30 us) is batched too.
  script.seconds_per_run = 15e-6;
  script.interval_overhead_s = 30e-6;
  record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 2);
}

TEST_F(RunnerTest, WarmL2SkipsFlushes) {
  spec.l2 = L2Mode::warm;
  run_case(spec, problem, backend, options);
  EXPECT_EQ(script.flushes, 0);
}

TEST_F(RunnerTest, UnsupportedCaseIsSkippedWithReason) {
  script.supported = false;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.status, Status::skipped);
  EXPECT_EQ(record.reason, "scripted backend has no such op");
  EXPECT_EQ(script.runs.load(), 0);
}

TEST_F(RunnerTest, PrepareFailureFailsTheCaseWithTheMessage) {
  script.throw_in_prepare = true;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.status, Status::failed);
  EXPECT_NE(record.reason.find("out of device memory"), std::string::npos);
}

TEST_F(RunnerTest, WrongResultFailsVerification) {
  script.corrupt_output = true;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.status, Status::failed);
  EXPECT_FALSE(record.verification.passed);
  EXPECT_NE(record.reason.find("verification failed"), std::string::npos);
  EXPECT_EQ(record.samples_s.size(), 10u);  // measured all the same
}

TEST_F(RunnerTest, ProfileModeTakesFiveSamples) {
  options.profile = true;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.samples_s.size(), 5u);
  EXPECT_EQ(record.batch, 1);
}

TEST_F(RunnerTest, FlushedCasesTimeSingleLaunchesAndSayWhatTheTimerMeans) {
  script.seconds_per_run = 1e-6;
  script.timer_resolution_s = 0.5e-6;
  script.flushes_cache = true;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 1);  // no batch: each launch starts from an evicted cache
  EXPECT_EQ(script.flushes, static_cast<int>(record.samples_s.size()) + 1);  // and once in warm-up
  EXPECT_DOUBLE_EQ(record.stats.median, 1e-6);
  EXPECT_NE(record.timing_note.find("single cold launches"), std::string::npos) << record.timing_note;
  EXPECT_NE(record.timing_note.find("0.5 us resolution is 50.0% of the 1 us median"), std::string::npos) << record.timing_note;
}

TEST_F(RunnerTest, LongColdLaunchesNeedNoNote) {
  script.flushes_cache = true;  // 1 ms per launch, far above the batching target
  EXPECT_EQ(run_case(spec, problem, backend, options).timing_note, "");
}

TEST_F(RunnerTest, WarmL2KeepsBatchingACaseThatCouldFlush) {
  script.seconds_per_run = 1e-6;
  script.flushes_cache = true;
  spec.l2 = L2Mode::warm;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 20);
  EXPECT_EQ(script.flushes, 0);
  EXPECT_EQ(record.timing_note, "");
}

// End to end: upload, op and download each a phase of every sample, never batched, from a
// flushed cache; the sample is their sum (here the op alone takes time).
TEST_F(RunnerTest, EndToEndTimesEachPhaseAndSumsThem) {
  script.seconds_per_run = 1e-6;
  script.transfers = true;
  script.flushes_cache = true;
  spec.timing = TimingMode::e2e;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  EXPECT_EQ(record.batch, 1);
  ASSERT_EQ(record.phases.size(), 3u);
  EXPECT_EQ(record.phases[0].kind, PhaseKind::h2d);
  EXPECT_EQ(record.phases[1].kind, PhaseKind::op);
  EXPECT_EQ(record.phases[2].kind, PhaseKind::d2h);
  for (const Phase& phase : record.phases) EXPECT_EQ(phase.samples_s.size(), record.samples_s.size());
  EXPECT_DOUBLE_EQ(record.phases[0].stats.median, 0);
  EXPECT_DOUBLE_EQ(record.phases[1].stats.median, 1e-6);
  EXPECT_DOUBLE_EQ(record.stats.median, 1e-6);
  // Every run is a whole sample's, but for the host-cost calls after the samples, which
  // issue the op alone.
  ASSERT_TRUE(record.host_cost);
  const auto host_cost_calls = static_cast<int>(record.host_cost->samples_s.size());
  EXPECT_EQ(script.uploads + host_cost_calls, script.runs.load());
  EXPECT_EQ(script.downloads + host_cost_calls, script.runs.load());
  EXPECT_EQ(script.flushes, static_cast<int>(record.samples_s.size()) + 1);  // and once in warm-up
  EXPECT_EQ(record.timing_note, "");  // the cold-launch note is the kernel timing's
}

// The runner formats nothing: it tells its observer the run's start, each case as it starts
// (the case runs done of all, over every pass) and the end.
TEST_F(RunnerTest, TheObserverHearsEveryCaseOfEveryPass) {
  struct Recorder final : RunObserver {
    std::vector<std::string> events;
    void run_started() override { events.push_back("start"); }
    void case_started(const CaseStart& start) override {
      events.push_back(std::to_string(start.done) + "/" + std::to_string(start.total) + " pass " + std::to_string(start.pass + 1) +
                       "/" + std::to_string(start.passes) + " " + start.spec.id());
    }
    void run_finished() override { events.push_back("end"); }
  } recorder;
  auto backends = scripted_backends();
  options.repetitions = 2;
  options.observer = &recorder;
  run_plan(two_sizes(), backends, options);
  EXPECT_EQ(recorder.events,
            (std::vector<std::string>{"start", "0/4 pass 1/2 sqrt/scripted/f32/100", "1/4 pass 1/2 sqrt/scripted/f32/200",
                                      "2/4 pass 2/2 sqrt/scripted/f32/100", "3/4 pass 2/2 sqrt/scripted/f32/200", "end"}));
}

TEST_F(RunnerTest, CasesWithoutTelemetryCarryNone) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_FALSE(record.telemetry.has_value());
  EXPECT_FALSE(record.soak.has_value());
}

TEST_F(RunnerTest, SamplesBelowTheThresholdAreFlaggedAndKept) {
  script.telemetry = true;
  script.clock_before = 1000;  // half the maximum, all along
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.telemetry.has_value());
  EXPECT_EQ(record.telemetry->flagged_samples, record.samples_s.size());
  EXPECT_EQ(record.telemetry->discarded_samples, 0u);
  EXPECT_DOUBLE_EQ(record.telemetry->sm_clock_median_mhz, 1000);
  EXPECT_DOUBLE_EQ(record.telemetry->sm_clock_limit_mhz, 2000);
  EXPECT_DOUBLE_EQ(record.telemetry->throttle_threshold, 0.9);
  EXPECT_EQ(record.telemetry->readings, record.telemetry_readings.size());
}

TEST_F(RunnerTest, FullClockSamplesAreNotFlagged) {
  script.telemetry = true;
  options.telemetry.throttle_threshold = 0.5;
  script.clock_before = 1800;  // above 0.5 x 2000
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.telemetry.has_value());
  EXPECT_EQ(record.telemetry->flagged_samples, 0u);
}

TEST_F(RunnerTest, DiscardThrottledLeavesFlaggedSamplesOutOfTheStatistics) {
  script.telemetry = true;
  script.clock_before = 1000;
  script.clock_after = 2000;
  script.clock_switch_run = 7;  // the first call is run 1, warm-ups runs 2 and 3, the batch estimate run 4
  options.telemetry.discard_throttled = true;
  options.telemetry.period_s = 0.001;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.telemetry.has_value());
  const TelemetrySummary& telemetry = *record.telemetry;
  EXPECT_EQ(telemetry.flagged_samples, 3u);  // runs 5 and 6 began slow, and run 7 waited for the switch
  EXPECT_EQ(telemetry.discarded_samples, 3u);
  EXPECT_EQ(telemetry.discarded_samples_s.size(), 3u);
  EXPECT_EQ(record.samples_s.size(), 10u);  // the stopping rule counts the samples it keeps
  EXPECT_EQ(record.host_samples_s.size(), 10u);
  EXPECT_EQ(record.stats.count, 10u);
}

TEST_F(RunnerTest, WhenEverySampleIsThrottledNoneIsDiscarded) {
  script.telemetry = true;
  script.clock_before = 1000;
  options.telemetry.discard_throttled = true;
  options.stopping.max_time_s = 0.05;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.telemetry.has_value());
  EXPECT_EQ(to_string(record.stop_reasons), "max_time");  // the time budget still bounds the case
  EXPECT_EQ(record.telemetry->discarded_samples, 0u);
  EXPECT_EQ(record.telemetry->flagged_samples, record.samples_s.size());
  EXPECT_GE(record.stats.count, 3u);
}

TEST_F(RunnerTest, SoakRunsTheCaseUntimedBeforeMeasuring) {
  options.telemetry.soak_s = 0.02;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.soak.has_value());
  EXPECT_GE(record.soak->seconds, 0.02);
  EXPECT_FALSE(record.soak->settled.has_value());  // no telemetry to judge by
  EXPECT_GT(script.runs.load(), 2 + 10 + 1);        // warm-ups, samples, and the soak's own runs
}

TEST_F(RunnerTest, RunPlanBuildsEachProblemOnceAndKeepsOrder) {
  auto backends = scripted_backends();
  const auto results = run_plan(two_sizes(), backends, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].spec.shape.n, 100);
  EXPECT_EQ(results[1].spec.shape.n, 200);
  EXPECT_EQ(results[1].status, Status::ok);
}

}  // namespace
}  // namespace gpb

namespace gpb {
namespace {

ResultRecord pass_record(std::vector<double> samples, Status status = Status::ok) {
  ResultRecord record;
  record.status = status;
  record.reason = status == Status::ok ? "" : "out of device memory";
  record.bytes = 1e9;
  record.samples_s = samples;
  record.host_samples_s = samples;
  record.stats = compute_statistics(samples);
  record.stop_reasons = StopReasons(StopReason::converged);
  record.batch = 1;
  return record;
}

TEST(MergePasses, ConcatenatesSamplesAndRecomputes) {
  const ResultRecord merged = merge_passes({pass_record({1, 1, 1}), pass_record({3, 3, 3}), pass_record({2, 2, 2})});
  EXPECT_EQ(merged.status, Status::ok);
  EXPECT_EQ(merged.samples_s.size(), 9u);
  EXPECT_EQ(merged.host_samples_s.size(), 9u);
  EXPECT_DOUBLE_EQ(merged.stats.median, 2);
  EXPECT_DOUBLE_EQ(merged.stats.min, 1);
  EXPECT_DOUBLE_EQ(merged.gbps, 0.5);  // 1e9 bytes over a 2 s median
}

TEST(MergePasses, MergesTelemetryOverAllPasses) {
  std::vector<ResultRecord> passes = {pass_record({1, 1}), pass_record({3, 3})};
  for (std::size_t i = 0; i < passes.size(); ++i) {
    TelemetryReading reading;
    reading.time_s = static_cast<double>(i);
    reading.sm_clock_mhz = 1500 + 300 * static_cast<double>(i);
    passes[i].telemetry_readings = {reading};
    passes[i].telemetry = summarize_readings(passes[i].telemetry_readings, 0.01, 2000, 0.9);
    passes[i].telemetry->flagged_samples = 1;
    passes[i].telemetry->energy_j = 10;
    passes[i].telemetry->energy_window_s = 1;
    passes[i].flops = 1e9;
    passes[i].soak = SoakSummary{5, 5, i == 0};
  }
  const ResultRecord merged = merge_passes(passes);
  ASSERT_TRUE(merged.telemetry.has_value());
  EXPECT_EQ(merged.telemetry->readings, 2u);
  EXPECT_DOUBLE_EQ(merged.telemetry->sm_clock_min_mhz, 1500);
  EXPECT_DOUBLE_EQ(merged.telemetry->sm_clock_max_mhz, 1800);
  EXPECT_EQ(merged.telemetry->flagged_samples, 2u);
  // 20 J over 2 s is 10 W; times the merged 2 s median.
  EXPECT_DOUBLE_EQ(merged.telemetry->energy_per_op_j, 20.0);
  ASSERT_TRUE(merged.soak.has_value());
  EXPECT_DOUBLE_EQ(merged.soak->seconds, 10);
  EXPECT_EQ(merged.soak->settled, false);  // settled only when every pass did
}

TEST(MergePasses, KeepsEveryPasssStopReason) {
  std::vector<ResultRecord> passes = {pass_record({1, 1}), pass_record({2, 2}), pass_record({3, 3})};
  passes[0].stop_reasons = StopReasons(StopReason::max_time);
  EXPECT_EQ(to_string(merge_passes(passes).stop_reasons), "converged+max_time");  // in StopReason order
  EXPECT_EQ(to_string(merge_passes({pass_record({1, 1}), pass_record({2, 2})}).stop_reasons), "converged");
  EXPECT_EQ(to_string(StopReasons()), "");
}

TEST(MergePasses, AFailedPassDecides) {
  const ResultRecord merged = merge_passes({pass_record({1, 1}), pass_record({}, Status::failed), pass_record({1, 1})});
  EXPECT_EQ(merged.status, Status::failed);
  EXPECT_EQ(merged.reason, "out of device memory");
}

TEST_F(RunnerTest, RepetitionsSplitTheBudgetAndMergeSamples) {
  auto backends = scripted_backends();
  Plan plan;
  plan.cases = {spec};
  options.repetitions = 3;
  options.stopping.min_samples = 18;
  const auto results = run_plan(plan, backends, options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::ok);
  EXPECT_EQ(results[0].samples_s.size(), 18u);  // three passes of six identical samples
  EXPECT_EQ(script.runs % 3, 0);
}

}  // namespace
}  // namespace gpb
