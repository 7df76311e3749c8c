// The CPU-versus-GPU summary: best backends, speed-ups, crossover sizes (interpolated,
// never, always, missing sides) and its JSON, Markdown and console renderings.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/summary.hpp"
#include "model/csr.hpp"
#include "model/op_table.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"

namespace gpb {
namespace {

Statistics stats_with_median(double median) {
  Statistics stats;
  stats.count = 5;
  stats.median = stats.mean = stats.min = stats.max = median;
  stats.p5 = median * 0.95;
  stats.p95 = median * 1.1;
  return stats;
}

ResultRecord record(Op op, const std::string& backend, DeviceKind device, const Shape& shape, double median_s,
                    TimingMode timing = TimingMode::kernel) {
  ResultRecord r;
  r.spec.op = op;
  r.spec.backend = backend;
  r.spec.shape = shape;
  r.spec.timing = timing;
  r.device = device;
  r.stats = stats_with_median(median_s);
  r.samples_s.assign(5, median_s);
  r.verification = {true, true, 100, 0, 1e-6, "all entries"};
  return r;
}

ResultRecord cpu(double n, double median_s, const std::string& backend = "eigen") {
  return record(Op::sin, backend, DeviceKind::cpu, elementwise_shape(static_cast<std::int64_t>(n)), median_s);
}

ResultRecord gpu(double n, double median_s, const std::string& backend = "cuda") {
  return record(Op::sin, backend, DeviceKind::gpu, elementwise_shape(static_cast<std::int64_t>(n)), median_s);
}

// An e2e GPU record: the reported figure is h2d + op + d2h, the op phase is kernel-only.
ResultRecord gpu_e2e(double n, double op_s, double copy_s) {
  ResultRecord r = gpu(n, op_s + 2 * copy_s);
  r.spec.timing = TimingMode::e2e;
  for (const auto& [kind, median] : {std::pair{PhaseKind::h2d, copy_s}, {PhaseKind::op, op_s}, {PhaseKind::d2h, copy_s}}) {
    Phase phase;
    phase.kind = kind;
    phase.stats = stats_with_median(median);
    r.phases.push_back(phase);
  }
  return r;
}

const std::vector<double> kSizes = {1024, 4096, 16384, 65536, 262144};

// CPU time n ns, GPU time 10 us: the speed-up n / 10^4 is a power law, so log-log
// interpolation between 4096 and 16384 lands exactly on 10^4.
std::vector<ResultRecord> power_law_results() {
  std::vector<ResultRecord> results;
  for (double n : kSizes) {
    results.push_back(cpu(n, n * 1e-9));
    results.push_back(gpu(n, 1e-5));
  }
  return results;
}

// The summary's one group, by value (a summary is usually a temporary here).
SpeedupGroup only_group(const SpeedupSummary& summary) {
  EXPECT_EQ(summary.groups.size(), 1u);
  return summary.groups.at(0);
}

TEST(SpeedupSummary, GpuWinsFromAnInterpolatedSize) {
  const auto summary = summarize_speedups(power_law_results());
  const SpeedupGroup group = only_group(summary);
  EXPECT_EQ(group.name(), "sin f32");
  ASSERT_EQ(group.rows.size(), kSizes.size());
  for (std::size_t i = 0; i < kSizes.size(); ++i) {
    const SpeedupRow& row = group.rows[i];
    EXPECT_EQ(row.size, static_cast<std::int64_t>(kSizes[i]));
    EXPECT_EQ(row.shape, std::to_string(row.size));
    ASSERT_TRUE(row.cpu && row.kernel.gpu && row.kernel.speedup);
    EXPECT_EQ(row.cpu->backend, "eigen");
    EXPECT_EQ(row.kernel.gpu->backend, "cuda");
    EXPECT_NEAR(*row.kernel.speedup, kSizes[i] / 1e4, 1e-12);
    EXPECT_FALSE(row.e2e.gpu || row.e2e.speedup);
  }
  const Crossover& kernel = group.kernel_crossover;
  EXPECT_EQ(kernel.kind, CrossoverKind::at);
  EXPECT_TRUE(kernel.interpolated);
  EXPECT_NEAR(kernel.size, 1e4, 1e-6);
  EXPECT_EQ(kernel.last_losing_size, 4096);
  EXPECT_EQ(kernel.first_winning_size, 16384);
  EXPECT_EQ(group.e2e_crossover.kind, CrossoverKind::no_gpu);
  EXPECT_TRUE(summary.has_cpu_gpu_pair());
}

// Each dtype is its own group: the 16-bit ones are never paired with f32 results.
TEST(SpeedupSummary, SixteenBitDtypesAreGroupsOfTheirOwn) {
  std::vector<ResultRecord> results = power_law_results();
  for (DType dtype : {DType::f16, DType::bf16})
    for (double n : kSizes) {
      for (ResultRecord r : {cpu(n, n * 2e-9), gpu(n, 1e-5)}) {
        r.spec.dtype = dtype;
        results.push_back(r);
      }
    }
  const SpeedupSummary summary = summarize_speedups(results);
  ASSERT_EQ(summary.groups.size(), 3u);
  std::vector<std::string> names;
  for (const SpeedupGroup& group : summary.groups) {
    names.push_back(group.name());
    ASSERT_EQ(group.rows.size(), kSizes.size()) << group.name();
    if (group.dtype == DType::f32) continue;
    // Twice as slow on the CPU: the GPU wins from half the size, 5000 elements.
    EXPECT_EQ(group.kernel_crossover.kind, CrossoverKind::at) << group.name();
    EXPECT_NEAR(group.kernel_crossover.size, 5000, 1e-6) << group.name();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"sin f32", "sin f16", "sin bf16"}));
}

