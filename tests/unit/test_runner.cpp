// The runner against a scripted backend: batching, stopping, skipped and failed cases.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "problem.hpp"
#include "runner.hpp"

namespace gpb {
namespace {

// A timer that reports a scripted duration per run() between start and stop.
struct Script {
  double seconds_per_run = 1e-3;
  int runs = 0;
  int flushes = 0;
  bool corrupt_output = false;
  bool throw_in_prepare = false;
  bool supported = true;
};

class ScriptedTimer final : public SampleTimer {
 public:
  explicit ScriptedTimer(Script& script) : script_(script) {}
  void start() override { runs_at_start_ = script_.runs; }
  void stop() override { runs_at_stop_ = script_.runs; }
  double elapsed_seconds() override { return (runs_at_stop_ - runs_at_start_) * script_.seconds_per_run; }
  std::string name() const override { return "scripted"; }

 private:
  Script& script_;
  int runs_at_start_ = 0;
  int runs_at_stop_ = 0;
};

class ScriptedPrepared final : public Prepared {
 public:
  ScriptedPrepared(Script& script, const Problem& problem) : script_(script), problem_(problem) {}
  void run() override { ++script_.runs; }
  void flush_cache() override { ++script_.flushes; }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<ScriptedTimer>(script_); }
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

class ScriptedBackend final : public Backend {
 public:
  explicit ScriptedBackend(Script& script) : script_(script) {}
  std::string name() const override { return "scripted"; }
  std::string description() const override { return "test double"; }
  DeviceKind kind() const override { return DeviceKind::cpu; }
  Availability availability() const override { return {}; }
  Support supports(Op, DType) const override { return {script_.supported, "scripted backend has no such op"}; }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings&) override {
    if (script_.throw_in_prepare) throw std::runtime_error("out of device memory: test needs 1 TiB");
    return std::make_unique<ScriptedPrepared>(script_, problem);
  }

 private:
  Script& script_;
};

struct RunnerTest : ::testing::Test {
  Script script;
  ScriptedBackend backend{script};
  Problem problem = make_problem(Op::sqrt, DType::f32, elementwise_shape(1000), 1);
  CaseSpec spec;
  RunnerOptions options;

  void SetUp() override {
    spec.op = Op::sqrt;
    spec.backend = "scripted";
    spec.shape = problem.shape;
    options.warmup = 2;
    options.stopping.min_samples = 10;
    options.stopping.min_time_s = 0;
    options.stopping.max_time_s = 5;
  }
};

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
  EXPECT_EQ(script.flushes, 11);  // L2 flushed before every sample by default, and once in warm-up
}

TEST_F(RunnerTest, ShortOpsAreBatchedAndReportedPerLaunch) {
  script.seconds_per_run = 1e-6;
  options.min_sample_s = 20e-6;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.batch, 20);
  EXPECT_DOUBLE_EQ(record.stats.median, 1e-6);
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
  EXPECT_EQ(script.runs, 0);
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

TEST_F(RunnerTest, RunPlanBuildsEachProblemOnceAndKeepsOrder) {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(std::make_unique<ScriptedBackend>(script));
  Plan plan;
  spec.shape = elementwise_shape(100);
  plan.cases = {spec, spec};
  plan.cases[1].shape = elementwise_shape(200);
  const auto results = run_plan(plan, backends, options);
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
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(std::make_unique<ScriptedBackend>(script));
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
