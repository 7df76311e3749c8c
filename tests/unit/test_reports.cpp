// Reporters: golden files for every format, the JSON round trip and its error messages,
// atomic report writing, value formatting, CSV quoting and the speed-up column.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "base/atomic_file.hpp"
#include "model/op_table.hpp"
#include "model/csr.hpp"
#include "model/record_format.hpp"
#include "report/history_report.hpp"
#include "report/report.hpp"
#include "unprivileged.hpp"
#include "usage_error_of.hpp"

namespace gpb {
namespace {

namespace fs = std::filesystem;

// ---- a fixed run: one context, records covering every kind of row ----

// Five samples around `median` and summary statistics consistent with them, written out
// by hand so the golden files do not depend on the statistics module. Each value is one
// multiplication or division, so no compiler can fuse it into an FMA and change the digits.
void set_samples(std::vector<double>& samples, Statistics& stats, double median) {
  samples = {median * 0.98, median * 0.995, median, median * 1.004, median * 1.03};
  stats.count = samples.size();
  stats.min = samples.front();
  stats.max = samples.back();
  stats.median = median;
  stats.mean = median * 1.0018;
  stats.stddev = median * 0.0168;
  stats.rel_stddev = stats.stddev / stats.mean;
  stats.p5 = median * 0.983;
  stats.p95 = median * 1.0248;
  stats.q1 = samples[1];
  stats.q3 = samples[3];
  stats.median_ci_low = samples.front();
  stats.median_ci_high = samples.back();
}

ResultRecord measured(Op op, const std::string& backend, DType dtype, const Shape& shape, DeviceKind device, double median,
                      double bytes, double flops) {
  ResultRecord record;
  record.spec.op = op;
  record.spec.backend = backend;
  record.spec.dtype = dtype;
  record.spec.shape = shape;
  record.spec.seed = 42;
  if (device == DeviceKind::gpu) record.spec.l2 = L2Mode::flush;  // as the plan sets it; CPU cases have no L2 mode
  record.device = device;
  record.timer = device == DeviceKind::cpu ? "steady_clock" : "cuda_event";
  record.threads_used = device == DeviceKind::cpu ? 16 : 0;
  record.warmup = 3;
  record.stop_reasons = StopReasons(StopReason::converged);
  record.measure_seconds = 0.25;
  record.input_distribution = "uniform [-1, 1)";
  set_samples(record.samples_s, record.stats, median);
  set_samples(record.host_samples_s, record.host_stats, median * 1.02);
  record.bytes = bytes;
  record.flops = flops;
  record.gbps = bytes / median / 1e9;
  record.gflops = flops / median / 1e9;
  record.verification = {true, true, 4096, 3.2e-8, 1.2e-6, "4096 sampled entries, error relative to |reference| + 1"};
  return record;
}

// A roofline as annotate_roofline would set it; each fraction is one division.
Roofline fixture_roofline(Bound bound, const char* ceiling_name, double achieved, double ceiling, double theoretical_ceiling) {
  Roofline result;
  result.bound = bound;
  result.ceiling_name = ceiling_name;
  result.ceiling = ceiling;
  result.fraction = ceiling > 0 ? achieved / ceiling : 0;
  result.theoretical_ceiling = theoretical_ceiling;
  result.theoretical_fraction = theoretical_ceiling > 0 ? achieved / theoretical_ceiling : 0;
  return result;
}

Context fixed_context() {
  Context context;
  context.tool_version = "0.1.0";
  context.git_sha = "1a2b3c4d5e6f";
  context.build_type = "Release";
  context.compiler = "GNU 12.2.0";
  context.argv = {"gpubench", "run", "--suite", "ci", "--relative-to", "eigen"};
  context.timestamp = "2024-05-01T12:00:00Z";
  context.hostname = "bench-01";
  context.os = "Linux 6.1.0-18-amd64";
  context.cpu_model = "AMD EPYC 7763 64-Core Processor";
  context.cpu_cores = 16;
  context.threads = 16;
  context.memory_gib = 125.75;
  context.cpu_copy_gbps = 182.5;
  context.libraries = {{"cuda_runtime", "12.4"}, {"eigen", "3.4.0"}, {"openblas", "0.3.21"}};
  context.settings = {{"l2", std::string("flush")}, {"max_noise", 0.005}, {"seed", std::int64_t{42}}};
  context.thresholds = {{"*", 0.05}, {"matmul", 0.08}};
  context.gpus = {GpuInfo{0, "NVIDIA H100 80GB HBM3", "9.0", 132, 1980, 2619, 79.1, 5120, 3352.32, 50, true, "550.54.15", "12.4",
                          2950.4, 66908.16, 66908.16, 535265.28, 1070530.56, "", "", GpuManagement{}}};
  context.notes = {"L2 flushed between samples"};
  GpuManagement& nvml = context.gpus[0].nvml;
  nvml.available = true;
  nvml.persistence_mode = true;
  nvml.applications_clocks_set = false;
  nvml.clock_limit_active = false;
  nvml.power_limit_w = 700;
  nvml.max_sm_clock_mhz = 1980;
  nvml.max_mem_clock_mhz = 2619;
  nvml.ecc_enabled = true;
  nvml.mig_enabled = false;
  nvml.energy_counter = true;
  OneTimeCosts costs;
  costs.context_creation_s = 0.1875;
  costs.context_note = "cudaSetDevice(0) + cudaFree(0), the first calls that create device 0's primary context";
  costs.module_loading = "lazy";
  costs.first_uses = {{"cublas", "handle creation (cublasCreate)", 0.046875}};
  context.one_time_costs = costs;
  return context;
}

std::vector<ResultRecord> fixed_results() {
  constexpr std::int64_t n = 16777216;
  std::vector<ResultRecord> results;

  results.push_back(measured(Op::sin, "eigen", DType::f32, elementwise_shape(n), DeviceKind::cpu, 12.3e-3, 8.0 * n, n));
  results.back().roofline = fixture_roofline(Bound::memory, "measured copy", results.back().gbps, 182.5, 0);
  // A quiet host, and a case re-measured twice to settle a comparison (run --resolve).
  CpuTelemetry quiet;
  quiet.cores = 16;
  quiet.load_average = 0.5;
  quiet.threads_obtained = 16;
  quiet.cpu_s = 3.875;
  quiet.run_queue_wait_s = 0.0125;
  quiet.involuntary_switches = 3;
  quiet.migrations = 1;
  quiet.cpu_mhz_min = 2450;
  quiet.cpu_mhz_max = 3500;
  results.back().cpu_telemetry = quiet;
  results.back().resolve_rounds = 2;
  results.back().first_call = FirstCall{25.5e-3, 25.25e-3, true};
  results.push_back(measured(Op::sin, "custom", DType::f32, elementwise_shape(n), DeviceKind::gpu, 52.1e-6, 8.0 * n, n));
  results.back().details = "grid-stride kernel, 4 elements per thread";
  // The first case of its backend: its first call loaded the module; issuing one op takes microseconds.
  results.back().first_call = FirstCall{0.125, 0.0625, true};
  results.back().host_cost = HostCost{};
  set_samples(results.back().host_cost->samples_s, results.back().host_cost->stats, 4.5e-6);
  results.back().roofline = fixture_roofline(Bound::memory, "measured copy", results.back().gbps, 2950.4, 3352.32);

  const double matmul_flops = 2.0 * 1024 * 1024 * 1024;
  results.push_back(measured(Op::matmul, "eigen", DType::f32, matmul_shape(1024, 1024, 1024), DeviceKind::cpu, 21.4e-3,
                             3.0 * 1024 * 1024 * 4, matmul_flops));
  results.back().roofline = fixture_roofline(Bound::compute, "", results.back().gflops, 0, 0);
  // A host busy with other work: samples switched out, threads waiting for a CPU, a kernel
  // without the scheduler's migration count or cpufreq.
  CpuTelemetry busy;
  busy.cores = 16;
  busy.load_average = 31.25;
  busy.threads_obtained = 12;
  busy.cpu_s = 2.5;
  busy.run_queue_wait_s = 1.5;
  busy.involuntary_switches = 912;
  busy.oversubscribed_samples = 4;
  results.back().cpu_telemetry = busy;
  // A virtual machine: no RAPL counter to read.
  results.back().energy = EnergyMeasurement{};
  results.back().energy->reason =
      "no RAPL energy counter: /sys/class/powercap does not exist (no powercap interface in this kernel); this machine "
      "is a virtual machine (the hypervisor flag in /proc/cpuinfo), and hypervisors rarely pass RAPL through";
  results.push_back(measured(Op::matmul, "cublas", DType::f32, matmul_shape(1024, 1024, 1024), DeviceKind::gpu, 41.2e-6,
                             3.0 * 1024 * 1024 * 4, matmul_flops));
  results.back().spec.tf32 = true;
  results.back().verification.tolerance = 9.8e-4;
  results.back().roofline = fixture_roofline(Bound::compute, "TF32 peak", results.back().gflops, 535265.28, 535265.28);
  // A power-capped GPU case after a soak, with a flagged sample discarded.
  TelemetrySummary telemetry;
  telemetry.readings = 31;
  telemetry.period_s = 0.01;
  telemetry.sm_clock_min_mhz = 1410;
  telemetry.sm_clock_median_mhz = 1755;
  telemetry.sm_clock_max_mhz = 1980;
  telemetry.sm_clock_limit_mhz = 1980;
  telemetry.mem_clock_median_mhz = 2619;
  telemetry.power_mean_w = 652.5;
  telemetry.power_max_w = 700.25;
  telemetry.instant_power_median_w = 688.5;
  telemetry.instant_power_max_w = 712.75;
  telemetry.temperature_max_c = 71;
  telemetry.clock_events = {"gpu_idle", "sw_power_cap"};
  telemetry.throttled_share = 0.5;
  telemetry.throttle_threshold = 0.9;
  telemetry.flagged_samples = 1;
  telemetry.discarded_samples = 1;
  telemetry.discarded_samples_s = {45.5e-6};
  telemetry.energy_j = 195.75;
  telemetry.energy_window_s = 0.25;
  telemetry.energy_per_op_j = 0.03225;
  telemetry.gflops_per_j = 66.5;
  telemetry.gb_per_j = 0.375;
  results.back().telemetry = telemetry;
  results.back().soak = SoakSummary{30, 12.5, true};
  // A short case: 25 ms of samples, lengthened to a second by untimed runs.
  EnergyMeasurement energy;
  energy.counter = "nvml_total_energy";
  energy.update_interval_s = 0.1;
  energy.resolution_j = 1e-3;
  energy.min_window_s = 1;
  energy.windows = 1;
  energy.window_s = 1.03125;
  energy.energy_j = 669.5;
  energy.launches = 25000;
  energy.extra_launches = 24375;
  energy.extra_s = 1.00625;
  energy.window_energy_per_op_j = {0.02678};
  energy.power_w = 649.21;
  energy.energy_per_op_j = 0.02678;
  energy.uncertainty_j = 0.0026;
  energy.launch_rate_uncertainty_j = 1.95e-5;  // 649.21 W x (41.28 - 41.25) us
  energy.gflops_per_j = 80.25;
  energy.gb_per_j = 0.46875;
  results.back().energy = energy;

  // e2e: the reported figure is h2d + op + d2h per sample.
  ResultRecord e2e = measured(Op::sum, "cub", DType::f64, elementwise_shape(n), DeviceKind::gpu, 5.6734e-3, 8.0 * n, n);
  e2e.spec.timing = TimingMode::e2e;
  const std::pair<PhaseKind, double> phase_medians[] = {{PhaseKind::h2d, 5.61e-3}, {PhaseKind::op, 61.3e-6}, {PhaseKind::d2h, 2.1e-6}};
  for (const auto& [kind, median] : phase_medians) {
    Phase phase;
    phase.kind = kind;
    set_samples(phase.samples_s, phase.stats, median);
    e2e.phases.push_back(phase);
  }
  e2e.roofline.bound = Bound::memory;  // e2e: no device ceiling bounds the transfers
  results.push_back(e2e);

  ResultRecord skipped;
  skipped.spec.op = Op::spmv;
  skipped.spec.backend = "cusparse";
  skipped.spec.shape = spmv_shape(1048576, 16, SpmvPattern::random);
  skipped.spec.seed = 42;
  skipped.spec.l2 = L2Mode::flush;
  skipped.device = DeviceKind::gpu;
  skipped.status = Status::skipped;
  skipped.reason =
      "no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is detected); "
      "every GPU case is skipped on this host";
  results.push_back(skipped);

  ResultRecord wrong = measured(Op::sqrt, "custom", DType::f64, elementwise_shape(1000), DeviceKind::gpu, 3.4e-6, 16000, 1000);
  wrong.status = Status::failed;
  wrong.reason = "verification failed: max error 3.1e-3 > tolerance 2.2e-13 (entry 17, \"sqrt\" of a negative input?)";
  wrong.verification = {true, false, 1000, 3.1e-3, 2.2e-13, "all 1000 entries, error relative to |reference| + 1"};
  results.push_back(wrong);

  // Too short for one event pair: 64 launches per sample, samples are per launch.
  ResultRecord batched = measured(Op::sqrt, "custom", DType::f32, elementwise_shape(1024), DeviceKind::gpu, 2.1e-6, 8192, 1024);
  batched.batch = 64;
  results.push_back(batched);
  return results;
}

ReportOptions relative_to_eigen() {
  ReportOptions options;
  options.relative_to = "eigen";
  return options;
}

// ---- golden files ----

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Compares line by line and names the first difference. With GPUBENCH_UPDATE_GOLDEN=1 it
// rewrites the file instead, and fails so that an update is never mistaken for a pass.
void expect_matches_file(const std::string& actual, const std::string& path) {
  const std::string file_name = fs::path(path).filename().string();
  const char* update = std::getenv("GPUBENCH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    write_file_atomic(path, actual);
    FAIL() << "rewrote " << path << " because GPUBENCH_UPDATE_GOLDEN=1; review the diff, then run without it";
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << path << " (GPUBENCH_UPDATE_GOLDEN=1 creates it)";
  const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto expected_lines = lines_of(expected);
  const auto actual_lines = lines_of(actual);
  for (std::size_t i = 0; i < std::max(expected_lines.size(), actual_lines.size()); ++i) {
    const std::string want = i < expected_lines.size() ? expected_lines[i] : "<end of file>";
    const std::string got = i < actual_lines.size() ? actual_lines[i] : "<end of output>";
    if (want != got) {
      ADD_FAILURE() << file_name << ":" << i + 1 << " differs (GPUBENCH_UPDATE_GOLDEN=1 rewrites the golden files)\n"
                    << "  expected: " << want << "\n  actual:   " << got;
      return;
    }
  }
  EXPECT_EQ(expected, actual) << file_name << ": same lines, different line endings";
}

void expect_matches_golden(const std::string& actual, const std::string& file_name) {
  expect_matches_file(actual, std::string(GPUBENCH_GOLDEN_DIR) + "/" + file_name);
}

TEST(ReportGolden, Console) { expect_matches_golden(render_console(fixed_context(), fixed_results(), relative_to_eigen()), "report.txt"); }
TEST(ReportGolden, Json) { expect_matches_golden(render_json(fixed_context(), fixed_results(), relative_to_eigen()), "report.json"); }
TEST(ReportGolden, Csv) { expect_matches_golden(render_csv(fixed_context(), fixed_results(), relative_to_eigen()), "report.csv"); }
TEST(ReportGolden, Markdown) {
  expect_matches_golden(render_markdown(fixed_context(), fixed_results(), relative_to_eigen()), "report.md");
}

// The documented schema is the one the record format's field list generates (the CLI's schema
// test validates real reports against it).
TEST(ReportGolden, SchemaIsGeneratedFromTheFieldList) {
  expect_matches_file(render_report_schema(), std::string(GPUBENCH_SOURCE_DIR) + "/docs/report-schema.json");
}

TEST(ReportGolden, RenderReportDispatchesByFormat) {
  const auto context = fixed_context();
  const auto results = fixed_results();
  EXPECT_EQ(render_report(ReportFormat::console, context, results), render_console(context, results));
  EXPECT_EQ(render_report(ReportFormat::json, context, results), render_json(context, results));
  EXPECT_EQ(render_report(ReportFormat::csv, context, results), render_csv(context, results));
  EXPECT_EQ(render_report(ReportFormat::markdown, context, results), render_markdown(context, results));
}

std::size_t display_width(const std::string& line) {
  return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

TEST(ConsoleReport, FitsA120ColumnTerminal) {
  for (const auto& line : lines_of(render_console(fixed_context(), fixed_results(), relative_to_eigen())))
    EXPECT_LE(display_width(line), 120u) << line;
}

TEST(ConsoleReport, CutsVeryLongReasons) {
  auto results = fixed_results();
  results[5].reason = std::string(2000, 'x');
  const auto console = render_console(fixed_context(), results);
  EXPECT_NE(console.find("xxx..."), std::string::npos);
  // A few lines of it at most, not the 2000 characters.
  EXPECT_LT(console.size(), render_console(fixed_context(), fixed_results()).size() + 500);
}

TEST(MarkdownReport, EscapesTableSeparators) {
  auto results = fixed_results();
  results[5].reason = "backend a|b unavailable";
  EXPECT_NE(render_markdown(fixed_context(), results).find("skipped: backend a\\|b unavailable"), std::string::npos);
}

// ---- JSON round trip ----

auto fields(const Statistics& s) {
  return std::tie(s.count, s.min, s.max, s.mean, s.median, s.stddev, s.rel_stddev, s.p5, s.p95, s.q1, s.q3, s.median_ci_low,
                  s.median_ci_high);
}
auto fields(const Verification& v) { return std::tie(v.checked, v.passed, v.entries_checked, v.max_error, v.tolerance, v.method); }
auto fields(const Roofline& r) {
  return std::tie(r.bound, r.ceiling_name, r.ceiling, r.fraction, r.theoretical_ceiling, r.theoretical_fraction);
}
auto fields(const Shape& s) { return std::tie(s.n, s.m, s.k, s.rows, s.cols, s.nnz_per_row, s.nnz, s.pattern, s.matrix_path); }
auto fields(const CaseSpec& c) {
  return std::tie(c.op, c.backend, c.dtype, c.timing, c.l2, c.tf32, c.spmv_kernel, c.threads, c.seed);
}
auto fields(const GpuInfo& g) {
  return std::tie(g.ordinal, g.name, g.compute_capability, g.sm_count, g.sm_clock_mhz, g.mem_clock_mhz, g.memory_gib, g.bus_width_bits,
                  g.theoretical_bandwidth_gbps, g.l2_mib, g.ecc, g.driver_version, g.runtime_version, g.copy_gbps,
                  g.peak_fp32_gflops, g.peak_fp64_gflops, g.peak_tf32_gflops);
}
auto fields(const GpuManagement& m) {
  return std::tie(m.available, m.reason, m.persistence_mode, m.applications_clocks_set, m.clock_limit_active, m.power_limit_w,
                  m.max_sm_clock_mhz, m.max_mem_clock_mhz, m.ecc_enabled, m.mig_enabled, m.energy_counter);
}
auto fields(const TelemetrySummary& t) {
  return std::tie(t.readings, t.period_s, t.sm_clock_min_mhz, t.sm_clock_median_mhz, t.sm_clock_max_mhz, t.sm_clock_limit_mhz,
                  t.mem_clock_median_mhz, t.power_mean_w, t.power_max_w, t.temperature_max_c, t.clock_events, t.throttled_share,
                  t.throttle_threshold, t.flagged_samples, t.discarded_samples, t.discarded_samples_s, t.energy_j,
                  t.energy_window_s, t.energy_per_op_j, t.gflops_per_j, t.gb_per_j, t.instant_power_median_w,
                  t.instant_power_max_w);
}
auto fields(const EnergyMeasurement& e) {
  return std::tie(e.counter, e.reason, e.update_interval_s, e.resolution_j, e.min_window_s, e.windows, e.window_s, e.energy_j,
                  e.launches, e.extra_launches, e.extra_s, e.includes_timed_samples, e.window_energy_per_op_j, e.power_w,
                  e.energy_per_op_j, e.uncertainty_j, e.launch_rate_uncertainty_j, e.gflops_per_j, e.gb_per_j);
}
auto fields(const SoakSummary& s) { return std::tie(s.requested_s, s.seconds, s.settled); }
auto fields(const Context& c) {
  return std::tie(c.schema_version, c.tool_version, c.git_sha, c.build_type, c.compiler, c.argv, c.timestamp, c.hostname, c.os,
                  c.cpu_model, c.cpu_cores, c.threads, c.memory_gib, c.cpu_copy_gbps, c.libraries, c.settings, c.thresholds, c.notes,
                  c.interrupted);
}
auto fields(const ResultRecord& r) {
  return std::tie(r.device, r.status, r.reason, r.input_distribution, r.details, r.threads_used, r.timer, r.warmup, r.batch,
                  r.stop_reasons, r.measure_seconds, r.samples_s, r.host_samples_s, r.bytes, r.flops, r.gbps, r.gflops);
}

void expect_same(const Context& expected, const Context& actual) {
  EXPECT_EQ(fields(expected), fields(actual));
  ASSERT_EQ(expected.gpus.size(), actual.gpus.size());
  for (std::size_t i = 0; i < expected.gpus.size(); ++i) {
    EXPECT_EQ(fields(expected.gpus[i]), fields(actual.gpus[i]));
    EXPECT_EQ(fields(expected.gpus[i].nvml), fields(actual.gpus[i].nvml));
  }
}

void expect_same(const ResultRecord& expected, const ResultRecord& actual) {
  SCOPED_TRACE(expected.spec.id());
  EXPECT_EQ(fields(expected.spec), fields(actual.spec));
  EXPECT_EQ(fields(expected.spec.shape), fields(actual.spec.shape));
  EXPECT_EQ(fields(expected), fields(actual));
  EXPECT_EQ(fields(expected.stats), fields(actual.stats));
  EXPECT_EQ(fields(expected.host_stats), fields(actual.host_stats));
  EXPECT_EQ(fields(expected.verification), fields(actual.verification));
  EXPECT_EQ(fields(expected.roofline), fields(actual.roofline));
  EXPECT_EQ(expected.timing_note, actual.timing_note);
  ASSERT_EQ(expected.telemetry.has_value(), actual.telemetry.has_value());
  if (expected.telemetry) {
    EXPECT_EQ(fields(*expected.telemetry), fields(*actual.telemetry));
  }
  ASSERT_EQ(expected.energy.has_value(), actual.energy.has_value());
  if (expected.energy && expected.energy->measured()) {
    EXPECT_EQ(fields(*expected.energy), fields(*actual.energy));
  } else if (expected.energy) {
    // Without a figure the numbers are null (NaN, which equals nothing): the reason is the record.
    EXPECT_EQ(expected.energy->reason, actual.energy->reason);
    EXPECT_TRUE(std::isnan(actual.energy->energy_per_op_j) && std::isnan(actual.energy->uncertainty_j));
  }
  ASSERT_EQ(expected.soak.has_value(), actual.soak.has_value());
  if (expected.soak) {
    EXPECT_EQ(fields(*expected.soak), fields(*actual.soak));
  }
  ASSERT_EQ(expected.phases.size(), actual.phases.size());
  for (std::size_t i = 0; i < expected.phases.size(); ++i) {
    EXPECT_EQ(expected.phases[i].kind, actual.phases[i].kind);
    EXPECT_EQ(expected.phases[i].samples_s, actual.phases[i].samples_s);
    EXPECT_EQ(fields(expected.phases[i].stats), fields(actual.phases[i].stats));
  }
}

TEST(JsonReport, RoundTripReproducesEveryField) {
  auto context = fixed_context();
  context.gpus[0].nvml.mig_enabled.reset();  // not reported: null
  auto results = fixed_results();
  // Values that a careless writer would mangle: a seed above 2^53, a file-backed spmv,
  // non-default timing modes and a sample that needs all 17 digits.
  results[0].spec.seed = std::numeric_limits<std::uint64_t>::max() - 7;
  results[0].spec.l2 = L2Mode::warm;
  results[0].spec.threads = 8;
  results[1].timing_note = "single cold launches (L2 flushed before each, no batching)";
  results[1].soak = SoakSummary{5, 5.01, std::nullopt};
  results[0].samples_s[2] = 0.1 + 0.2;
  results[5].spec.shape = spmv_file_shape("/data/matrices/web-Google.mtx");
  results[5].spec.shape.rows = results[5].spec.shape.cols = 916428;
  results[5].spec.shape.nnz = 5105039;
  results[5].spec.backend = "cuda";
  results[5].spec.spmv_kernel = SpmvKernelChoice::row_split;
  results[1].stop_reasons.add(StopReason::max_time);  // passes that stopped differently

  const auto loaded = parse_json_report(render_json(context, results, relative_to_eigen()), "report.json");
  expect_same(context, loaded.context);
  ASSERT_EQ(results.size(), loaded.results.size());
  for (std::size_t i = 0; i < results.size(); ++i) expect_same(results[i], loaded.results[i]);
}

// Every generated matrix class reads back as itself, its id (rows x cols) included.
TEST(JsonReport, EveryGeneratedPatternRoundTrips) {
  std::vector<ResultRecord> results;
  for (SpmvPattern pattern : generated_patterns())
    results.push_back(measured(Op::spmv, "eigen", DType::f64, spmv_shape(4096, 8, pattern), DeviceKind::cpu, 1e-4, 1e6, 1e5));
  const auto loaded = parse_json_report(render_json(fixed_context(), results), "report.json");
  ASSERT_EQ(results.size(), loaded.results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    expect_same(results[i], loaded.results[i]);
    EXPECT_EQ(results[i].spec.id(), loaded.results[i].spec.id());
  }
  EXPECT_EQ(loaded.results[6].spec.id(), "spmv/eigen/f64/4096x262144/8/wide");
}

// What the runner records reads back: graph-timed cases and the records of functions measured
// from Python (op callable, no rates), so compare, report, merge and history take them.
TEST(JsonReport, GraphTimedAndCallableRecordsRoundTrip) {
  Shape elements;
  elements.n = 1024;
  ResultRecord graph = measured(Op::sin, "cuda", DType::f32, elements, DeviceKind::gpu, 2e-6, 8192, 1024);
  graph.spec.timing = TimingMode::graph;
  graph.spec.l2 = L2Mode::warm;
  graph.timing_note = "CUDA graph of 500 launches, replayed 2x per sample";
  elements.n = 1 << 20;
  ResultRecord function = measured(callable_op(), "cupy", DType::f32, elements, DeviceKind::gpu, 1e-5, 0, 0);
  function.gbps = function.gflops = 0;
  const std::vector<ResultRecord> results{graph, function};
  const auto loaded = parse_json_report(render_json(fixed_context(), results), "report.json");
  ASSERT_EQ(loaded.results.size(), 2u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    expect_same(results[i], loaded.results[i]);
    EXPECT_EQ(results[i].spec.id(), loaded.results[i].spec.id());
  }
  EXPECT_EQ(loaded.results[0].spec.timing, TimingMode::graph);
  EXPECT_EQ(loaded.results[1].spec.op, callable_op());
}

TEST(JsonReport, SettingsKeepTheirTypes) {
  Context context = fixed_context();
  context.settings = {{"max_time_s", 2.0},
                      {"warmup", std::int64_t{3}},
                      {"seed", std::numeric_limits<std::uint64_t>::max()},
                      {"profile", true},
                      {"suite", std::string("42")}};  // a string that looks like a number stays a string
  const std::string json = render_json(context, {});
  EXPECT_NE(json.find("\"max_time_s\": 2.0,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"seed\": 18446744073709551615,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"profile\": true,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"suite\": \"42\""), std::string::npos) << json;
  EXPECT_EQ(parse_json_report(json, "r.json").context.settings, context.settings);
}

TEST(JsonReport, NonFiniteValuesBecomeNullAndReadBackAsNan) {
  auto results = fixed_results();
  results[0].stats.rel_stddev = std::numeric_limits<double>::quiet_NaN();
  const std::string json = render_json(fixed_context(), results);
  EXPECT_NE(json.find("\"rel_stddev\": null"), std::string::npos);
  EXPECT_TRUE(std::isnan(parse_json_report(json, "r.json").results[0].stats.rel_stddev));
}

// ---- JSON errors: one line naming the origin and what is wrong ----

using testing::as_unprivileged;
using testing::usage_error_of;

std::string parse_error_of(const std::string& text) {
  return usage_error_of([&] { parse_json_report(text, "base.json"); });
}

// The golden report with one edit applied.
std::string edited_report(const std::function<void(nlohmann::json&)>& edit) {
  auto document = nlohmann::json::parse(render_json(fixed_context(), fixed_results()));
  edit(document);
  return document.dump();
}

TEST(JsonReport, MalformedJsonIsAOneLineUsageError) {
  const std::string message = parse_error_of("{\n  \"schema\": \"gpubench-report\",\n  \"results\": [1, 2,\n");
  EXPECT_EQ(message.rfind("base.json: invalid JSON: parse error at line 4", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  // Nothing at all is said to be empty, not the parser's "unexpected end of input".
  EXPECT_EQ(parse_error_of(""), "base.json: empty (no bytes), no JSON document");
  EXPECT_EQ(parse_error_of(" \n\t\r\n"), "base.json: empty (white space only), no JSON document");
  EXPECT_EQ(parse_error_of(" x").rfind("base.json: invalid JSON: ", 0), 0u);
}

TEST(JsonReport, RejectsOtherSchemaVersions) {
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["schema_version"] = 7; })),
            "base.json: schema version 7 is not supported (this gpubench reads version 1)");
}

TEST(JsonReport, RejectsDocumentsThatAreNotReports) {
  EXPECT_EQ(parse_error_of("[1, 2]"), "base.json: not a gpubench report (no \"schema\": \"gpubench-report\" field)");
  EXPECT_EQ(parse_error_of(R"({"schema": "nvbench"})"),
            "base.json: not a gpubench report (schema is 'nvbench', expected 'gpubench-report')");
}

// What gpubench's other outputs are, read where a JSON report belongs: each is named, with what
// reads it, from the renderers' own output (so a renderer's change keeps the test true).
TEST(JsonReport, OtherOutputsAreNamedForWhatTheyAre) {
  const Context context = fixed_context();
  const auto results = fixed_results();
  const std::string reads_json = "; this command reads a JSON report (gpubench run --out NAME.json writes one)";
  EXPECT_EQ(parse_error_of(render_csv(context, results)), "base.json: a CSV report" + reads_json);
  EXPECT_EQ(parse_error_of(render_markdown(context, results)), "base.json: a Markdown report" + reads_json);
  EXPECT_EQ(parse_error_of(render_console(context, results)), "base.json: a console report (text)" + reads_json);
  EXPECT_EQ(parse_error_of(render_html(context, results)), "base.json: an HTML page" + reads_json);
  EXPECT_EQ(parse_error_of(std::string("SQLite format 3\0\x10\0", 19)).rfind("base.json: a results database (SQLite), not a "
                                                                       "report: gpubench history list --db base.json", 0),
            0u);
  EXPECT_EQ(parse_error_of("\x1f\x8b\x08\0"), "base.json: compressed (gzip): decompress it first (gunzip)");
  EXPECT_EQ(parse_error_of(render_history_json({{store::RunInfo{}, LoadedReport{context, results}}}))
                .rfind("base.json: a history export (gpubench history export), not a report", 0),
            0u);
  EXPECT_EQ(parse_error_of(R"({"name": "s", "groups": [{"ops": ["sin"]}]})"),
            "base.json: a suite, not a report: gpubench run --config base.json runs it");
}

TEST(JsonReport, WrongTypesNameTheField) {
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][3]["statistics"]["median"] = "fast"; })),
            "base.json: results[3].statistics.median: expected a number, got string");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["settings"]["threads"] = 1.5; })),
            "base.json: results[0].settings.threads: expected an integer, got number");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["settings"]["warmup"] = 4294967296LL; })),
            "base.json: results[0].settings.warmup: 4294967296 is out of range");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["context"]["gpus"] = "none"; })),
            "base.json: context.gpus: expected an array, got string");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"] = nlohmann::json::object(); })),
            "base.json: results: expected an array, got object");
}

