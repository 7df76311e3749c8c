// What an op costs beyond its steady state, and the input distribution setting: the first
// call and the host cost per call against a backend whose first run is scripted to be slow;
// the one-time costs of the context; where each reaches the JSON, CSV and console reports and
// the CPU-versus-GPU summary; --data from the flag to the inputs, the case ids and a passing
// verification on the CPU backends for every op, dtype and distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/summary.hpp"
#include "base/random.hpp"
#include "measure/one_time_costs.hpp"
#include "measure/runner.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"
#include "model/record_format.hpp"
#include "model/verify.hpp"
#include "report/report.hpp"
#include "scripted_backend.hpp"
#include "usage_error_of.hpp"

namespace gpb {
namespace {

// The first run of the process takes first_run_s on the timer and sleeps first_sleep on the
// host; every other run takes run_s on the timer and no host time to speak of.
struct Script : testing::BackendScript {
  Script() {
    backend_name = "scripted-costs";
    description = "test double with a slow first call";
  }
  double first_run_s = 0.05;
  double run_s = 1e-3;
  std::chrono::milliseconds first_sleep{20};
  std::chrono::microseconds run_sleep{0};  // every later run's host time: the cost of issuing it
  bool on_host_threads = false;  // false: a GPU-like case, whose host cost is measured
  int runs = 0;
  int synchronizes = 0;

  DeviceKind backend_kind() const { return on_host_threads ? DeviceKind::cpu : DeviceKind::gpu; }
  // The timer's clock: the runs so far, each first_run_s (the first) or run_s on the timer.
  int timer_mark() const { return runs; }
  double seconds_between(int start, int stop) const {
    double total = 0;
    for (int run = start + 1; run <= stop; ++run) total += run == 1 ? first_run_s : run_s;
    return total;
  }
};

class ScriptedPrepared final : public Prepared {
 public:
  ScriptedPrepared(Script& script, const Problem& problem) : script_(script), problem_(problem) {}
  void run() override {
    if (++script_.runs == 1)
      std::this_thread::sleep_for(script_.first_sleep);
    else if (script_.run_sleep.count() > 0)
      std::this_thread::sleep_for(script_.run_sleep);
  }
  void synchronize() override { ++script_.synchronizes; }
  bool runs_on_host_threads() const override { return script_.on_host_threads; }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<testing::ScriptedTimer<Script>>(script_); }
  HostArray result() override {
    std::vector<float> out(problem_.x.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(std::sqrt(problem_.x.at(i)));
    return HostArray(std::move(out));
  }

 private:
  Script& script_;
  const Problem& problem_;
};

struct CostsTest : testing::ScriptedCaseTest<Script, ScriptedPrepared, 7> {
  void SetUp() override {
    ScriptedCaseTest::SetUp();
    spec.l2 = L2Mode::warm;
    options.min_sample_s = 0;  // no batching: every sample is one scripted run
  }
};

TEST_F(CostsTest, TheFirstCallIsTheScriptedSlowRunBeforeAnyWarmUp) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.first_call);
  EXPECT_DOUBLE_EQ(record.first_call->timer_s, script.first_run_s);  // the process's first run, on the case's timer
  EXPECT_GE(record.first_call->host_s, 0.02);                          // with its sleep, on the steady clock
  EXPECT_DOUBLE_EQ(record.stats.median, script.run_s);                 // the warm-ups came after it
  EXPECT_GT(record.first_call->timer_s, record.stats.median);
  EXPECT_GT(record.first_call->host_s, record.stats.median);
  EXPECT_GE(record.warmup, 2);
}

TEST_F(CostsTest, OnlyTheFirstCaseOfABackendIsMarkedAsItsFirst) {
  // A backend name no other test uses: the process has not run it yet.
  script.backend_name = "scripted-costs-first-of-backend";
  spec.backend = backend.name();
  const ResultRecord first = run_case(spec, problem, backend, options);
  const ResultRecord second = run_case(spec, problem, backend, options);
  ASSERT_TRUE(first.first_call && second.first_call);
  EXPECT_TRUE(first.first_call->first_of_backend);
  EXPECT_FALSE(second.first_call->first_of_backend);
}