TEST(SpeedupSummary, InterpolatesInLogLogSpace) {
  // Speed-ups 0.5 at 1000 and 8 at 16000: log2 speed-up -1 and 3, a quarter of the way in
  // log size, so 1000 * 16^(1/4) = 2000.
  const std::vector<ResultRecord> results = {cpu(1000, 0.5e-6), gpu(1000, 1e-6), cpu(16000, 8e-6), gpu(16000, 1e-6)};
  const Crossover crossover = only_group(summarize_speedups(results)).kernel_crossover;
  EXPECT_EQ(crossover.kind, CrossoverKind::at);
  EXPECT_NEAR(crossover.size, 2000, 1e-9);
}

TEST(SpeedupSummary, NeverWhenTheGpuLosesAtTheLargestSize) {
  std::vector<ResultRecord> results;
  for (double n : kSizes) {
    results.push_back(cpu(n, 1e-6));
    results.push_back(gpu(n, 2e-6));
  }
  EXPECT_EQ(only_group(summarize_speedups(results)).kernel_crossover.kind, CrossoverKind::never);

  // Winning in the middle does not count: the GPU must win from some size on.
  results[5] = gpu(kSizes[2], 0.5e-6);
  EXPECT_EQ(only_group(summarize_speedups(results)).kernel_crossover.kind, CrossoverKind::never);
}

TEST(SpeedupSummary, AlwaysWhenTheGpuWinsEverywhere) {
  std::vector<ResultRecord> results;
  for (double n : kSizes) {
    results.push_back(cpu(n, 1e-3));
    results.push_back(gpu(n, 1e-5));
  }
  const Crossover crossover = only_group(summarize_speedups(results)).kernel_crossover;
  EXPECT_EQ(crossover.kind, CrossoverKind::always);
  EXPECT_EQ(crossover.size, 1024);
  EXPECT_FALSE(crossover.interpolated);
}

TEST(SpeedupSummary, ATieIsNotAWin) {
  const std::vector<ResultRecord> results = {cpu(1024, 1e-6), gpu(1024, 1e-6), cpu(4096, 4e-6), gpu(4096, 1e-6)};
  const Crossover crossover = only_group(summarize_speedups(results)).kernel_crossover;
  EXPECT_EQ(crossover.kind, CrossoverKind::at);
  EXPECT_NEAR(crossover.size, 1024, 1e-9);
  EXPECT_EQ(crossover.last_losing_size, 1024);
}