TEST(JsonReport, MissingAndUnknownValuesNameTheField) {
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][1].erase("op"); })),
            "base.json: results[1]: missing field \"op\"");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][1]["dtype"] = "f8"; })),
            "base.json: results[1].dtype: unknown value 'f8' (expected one of: f32, f64, f16, bf16)");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][1]["settings"]["stop_reason"] = "converged+bored"; })),
            "base.json: results[1].settings.stop_reason: unknown value 'bored' (expected one of: converged, max_time, "
            "max_samples)");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][4]["phases"][0]["name"] = "upload"; })),
            "base.json: results[4].phases[0].name: unknown value 'upload' (expected one of: h2d, op, d2h)");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["roofline"]["bound"] = "latency"; })),
            "base.json: results[0].roofline.bound: unknown value 'latency' (expected one of: memory, compute)");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["settings"]["spmv_kernel"] = "fastest"; })),
            "base.json: results[0].settings.spmv_kernel: unknown value 'fastest' (expected one of: auto, row_split, "
            "merge_path)");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j.erase("results"); })), "base.json: missing field \"results\"");
}

TEST(JsonReport, ReadsSettingsThatOlderVersionsWroteAsStrings) {
  const auto loaded = parse_json_report(edited_report([](auto& j) {
                                          j["context"]["settings"] = {{"seed", "42"},          {"max_time_s", "2.000000"},
                                                                      {"profile", "false"},    {"l2", "flush"},
                                                                      {"suite", "configs/ci.json"}, {"max_noise", "often"}};
                                        }),
                                        "old.json");
  const std::map<std::string, SettingValue> expected = {
      {"seed", std::int64_t{42}}, {"max_time_s", 2.0},
      {"profile", false},         {"l2", std::string("flush")},
      {"suite", std::string("configs/ci.json")}, {"max_noise", std::string("often")}};  // not a number: kept as text
  EXPECT_EQ(loaded.context.settings, expected);
}