TEST_F(CostsTest, HostCostIsMeasuredPerCallForWorkOffTheHostThreads) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.host_cost);
  const HostCost& cost = *record.host_cost;
  // 1 ms ops in a 0.1 s budget: 100 calls (99 where the quotient rounds down), each on an
  // idle stream (waited for before it).
  EXPECT_GE(cost.samples_s.size(), 99u);
  EXPECT_LE(cost.samples_s.size(), 100u);
  EXPECT_EQ(cost.stats.count, cost.samples_s.size());
  EXPECT_TRUE(std::all_of(cost.samples_s.begin(), cost.samples_s.end(), [](double s) { return s >= 0 && std::isfinite(s); }));
  EXPECT_GE(cost.stats.median, 0);
  EXPECT_LE(cost.stats.min, cost.stats.median);
  EXPECT_LE(cost.stats.median, cost.stats.max);
  EXPECT_GE(script.synchronizes, static_cast<int>(cost.samples_s.size()));
}

TEST_F(CostsTest, HostCostIsLeftOutWhereTheWorkRunsOnTheHostThreads) {
  script.on_host_threads = true;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  EXPECT_FALSE(record.host_cost);
  EXPECT_TRUE(record.first_call);
}

TEST_F(CostsTest, SlowOpsGetTheFewestHostCostCalls) {
  script.run_s = 0.5;  // 0.1 s holds none: the minimum of 5
  options.stopping.min_samples = 3;
  options.stopping.max_samples = 3;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_TRUE(record.host_cost);
  EXPECT_EQ(record.host_cost->samples_s.size(), 5u);
}

// Launches whose every call costs the host more than the op takes (Python issuing CuPy calls,
// say) time the host's issue rate: the note says so, for batches and single launches alike;
// a batch the host outruns has no such note.
TEST_F(CostsTest, LaunchesTheHostCannotKeepUpWithAreNamedHostBound) {
  // A case of ops of run_s on the timer, each costing the host `sleep` to issue, batched to
  // min_sample_s.
  const auto run_with = [&](double run_s, std::chrono::microseconds sleep, double min_sample_s) {
    script.run_s = run_s;
    script.run_sleep = sleep;
    options.min_sample_s = min_sample_s;
    const ResultRecord record = run_case(spec, problem, backend, options);
    EXPECT_EQ(record.status, Status::ok) << record.reason;
    return record;
  };
  const ResultRecord slow_host = run_with(1e-6, std::chrono::microseconds(200), 1e-4);  // batches of 100 launches
  ASSERT_GT(slow_host.batch, 1);
  ASSERT_TRUE(slow_host.host_cost);
  EXPECT_GE(slow_host.host_cost->stats.median, 200e-6);
  EXPECT_NE(slow_host.timing_note.find("host-bound: issuing one call takes"), std::string::npos) << slow_host.timing_note;
  EXPECT_NE(slow_host.timing_note.find("graph timing"), std::string::npos) << slow_host.timing_note;

  // A batch of one (an op longer than the batching target) waits for its call's issue too.
  const ResultRecord single = run_with(1e-4, std::chrono::microseconds(2000), 1e-5);
  EXPECT_EQ(single.batch, 1);
  EXPECT_NE(single.timing_note.find("host-bound"), std::string::npos) << single.timing_note;

  // A millisecond op, issued in no time.
  const ResultRecord fast_host = run_with(1e-3, std::chrono::microseconds(0), 1e-2);
  ASSERT_GT(fast_host.batch, 1);
  EXPECT_EQ(fast_host.timing_note.find("host-bound"), std::string::npos) << fast_host.timing_note;
}

TEST_F(CostsTest, PassesKeepTheFirstPasssFirstCallAndPoolTheHostCost) {
  ResultRecord a = run_case(spec, problem, backend, options);
  ResultRecord b = run_case(spec, problem, backend, options);
  const double first = a.first_call->host_s;
  const std::size_t calls = a.host_cost->samples_s.size() + b.host_cost->samples_s.size();
  const ResultRecord merged = merge_passes({a, b});
  EXPECT_DOUBLE_EQ(merged.first_call->host_s, first);
  EXPECT_EQ(merged.host_cost->samples_s.size(), calls);
  EXPECT_EQ(merged.host_cost->stats.count, calls);
}