TEST(SpeedupSummary, EndToEndAndKernelOnlyCrossDifferently) {
  // e2e records only (what --timing e2e produces): the op phase is the kernel-only figure.
  // Copies of 2n ns each way keep the end-to-end speed-up below 1/4 at every size.
  std::vector<ResultRecord> results;
  for (double n : kSizes) {
    results.push_back(cpu(n, n * 1e-9));
    results.push_back(gpu_e2e(n, 1e-5, 2 * n * 1e-9));
  }
  const SpeedupGroup group = only_group(summarize_speedups(results));
  EXPECT_EQ(group.kernel_crossover.kind, CrossoverKind::at);
  EXPECT_NEAR(group.kernel_crossover.size, 1e4, 1e-6);
  EXPECT_EQ(group.e2e_crossover.kind, CrossoverKind::never);
  const SpeedupRow& largest = group.rows.back();
  ASSERT_TRUE(largest.e2e.gpu && largest.e2e.speedup);
  EXPECT_DOUBLE_EQ(largest.e2e.gpu->median_s, 1e-5 + 4 * 262144e-9);
  EXPECT_DOUBLE_EQ(*largest.e2e.speedup, 262144e-9 / (1e-5 + 4 * 262144e-9));
  EXPECT_DOUBLE_EQ(largest.kernel.gpu->median_s, 1e-5);

  // Cheap copies: end to end the GPU wins from 2 * 10^4 (CPU n ns against 20 us + 0).
  results.clear();
  for (double n : kSizes) {
    results.push_back(cpu(n, n * 1e-9));
    results.push_back(gpu(n, 1e-5));
    results.push_back(gpu_e2e(n, 1e-5, 5e-6));
  }
  const SpeedupGroup both = only_group(summarize_speedups(results));
  EXPECT_NEAR(both.kernel_crossover.size, 1e4, 1e-6);
  EXPECT_EQ(both.e2e_crossover.kind, CrossoverKind::at);
  EXPECT_NEAR(both.e2e_crossover.size, 2e4, 1e-6);
  EXPECT_EQ(both.e2e_crossover.last_losing_size, 16384);
}

TEST(SpeedupSummary, MissingSides) {
  const std::vector<ResultRecord> cpu_only = {cpu(1024, 1e-6), cpu(4096, 4e-6)};
  const SpeedupGroup no_gpu = only_group(summarize_speedups(cpu_only));
  EXPECT_EQ(no_gpu.kernel_crossover.kind, CrossoverKind::no_gpu);
  EXPECT_EQ(no_gpu.e2e_crossover.kind, CrossoverKind::no_gpu);
  EXPECT_FALSE(summarize_speedups(cpu_only).has_cpu_gpu_pair());
  EXPECT_EQ(describe_crossover(no_gpu, TimingMode::kernel), "no GPU result");

  const SpeedupGroup no_cpu = only_group(summarize_speedups({gpu(1024, 1e-6), gpu_e2e(4096, 1e-6, 1e-6)}));
  EXPECT_EQ(no_cpu.kernel_crossover.kind, CrossoverKind::no_cpu);
  EXPECT_EQ(no_cpu.e2e_crossover.kind, CrossoverKind::no_cpu);

  const SpeedupGroup disjoint = only_group(summarize_speedups({cpu(1024, 1e-6), gpu(4096, 1e-6)}));
  EXPECT_EQ(disjoint.kernel_crossover.kind, CrossoverKind::no_common_size);
  EXPECT_EQ(disjoint.e2e_crossover.kind, CrossoverKind::no_gpu);
}

TEST(SpeedupSummary, BestIsTheLowestMedianOfOkVerifiedRecords) {
  std::vector<ResultRecord> results = {cpu(1024, 3e-6, "eigen"), cpu(1024, 2e-6, "openblas"), gpu(1024, 5e-6, "cuda"),
                                       gpu(1024, 4e-6, "cub")};
  // Faster, but not to be believed or not measured at all.
  ResultRecord failed = gpu(1024, 1e-9, "broken");
  failed.status = Status::failed;
  failed.verification.passed = false;
  ResultRecord unchecked = cpu(1024, 1e-9, "unchecked");
  unchecked.verification.checked = false;
  ResultRecord skipped = gpu(1024, 0, "cusparse");
  skipped.status = Status::skipped;
  skipped.stats = {};
  results.insert(results.end(), {failed, unchecked, skipped});

  const SpeedupRow row = only_group(summarize_speedups(results)).rows.at(0);
  EXPECT_EQ(row.cpu->backend, "openblas");
  EXPECT_EQ(row.cpu->median_s, 2e-6);
  EXPECT_EQ(row.kernel.gpu->backend, "cub");
  EXPECT_DOUBLE_EQ(*row.kernel.speedup, 0.5);

  EXPECT_TRUE(summarize_speedups({failed, skipped, unchecked}).groups.empty());
}