TEST(JsonReport, NullAndNegativeSamplesAreRefusedByName) {
  // A sample without a measurement used to read as NaN ("too few samples (3568)" in compare),
  // a negative one gave a negative ratio and exit 0.
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["samples_s"][3] = nullptr; })),
            "base.json: results[0].samples_s[3]: expected a sample time in seconds, got null");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][1]["host_samples_s"][0] = -2e-6; })),
            "base.json: results[1].host_samples_s[0]: expected a duration in seconds, got -2e-06");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][4]["phases"][1]["samples_s"][0] = -1; })),
            "base.json: results[4].phases[1].samples_s[0]: expected a duration in seconds, got -1");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["statistics"]["median"] = -0.5; })),
            "base.json: results[0].statistics.median: expected a duration in seconds, got -0.5");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["settings"]["measure_seconds"] = -3; })),
            "base.json: results[0].settings.measure_seconds: expected a duration in seconds, got -3");
  // A wait for a CPU per sample, or none: a list that does not pair with the samples is refused.
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["sample_waits_s"] = {0.0, 1e-6}; })),
            "base.json: results[0]: \"sample_waits_s\" holds 2 waits for " +
                std::to_string(parse_json_report(edited_report([](auto&) {}), "base.json").results[0].samples_s.size()) +
                " samples: it needs one per sample, or none");
  EXPECT_EQ(parse_error_of(edited_report([](auto& j) { j["results"][0]["sample_waits_s"] = {-1e-6}; })),
            "base.json: results[0].sample_waits_s[0]: expected a duration in seconds, got -1e-06");
}