TEST_F(CostsTest, TheFiguresReachTheJsonAndCsvReports) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  Context context;
  context.one_time_costs = OneTimeCosts{};
  context.one_time_costs->context_creation_s = 0.25;
  context.one_time_costs->context_note = "timed";
  context.one_time_costs->module_loading = "lazy";
  context.one_time_costs->first_uses = {{"cublas", "handle creation (cublasCreate)", 0.04}};

  const auto json = nlohmann::json::parse(render_records_json(context, {record}));
  const auto& written = json["results"][0];
  EXPECT_DOUBLE_EQ(written["first_call"]["host_s"].get<double>(), record.first_call->host_s);
  EXPECT_DOUBLE_EQ(written["first_call"]["timer_s"].get<double>(), script.first_run_s);
  EXPECT_EQ(written["host_cost"]["samples_s"].size(), record.host_cost->samples_s.size());
  EXPECT_DOUBLE_EQ(written["host_cost"]["statistics"]["median"].get<double>(), record.host_cost->stats.median);
  EXPECT_DOUBLE_EQ(json["context"]["one_time_costs"]["context_creation_s"].get<double>(), 0.25);
  EXPECT_EQ(json["context"]["one_time_costs"]["first_uses"][0]["backend"], "cublas");

  const LoadedReport loaded = parse_json_report(render_records_json(context, {record}), "costs.json");
  ASSERT_EQ(loaded.results.size(), 1u);
  ASSERT_TRUE(loaded.results[0].first_call && loaded.results[0].host_cost);
  EXPECT_EQ(loaded.results[0].first_call->host_s, record.first_call->host_s);
  EXPECT_EQ(loaded.results[0].host_cost->samples_s, record.host_cost->samples_s);
  ASSERT_TRUE(loaded.context.one_time_costs && loaded.context.one_time_costs->context_creation_s);
  EXPECT_EQ(*loaded.context.one_time_costs->context_creation_s, 0.25);
  EXPECT_EQ(loaded.context.one_time_costs->first_uses.size(), 1u);

  const std::string csv = render_csv(context, {record});
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  const auto column = [&](const std::string& name) {
    std::vector<std::string> names, cells;
    std::istringstream h(header), r(row);
    for (std::string cell; std::getline(h, cell, ',');) names.push_back(cell);
    for (std::string cell; std::getline(r, cell, ',');) cells.push_back(cell);
    const auto at = std::find(names.begin(), names.end(), name);
    EXPECT_NE(at, names.end()) << name;
    if (at == names.end()) return std::string();
    return cells.at(static_cast<std::size_t>(at - names.begin()));
  };
  EXPECT_DOUBLE_EQ(std::stod(column("first_call_s")), record.first_call->host_s);
  EXPECT_DOUBLE_EQ(std::stod(column("first_call_timer_s")), script.first_run_s);
  EXPECT_DOUBLE_EQ(std::stod(column("host_cost_median_s")), record.host_cost->stats.median);
  EXPECT_GE(std::stod(column("host_cost_min_s")), 0);
  EXPECT_EQ(column("data"), "uniform");

  const std::string console = render_report(ReportFormat::console, context, {record});
  EXPECT_NE(console.find("One-time costs:"), std::string::npos) << console;
  EXPECT_NE(console.find("CUDA context creation on GPU 0: 250 ms"), std::string::npos) << console;
  EXPECT_NE(console.find("cublas first use: handle creation (cublasCreate) 40"), std::string::npos) << console;
  EXPECT_NE(console.find("First calls and host cost per call:"), std::string::npos) << console;
  const std::string html = render_html(context, {record});
  EXPECT_NE(html.find("id=\"costs\""), std::string::npos);
}

TEST(OneTimeCosts, ContextCreationThatWasNotMeasuredSaysWhy) {
  Context context;
  context.one_time_costs = OneTimeCosts{};
  context.one_time_costs->context_note = "not measured: no CUDA device";
  const std::string console = render_report(ReportFormat::console, context, {});
  EXPECT_NE(console.find("CUDA context creation on GPU 0: not measured: no CUDA device"), std::string::npos) << console;
  const auto json = nlohmann::json::parse(render_records_json(context, {}));
  EXPECT_TRUE(json["context"]["one_time_costs"]["context_creation_s"].is_null());
}

