// Histories from the store on both engines: the slower segment and its first run, --last,
// and compare against a baseline pooled from the history.
#include "analysis/compare.hpp"
#include "analysis/history.hpp"
#include "analysis/history_baseline.hpp"
#include "store_fixture.hpp"

namespace gpb::store::testing {
namespace {

using HistoryTest = StoreTest;

// Ten runs, commits run01..run10; sum 20 % slower from run06 on, sin flat.
void store_stepped_history(ResultStore& store) {
  for (int run = 1; run <= 10; ++run) {
    const double wobble = 1 + 0.004 * ((run * 7) % 5 - 2);
    const LoadedReport report = synthetic_run(run, 1e-3 * wobble * (run >= 6 ? 1.2 : 1.0));
    store.ingest(report.context, report.results, {{"commit", commit_label(run)}, {"branch", "main"}});
  }
}

TEST_P(HistoryTest, NewestSegmentSlowerNamesItsFirstRun) {
  const auto store = db().open();
  store_stepped_history(*store);
  const auto histories = history::load_histories(*store, {});
  ASSERT_EQ(histories.size(), 2u);
  const history::CaseHistory* sum = nullptr;
  for (const auto& h : histories) {
    EXPECT_EQ(h.machine, "AMD EPYC 9654 96-Core Processor + NVIDIA H100 80GB HBM3");
    EXPECT_EQ(h.points.size(), 10u);
    EXPECT_DOUBLE_EQ(h.threshold, 0.05);
    if (h.case_id == sum_case().id()) sum = &h;
    else EXPECT_FALSE(history::newest_regression(h)) << h.case_id;
  }
  ASSERT_NE(sum, nullptr);
  const auto regression = history::newest_regression(*sum);
  ASSERT_TRUE(regression);
  EXPECT_EQ(regression->first().run.label(), "run06");
  EXPECT_EQ(regression->change.index, 5u);
  EXPECT_NEAR(regression->change.change, 0.2, 0.02);

  // The window of the five newest runs sees no change any more; a 25 % threshold hides it.
  history::HistoryQuery query;
  query.last = 5;
  for (const auto& h : history::load_histories(*store, query)) EXPECT_FALSE(history::newest_regression(h)) << h.case_id;
  query = {};
  query.threshold = 0.25;
  query.cases = {sum_case().id()};
  const auto relaxed = history::load_histories(*store, query);
  ASSERT_EQ(relaxed.size(), 1u);
  EXPECT_FALSE(history::newest_regression(relaxed[0]));
  query.cases = {"sum/cuda/f32/1"};
  EXPECT_THROW(history::load_histories(*store, query), UsageError);
}

TEST_P(HistoryTest, FailedRunsStayOutOfTheSeries) {
  const auto store = db().open();
  for (int run = 1; run <= 6; ++run) {
    LoadedReport report = synthetic_run(run, 1e-3);
    if (run == 3) report.results[0].verification.passed = false;
    store->ingest(report.context, report.results, {});
  }
  for (const auto& h : history::load_histories(*store, {}))
    EXPECT_EQ(h.points.size(), h.case_id == sum_case().id() ? 5u : 6u) << h.case_id;
}

// Baselines pooled from the history: each case's run medians, the newest `last` of them.
TEST_P(HistoryTest, PooledBaselineHoldsTheNewestRunMedians) {
  const auto store = db().open();
  std::vector<double> main_medians;
  for (int run = 1; run <= 12; ++run) {
    const double median = 1e-3 * (1 + 0.01 * run);
    const bool main = run <= 10;
    if (main) main_medians.push_back(median);
    const LoadedReport report = synthetic_run(run, median);
    store->ingest(report.context, report.results, {{"branch", main ? "main" : "dev"}, {"commit", commit_label(run)}});
  }
  const LoadedReport baseline = Baseline::open("db:" + db().url() + (db().url().find('?') == std::string::npos ? "?" : "&") +
                                               "branch=main&last=4")
                                     .report_for(machine_context(99), false);
  ASSERT_EQ(baseline.results.size(), 2u);
  const ResultRecord& sum = baseline.results[0];
  EXPECT_EQ(sum.spec.id(), sum_case().id());
  ASSERT_EQ(sum.samples_s.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(sum.samples_s[i], main_medians[6 + i]);
  EXPECT_DOUBLE_EQ(sum.stats.median, (main_medians[7] + main_medians[8]) / 2);
  EXPECT_NE(baseline.context.git_sha.find("run10"), std::string::npos) << baseline.context.git_sha;

  // No run of another machine: refused with the machine named.
  try {
    Baseline::open("db:" + db().url()).report_for(machine_context(99, "NVIDIA A100"), false);
    FAIL() << "pooled runs of another machine";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("NVIDIA A100"), std::string::npos) << error.what();
  }
}

// A stored run of an interrupted run holds only the cases it finished: the pooled baseline
// leaves it out, and says so, unless --allow-interrupted.
TEST_P(HistoryTest, PooledBaselineLeavesOutInterruptedRunsUnlessAllowed) {
  const auto store = db().open();
  for (int run = 1; run <= 7; ++run) {
    LoadedReport report = synthetic_run(run, 1e-3 * (run == 7 ? 2 : 1));
    report.context.interrupted = run == 7;
    store->ingest(report.context, report.results, {{"commit", commit_label(run)}});
  }
  const auto runs = store->runs({});
  ASSERT_EQ(runs.size(), 7u);
  EXPECT_TRUE(runs.back().interrupted);
  EXPECT_FALSE(runs.front().interrupted);
  EXPECT_TRUE(store->report(runs.back().id).context.interrupted);

  const LoadedReport without = Baseline::open("db:" + db().url()).report_for(machine_context(99), false);
  EXPECT_FALSE(without.context.interrupted);
  EXPECT_NE(without.context.git_sha.find("run06"), std::string::npos) << without.context.git_sha;
  ASSERT_EQ(without.results[0].samples_s.size(), 6u);
  for (double median : without.results[0].samples_s) EXPECT_DOUBLE_EQ(median, 1e-3);
  EXPECT_NE(without.context.git_sha.find("1 interrupted run left out"), std::string::npos) << without.context.git_sha;

  const LoadedReport with = Baseline::open("db:" + db().url()).report_for(machine_context(99), true);
  EXPECT_TRUE(with.context.interrupted);
  EXPECT_EQ(with.results[0].samples_s.size(), 7u);
}

// Why run medians, not pooled samples: a case where one process in five runs 8 % slow, each
// with tight samples (memory placement, a neighbour), judged against the history.
TEST_P(HistoryTest, DriftBetweenRunsIsBaselineSpreadNotARegression) {
  const auto store = db().open();
  for (int run = 1; run <= 10; ++run) {
    const double level = 1e-3 * (run % 5 == 3 ? 1.08 : 1 + 0.002 * (run % 3));
    const LoadedReport report = synthetic_run(run, level);
    store->ingest(report.context, report.results, {});
  }
  const std::string baseline_spec = "db:" + db().url();
  const auto sum_verdict = [](const Comparison& comparison) {
    for (const auto& c : comparison.cases)
      if (c.id == sum_case().id()) return c;
    throw std::runtime_error("no sum case in the comparison");
  };
  const auto judge = [&](double level) {
    const LoadedReport current = synthetic_run(50, level);
    return sum_verdict(compare_reports(Baseline::open(baseline_spec).report_for(current.context, false), current, {}));
  };
  // Another slow process, as two of the last ten were: its median moved beyond the threshold,
  // but the history's spread does not settle it (inconclusive, never slower). Beyond every
  // recent run: slower.
  const CaseComparison slow_process = judge(1.07e-3);
  EXPECT_EQ(slow_process.verdict, Verdict::inconclusive) << slow_process.note;
  const CaseComparison beyond = judge(1.25e-3);
  EXPECT_EQ(beyond.verdict, Verdict::slower) << beyond.note;

  // The same history as one pool of samples: thousands of tight samples around the usual
  // level make a narrow baseline, and the slow process reads as a regression.
  ResultRecord pooled = measured(sum_case(), 1e-3);
  pooled.samples_s.clear();
  for (const auto& result : store->results(store->runs({}), sum_case().id())) {
    const ResultRecord record = store->record(result.run_id, result.result_index);
    pooled.samples_s.insert(pooled.samples_s.end(), record.samples_s.begin(), record.samples_s.end());
  }
  pooled.stats = compute_statistics(pooled.samples_s);
  const LoadedReport concatenated{machine_context(49), {pooled}};
  EXPECT_EQ(sum_verdict(compare_reports(concatenated, synthetic_run(50, 1.07e-3), {})).verdict, Verdict::slower);
}

INSTANTIATE_TEST_SUITE_P(Engines, HistoryTest, ::testing::Values(Engine::sqlite, Engine::postgresql), engine_name);

}  // namespace
}  // namespace gpb::store::testing