TEST(JsonReport, DeepNestingAndHugeNumbersAreUsageErrors) {
  std::string deep;
  for (int level = 0; level < 300000; ++level) deep += "{\"a\":";
  deep += "1" + std::string(300000, '}');
  EXPECT_EQ(parse_error_of("{\"notes\": " + deep + ", \"schema\": \"gpubench-report\"}"),
            "base.json: invalid JSON: nested more than 64 levels deep (the most gpubench reads)");
  std::string huge = edited_report([](auto& j) { j["schema_version"] = 123454321; });
  huge.replace(huge.find("123454321"), 9, "1e999");
  EXPECT_EQ(parse_error_of(huge), "base.json: invalid JSON: number overflow parsing '1e999'");
}

TEST(JsonReport, InterruptedRunsSaySoAndReadBack) {
  Context context = fixed_context();
  EXPECT_EQ(render_json(context, fixed_results()).find("interrupted"), std::string::npos);  // only when so
  context.interrupted = true;
  const std::string json = render_json(context, fixed_results());
  EXPECT_EQ(nlohmann::json::parse(json)["interrupted"], true);
  EXPECT_TRUE(parse_json_report(json, "r.json").context.interrupted);
  EXPECT_FALSE(parse_json_report(render_json(fixed_context(), fixed_results()), "r.json").context.interrupted);
}