TEST(OneTimeCosts, OnlyTheFirstUseOfEachKindIsKept) {
  const std::string backend = "test-first-use";
  record_first_use(backend, "handle", 0.5);
  record_first_use(backend, "handle", 0.1);
  const int value = timed_first_use(backend, "workspace", [] { return 42; });
  EXPECT_EQ(value, 42);
  std::vector<FirstUse> mine;
  for (const FirstUse& use : recorded_first_uses())
    if (use.backend == backend) mine.push_back(use);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].what, "handle");
  EXPECT_EQ(mine[0].seconds, 0.5);
  EXPECT_EQ(mine[1].what, "workspace");
  EXPECT_GE(mine[1].seconds, 0);
}

// ---- the first-call view of the CPU-versus-GPU summary ----

ResultRecord summary_record(const std::string& backend, DeviceKind device, std::int64_t n, double median, double first) {
  ResultRecord record;
  record.spec.op = Op::sin;
  record.spec.backend = backend;
  record.spec.shape = elementwise_shape(n);
  record.device = device;
  record.samples_s = {median};
  record.stats.count = 1;
  record.stats.median = median;
  record.verification.checked = record.verification.passed = true;
  record.first_call = FirstCall{first, first, false};
  return record;
}

TEST(FirstCallSummary, TheGpuThatWinsTheSteadyStateCanLoseTheFirstCall) {
  // Steady state: the GPU wins from the smallest size. First call: its 50 ms of module
  // loading lose to the CPU until the CPU's own first call outgrows them.
  const std::vector<ResultRecord> records = {
      summary_record("eigen", DeviceKind::cpu, 1 << 10, 1e-5, 2e-5), summary_record("cuda", DeviceKind::gpu, 1 << 10, 5e-6, 0.05),
      summary_record("eigen", DeviceKind::cpu, 1 << 20, 1e-2, 1e-2), summary_record("cuda", DeviceKind::gpu, 1 << 20, 1e-4, 0.05),
      summary_record("eigen", DeviceKind::cpu, 1 << 24, 0.2, 0.2),   summary_record("cuda", DeviceKind::gpu, 1 << 24, 1e-3, 0.06)};
  const SpeedupSummary summary = summarize_speedups(records);
  ASSERT_EQ(summary.groups.size(), 1u);
  const SpeedupGroup& group = summary.groups[0];
  EXPECT_EQ(group.kernel_crossover.kind, CrossoverKind::always);
  ASSERT_EQ(group.rows.size(), 3u);
  ASSERT_TRUE(group.rows[0].first_call.speedup);
  EXPECT_DOUBLE_EQ(*group.rows[0].first_call.speedup, 2e-5 / 0.05);
  EXPECT_DOUBLE_EQ(*group.rows[2].first_call.speedup, 0.2 / 0.06);
  EXPECT_EQ(group.first_call_crossover.kind, CrossoverKind::at);
  EXPECT_EQ(group.first_call_crossover.last_losing_size, 1 << 20);
  EXPECT_EQ(group.first_call_crossover.first_winning_size, 1 << 24);
  EXPECT_TRUE(group.has_first_calls());
  const std::string markdown = render_report(ReportFormat::markdown, Context{}, records);
  EXPECT_NE(markdown.find("first call:"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("first-call speed-up"), std::string::npos) << markdown;
}

// ---- --data ----

TEST(InputData, ParsesItsNamesAndRefusesOthersNamingTheValidOnes) {
  for (InputData data : all_input_data()) EXPECT_EQ(parse_input_data(to_string(data)), data);
  EXPECT_EQ(all_input_data().size(), 4u);
  const std::string message = gpb::testing::usage_error_of([] { parse_input_data("gaussian"); });
  EXPECT_NE(message.find("'gaussian'"), std::string::npos) << message;
  EXPECT_NE(message.find("expected one of: uniform, normal, zeros, ones"), std::string::npos) << message;
}

TEST(InputData, TheCaseIdNamesItOnlyWhereItIsNotUniform) {
  CaseSpec spec;
  spec.op = Op::matmul;
  spec.backend = "cublas";
  spec.dtype = DType::bf16;
  spec.shape = matmul_shape(8192, 8192, 8192);
  spec.l2 = L2Mode::flush;
  EXPECT_EQ(spec.id(), "matmul/cublas/bf16/8192x8192x8192");
  spec.data = InputData::zeros;
  EXPECT_EQ(spec.id(), "matmul/cublas/bf16/8192x8192x8192/zeros");
  spec.l2 = L2Mode::warm;
  EXPECT_EQ(spec.variant_tags(), (std::vector<std::string>{"l2warm", "zeros"}));
  CaseSpec uniform = spec;
  uniform.data = InputData::uniform;
  EXPECT_FALSE(same_case_apart_from_backend(spec, uniform));  // compare never pairs them
}

TEST(InputData, TheRecordHoldsItAndReadsItBack) {
  ResultRecord record;
  record.spec.op = Op::sin;
  record.spec.backend = "eigen";
  record.spec.shape = elementwise_shape(10);
  record.spec.data = InputData::normal;
  const LoadedReport loaded = parse_json_report(render_records_json(Context{}, {record}), "data.json");
  ASSERT_EQ(loaded.results.size(), 1u);
  EXPECT_EQ(loaded.results[0].spec.data, InputData::normal);
  EXPECT_EQ(loaded.results[0].spec.id(), "sin/eigen/f32/10/normal");
  // A report written before the setting reads as uniform.
  auto json = nlohmann::json::parse(render_records_json(Context{}, {record}));
  json["results"][0]["settings"].erase("data");
  EXPECT_EQ(parse_json_report(json.dump(), "old.json").results[0].spec.data, InputData::uniform);
}

TEST(InputData, UniformDrawsAreTheOnesBeforeTheSetting) {
  const Problem problem = make_problem(Op::sin, DType::f64, elementwise_shape(257), 11);
  const HostArray same = input_array(DType::f64, 257, 99, InputData::uniform, -1, 1);
  const HostArray before = uniform_array(DType::f64, 257, 99, -1, 1);
  EXPECT_EQ(same.as<double>(), before.as<double>());
  EXPECT_EQ(problem.input_distribution, "uniform[-pi,pi)");
  EXPECT_EQ(make_problem(Op::matmul, DType::f32, matmul_shape(4, 4, 4), 1).input_distribution, "A, B uniform[-1,1)");
}

TEST(InputData, EachDistributionHasTheValuesItNames) {
  const std::int64_t n = 20000;
  const HostArray zeros = input_array(DType::f32, n, 5, InputData::zeros, -1, 1);
  const HostArray ones = input_array(DType::bf16, n, 5, InputData::ones, -1, 1);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(zeros.at(static_cast<std::size_t>(i)), 0.0);
    ASSERT_EQ(ones.at(static_cast<std::size_t>(i)), 1.0);
  }
  // normal over [0, 1000): mean 500, sd 1000 / sqrt(12); deterministic for the key.
  const HostArray normal = input_array(DType::f64, n, 5, InputData::normal, 0, 1000);
  double sum = 0, squares = 0;
  for (double value : normal.as<double>()) sum += value;
  const double mean = sum / n;
  for (double value : normal.as<double>()) squares += (value - mean) * (value - mean);
  const double sd = std::sqrt(squares / (n - 1));
  EXPECT_NEAR(mean, 500, 5 * 288.7 / std::sqrt(n));
  EXPECT_NEAR(sd, 1000 / std::sqrt(12.0), 0.05 * 288.7);
  EXPECT_EQ(normal.as<double>(), input_array(DType::f64, n, 5, InputData::normal, 0, 1000).as<double>());
  // sqrt folds: every input non-negative.
  const Problem sqrt_problem = make_problem(Op::sqrt, DType::f32, elementwise_shape(n), 3, InputData::normal);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_GE(sqrt_problem.x.at(static_cast<std::size_t>(i)), 0.0);
  EXPECT_EQ(sqrt_problem.input_distribution, "|normal(mean 500, sd 289)|");
  EXPECT_EQ(make_problem(Op::sum, DType::f32, elementwise_shape(8), 3, InputData::zeros).input_distribution, "zeros");
}

