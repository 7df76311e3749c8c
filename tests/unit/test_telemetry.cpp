// Telemetry's pure rules fed by hand-made readings (summaries, throttle flags, energy per op,
// soak settling, compare's clocks/power note, notes), the sampler thread against a fake
// source, and the progress line's text.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "cli/progress.hpp"
#include "config/run_config.hpp"
#include "measure/context.hpp"
#include "measure/telemetry_sampler.hpp"
#include "model/result.hpp"
#include "model/telemetry.hpp"

namespace gpb {
namespace {

TelemetryReading reading(double time_s, double sm_clock_mhz, double power_w = 500, double temperature_c = 60,
                         std::optional<std::uint64_t> clock_events = std::uint64_t{0}) {
  TelemetryReading r;
  r.time_s = time_s;
  r.sm_clock_mhz = sm_clock_mhz;
  r.mem_clock_mhz = 2619;
  r.power_w = power_w;
  r.temperature_c = temperature_c;
  r.clock_events = clock_events;
  return r;
}

TEST(ClockEvents, DecodesNvmlBitsInOrderAndKeepsUnknownOnes) {
  EXPECT_EQ(clock_event_names(0), std::vector<std::string>{});
  EXPECT_EQ(clock_event_names(clock_event::sw_power_cap | clock_event::gpu_idle),
            (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(clock_event_names(clock_event::hw_thermal_slowdown | 0x400),
            (std::vector<std::string>{"hw_thermal_slowdown", "0x400"}));
  // Idling and a user's clock setting are not throttling; a power cap is.
  EXPECT_EQ(clock_event::throttling & (clock_event::gpu_idle | clock_event::applications_clocks_setting), 0u);
  EXPECT_NE(clock_event::throttling & clock_event::sw_power_cap, 0u);
}

TEST(ThrottleFlags, JudgeTheStateAtTheStartAndEveryReadingUpToTheEnd) {
  const std::vector<TelemetryReading> readings = {reading(0.00, 1980), reading(0.01, 1500), reading(0.02, 1980),
                                                  reading(0.03, 1980)};
  const double threshold = 0.9 * 1980;
  EXPECT_FALSE(ran_throttled(readings, 0.001, 0.005, threshold));  // began and ended at full clock
  EXPECT_TRUE(ran_throttled(readings, 0.005, 0.012, threshold));   // a slow reading inside it
  EXPECT_TRUE(ran_throttled(readings, 0.012, 0.015, threshold));   // began in the slow state
  EXPECT_FALSE(ran_throttled(readings, 0.021, 0.025, threshold));  // the clock had recovered
  EXPECT_TRUE(ran_throttled(readings, 0.010, 0.010, threshold));   // a reading exactly at its start
  EXPECT_FALSE(ran_throttled({}, 0.0, 1.0, threshold));            // no readings: not flagged
  EXPECT_FALSE(ran_throttled(readings, 0.005, 0.012, kNotReported));  // no maximum clock known
  EXPECT_FALSE(ran_throttled({reading(0.0, kNotReported)}, 0.0, 1.0, threshold));  // clock not reported
}

TEST(TelemetrySummaries, SummariseEachSensorOverTheReadings) {
  const std::vector<TelemetryReading> readings = {
      reading(0.0, 1980, 400, 50, clock_event::gpu_idle), reading(0.1, 1755, 690, 65, clock_event::sw_power_cap),
      reading(0.2, 1410, 700, 71, clock_event::sw_power_cap), reading(0.3, 1800, 650, 70, std::uint64_t{0})};
  const TelemetrySummary summary = summarize_readings(readings, 0.01, 1980, 0.9);
  EXPECT_EQ(summary.readings, 4u);
  EXPECT_DOUBLE_EQ(summary.period_s, 0.01);
  EXPECT_DOUBLE_EQ(summary.sm_clock_min_mhz, 1410);
  EXPECT_DOUBLE_EQ(summary.sm_clock_median_mhz, (1755 + 1800) / 2.0);
  EXPECT_DOUBLE_EQ(summary.sm_clock_max_mhz, 1980);
  EXPECT_DOUBLE_EQ(summary.sm_clock_limit_mhz, 1980);
  EXPECT_DOUBLE_EQ(summary.mem_clock_median_mhz, 2619);
  EXPECT_DOUBLE_EQ(summary.power_mean_w, (400 + 690 + 700 + 650) / 4.0);
  EXPECT_DOUBLE_EQ(summary.power_max_w, 700);
  EXPECT_DOUBLE_EQ(summary.temperature_max_c, 71);
  EXPECT_EQ(summary.clock_events, (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_DOUBLE_EQ(summary.throttled_share, 0.5);  // two of four readings power-capped
  EXPECT_DOUBLE_EQ(summary.throttle_threshold, 0.9);
}

TEST(TelemetrySummaries, SensorsADeviceLacksStayUnknown) {
  std::vector<TelemetryReading> readings = {reading(0.0, 1500, kNotReported, kNotReported, std::nullopt),
                                            reading(0.1, 1600, kNotReported, kNotReported, std::nullopt)};
  const TelemetrySummary summary = summarize_readings(readings, 0.01, kNotReported, 0.9);
  EXPECT_DOUBLE_EQ(summary.sm_clock_median_mhz, 1550);
  EXPECT_TRUE(std::isnan(summary.power_mean_w));
  EXPECT_TRUE(std::isnan(summary.power_max_w));
  EXPECT_TRUE(std::isnan(summary.temperature_max_c));
  EXPECT_TRUE(std::isnan(summary.throttled_share));  // no reasons reported at all
  EXPECT_TRUE(summary.clock_events.empty());
}

TEST(TelemetryEnergy, EnergyPerOpIsAveragePowerTimesTheMedian) {
  TelemetrySummary summary;
  summary.energy_j = 1400;       // 700 W ...
  summary.energy_window_s = 2;   // ... over 2 s
  apply_energy(summary, 2.5e-3, 1.375e11, 4e8);
  EXPECT_DOUBLE_EQ(summary.energy_per_op_j, 700 * 2.5e-3);
  EXPECT_DOUBLE_EQ(summary.gflops_per_j, 1.375e11 / (700 * 2.5e-3) / 1e9);
  EXPECT_DOUBLE_EQ(summary.gb_per_j, 4e8 / (700 * 2.5e-3) / 1e9);
}

TEST(TelemetryEnergy, NoCounterOrAStillCounterGivesNoFigure) {
  TelemetrySummary without_counter;
  apply_energy(without_counter, 1e-3, 1e9, 1e9);
  EXPECT_TRUE(std::isnan(without_counter.energy_per_op_j));
  EXPECT_TRUE(std::isnan(without_counter.gflops_per_j));
  TelemetrySummary still;
  still.energy_j = 0;  // the counter did not tick over a short window
  still.energy_window_s = 0.01;
  apply_energy(still, 1e-3, 1e9, 1e9);
  EXPECT_TRUE(std::isnan(still.energy_per_op_j));
}

TEST(TelemetrySummaries, MergingPassesAddsCountsAndEnergyAndResummarises) {
  TelemetrySummary first = summarize_readings({reading(0, 1980, 600)}, 0.01, 1980, 0.9);
  first.flagged_samples = 2;
  first.discarded_samples = 2;
  first.discarded_samples_s = {1e-3, 2e-3};
  first.energy_j = 600;
  first.energy_window_s = 1;
  TelemetrySummary second = summarize_readings({reading(5, 1500, 700)}, 0.01, 1980, 0.9);
  second.flagged_samples = 1;
  second.energy_j = 700;
  second.energy_window_s = 1;
  const TelemetrySummary merged = merge_telemetry(first, second, {reading(0, 1980, 600), reading(5, 1500, 700)});
  EXPECT_EQ(merged.readings, 2u);
  EXPECT_DOUBLE_EQ(merged.power_mean_w, 650);
  EXPECT_DOUBLE_EQ(merged.sm_clock_min_mhz, 1500);
  EXPECT_EQ(merged.flagged_samples, 3u);
  EXPECT_EQ(merged.discarded_samples, 2u);
  EXPECT_EQ(merged.discarded_samples_s, (std::vector<double>{1e-3, 2e-3}));
  EXPECT_DOUBLE_EQ(merged.energy_j, 1300);
  EXPECT_DOUBLE_EQ(merged.energy_window_s, 2);
  second.energy_j = kNotReported;  // one pass without the counter: energy unknown
  EXPECT_TRUE(std::isnan(merge_telemetry(first, second, {}).energy_j));
}

// Readings every 10 ms from t = 0 to `until`, with the sensors a function of time.
template <class Sensors>
std::vector<TelemetryReading> trace(double until, Sensors sensors) {
  std::vector<TelemetryReading> readings;
  for (int i = 0; i * 0.01 <= until + 1e-9; ++i) readings.push_back(sensors(i * 0.01));
  return readings;
}

TEST(Soak, SettlesOnceClocksPowerAndTemperatureHoldStill) {
  const auto steady = trace(11, [](double t) { return reading(t, 1755, 690, 70); });
  EXPECT_TRUE(soak_settled(steady, 11));
  EXPECT_FALSE(soak_settled(steady, kSoakSpanS - 0.5));  // too little history to judge
}

TEST(Soak, DoesNotSettleWhileTheDeviceStillHeatsOrItsClockFalls) {
  // +1 degree per second: 4 degrees between the compared windows.
  const auto heating = trace(12, [](double t) { return reading(t, 1755, 690, 50 + t); });
  EXPECT_FALSE(soak_settled(heating, 12));
  // A fifth of a degree per second, as an H100 warmed at its power cap: 2 degrees over the span.
  const auto warming = trace(12, [](double t) { return reading(t, 1755, 690, 50 + 0.2 * t); });
  EXPECT_FALSE(soak_settled(warming, 12));
  // The clock sinking 1 % per second as the power cap bites harder.
  const auto sinking = trace(12, [](double t) { return reading(t, 1980 * (1 - 0.01 * t), 700, 70); });
  EXPECT_FALSE(soak_settled(sinking, 12));
  const auto ramping_power = trace(12, [](double t) { return reading(t, 1755, 400 + 30 * t, 70); });
  EXPECT_FALSE(soak_settled(ramping_power, 12));
  // A device that reports none of the three sensors never counts as settled.
  const auto blind = trace(12, [](double t) { return reading(t, kNotReported, kNotReported, kNotReported); });
  EXPECT_FALSE(soak_settled(blind, 12));
}

TEST(TelemetryDifference, NamesClockOrPowerBeyondTheToleranceOnly) {
  TelemetrySummary baseline;
  baseline.sm_clock_median_mhz = 1980;
  baseline.power_mean_w = 500;
  TelemetrySummary close = baseline;
  close.sm_clock_median_mhz = 1965;  // -0.8 %
  close.power_mean_w = 510;           // +2 %
  EXPECT_EQ(telemetry_difference(baseline, close), "");
  TelemetrySummary capped = baseline;
  capped.sm_clock_median_mhz = 1755;
  capped.power_mean_w = 690;
  EXPECT_EQ(telemetry_difference(baseline, capped), "SM clock median 1980 vs 1755 MHz (-11.4%); mean power 500 vs 690 W (+38.0%)");
  TelemetrySummary unknown;  // no sensors: nothing to say
  EXPECT_EQ(telemetry_difference(baseline, unknown), "");
}

TEST(TelemetryNotes, SayOnceWhyTelemetryIsMissingOrThatClocksFloat) {
  Context context;
  GpuInfo gpu;
  gpu.ordinal = 0;
  gpu.nvml.reason = "cannot load libnvidia-ml.so.1";
  context.gpus.push_back(gpu);
  auto notes = telemetry_notes(context, {0});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("telemetry unavailable (cannot load libnvidia-ml.so.1)"), std::string::npos);
  EXPECT_TRUE(telemetry_notes(context, {1}).empty());  // another device: not this run's

  GpuManagement& nvml = context.gpus[0].nvml;
  nvml.available = true;
  nvml.applications_clocks_set = false;
  nvml.clock_limit_active = false;
  EXPECT_EQ(clocks_locked(nvml), false);
  notes = telemetry_notes(context, {0});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("clocks are not locked"), std::string::npos);

  nvml.clock_limit_active = true;
  EXPECT_EQ(clocks_locked(nvml), true);
  EXPECT_TRUE(telemetry_notes(context, {0}).empty());
  nvml.applications_clocks_set.reset();
  nvml.clock_limit_active.reset();
  EXPECT_EQ(clocks_locked(nvml), std::nullopt);  // NVML could not tell: no claim either way
  EXPECT_TRUE(telemetry_notes(context, {0}).empty());
}

// A source whose readings count themselves; the energy counter grows by 1 J a read.
class CountingSource final : public TelemetrySource {
 public:
  TelemetryReading read() override {
    ++reads;
    return reading(0, 1700);
  }
  std::optional<double> energy_j() override { return energy += 1; }
  double max_sm_clock_mhz() override { return 1980; }

  std::atomic<int> reads{0};
  double energy = 100;
};

TEST(TelemetrySampler, TakesReadingsInTimeOrderFromStartToStop) {
  CountingSource source;
  TelemetrySampler sampler(source, 0.001);
  sampler.start();
  const double start = telemetry_clock_now();
  while (source.reads < 3 && telemetry_clock_now() - start < 10) std::this_thread::yield();
  sampler.stop();
  const auto readings = sampler.readings();
  ASSERT_GE(readings.size(), 3u);  // the first and the last are taken by start() and stop() themselves
  for (std::size_t i = 1; i < readings.size(); ++i) EXPECT_LE(readings[i - 1].time_s, readings[i].time_s);
  EXPECT_EQ(static_cast<int>(readings.size()), source.reads.load());
  EXPECT_DOUBLE_EQ(*sampler.energy_delta_j(), 1);  // read once at start, once at stop
  EXPECT_GT(sampler.window_s(), 0);
}

TEST(CaseTelemetry, WithoutASourceNothingIsFlaggedAndASoakRunsItsTime) {
  TelemetryOptions options;
  options.soak_s = 0.02;
  CaseTelemetry telemetry(nullptr, options);
  EXPECT_FALSE(telemetry.active());
  int runs = 0;
  const SoakSummary soak = telemetry.soak([&] { ++runs; }, [] {});
  EXPECT_GE(soak.seconds, 0.02);
  EXPECT_DOUBLE_EQ(soak.requested_s, 0.02);
  EXPECT_FALSE(soak.settled.has_value());  // nothing to judge settling by
  EXPECT_GT(runs, 1);
  telemetry.start_measuring();
  EXPECT_FALSE(telemetry.throttled(0, 1e12));
  std::vector<TelemetryReading> readings;
  EXPECT_FALSE(telemetry.finish(readings).has_value());
}

TEST(CaseTelemetry, ASoakThatRunsOutOfTimeSaysItDidNotSettle) {
  TelemetryOptions options;
  options.soak_s = 0.05;  // far shorter than the span settling is judged over
  options.period_s = 0.005;
  CaseTelemetry telemetry(std::make_unique<CountingSource>(), options);
  const SoakSummary soak = telemetry.soak([] {}, [] {});
  ASSERT_TRUE(soak.settled.has_value());
  EXPECT_FALSE(*soak.settled);
  EXPECT_GE(soak.seconds, 0.05);
}

TEST(CaseTelemetry, SummarisesWhatWasReadWhileMeasuring) {
  TelemetryOptions options;
  options.throttle_threshold = 0.9;
  CaseTelemetry telemetry(std::make_unique<CountingSource>(), options);
  telemetry.start_measuring();
  // The source reads 1700 MHz of 1980: below 0.9 x 1980, so every sample is flagged.
  EXPECT_TRUE(telemetry.throttled(telemetry_clock_now(), telemetry_clock_now()));
  std::vector<TelemetryReading> readings;
  const auto summary = telemetry.finish(readings);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->readings, readings.size());
  EXPECT_GE(readings.size(), 2u);
  EXPECT_DOUBLE_EQ(summary->sm_clock_median_mhz, 1700);
  EXPECT_DOUBLE_EQ(summary->sm_clock_limit_mhz, 1980);
  EXPECT_DOUBLE_EQ(summary->energy_j, 1);
  EXPECT_GT(summary->energy_window_s, 0);
}

TEST(Progress, ModesAndWhenTheyShow) {
  EXPECT_EQ(parse_progress_mode("never"), ProgressMode::never);
  EXPECT_EQ(parse_progress_mode("always"), ProgressMode::always);
  EXPECT_EQ(parse_progress_mode("auto"), ProgressMode::auto_detect);
  EXPECT_THROW(parse_progress_mode("sometimes"), UsageError);
  EXPECT_TRUE(progress_wanted(ProgressMode::auto_detect, false, true));
  EXPECT_FALSE(progress_wanted(ProgressMode::auto_detect, false, false));  // a pipe
  EXPECT_FALSE(progress_wanted(ProgressMode::auto_detect, true, true));    // --quiet
  EXPECT_TRUE(progress_wanted(ProgressMode::always, true, false));
  EXPECT_FALSE(progress_wanted(ProgressMode::never, false, true));
}

TEST(Progress, LineShowsDoneTotalElapsedAndEta) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(65.4), "1:05");
  EXPECT_EQ(format_duration(3725), "1:02:05");
  EXPECT_EQ(format_duration(-1), "-");
  EXPECT_EQ(progress_text(0, 12, 0.2, "sum/eigen/f32/1048576"), "[0/12 done, 0:00 elapsed, ETA -] sum/eigen/f32/1048576");
  // 3 cases in 6 s: 2 s each, 9 left.
  EXPECT_EQ(progress_text(3, 12, 6, "matmul/cublas/f64/4096x4096x4096"),
            "[3/12 done, 0:06 elapsed, ETA 0:18] matmul/cublas/f64/4096x4096x4096");
}

}  // namespace
}  // namespace gpb