// ---- files ----

class ReportFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("gpubench-reports-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override {
    fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(directory_);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path directory_;
};

std::string contents_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_F(ReportFiles, WritesAndReplacesWithoutLeavingTemporaries) {
  const auto path = (directory_ / "report.json").string();
  write_file_atomic(path, "first");
  write_file_atomic(path, "second, longer");
  EXPECT_EQ(contents_of(path), "second, longer");
  EXPECT_EQ(entries(), std::vector<std::string>{"report.json"});
}

TEST_F(ReportFiles, MissingDirectoryIsAUsageErrorAndWritesNothing) {
  const auto path = (directory_ / "missing" / "report.json").string();
  EXPECT_EQ(usage_error_of([&] { write_file_atomic(path, "{}"); }), "cannot write report '" + path + "': No such file or directory");
  EXPECT_TRUE(entries().empty());
}

TEST_F(ReportFiles, FailedRenameRemovesTheTemporary) {
  fs::create_directory(directory_ / "report.json");  // a directory where the file should go
  const auto path = (directory_ / "report.json").string();
  EXPECT_EQ(usage_error_of([&] { write_file_atomic(path, "{}"); }),
            "cannot write report '" + path + "': it is a directory, not a regular file; refusing to replace it");
  EXPECT_EQ(entries(), std::vector<std::string>{"report.json"});
  EXPECT_TRUE(fs::is_empty(directory_ / "report.json"));
}