TEST(InputData, SpmvKeepsItsStructureAndTakesTheValuesAndX) {
  Shape shape;
  shape.rows = 300;
  shape.nnz_per_row = 8;
  shape.pattern = SpmvPattern::random;
  const Problem uniform = make_problem(Op::spmv, DType::f32, shape, 4);
  const Problem ones = make_problem(Op::spmv, DType::f32, shape, 4, InputData::ones);
  EXPECT_EQ(uniform.csr->col_idx, ones.csr->col_idx);
  EXPECT_EQ(uniform.csr->row_ptr, ones.csr->row_ptr);
  for (std::size_t i = 0; i < ones.csr_values.size(); ++i) ASSERT_EQ(ones.csr_values.at(i), 1.0);
  for (std::size_t i = 0; i < ones.x.size(); ++i) ASSERT_EQ(ones.x.at(i), 1.0);
  EXPECT_EQ(ones.input_distribution, "values and x ones");
}

// Verification holds for every distribution on the CPU backends, for every op and dtype they
// run, at seeded random sizes (the same every run) -- exact and trivially checkable results
// (zeros, ones, sqrt(0)) included, whose error scale can be 0.
TEST(InputData, CpuBackendsVerifyForEveryOpDtypeAndDistribution) {
  auto backends = make_all_backends();
  SplitMix64 rng(20251127);
  const auto draw = [&rng](std::int64_t low, std::int64_t high) {
    return low + static_cast<std::int64_t>(uniform_index(rng.next(), static_cast<std::uint64_t>(high - low + 1)));
  };
  int verified = 0;
  for (InputData data : all_input_data())
    for (Op op : {Op::sin, Op::sqrt, Op::sum, Op::matmul, Op::spmv})
      for (DType dtype : all_dtypes())
        for (int round = 0; round < 2; ++round) {
          Shape shape;
          switch (shape_kind(op)) {
            case ShapeKind::elements:
              shape = elementwise_shape(draw(1, 5000));
              break;
            case ShapeKind::dense_matrix:
              shape = matmul_shape(draw(1, 48), draw(1, 48), draw(1, 96));
              break;
            case ShapeKind::sparse_matrix:
              shape.rows = draw(16, 400);
              shape.nnz_per_row = draw(1, 12);
              shape.pattern = generated_patterns()[static_cast<std::size_t>(draw(0, 2))];
              break;
          }
          const Problem problem = make_problem(op, dtype, shape, rng.next(), data);
          for (const auto& backend : backends) {
            if (backend->kind() != DeviceKind::cpu || !backend->availability().available ||
                !backend->supports(op, dtype).supported)
              continue;
            BackendSettings settings;
            settings.threads = 2;
            auto prepared = backend->prepare(problem, settings);
            prepared->run();
            prepared->synchronize();
            const Verification verification = verify(problem, prepared->result(), prepared->unit_roundoff_override());
            EXPECT_TRUE(verification.passed) << to_string(op) << " " << to_string(dtype) << " " << to_string(data) << " "
                                             << shape.label(op) << " on " << backend->name() << ": max error "
                                             << verification.max_error << " > " << verification.tolerance;
            ++verified;
          }
        }
  EXPECT_GT(verified, 4 * 5 * 2);  // every distribution and op ran on some CPU backend
}

TEST(InputData, AZeroScaleAdmitsOnlyAnExactResult) {
  const Problem problem = make_problem(Op::sqrt, DType::f32, elementwise_shape(4), 1, InputData::zeros);
  EXPECT_TRUE(verify(problem, HostArray(std::vector<float>(4, 0.0f))).passed);
  std::vector<float> off(4, 0.0f);
  off[2] = 1e-30f;
  const Verification failed = verify(problem, HostArray(off));
  EXPECT_FALSE(failed.passed);
  EXPECT_TRUE(std::isinf(failed.max_error));
}

}  // namespace
}  // namespace gpb