TEST(SpeedupSummary, SizesAreFootprintsAndVariantsAreSeparate) {
  EXPECT_EQ(footprint_elements(Op::sum, elementwise_shape(1000)), 1000);
  EXPECT_EQ(footprint_elements(Op::matmul, matmul_shape(64, 32, 7)), 64 * 32);
  Shape spmv = spmv_shape(1000, 16, SpmvPattern::banded);
  EXPECT_EQ(footprint_elements(Op::spmv, spmv), 16000);
  spmv.nnz = 15873;
  EXPECT_EQ(footprint_elements(Op::spmv, spmv), 15873);

  ResultRecord tf32 = record(Op::matmul, "cublas", DeviceKind::gpu, matmul_shape(128, 128, 128), 1e-6);
  tf32.spec.tf32 = true;
  ResultRecord banded = record(Op::spmv, "cuda", DeviceKind::gpu, spmv, 1e-6);
  banded.spec.dtype = DType::f64;
  banded.spec.l2 = L2Mode::warm;
  const std::vector<ResultRecord> results = {
      record(Op::matmul, "eigen", DeviceKind::cpu, matmul_shape(256, 256, 256), 1e-3),
      record(Op::matmul, "eigen", DeviceKind::cpu, matmul_shape(128, 128, 128), 1e-4),
      record(Op::matmul, "cuda", DeviceKind::gpu, matmul_shape(128, 128, 128), 1e-5),
      tf32,
      banded,
      cpu(64, 1e-7)};
  const auto summary = summarize_speedups(results);
  ASSERT_EQ(summary.groups.size(), 4u);
  EXPECT_EQ(summary.groups[0].name(), "sin f32");
  EXPECT_EQ(summary.groups[1].name(), "matmul f32");
  EXPECT_EQ(summary.groups[2].name(), "matmul f32 tf32");
  // The warm spmv records are its backend's only mode: they take the flushed variant's group,
  // which says they ran with the L2 warm.
  EXPECT_EQ(summary.groups[3].name(), "spmv f64 banded");
  EXPECT_EQ(summary.groups[3].variant, "banded");
  EXPECT_EQ(summary.groups[3].gpu_l2, GpuL2::warm);
  EXPECT_TRUE(summary.groups[3].contains(banded.spec));
  EXPECT_FALSE(summary.groups[1].contains(tf32.spec));
  // A forced SpMV kernel is how the cuda backend ran, not a variant of the case: it joins
  // its group, named with its kernel.
  ResultRecord forced = banded;
  forced.spec.spmv_kernel = SpmvKernelChoice::merge_path;
  forced.stats = stats_with_median(0.5e-6);
  EXPECT_TRUE(summary.groups[3].contains(forced.spec));
  const auto with_forced = summarize_speedups({banded, forced});
  ASSERT_EQ(with_forced.groups.size(), 1u);
  EXPECT_EQ(with_forced.groups[0].rows.at(0).kernel.gpu->backend, "cuda/merge_path");

  const SpeedupGroup& matmul = summary.groups[1];
  ASSERT_EQ(matmul.rows.size(), 2u);
  EXPECT_EQ(matmul.rows[0].size, 128 * 128);
  EXPECT_EQ(matmul.rows[0].shape, "128x128x128");
  EXPECT_EQ(matmul.rows[1].size, 256 * 256);
  EXPECT_EQ(matmul.kernel_crossover.kind, CrossoverKind::always);
  EXPECT_EQ(summary.groups[2].kernel_crossover.kind, CrossoverKind::no_cpu);
}

// 100x50 and 50x100 have the same footprint; the GPU loses on the first and wins on the second.
std::vector<ResultRecord> gpu_wins_past_one_footprint() {
  return {record(Op::matmul, "eigen", DeviceKind::cpu, matmul_shape(100, 50, 7), 1e-6),
          record(Op::matmul, "cuda", DeviceKind::gpu, matmul_shape(100, 50, 7), 2e-6),
          record(Op::matmul, "eigen", DeviceKind::cpu, matmul_shape(50, 100, 7), 2e-6),
          record(Op::matmul, "cuda", DeviceKind::gpu, matmul_shape(50, 100, 7), 1e-6)};
}