TEST_F(ReportFiles, SymbolicLinksKeepTheLinkAndReplaceTheTarget) {
  fs::create_directory(directory_ / "reports");
  write_file_atomic((directory_ / "reports" / "target.json").string(), "old");
  fs::create_symlink("reports/target.json", directory_ / "link.json");
  fs::create_symlink("link.json", directory_ / "link2.json");  // a chain
  write_file_atomic((directory_ / "link2.json").string(), "new");
  EXPECT_TRUE(fs::is_symlink(directory_ / "link.json"));
  EXPECT_TRUE(fs::is_symlink(directory_ / "link2.json"));
  EXPECT_EQ(contents_of(directory_ / "reports" / "target.json"), "new");
  // A dangling link gets its target created.
  fs::create_symlink("reports/fresh.json", directory_ / "dangling.json");
  write_file_atomic((directory_ / "dangling.json").string(), "fresh");
  EXPECT_EQ(contents_of(directory_ / "reports" / "fresh.json"), "fresh");
  EXPECT_EQ(entries(), (std::vector<std::string>{"dangling.json", "link.json", "link2.json", "reports"}));
  // A loop is an error, not a hang.
  fs::create_symlink("loop_b.json", directory_ / "loop_a.json");
  fs::create_symlink("loop_a.json", directory_ / "loop_b.json");
  EXPECT_NE(usage_error_of([&] { write_file_atomic((directory_ / "loop_a.json").string(), "x"); }).find("symbolic links"),
            std::string::npos);
}

// Checked before a run: the directory the file goes in, which for a link is its target's.
TEST_F(ReportFiles, TheDestinationsDirectoryIsCheckedBeforeWriting) {
  const auto missing = (directory_ / "missing" / "report.json").string();
  EXPECT_EQ(usage_error_of([&] { check_report_destination(missing); }),
            "cannot write report '" + missing + "': no directory '" + (directory_ / "missing").string() + "'");
  const auto link = (directory_ / "link.json").string();
  fs::create_symlink("elsewhere/report.json", link);
  EXPECT_EQ(usage_error_of([&] { check_report_destination(link); }),
            "cannot write report '" + link + "': no directory '" + (directory_ / "elsewhere").string() + "'");
  fs::create_directory(directory_ / "elsewhere");
  EXPECT_EQ(usage_error_of([&] { check_report_destination(link); }), "<no UsageError>");
  EXPECT_EQ(entries(), (std::vector<std::string>{"elsewhere", "link.json"}));  // nothing created
}

TEST_F(ReportFiles, SpecialFilesAreRefusedNotReplaced) {
  const auto fifo = (directory_ / "fifo.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(usage_error_of([&] { check_report_destination(fifo); }),
            "cannot write report '" + fifo + "': it is a fifo, not a regular file; refusing to replace it");
  EXPECT_EQ(usage_error_of([&] { write_file_atomic(fifo, "x"); }), usage_error_of([&] { check_report_destination(fifo); }));
  EXPECT_TRUE(fs::is_fifo(fifo));
  const auto to_device = (directory_ / "null.json").string();
  fs::create_symlink("/dev/null", to_device);
  EXPECT_EQ(usage_error_of([&] { write_file_atomic(to_device, "x"); }),
            "cannot write report '" + to_device + "': its target '/dev/null' is a device, not a regular file; refusing to replace it");
  EXPECT_EQ(entries(), (std::vector<std::string>{"fifo.json", "null.json"}));
}

