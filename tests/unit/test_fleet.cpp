// The fleet: the outlier rule, the fleet view of a report over several GPUs and ranks,
// merging the reports of ranks (and refusing mixed ones), and compare's device matching.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/compare.hpp"
#include "analysis/device_match.hpp"
#include "analysis/fleet.hpp"
#include "measure/device_runner.hpp"
#include "model/record_format.hpp"
#include "model/statistics.hpp"
#include "report/compare_render.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"

namespace gpb {
namespace {

// ---- The outlier rule ---------------------------------------------------------------------

UnitMeasurement measured(std::size_t unit, double median, double spread) {
  return {unit, median, median - spread, median + spread};
}

const FleetMember& member_of(const FleetCase& fleet_case, std::size_t unit) {
  for (const auto& member : fleet_case.members)
    if (member.unit == unit) return member;
  throw std::logic_error("no such member");
}

TEST(OutlierRule, FlagsAGpuWellAboveTheFleetWithATightSpread) {
  // Eight GPUs within 0.4 % of each other and one 14 % slower.
  std::vector<UnitMeasurement> measurements;
  for (std::size_t i = 0; i < 7; ++i) measurements.push_back(measured(i, 1.000e-3 + static_cast<double>(i) * 0.5e-6, 2e-6));
  measurements.push_back(measured(7, 1.14e-3, 2e-6));
  const FleetCase fleet_case = judge_fleet_case("sum/cuda/f32/67108864", measurements, 0.05);
  EXPECT_NEAR(fleet_case.fleet_median_s, 1.0017e-3, 1e-6);
  const FleetMember& slow = member_of(fleet_case, 7);
  EXPECT_TRUE(slow.outlier);
  EXPECT_NEAR(slow.deviation, 1.14e-3 / fleet_case.fleet_median_s - 1, 1e-12);
  EXPECT_GT(slow.score, 3.5);  // far beyond the fleet's own spread
  for (std::size_t i = 0; i < 7; ++i) EXPECT_FALSE(member_of(fleet_case, i).outlier) << i;
}

TEST(OutlierRule, ANoisyGpuWhoseSpreadCoversTheFleetMedianIsNotFlagged) {
  // GPU 3's median is 12 % above the fleet, beyond the threshold, but its samples are so
  // spread that its median's CI reaches below the fleet median: no evidence it is slower.
  std::vector<UnitMeasurement> measurements = {measured(0, 1.000e-3, 3e-6), measured(1, 1.001e-3, 3e-6),
                                               measured(2, 0.999e-3, 3e-6), {3, 1.12e-3, 0.95e-3, 1.40e-3}};
  const FleetCase fleet_case = judge_fleet_case("sin/cuda/f32/16777216", measurements, 0.05);
  const FleetMember& noisy = member_of(fleet_case, 3);
  EXPECT_GT(noisy.deviation, 0.05);
  EXPECT_LT(noisy.ci_low_s, fleet_case.fleet_median_s);
  EXPECT_FALSE(noisy.outlier);
}

TEST(OutlierRule, ThresholdDecides) {
  // 3 % slower with a tight spread: an outlier at 2 %, not at 5 %.
  const std::vector<UnitMeasurement> measurements = {measured(0, 1.00e-3, 1e-6), measured(1, 1.00e-3, 1e-6),
                                                     measured(2, 1.03e-3, 1e-6)};
  EXPECT_FALSE(member_of(judge_fleet_case("c", measurements, 0.05), 2).outlier);
  EXPECT_TRUE(member_of(judge_fleet_case("c", measurements, 0.02), 2).outlier);
}

TEST(OutlierRule, FasterIsNeverAnOutlier) {
  const std::vector<UnitMeasurement> measurements = {measured(0, 1.00e-3, 1e-6), measured(1, 1.00e-3, 1e-6),
                                                     measured(2, 0.70e-3, 1e-6)};
  const FleetCase fleet_case = judge_fleet_case("c", measurements, 0.05);
  EXPECT_LT(member_of(fleet_case, 2).deviation, -0.25);
  for (const auto& member : fleet_case.members) EXPECT_FALSE(member.outlier);
}

TEST(OutlierRule, TwoGpusOneLoaded) {
  // With two GPUs the fleet median is their midpoint: a GPU 30 % slower than its sibling is
  // 13 % above it, and flagged; the score cannot tell (+-0.67 whatever the difference).
  const std::vector<UnitMeasurement> loaded = {measured(0, 1.0e-3, 5e-6), measured(1, 1.3e-3, 20e-6)};
  const FleetCase fleet_case = judge_fleet_case("c", loaded, 0.05);
  EXPECT_TRUE(member_of(fleet_case, 1).outlier);
  EXPECT_FALSE(member_of(fleet_case, 0).outlier);
  EXPECT_NEAR(member_of(fleet_case, 1).score, 1 / 1.4826, 1e-9);
  const std::vector<UnitMeasurement> idle = {measured(0, 1.000e-3, 5e-6), measured(1, 1.004e-3, 5e-6)};
  for (const auto& member : judge_fleet_case("c", idle, 0.05).members) EXPECT_FALSE(member.outlier);
}

TEST(OutlierRule, ScoreIsInfiniteWhenTheFleetAgreesExactly) {
  const std::vector<UnitMeasurement> measurements = {measured(0, 1e-3, 1e-6), measured(1, 1e-3, 1e-6), measured(2, 1e-3, 1e-6),
                                                     measured(3, 2e-3, 1e-6)};
  const FleetCase fleet_case = judge_fleet_case("c", measurements, 0.05);
  EXPECT_EQ(fleet_case.mad_s, 0);
  EXPECT_EQ(member_of(fleet_case, 0).score, 0);
  EXPECT_TRUE(std::isinf(member_of(fleet_case, 3).score));
  EXPECT_TRUE(member_of(fleet_case, 3).outlier);
}

// ---- Records and reports ------------------------------------------------------------------

std::vector<double> samples_around(double median, double spread, int count = 40) {
  std::vector<double> samples;
  for (int i = 0; i < count; ++i) samples.push_back(median + spread * (static_cast<double>(i % 9) - 4) / 4);
  return samples;
}

ResultRecord gpu_record(const std::string& backend, int ordinal, const std::string& uuid, double median, double spread = 1e-6) {
  ResultRecord record;
  record.spec.op = Op::sum;
  record.spec.backend = backend;
  record.spec.shape = elementwise_shape(1 << 26);
  record.device = DeviceKind::gpu;
  record.samples_s = samples_around(median, spread);
  record.stats = compute_statistics(record.samples_s);
  record.verification.checked = true;
  record.verification.passed = true;
  record.gpu.ordinal = ordinal;
  record.gpu.name = "NVIDIA H100";
  record.gpu.uuid = uuid;
  record.gpu.pci_bus_id = "0000:1" + std::to_string(ordinal) + ":00.0";
  return record;
}

Context rank_context(int rank, const std::string& host, std::vector<int> devices) {
  Context context;
  context.tool_version = "0.1.0";
  context.git_sha = "abc123";
  context.hostname = host;
  context.settings = {{"seed", std::int64_t{42}}, {"max_time_s", 2.0}};
  RankInfo info;
  info.rank = rank;
  info.world_size = 2;
  info.launcher = "slurm";
  info.host = host;
  info.devices = std::move(devices);
  context.ranks = {info};
  for (int ordinal : info.devices) {
    GpuInfo gpu;
    gpu.ordinal = ordinal;
    gpu.name = "NVIDIA H100";
    gpu.uuid = host + "-uuid-" + std::to_string(ordinal);
    context.gpus.push_back(gpu);
  }
  return context;
}

NamedReport rank_report(int rank, const std::string& host, double slow_factor_of_gpu1 = 1.0) {
  NamedReport named{"fleet-" + host + "-" + std::to_string(rank) + ".json", {rank_context(rank, host, {0, 1}), {}}};
  named.report.results = {gpu_record("cuda", 0, host + "-uuid-0", 1.0e-3),
                          gpu_record("cuda", 1, host + "-uuid-1", 1.0e-3 * slow_factor_of_gpu1)};
  return named;
}

TEST(FleetView, NamesTheSlowGpuOfAMergedReport) {
  const LoadedReport merged = merge_reports({rank_report(1, "node-b", 1.14), rank_report(0, "node-a")});
  const FleetView view = analyze_fleet(merged.context, merged.results, 0.05);
  ASSERT_TRUE(view.applies());
  ASSERT_EQ(view.units.size(), 4u);
  EXPECT_EQ(view.units[0].label, "node-a GPU 0");
  EXPECT_EQ(view.units[3].label, "node-b GPU 1");
  ASSERT_EQ(view.cases.size(), 1u);
  EXPECT_EQ(view.outlier_count(), 1u);
  const FleetCase& fleet_case = view.cases.front();
  const FleetMember& slow = fleet_case.members.back();
  EXPECT_TRUE(slow.outlier);
  const std::string text = describe_outlier(view, fleet_case, slow);
  EXPECT_EQ(text.rfind("node-b GPU 1: sum/cuda/f32/67108864 14 % slower than the fleet median (", 0), 0u) << text;

  const std::string console = render_fleet_console(view);
  EXPECT_NE(console.find("Fleet: 4 GPUs on 2 hosts, 2 ranks."), std::string::npos) << console;
  EXPECT_NE(console.find("OUTLIER"), std::string::npos) << console;
  EXPECT_NE(console.find("outlier: node-b GPU 1: sum/cuda/f32/67108864 14 % slower"), std::string::npos) << console;
  EXPECT_NE(render_fleet_markdown(view).find("| sum/cuda/f32/67108864 | fleet median |"), std::string::npos);
  const std::string json = render_fleet_json(view);
  EXPECT_NE(json.find("\"outlier\":true"), std::string::npos) << json;

  // The report renderers carry the section; a report of one GPU has none.
  EXPECT_NE(render_console(merged.context, merged.results).find("Fleet: 4 GPUs"), std::string::npos);
  EXPECT_NE(render_json(merged.context, merged.results).find("\"fleet\""), std::string::npos);
  EXPECT_NE(render_html(merged.context, merged.results).find("<section id=\"fleet\">"), std::string::npos);
  const std::vector<ResultRecord> one = {merged.results.front()};
  EXPECT_FALSE(analyze_fleet(merged.context, one, 0.05).applies());
  EXPECT_EQ(render_console(merged.context, one).find("Fleet:"), std::string::npos);
}

TEST(FleetView, AnEvenFleetHasNoOutliers) {
  const LoadedReport merged = merge_reports({rank_report(0, "node-a"), rank_report(1, "node-b", 1.004)});
  const FleetView view = analyze_fleet(merged.context, merged.results, 0.05);
  EXPECT_EQ(view.outlier_count(), 0u);
  EXPECT_EQ(fleet_findings(view), std::vector<std::string>{"no outliers"});
}

TEST(FleetView, RanksBoundToOneGpuEachAreToldApartByRank) {
  // srun --gpus-per-task=1: every rank's GPU is its ordinal 0.
  NamedReport a{"a.json", {rank_context(0, "node-a", {0}), {gpu_record("cuda", 0, "uuid-a", 1e-3)}}};
  NamedReport b{"b.json", {rank_context(1, "node-a", {0}), {gpu_record("cuda", 0, "uuid-b", 1e-3)}}};
  const LoadedReport merged = merge_reports({a, b});
  const FleetView view = analyze_fleet(merged.context, merged.results, 0.05);
  ASSERT_EQ(view.units.size(), 2u);
  EXPECT_EQ(view.units[0].label, "node-a rank 0 GPU 0");
  EXPECT_EQ(view.units[1].label, "node-a rank 1 GPU 0");
}

TEST(FleetView, AFailedGpuIsAFinding) {
  LoadedReport report{rank_context(0, "node-a", {0, 1, 2}), {}};
  report.results = {gpu_record("cuda", 0, "u0", 1e-3), gpu_record("cuda", 1, "u1", 1e-3), gpu_record("cuda", 2, "u2", 1e-3)};
  report.results[2].status = Status::failed;
  report.results[2].reason = "out of device memory";
  const FleetView view = analyze_fleet(report.context, report.results, 0.05);
  ASSERT_EQ(view.failures.size(), 1u);
  EXPECT_EQ(describe_failure(view, view.failures.front()), "node-a GPU 2: sum/cuda/f32/67108864 failed: out of device memory");
  EXPECT_EQ(view.cases.front().members.size(), 2u);
}

// ---- Merging ------------------------------------------------------------------------------

TEST(Merge, StampsRanksAndHostsAndListsEveryRank) {
  const LoadedReport merged = merge_reports({rank_report(1, "node-b"), rank_report(0, "node-a")});
  ASSERT_EQ(merged.context.ranks.size(), 2u);
  EXPECT_EQ(merged.context.ranks[0].host, "node-a");
  EXPECT_EQ(merged.context.ranks[1].host, "node-b");
  EXPECT_EQ(merged.context.hostname, "node-a");
  EXPECT_EQ(merged.context.gpus.size(), 4u);
  ASSERT_EQ(merged.results.size(), 4u);
  EXPECT_EQ(merged.results[0].rank, 0);
  EXPECT_EQ(merged.results[0].host, "node-a");
  EXPECT_EQ(merged.results[3].rank, 1);
  EXPECT_EQ(merged.results[3].host, "node-b");
  // Read back from JSON, the merged report keeps all of it.
  const LoadedReport read = parse_json_report(render_json(merged.context, merged.results), "merged");
  ASSERT_EQ(read.context.ranks.size(), 2u);
  EXPECT_EQ(read.context.ranks[1].devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(read.context.ranks[1].launcher, "slurm");
  EXPECT_EQ(read.results[3].rank, 1);
  EXPECT_EQ(read.results[3].host, "node-b");
  EXPECT_EQ(read.results[3].gpu.uuid, "node-b-uuid-1");
  EXPECT_EQ(read.results[3].gpu.pci_bus_id, "0000:11:00.0");
}

// A merged report of an interrupted rank is an interrupted run, whichever rank it was: its
// missing cases must not read as regressions in compare.
TEST(Merge, KeepsTheInterruptedFlagOfAnyInput) {
  for (int interrupted_rank : {0, 1}) {
    std::vector<NamedReport> reports = {rank_report(0, "node-a"), rank_report(1, "node-b")};
    reports[static_cast<std::size_t>(interrupted_rank)].report.context.interrupted = true;
    const LoadedReport merged = merge_reports(std::move(reports));
    EXPECT_TRUE(merged.context.interrupted) << "rank " << interrupted_rank;
    EXPECT_TRUE(parse_json_report(render_json(merged.context, merged.results), "merged").context.interrupted);
  }
  EXPECT_FALSE(merge_reports({rank_report(0, "node-a"), rank_report(1, "node-b")}).context.interrupted);
}

void expect_refusal(std::vector<NamedReport> reports, const std::string& fragment) {
  try {
    merge_reports(std::move(reports));
    FAIL() << "expected a refusal naming: " << fragment;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(Merge, RefusesMixedBuildsSuitesAndRepeatedRanks) {
  NamedReport other_version = rank_report(1, "node-b");
  other_version.report.context.tool_version = "0.2.0";
  expect_refusal({rank_report(0, "node-a"), other_version}, "different gpubench builds");

  NamedReport other_sha = rank_report(1, "node-b");
  other_sha.report.context.git_sha = "def456";
  expect_refusal({rank_report(0, "node-a"), other_sha}, "different gpubench builds");

  NamedReport other_setting = rank_report(1, "node-b");
  other_setting.report.context.settings["max_time_s"] = 0.5;
  expect_refusal({rank_report(0, "node-a"), other_setting}, "setting max_time_s is '0.5' in fleet-node-b-1.json");

  NamedReport other_cases = rank_report(1, "node-b");
  other_cases.report.results.push_back(gpu_record("cub", 0, "node-b-uuid-0", 1e-3));
  expect_refusal({rank_report(0, "node-a"), other_cases}, "case sum/cub/f32/67108864 is only in fleet-node-b-1.json");

  NamedReport twice = rank_report(0, "node-a");
  twice.origin = "copy.json";
  expect_refusal({rank_report(0, "node-a"), twice}, "both hold rank 0 on node-a");
}

// The ranks of one run: none at or past its world size, one world size for all, and the
// ranks no report holds named.
TEST(Merge, RefusesRanksOfDifferentRunsAndNamesTheMissingOnes) {
  NamedReport past_the_end = rank_report(2, "node-c");  // world size 2: ranks 0 and 1
  expect_refusal({rank_report(0, "node-a"), past_the_end}, "cannot merge fleet-node-c-2.json: it holds rank 2 of a run of 2 ranks");
  NamedReport other_run = rank_report(1, "node-b");
  other_run.report.context.ranks.front().world_size = 3;
  expect_refusal({rank_report(0, "node-a"), other_run}, "they come from a run of 3 and one of 2 ranks");
  // A world size the launcher did not say (0) is no conflict.
  NamedReport unsaid = rank_report(1, "node-b");
  unsaid.report.context.ranks.front().world_size = 0;
  EXPECT_EQ(merge_reports({rank_report(0, "node-a"), unsaid}).context.ranks.size(), 2u);

  const LoadedReport whole = merge_reports({rank_report(1, "node-b"), rank_report(0, "node-a")});
  EXPECT_TRUE(missing_ranks(whole.context).empty());
  const auto four = [](int rank) {
    NamedReport named = rank_report(rank, "node-" + std::to_string(rank));
    named.report.context.ranks.front().world_size = 4;
    return named;
  };
  const LoadedReport partial = merge_reports({four(3), four(0)});
  EXPECT_EQ(missing_ranks(partial.context), (std::vector<int>{1, 2}));
  EXPECT_NE(std::find(partial.context.notes.begin(), partial.context.notes.end(),
                      "ranks 1 and 2 of the run's 4 are missing from this merge"),
            partial.context.notes.end());
  EXPECT_EQ(missing_ranks(merge_reports({four(0), four(1), four(3)}).context), (std::vector<int>{2}));
}

// ---- Compare, GPU by GPU ------------------------------------------------------------------

TEST(DeviceMatching, PairsRecordsByUuidOrOrdinal) {
  const LoadedReport baseline = merge_reports({rank_report(0, "node-a"), rank_report(1, "node-b")});
  LoadedReport current = baseline;
  // The current run enumerated node-a's GPUs the other way round.
  std::swap(current.results[0].gpu.uuid, current.results[1].gpu.uuid);
  current.results[1].samples_s = samples_around(1.3e-3, 1e-6);

  const auto by_uuid = match_records(baseline.results, current.results, DeviceMatch::uuid);
  ASSERT_EQ(by_uuid.size(), 4u);
  for (const auto& pair : by_uuid) {
    ASSERT_TRUE(pair.baseline && pair.current);
    EXPECT_EQ(pair.baseline->gpu.uuid, pair.current->gpu.uuid);
    EXPECT_FALSE(pair.device.empty());
  }
  for (const auto& pair : match_records(baseline.results, current.results, DeviceMatch::ordinal)) {
    ASSERT_TRUE(pair.baseline && pair.current);
    EXPECT_EQ(pair.baseline->gpu.ordinal, pair.current->gpu.ordinal);
    EXPECT_EQ(pair.baseline->rank, pair.current->rank);
  }

  CompareOptions options;
  options.match_devices = DeviceMatch::ordinal;
  const Comparison comparison = compare_reports(baseline, current, options);
  ASSERT_EQ(comparison.cases.size(), 4u);
  EXPECT_EQ(comparison.cases.front().verdict, Verdict::slower);
  EXPECT_EQ(comparison.cases.front().device, "node-a rank 0 GPU 1");
  EXPECT_NE(render_comparison(comparison, ReportFormat::console).find("sum/cuda/f32/67108864 on node-a rank 0 GPU 1"),
            std::string::npos);
}

TEST(DeviceMatching, SingleGpuReportsStillPairWhateverTheyName) {
  // A report written before records named their GPU against one that does.
  ResultRecord old_record = gpu_record("cuda", 0, "", 1e-3);
  old_record.gpu = GpuIdentity{};
  const auto pairs = match_records({old_record}, {gpu_record("cuda", 0, "GPU-1234", 1e-3)}, DeviceMatch::uuid);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_TRUE(pairs.front().baseline && pairs.front().current);
  EXPECT_TRUE(pairs.front().device.empty());
}

TEST(DeviceMatching, NewAndMissingGpus) {
  const std::vector<ResultRecord> baseline = {gpu_record("cuda", 0, "u0", 1e-3), gpu_record("cuda", 1, "u1", 1e-3)};
  const std::vector<ResultRecord> current = {gpu_record("cuda", 0, "u0", 1e-3), gpu_record("cuda", 1, "u9", 1e-3)};
  const auto pairs = match_records(baseline, current, DeviceMatch::uuid);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_TRUE(pairs[0].baseline && pairs[0].current);
  EXPECT_TRUE(pairs[1].baseline && !pairs[1].current);
  EXPECT_TRUE(!pairs[2].baseline && pairs[2].current);
  EXPECT_THROW(match_records({gpu_record("cuda", 0, "u0", 1e-3), gpu_record("cuda", 0, "u0", 1e-3)}, current, DeviceMatch::uuid),
               UsageError);
}

TEST(DeviceIdentity, FilledFromTheContext) {
  Context context = rank_context(0, "node-a", {0, 1});
  context.gpus[1].pci_bus_id = "0000:3b:00.0";
  std::vector<ResultRecord> results = {gpu_record("cuda", 1, "", 1e-3)};
  results[0].gpu = GpuIdentity{1, "", "", ""};
  identify_gpus(context, results);
  EXPECT_EQ(results[0].gpu.uuid, "node-a-uuid-1");
  EXPECT_EQ(results[0].gpu.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(results[0].gpu.name, "NVIDIA H100");
}

}  // namespace
}  // namespace gpb