TEST(SpeedupSummary, OneFootprintOnBothSidesOfTheCrossoverIsNotInterpolated) {
  const std::vector<ResultRecord> results = gpu_wins_past_one_footprint();
  const Crossover crossover = only_group(summarize_speedups(results)).kernel_crossover;
  EXPECT_EQ(crossover.kind, CrossoverKind::at);
  EXPECT_FALSE(crossover.interpolated);
  EXPECT_EQ(crossover.size, 5000);
}

// ---- renderings ----

// ---- CPU records against GPU records of either L2 mode ----

std::vector<ResultRecord> with_l2(std::vector<ResultRecord> results, L2Mode l2, const std::string& backend = "cuda") {
  for (auto& r : results)
    if (r.device == DeviceKind::gpu) {
      r.spec.l2 = l2;
      r.spec.backend = backend;
    }
  return results;
}

TEST(SpeedupSummaryL2, AWarmRunPairsItsGpuRecordsWithTheCpu) {
  // An --l2 warm run: every GPU record is warm, and the CPU has no L2 mode.
  const auto results = with_l2(power_law_results(), L2Mode::warm);
  const SpeedupSummary summary = summarize_speedups(results);
  const SpeedupGroup group = only_group(summary);
  EXPECT_EQ(group.name(), "sin f32");
  EXPECT_EQ(group.gpu_l2, GpuL2::warm);
  EXPECT_TRUE(group.warm_set_aside.empty());
  EXPECT_EQ(group.kernel_crossover.kind, CrossoverKind::at);
  EXPECT_NEAR(group.kernel_crossover.size, 1e4, 1e-6);
  EXPECT_EQ(group.rows.front().kernel.gpu->backend, "cuda");
  EXPECT_TRUE(group.contains(results[1].spec));
  EXPECT_TRUE(group.contains(results[0].spec));
  // The table says which L2 mode the GPU figures had.
  const std::string markdown = render_speedups_markdown(summary);
  EXPECT_NE(markdown.find("| size | shape | CPU | GPU kernel (L2 warm) | kernel speed-up |"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("L2: "), std::string::npos) << "one mode: nothing set aside";
  const auto json = nlohmann::json::parse(render_speedups_json(summary));
  EXPECT_EQ(json["groups"][0]["gpu_l2"], "warm");
  EXPECT_EQ(json["groups"][0]["variant"], "");
  EXPECT_TRUE(json["groups"][0]["warm_set_aside"].empty());
}

TEST(SpeedupSummaryL2, ABackendWithBothModesPairsItsFlushedRecordsAndSaysSo) {
  // Flushed cuda at 10 us, warm cuda at 1 us: the flushed ones pair with the CPU; the warm
  // ones form a group of their own, with no CPU side.
  auto results = power_law_results();
  for (double n : kSizes) {
    ResultRecord warm = gpu(n, 1e-6);
    warm.spec.l2 = L2Mode::warm;
    results.push_back(warm);
  }
  const SpeedupSummary summary = summarize_speedups(results);
  ASSERT_EQ(summary.groups.size(), 2u);
  const SpeedupGroup& paired = summary.groups[0];
  EXPECT_EQ(paired.name(), "sin f32");
  EXPECT_EQ(paired.gpu_l2, GpuL2::flush);
  EXPECT_EQ(paired.warm_set_aside, std::vector<std::string>{"cuda"});
  EXPECT_DOUBLE_EQ(paired.rows.front().kernel.gpu->median_s, 1e-5);
  EXPECT_NEAR(paired.kernel_crossover.size, 1e4, 1e-6);
  EXPECT_FALSE(paired.contains(results.back().spec));
  const SpeedupGroup& warm = summary.groups[1];
  EXPECT_EQ(warm.name(), "sin f32 l2warm");
  EXPECT_EQ(warm.gpu_l2, GpuL2::warm);
  EXPECT_FALSE(warm.has_cpu_gpu_pair());
  EXPECT_TRUE(warm.contains(results.back().spec));
  EXPECT_EQ(describe_l2_choice(paired),
            "cuda ran with the L2 flushed and warm: the flushed records are compared here, the warm ones in sin f32 l2warm");
  const std::string console = render_speedups_console(summary);
  EXPECT_NE(console.find("  L2: cuda ran with the L2 flushed and warm"), std::string::npos) << console;
  EXPECT_NE(console.find("GPU kernel (L2 flushed)"), std::string::npos) << console;
  EXPECT_NE(render_speedups_markdown(summary).find("; L2: cuda ran with the L2 flushed and warm"), std::string::npos);
}

TEST(SpeedupSummaryL2, BackendsOfDifferentModesShareTheGroupAndTheWarmOnesAreMarked) {
  // cuda flushed at 10 us, cub warm only at 5 us: both pair with the CPU, cub's labelled.
  auto results = power_law_results();
  for (double n : kSizes) {
    ResultRecord warm = gpu(n, 5e-6, "cub");
    warm.spec.l2 = L2Mode::warm;
    results.push_back(warm);
  }
  const SpeedupSummary summary = summarize_speedups(results);
  const SpeedupGroup group = only_group(summary);
  EXPECT_EQ(group.gpu_l2, GpuL2::mixed);
  EXPECT_TRUE(group.warm_set_aside.empty());
  EXPECT_EQ(group.rows.front().kernel.gpu->backend, "cub/l2warm");
  EXPECT_DOUBLE_EQ(group.rows.front().kernel.gpu->median_s, 5e-6);
  EXPECT_NE(render_speedups_console(summary).find("GPU kernel (L2 flushed; /l2warm: warm)"), std::string::npos);
}

TEST(SpeedupSummaryL2, AWarmRunHasAnEnergyCrossover) {
  // CPU n nJ per op, warm GPU 10 uJ: the energy ratio crosses 1 at 10^4 elements.
  std::vector<ResultRecord> results;
  for (double n : kSizes) {
    ResultRecord c = cpu(n, n * 1e-9);
    ResultRecord g = gpu(n, 1e-5);
    g.spec.l2 = L2Mode::warm;
    const std::pair<ResultRecord*, double> measured[] = {{&c, n * 1e-9}, {&g, 1e-5}};
    for (const auto& [r, joules] : measured) {
      EnergyMeasurement energy;
      energy.counter = "fake";
      energy.update_interval_s = 0.01;
      energy.windows = 1;
      energy.window_s = 1;
      energy.launches = 1000;
      energy.energy_j = joules * 1000;
      r->energy = energy;
      finalize_record(*r);
    }
    results.push_back(c);
    results.push_back(g);
  }
  const SpeedupGroup group = only_group(summarize_speedups(results));
  EXPECT_EQ(group.gpu_l2, GpuL2::warm);
  EXPECT_EQ(group.energy_crossover.kind, CrossoverKind::at);
  EXPECT_NEAR(group.energy_crossover.size, 1e4, 1e-6);
}

TEST(SpeedupRendering, ElementsAndCrossoverPhrases) {
  EXPECT_EQ(format_elements(1000), "1000");
  EXPECT_EQ(format_elements(1024), "1K");
  EXPECT_EQ(format_elements(16777216), "16M");
  EXPECT_EQ(format_elements(98634.5), "96.3K");
  EXPECT_EQ(format_speedup(236.12), "236x");
  EXPECT_EQ(format_speedup(0.35249), "0.352x");

  const auto summary = summarize_speedups(power_law_results());
  const SpeedupGroup group = only_group(summary);
  EXPECT_EQ(describe_crossover(group, TimingMode::kernel), "\u22489.77K elements (interpolated between 4K and 16K)");
  EXPECT_EQ(describe_crossover(group, TimingMode::e2e), "no end-to-end GPU result (run with --timing e2e)");
}

// A crossover is said in what the op's size counts: C's entries for matmul, nonzeros for spmv.
TEST(SpeedupRendering, CrossoverIsSaidInTheOpsOwnSize) {
  const std::vector<ResultRecord> results = gpu_wins_past_one_footprint();
  EXPECT_EQ(describe_crossover(only_group(summarize_speedups(results)), TimingMode::kernel), "4.88K entries of C");
  for (const Op op : all_ops()) {
    const std::string unit = op_footprint_unit(op);
    EXPECT_FALSE(unit.empty()) << to_string(op);
    EXPECT_NE(op_footprint_name(op).find(unit), std::string::npos) << to_string(op);
  }
}

TEST(SpeedupRendering, ConsoleListsCrossoversAndTheTable) {
  auto results = power_law_results();
  results.push_back(record(Op::sqrt, "eigen", DeviceKind::cpu, elementwise_shape(1024), 1e-6));
  const std::string text = render_speedups_console(summarize_speedups(results));
  EXPECT_NE(text.find("sin f32\n  crossover, kernel-only: \u22489.77K elements (interpolated between 4K and 16K)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  size  shape   CPU            GPU kernel (L2 flushed)  kernel speed-up\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   16K  16384   eigen 16.4 us  cuda 10.0 us                       1.64x\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("e2e speed-up"), std::string::npos) << "no e2e figures, no e2e columns";
  EXPECT_NE(text.find("\nNot compared:\n  sqrt f32 (no GPU result)\n"), std::string::npos) << text;
}

TEST(SpeedupRendering, JsonSummarySection) {
  auto results = power_law_results();
  results.push_back(gpu_e2e(262144, 1e-5, 1e-3));
  const auto report = nlohmann::json::parse(render_json(Context{}, results));
  ASSERT_TRUE(report.contains("summary"));
  const auto& groups = report["summary"]["groups"];
  ASSERT_EQ(groups.size(), 1u);
  const auto& group = groups[0];
  EXPECT_EQ(group["op"], "sin");
  EXPECT_EQ(group["dtype"], "f32");
  EXPECT_EQ(group["variant"], "");
  ASSERT_EQ(group["rows"].size(), kSizes.size());
  const auto& first = group["rows"][0];
  EXPECT_EQ(first["size"], 1024);
  EXPECT_EQ(first["shape"], "1024");
  EXPECT_EQ(first["cpu"]["backend"], "eigen");
  EXPECT_DOUBLE_EQ(first["cpu"]["median_s"].get<double>(), 1024e-9);
  EXPECT_EQ(first["kernel"]["gpu"]["backend"], "cuda");
  EXPECT_DOUBLE_EQ(first["kernel"]["speedup"].get<double>(), 0.1024);
  EXPECT_TRUE(first["e2e"]["gpu"].is_null());
  EXPECT_TRUE(first["e2e"]["speedup"].is_null());
  EXPECT_DOUBLE_EQ(group["rows"][4]["e2e"]["gpu"]["median_s"].get<double>(), 1e-5 + 2e-3);

  const auto& kernel = group["crossover"]["kernel"];
  EXPECT_EQ(kernel["kind"], "at");
  EXPECT_NEAR(kernel["size"].get<double>(), 1e4, 1e-6);
  EXPECT_EQ(kernel["interpolated"], true);
  EXPECT_EQ(kernel["last_losing_size"], 4096);
  EXPECT_EQ(kernel["first_winning_size"], 16384);
  const auto& e2e = group["crossover"]["e2e"];
  EXPECT_EQ(e2e["kind"], "never");
  EXPECT_TRUE(e2e["size"].is_null());
  EXPECT_FALSE(e2e.contains("last_losing_size"));

  // The summary is derived, so reading the report back ignores it.
  EXPECT_EQ(parse_json_report(render_json(Context{}, results), "r.json").results.size(), results.size());
}

TEST(SpeedupRendering, MarkdownCarriesTheSummaryOnlyWithAPair) {
  const std::string with_pair = render_markdown(Context{}, power_law_results());
  EXPECT_NE(with_pair.find("**CPU versus GPU**"), std::string::npos);
  EXPECT_NE(with_pair.find("**sin f32**: crossover kernel-only: \u22489.77K elements (interpolated between 4K and 16K); "
                           "end-to-end: no end-to-end GPU result (run with --timing e2e).\n\n"
                           "| size | shape | CPU | GPU kernel (L2 flushed) | kernel speed-up |\n"
                           "| ---: | :--- | :--- | :--- | ---: |\n"
                           "| 1K | 1024 | eigen 1.02 us | cuda 10.0 us | 0.102x |\n"),
            std::string::npos)
      << with_pair;
  const std::string cpu_only = render_markdown(Context{}, {cpu(1024, 1e-6)});
  EXPECT_EQ(cpu_only.find("CPU versus GPU"), std::string::npos);
}

}  // namespace
}  // namespace gpb