TEST_F(ReportFiles, ASetIsRenamedUnderTheDirectoryLock) {
  const auto json = (directory_ / "a.json").string(), csv = (directory_ / "a.csv").string();
  const int held = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);  // as another run renaming its set would hold it
  std::thread writer([&] { write_files_atomic({{json, "json of run 2"}, {csv, "csv of run 2"}}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(json)) << "renamed while another writer held the lock";
  EXPECT_FALSE(fs::exists(csv)) << "renamed while another writer held the lock";
  ::close(held);
  writer.join();
  EXPECT_EQ(contents_of(json), "json of run 2");
  EXPECT_EQ(contents_of(csv), "csv of run 2");
  EXPECT_EQ(entries(), (std::vector<std::string>{"a.csv", "a.json"}));
}

TEST_F(ReportFiles, AFileThatCannotBeWrittenReplacesNoneOfTheSet) {
  const auto json = (directory_ / "a.json").string();
  write_file_atomic(json, "old");
  const auto unwritable = (directory_ / "missing" / "a.csv").string();
  EXPECT_EQ(usage_error_of([&] { write_files_atomic({{json, "new"}, {unwritable, "new"}}); }),
            "cannot write report '" + unwritable + "': No such file or directory");
  EXPECT_EQ(contents_of(json), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"a.json"});
}

TEST_F(ReportFiles, UnwritableDirectoryKeepsTheOldReport) {
  const auto path = (directory_ / "report.json").string();
  write_file_atomic(path, "old");
  // Readable and searchable by all, writable by none (root writes anyway: the write runs as nobody).
  fs::permissions(directory_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  EXPECT_EQ(as_unprivileged([&] { return usage_error_of([&] { write_file_atomic(path, "new"); }); }),
            "cannot write report '" + path + "': Permission denied");
  EXPECT_EQ(contents_of(path), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"report.json"});
}

TEST_F(ReportFiles, ReadsBackWhatWasWritten) {
  const auto path = (directory_ / "report.json").string();
  write_file_atomic(path, render_json(fixed_context(), fixed_results()));
  EXPECT_EQ(read_json_report(path).results.size(), fixed_results().size());
}

TEST_F(ReportFiles, UnreadableReportIsAUsageError) {
  const auto missing = (directory_ / "nope.json").string();
  EXPECT_EQ(usage_error_of([&] { read_json_report(missing); }), "cannot read report '" + missing + "': No such file or directory");
  EXPECT_EQ(usage_error_of([&] { read_json_report(directory_.string()); }),
            "cannot read report '" + directory_.string() + "': Is a directory");
  const auto broken = (directory_ / "broken.json").string();
  write_file_atomic(broken, "{\"schema\": ");
  EXPECT_EQ(usage_error_of([&] { read_json_report(broken); }).rfind(broken + ": invalid JSON: ", 0), 0u);
}

// ---- formats and values ----

TEST(ReportFormats, NamesAndPaths) {
  for (auto format : {ReportFormat::console, ReportFormat::json, ReportFormat::csv, ReportFormat::markdown})
    EXPECT_EQ(parse_report_format(to_string(format)), format);
  EXPECT_EQ(usage_error_of([] { parse_report_format("xml"); }),
            "unknown report format 'xml' (expected one of: console, json, csv, markdown)");
  EXPECT_EQ(report_format_for_path("out/r.json"), ReportFormat::json);
  EXPECT_EQ(report_format_for_path("R.CSV"), ReportFormat::csv);
  EXPECT_EQ(report_format_for_path("summary.md"), ReportFormat::markdown);
  EXPECT_EQ(report_format_for_path("summary.markdown"), ReportFormat::markdown);
  EXPECT_EQ(report_format_for_path("table.txt"), ReportFormat::console);
  EXPECT_EQ(usage_error_of([] { report_format_for_path("runs.d/report"); }),
            "cannot tell the report format of 'runs.d/report' from its extension (expected .json, .csv, .md, .markdown or .txt)");
  EXPECT_NE(usage_error_of([] { report_format_for_path("report.xml"); }), "<no UsageError>");
}

TEST(ReportValues, SecondsPickTheirUnitAndKeepThreeDigits) {
  EXPECT_EQ(format_seconds(812e-9), "812 ns");
  EXPECT_EQ(format_seconds(12.34e-6), "12.3 us");
  EXPECT_EQ(format_seconds(4.556e-3), "4.56 ms");
  EXPECT_EQ(format_seconds(1.234), "1.23 s");
  EXPECT_EQ(format_seconds(42.0), "42.0 s");
  EXPECT_EQ(format_seconds(0.5e-9), "0.500 ns");
  EXPECT_EQ(format_seconds(999.96e-9), "1.00 us");  // rounding carries into the next unit
  EXPECT_EQ(format_seconds(9.996e-3), "10.0 ms");
  EXPECT_EQ(format_seconds(1e-3), "1.00 ms");
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(ReportValues, RatesTakeSiPrefixes) {
  EXPECT_EQ(format_rate(123e9, "B/s"), "123 GB/s");
  EXPECT_EQ(format_rate(1.234e12, "B/s"), "1.23 TB/s");
  EXPECT_EQ(format_rate(4.5e3, "FLOP/s"), "4.50 kFLOP/s");
  EXPECT_EQ(format_rate(56.78e6, "FLOP/s"), "56.8 MFLOP/s");
  EXPECT_EQ(format_rate(999.7e9, "B/s"), "1.00 TB/s");
  EXPECT_EQ(format_rate(12, "B/s"), "12.0 B/s");
  EXPECT_EQ(format_rate(2.5e15, "B/s"), "2500 TB/s");
}

TEST(ResultRecords, CaseIdsAndStatusNames) {
  CaseSpec spec;
  spec.op = Op::matmul;
  spec.backend = "cublas";
  spec.shape = matmul_shape(4096, 2048, 1024);
  EXPECT_EQ(spec.id(), "matmul/cublas/f32/4096x2048x1024");
  spec.timing = TimingMode::e2e;
  spec.tf32 = true;
  spec.l2 = L2Mode::warm;
  EXPECT_EQ(spec.id(), "matmul/cublas/f32/4096x2048x1024/e2e/tf32/l2warm");
  EXPECT_EQ(spec.variant_tags(), (std::vector<std::string>{"tf32", "l2warm"}));

  CaseSpec spmv;
  spmv.op = Op::spmv;
  spmv.backend = "cuda";
  spmv.shape = spmv_shape(1048576, 16, SpmvPattern::random);
  EXPECT_EQ(spmv.id(), "spmv/cuda/f32/1048576x1048576/16/random");
  spmv.spmv_kernel = SpmvKernelChoice::merge_path;
  spmv.l2 = L2Mode::warm;
  EXPECT_EQ(spmv.id(), "spmv/cuda/f32/1048576x1048576/16/random/l2warm/merge_path");

  EXPECT_EQ(spmv.variant_tags(), std::vector<std::string>{"l2warm"});
  EXPECT_EQ(spmv.backend_tags(), std::vector<std::string>{"merge_path"});
  EXPECT_EQ(spmv.backend_label(), "cuda/merge_path");

  // The same case on another backend: all but the backend and its tags agrees.
  CaseSpec other = spmv;
  other.backend = "cusparse";
  other.spmv_kernel = SpmvKernelChoice::automatic;
  EXPECT_TRUE(same_case_apart_from_backend(spmv, other));
  other.l2 = L2Mode::flush;
  EXPECT_FALSE(same_case_apart_from_backend(spmv, other));
  other = spmv;
  other.timing = TimingMode::e2e;
  EXPECT_FALSE(same_case_apart_from_backend(spmv, other));
  other = spmv;
  other.seed = 7;  // not part of the identity
  EXPECT_TRUE(same_case_apart_from_backend(spmv, other));
  EXPECT_EQ(to_string(Status::ok), "ok");
  EXPECT_EQ(to_string(Status::skipped), "skipped");
  EXPECT_EQ(to_string(Status::failed), "failed");
}

// Splits RFC 4180 text into records of fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      rows.back().back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && c == ',') {
      rows.back().emplace_back();
    } else if (!quoted && c == '\n') {
      rows.emplace_back(1);
    } else {
      rows.back().back() += c;
    }
  }
  rows.pop_back();  // after the final newline
  return rows;
}

