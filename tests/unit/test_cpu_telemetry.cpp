// CPU interference telemetry: the pure rules over its records (merging passes, when a side
// counts as interfered with), the readings of this process's own threads, and what compare
// makes of it.
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "analysis/compare.hpp"
#include "base/system.hpp"
#include "measure/host_interference.hpp"
#include "model/cpu_telemetry.hpp"
#include "model/statistics.hpp"

namespace gpb {
namespace {

CpuTelemetry quiet_host() {
  CpuTelemetry t;
  t.cores = 2;
  t.load_average = 0.4;
  t.threads_obtained = 2;
  t.cpu_s = 1.0;
  t.run_queue_wait_s = 0.01;
  t.involuntary_switches = 2;
  t.migrations = 1;
  t.cpu_mhz_min = 2000;
  t.cpu_mhz_max = 3000;
  t.oversubscribed_samples = 1;
  return t;
}

CpuTelemetry busy_host() {
  CpuTelemetry t = quiet_host();
  t.load_average = 6.1;
  t.threads_obtained = 1;
  t.run_queue_wait_s = 0.5;
  t.involuntary_switches = 80;
  t.migrations = std::nullopt;
  t.cpu_mhz_min = kNotReported;
  t.cpu_mhz_max = kNotReported;
  t.oversubscribed_samples = 41;
  return t;
}

TEST(CpuTelemetry, RunQueueWaitShareIsOfTheRunnableTime) {
  EXPECT_NEAR(run_queue_wait_share(busy_host()), 0.5 / 1.5, 1e-15);
  CpuTelemetry unknown = quiet_host();
  unknown.run_queue_wait_s = kNotReported;
  EXPECT_TRUE(std::isnan(run_queue_wait_share(unknown)));
  EXPECT_TRUE(std::isnan(run_queue_wait_share(CpuTelemetry{})));
}

TEST(CpuTelemetry, AQuietHostShowsNoInterference) {
  EXPECT_EQ(interference_summary(quiet_host(), 60, 2), "");
  // Fewer threads than asked is no interference by itself (a small input uses fewer).
  CpuTelemetry one_thread = quiet_host();
  one_thread.threads_obtained = 1;
  EXPECT_EQ(interference_summary(one_thread, 60, 2), "");
}

TEST(CpuTelemetry, ABusyHostSaysWhatShowsIt) {
  EXPECT_EQ(interference_summary(busy_host(), 60, 2),
            "41/60 samples oversubscribed, run-queue wait 33%, load 6.1 on 2 cores, 1 of 2 threads ran");
  // Each sign alone is enough, at kInterferenceShare.
  CpuTelemetry preempted = quiet_host();
  preempted.oversubscribed_samples = 6;
  EXPECT_EQ(interference_summary(preempted, 60, 2), "6/60 samples oversubscribed");
  EXPECT_EQ(interference_summary(preempted, 61, 2), "");
  CpuTelemetry waiting = quiet_host();
  waiting.run_queue_wait_s = 0.2;
  EXPECT_EQ(interference_summary(waiting, 60, 2), "run-queue wait 17%");
  CpuTelemetry loaded = quiet_host();
  loaded.cores = 1;
  loaded.load_average = 1.5;
  EXPECT_EQ(interference_summary(loaded, 60, 1), "load 1.5 on 1 core");
}

TEST(CpuTelemetry, PassesMergeByAddingCountsAndWideningRanges) {
  const CpuTelemetry merged = merge_cpu_telemetry(quiet_host(), busy_host());
  EXPECT_DOUBLE_EQ(merged.load_average, 6.1);
  EXPECT_EQ(merged.threads_obtained, 1);
  EXPECT_DOUBLE_EQ(merged.cpu_s, 2.0);
  EXPECT_DOUBLE_EQ(merged.run_queue_wait_s, 0.51);
  EXPECT_EQ(merged.involuntary_switches, 82);
  EXPECT_FALSE(merged.migrations.has_value());  // unknown in one pass
  EXPECT_DOUBLE_EQ(merged.cpu_mhz_min, 2000);  // the known readings win over unknown ones
  EXPECT_DOUBLE_EQ(merged.cpu_mhz_max, 3000);
  EXPECT_EQ(merged.oversubscribed_samples, 42u);
  EXPECT_EQ(merge_cpu_telemetry(quiet_host(), quiet_host()).migrations, std::optional<std::int64_t>(2));
}

TEST(HostInterference, ThreadDeltasCountTheThreadsThatRan) {
  const std::map<int, ThreadSchedule> before{{10, {1.0, 0.5, 3}}, {11, {2.0, 0.0, 0}}, {12, {0.5, 0.1, 1}}};
  // 10 ran 0.5 s, 11 0.01 s (under 5 % of 1 s), 12 ended, 13 started and ran 0.2 s.
  const std::map<int, ThreadSchedule> after{{10, {1.5, 0.75, 5}}, {11, {2.01, 0.0, 0}}, {13, {0.2, 0.05, 2}}};
  CpuTelemetry t;
  fill_thread_deltas(before, after, 1.0, t);
  EXPECT_EQ(t.threads_obtained, 2);
  EXPECT_NEAR(t.cpu_s, 0.71, 1e-12);
  EXPECT_NEAR(t.run_queue_wait_s, 0.3, 1e-12);
  EXPECT_EQ(t.migrations, std::optional<std::int64_t>(4));

  std::map<int, ThreadSchedule> unknown_migrations = after;
  unknown_migrations[13].migrations = std::nullopt;
  fill_thread_deltas(before, unknown_migrations, 1.0, t);
  EXPECT_FALSE(t.migrations.has_value());

  std::map<int, ThreadSchedule> no_schedstat = after;
  no_schedstat[10].run_queue_wait_s = kNotReported;
  fill_thread_deltas(before, no_schedstat, 1.0, t);
  EXPECT_TRUE(std::isnan(t.run_queue_wait_s));

  fill_thread_deltas(before, {}, 1.0, t);  // nothing readable
  EXPECT_EQ(t.threads_obtained, 0);
  EXPECT_TRUE(std::isnan(t.run_queue_wait_s));
  EXPECT_FALSE(t.migrations.has_value());
}

// This process's own threads, as the kernel reports them: a thread that spins shows its CPU
// time, and no thread can have been runnable longer than the wall time.
TEST(HostInterference, ReadsThisProcesssThreads) {
  const auto before = read_thread_schedules();
  if (before.empty()) GTEST_SKIP() << "this kernel has no /proc/self/task/*/schedstat";
  std::atomic<bool> stop{false};
  std::thread spinner([&stop] {
    while (!stop) {
    }
  });
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto after = read_thread_schedules();  // the spinner still runs: its counters are there
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stop = true;
  spinner.join();
  CpuTelemetry t;
  fill_thread_deltas(before, after, wall, t);
  EXPECT_GE(t.threads_obtained, 1);
  EXPECT_GT(t.cpu_s, 0.0);
  // This thread slept and the spinner was runnable throughout: at most two wall times.
  if (!std::isnan(t.run_queue_wait_s)) {
    EXPECT_LE(t.cpu_s + t.run_queue_wait_s, 2 * wall + 0.05);
  }
  EXPECT_GE(process_involuntary_switches(), 0);
}

// A per-sample reading of a thread: CPU time and run-queue wait (the runner reads no migrations then).
ThreadSchedule reading(double cpu_s, double run_queue_wait_s) { return {cpu_s, run_queue_wait_s, std::nullopt}; }

TEST(HostInterference, ASamplesWaitIsTheLongestOfTheThreadsThatRan) {
  // Thread 0 (the measuring one) ran the whole 10 ms sample and waited 3 ms; thread 1 ran 2
  // ms (20 %) and waited 4 ms; thread 2 ran 0.1 ms (1 %, under kBusyThreadShare) and waited
  // 9 ms: not the op's.
  const std::vector<ThreadSchedule> before{reading(1.0, 0.5), reading(2.0, 0.25), reading(3.0, 0.125)};
  const std::vector<ThreadSchedule> after{reading(1.007, 0.503), reading(2.002, 0.254), reading(3.0001, 0.134)};
  EXPECT_NEAR(sample_run_queue_wait(before, after, 0, 0.010, 0.010), 0.004, 1e-9);
  // A thread unread at either end is left out; none waiting is 0.
  std::vector<ThreadSchedule> ended = after;
  ended[1] = ThreadSchedule{};
  EXPECT_NEAR(sample_run_queue_wait(before, ended, 0, 0.010, 0.010), 0.003, 1e-9);
  EXPECT_EQ(sample_run_queue_wait(before, before, 0, 0.010, 0.010), 0.0);
  EXPECT_EQ(sample_run_queue_wait({}, {}, 0, 0.010, 0.010), 0.0);
  // The readings 13 ms apart around a 10 ms sample: up to 3 ms of the wait may have been
  // outside the sample, so only 1 ms is the sample's for certain; none with 5 ms outside.
  EXPECT_NEAR(sample_run_queue_wait(before, after, 0, 0.010, 0.013), 0.001, 1e-9);
  EXPECT_EQ(sample_run_queue_wait(before, after, 0, 0.010, 0.015), 0.0);
  // The measuring thread counts however little its reading shows it ran: a running thread's
  // CPU time is brought up to date only when it is switched out, so a 40 us op preempted for
  // 4 ms may read as having run 10 us of a 4.04 ms sample.
  const std::vector<ThreadSchedule> short_before{reading(1.0, 0.5), reading(2.0, 0.25)};
  const std::vector<ThreadSchedule> short_after{reading(1.00001, 0.504), reading(2.0, 0.25)};
  EXPECT_NEAR(sample_run_queue_wait(short_before, short_after, 0, 0.00404, 0.00404), 0.004, 1e-9);
  EXPECT_EQ(sample_run_queue_wait(short_before, short_after, 1, 0.00404, 0.00404), 0.0);  // were it another's
  // A busy thread switched in during the sample is credited its whole wait then, some of it
  // from before the window: 41 ms in a 35 ms sample counts as the sample's 35 ms.
  const std::vector<ThreadSchedule> late_before{reading(1.0, 0.5), reading(2.0, 0.25)};
  const std::vector<ThreadSchedule> late_after{reading(1.018, 0.51), reading(2.017, 0.291)};
  EXPECT_NEAR(sample_run_queue_wait(late_before, late_after, 0, 0.035, 0.035), 0.035, 1e-9);
}

TEST(HostInterference, AnInactiveCaseReadsNothing) {
  HostInterference inactive(false);
  inactive.start_measuring();
  inactive.before_sample();
  const HostInterference::Sample sample = inactive.finish_sample(1.0);
  EXPECT_FALSE(sample.oversubscribed);
  EXPECT_TRUE(std::isnan(sample.run_queue_wait_s));
  EXPECT_FALSE(inactive.finish(1.0).has_value());
}

// Spins this thread for `duration` of wall time.
void spin_for(std::chrono::steady_clock::duration duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// This thread and a spinning one on the same core: each gets about half of it, so the samples
// this thread spins through wait for the core about half their wall time, and the runner's
// readings say so.
TEST(HostInterference, SamplesSharingACoreCarryTheirWait) {
  if (read_thread_schedules().empty()) GTEST_SKIP() << "this kernel has no /proc/self/task/*/schedstat";
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  int core = 0;
  while (core < CPU_SETSIZE && !CPU_ISSET(core, &original)) ++core;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(core, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // this thread; the spinner inherits it
  std::atomic<bool> stop{false};
  std::thread spinner([&stop] {
    while (!stop) {
    }
  });
  HostInterference interference(true);
  interference.start_measuring();
  double waited = 0, wall = 0;
  for (int sample = 0; sample < 10; ++sample) {
    interference.before_sample();
    const auto start = std::chrono::steady_clock::now();
    spin_for(std::chrono::milliseconds(30));
    const double sample_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const HostInterference::Sample result = interference.finish_sample(sample_wall);
    ASSERT_FALSE(std::isnan(result.run_queue_wait_s));
    EXPECT_GE(result.run_queue_wait_s, 0.0);
    EXPECT_LE(result.run_queue_wait_s, sample_wall + 0.005);
    waited += result.run_queue_wait_s;
    wall += sample_wall;
  }
  stop = true;
  spinner.join();
  sched_setaffinity(0, sizeof original, &original);
  EXPECT_TRUE(interference.finish(wall).has_value());
  // Half under a fair share; a quarter leaves room for other load on the machine's other
  // work and for the spinner's start.
  EXPECT_GT(waited, 0.25 * wall) << "waited " << waited << " s of " << wall << " s";
}

TEST(HostInterference, AnActiveCaseSummarisesItsMeasurement) {
  HostInterference interference(true);
  interference.start_measuring();
  std::size_t oversubscribed = 0;
  for (int i = 0; i < 20; ++i) {
    interference.before_sample();
    spin_for(std::chrono::milliseconds(2));
    const HostInterference::Sample sample = interference.finish_sample(0.002);
    oversubscribed += sample.oversubscribed;
    if (!std::isnan(sample.run_queue_wait_s)) {
      EXPECT_GE(sample.run_queue_wait_s, 0.0);
    }
  }
  const auto telemetry = interference.finish(0.04);
  ASSERT_TRUE(telemetry.has_value());
  EXPECT_EQ(telemetry->cores, usable_cores());
  EXPECT_EQ(telemetry->oversubscribed_samples, oversubscribed);
  EXPECT_GE(telemetry->involuntary_switches, static_cast<std::int64_t>(oversubscribed));
  EXPECT_FALSE(std::isnan(telemetry->load_average));  // Linux always has one
  if (!read_thread_schedules().empty()) {
    EXPECT_GE(telemetry->threads_obtained, 1);  // this thread spun the whole time
    EXPECT_GT(telemetry->cpu_s, 0.0);
  }
}

// ---- compare cites it -------------------------------------------------------------------------

ResultRecord cpu_record(const std::vector<double>& samples, const CpuTelemetry& telemetry) {
  ResultRecord record;
  record.spec.op = Op::sum;
  record.spec.backend = "eigen";
  record.spec.dtype = DType::f64;
  record.spec.shape = elementwise_shape(1 << 20);
  record.threads_used = 2;
  record.samples_s = samples;
  record.stats = compute_statistics(samples);
  record.cpu_telemetry = telemetry;
  return record;
}

std::vector<double> around(double median, std::size_t count) {
  std::vector<double> samples;
  for (std::size_t i = 0; i < count; ++i) samples.push_back(median * (1 + 0.001 * static_cast<double>(i % 7)));
  return samples;
}

TEST(CpuTelemetryInCompare, AnInterferedSideIsCitedAndTheVerdictStands) {
  Context context;
  context.cpu_model = "test CPU";
  const LoadedReport baseline{context, {cpu_record(around(1e-3, 60), quiet_host())}};
  const LoadedReport current{context, {cpu_record(around(2e-3, 60), busy_host())}};
  const Comparison comparison = compare_reports(baseline, current, {});
  const CaseComparison& c = comparison.cases.at(0);
  EXPECT_EQ(c.verdict, Verdict::slower);
  EXPECT_EQ(c.label(), "slower (interference)");
  EXPECT_EQ(c.interference, "current: 41/60 samples oversubscribed, run-queue wait 33%, load 6.1 on 2 cores, 1 of 2 threads ran");
  EXPECT_NE(c.note.find("interference: current: 41/60"), std::string::npos) << c.note;
  EXPECT_EQ(comparison.exit_code(), kCompareExitRegression);

  const LoadedReport quiet{context, {cpu_record(around(2e-3, 60), quiet_host())}};
  EXPECT_EQ(compare_reports(baseline, quiet, {}).cases.at(0).label(), "slower");
}

// A side's samples on a busy machine: `work` seconds each, of which a seeded random share
// `interrupted` was interrupted once by a time slice of `slice` seconds (the wait added to
// the sample and recorded beside it), with a little jitter.
ResultRecord interrupted_record(double work, double interrupted, double slice, std::mt19937_64& random) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> samples, waits;
  for (int i = 0; i < 60; ++i) {
    const double wait = unit(random) < interrupted ? slice * (0.8 + 0.4 * unit(random)) : 0.0;
    samples.push_back(work * (1 + 0.02 * unit(random)) + wait);
    waits.push_back(wait);
  }
  ResultRecord record = cpu_record(samples, busy_host());
  record.sample_waits_s = waits;
  return record;
}

// The same code measured twice on a busy runner, where the share of samples a time slice
// interrupted differs between the runs (20 % against 70 %, as seen on a 2-core CI runner):
// judged as measured, the medians differ twofold; less the waits, the same. Over seeded
// random draws of the shares, a real 5x slowdown is still caught, and without waits on both
// sides the samples are judged as measured.
TEST(CpuTelemetryInCompare, TimeWaitingForACpuIsNotTheOps) {
  Context context;
  context.cpu_model = "test CPU";
  std::mt19937_64 random(20261127);
  std::uniform_real_distribution<double> share(0, 1);
  CompareOptions options;
  options.alpha = 0.01;
  for (int draw = 0; draw < 50; ++draw) {
    const double base_share = share(random), cur_share = share(random);
    const ResultRecord base = interrupted_record(3.9e-3, base_share, 4e-3, random);
    const LoadedReport baseline{context, {base}};
    const LoadedReport same{context, {interrupted_record(3.9e-3, cur_share, 4e-3, random)}};
    const CaseComparison unchanged = compare_reports(baseline, same, options).cases.at(0);
    EXPECT_EQ(unchanged.verdict, Verdict::same) << "shares " << base_share << ", " << cur_share << ": " << unchanged.note;
    ASSERT_TRUE(unchanged.current_wait_share.has_value());
    const LoadedReport slower{context, {interrupted_record(5 * 3.9e-3, cur_share, 4e-3, random)}};
    const CaseComparison caught = compare_reports(baseline, slower, options).cases.at(0);
    EXPECT_EQ(caught.verdict, Verdict::slower) << "shares " << base_share << ", " << cur_share << ": " << caught.note;
    EXPECT_GT(*caught.ratio, 4.5);
  }

  std::mt19937_64 fixed(7);
  const LoadedReport baseline{context, {interrupted_record(3.9e-3, 0.2, 4e-3, fixed)}};
  ResultRecord busier = interrupted_record(3.9e-3, 0.7, 4e-3, fixed);
  const CaseComparison c = compare_reports(baseline, {context, {busier}}, options).cases.at(0);
  EXPECT_EQ(c.verdict, Verdict::same) << c.note;
  EXPECT_NE(c.note.find("judged less the time waiting for a CPU (baseline "), std::string::npos) << c.note;
  EXPECT_NEAR(*c.ratio, 1.0, 0.05);
  // Without the waits on one side, both are judged as measured: the interrupted median.
  busier.sample_waits_s.clear();
  const CaseComparison as_measured = compare_reports(baseline, {context, {busier}}, options).cases.at(0);
  EXPECT_GT(*as_measured.ratio, 1.7);
  EXPECT_FALSE(as_measured.current_wait_share.has_value());
  EXPECT_EQ(as_measured.note.find("judged less"), std::string::npos) << as_measured.note;
  EXPECT_NE(as_measured.note.find("judged as measured, waits for a CPU included: the current report has no "
                                  "per-sample waits"),
            std::string::npos)
      << as_measured.note;
  // Neither side with waits (reports from before them): nothing to say.
  ResultRecord older = interrupted_record(3.9e-3, 0.2, 4e-3, fixed);
  older.sample_waits_s.clear();
  const CaseComparison both_older = compare_reports({context, {older}}, {context, {busier}}, options).cases.at(0);
  EXPECT_EQ(both_older.note.find("judged"), std::string::npos) << both_older.note;
}

}  // namespace
}  // namespace gpb