std::string csv_field(const std::vector<std::vector<std::string>>& rows, std::size_t row, const std::string& column) {
  const auto& header = rows.front();
  const auto at = std::find(header.begin(), header.end(), column);
  return at == header.end() ? "<no column " + column + ">" : rows.at(row).at(static_cast<std::size_t>(at - header.begin()));
}

// A forced SpMV kernel changes what is measured, so it is in the id, the JSON settings and
// a CSV column; reports without one keep their fields (the golden files).
TEST(Reports, ForcedSpmvKernelIsWrittenWhereForced) {
  auto results = fixed_results();
  ResultRecord forced = measured(Op::spmv, "cuda", DType::f32, spmv_shape(1048576, 16, SpmvPattern::random), DeviceKind::gpu,
                                 90e-6, 2e8, 3.3e7);
  forced.spec.spmv_kernel = SpmvKernelChoice::merge_path;
  results.push_back(forced);

  const auto json = nlohmann::json::parse(render_json(fixed_context(), results));
  const auto& written = json["results"].back();
  EXPECT_EQ(written["id"], "spmv/cuda/f32/1048576x1048576/16/random/merge_path");
  EXPECT_EQ(written["settings"]["spmv_kernel"], "merge_path");
  EXPECT_FALSE(json["results"][0]["settings"].contains("spmv_kernel"));

  const auto csv = parse_csv(render_csv(fixed_context(), results));
  EXPECT_EQ(csv_field(csv, results.size(), "spmv_kernel"), "merge_path");
  EXPECT_EQ(csv_field(csv, 1, "spmv_kernel"), "auto");
  EXPECT_EQ(csv_field(parse_csv(render_csv(fixed_context(), fixed_results())), 1, "spmv_kernel"), "<no column spmv_kernel>");

  const std::string console = render_console(fixed_context(), results);
  EXPECT_NE(console.find("spmv/cuda/f32/1048576x1048576/16/random/merge_path "), std::string::npos) << console;

  // The A/B a forced kernel is for: against cuSPARSE on the same matrix.
  results.push_back(measured(Op::spmv, "cusparse", DType::f32, forced.spec.shape, DeviceKind::gpu, 180e-6, 2e8, 3.3e7));
  ReportOptions against_cusparse;
  against_cusparse.relative_to = "cusparse";
  const auto relative = nlohmann::json::parse(render_json(fixed_context(), results, against_cusparse));
  EXPECT_DOUBLE_EQ(relative["results"][results.size() - 2]["speedup"].get<double>(), 2.0);
}

TEST(CsvReport, QuotesCommasAndQuotes) {
  const std::string csv = render_csv(fixed_context(), fixed_results());
  EXPECT_NE(csv.find(",\"verification failed: max error 3.1e-3 > tolerance 2.2e-13 (entry 17, \"\"sqrt\"\" of a negative input?)\","),
            std::string::npos);
  const auto rows = parse_csv(csv);
  ASSERT_EQ(rows.size(), fixed_results().size() + 1);
  for (const auto& row : rows) EXPECT_EQ(row.size(), rows.front().size());
  EXPECT_EQ(csv_field(rows, 7, "reason"), fixed_results()[6].reason);
  EXPECT_EQ(csv_field(rows, 6, "median_s"), "");  // skipped: n/a, not zero
  EXPECT_EQ(csv_field(rows, 1, "median_s"), "0.0123");
  EXPECT_EQ(csv_field(rows, 1, "m"), "");
  EXPECT_EQ(csv_field(rows, 1, "speedup"), "<no column speedup>");
}

TEST(CsvReport, InterruptedRunsEndInAnInterruptedColumn) {
  Context context = fixed_context();
  EXPECT_EQ(csv_field(parse_csv(render_csv(context, fixed_results())), 1, "interrupted"), "<no column interrupted>");
  context.interrupted = true;
  const auto rows = parse_csv(render_csv(context, fixed_results()));
  ASSERT_EQ(rows.size(), fixed_results().size() + 1);
  EXPECT_EQ(rows.front().back(), "interrupted");
  for (std::size_t row = 1; row < rows.size(); ++row) EXPECT_EQ(csv_field(rows, row, "interrupted"), "true");
}

// ---- speed-up against a reference backend ----

TEST(RelativeTo, SpeedupIsReferenceMedianOverThisMedian) {
  const auto shape = elementwise_shape(1 << 20);
  std::vector<ResultRecord> results = {
      measured(Op::sin, "eigen", DType::f32, shape, DeviceKind::cpu, 2e-3, 8e6, 1e6),
      measured(Op::sin, "custom", DType::f32, shape, DeviceKind::gpu, 0.5e-3, 8e6, 1e6),
      measured(Op::sin, "custom", DType::f64, shape, DeviceKind::gpu, 1e-3, 16e6, 1e6),  // eigen did not run f64
      measured(Op::sin, "custom", DType::f32, shape, DeviceKind::gpu, 1e-3, 8e6, 1e6),   // nor e2e
  };
  results[3].spec.timing = TimingMode::e2e;
  const auto options = relative_to_eigen();

  const auto csv = parse_csv(render_csv(fixed_context(), results, options));
  EXPECT_EQ(csv_field(csv, 1, "speedup"), "1");
  EXPECT_EQ(csv_field(csv, 2, "speedup"), "4");
  EXPECT_EQ(csv_field(csv, 3, "speedup"), "");
  EXPECT_EQ(csv_field(csv, 4, "speedup"), "");

  const auto json = nlohmann::json::parse(render_json(fixed_context(), results, options));
  EXPECT_EQ(json["relative_to"], "eigen");
  EXPECT_EQ(json["results"][1]["speedup"], 4.0);
  EXPECT_TRUE(json["results"][2]["speedup"].is_null());

  const auto console = lines_of(render_console(fixed_context(), results, options));
  const auto row_of = [&](const std::string& start) {
    for (const auto& line : console)
      if (line.rfind(start, 0) == 0) return line;
    return std::string();
  };
  EXPECT_NE(row_of("case ").find(" vs eigen "), std::string::npos);
  EXPECT_NE(row_of("sin/eigen/f32/1048576 ").find(" 1.00x "), std::string::npos);
  EXPECT_NE(row_of("sin/custom/f32/1048576 ").find(" 4.00x "), std::string::npos);
  EXPECT_NE(row_of("sin/custom/f64/1048576 ").find(" - "), std::string::npos);
  EXPECT_NE(row_of("sin/custom/f32/1048576/e2e ").find(" - "), std::string::npos);

  EXPECT_EQ(render_console(fixed_context(), results).find("vs eigen"), std::string::npos);
}

}  // namespace
}  // namespace gpb
