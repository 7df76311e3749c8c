// The proof that an op is an op table entry plus kernels. "negate" (y = -x) is defined only
// here -- its input builder, fp64 reference and tolerance -- and added with register_op; two
// backends that exist only here run it, one reporting as a CPU and one as a GPU, with scripted
// timings so that the speed-up summary has a crossover to find. It then goes through the plan,
// the runner, verification, the roofline, the summary and every reporter, and no file of the
// core or of the real backends names it. An executable of its own, so that no other test's
// process holds the op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "analysis/summary.hpp"
#include "config/plan.hpp"
#include "measure/backend.hpp"
#include "measure/roofline.hpp"
#include "measure/runner.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"

namespace gpb {
namespace {

constexpr const char* kName = "negate";

OpDef negate_definition() {
  OpDef def;
  def.name = kName;
  def.description = "y = -x";
  def.input_distribution = "x uniform[-2,2)";
  def.shape_kind = ShapeKind::elements;
  def.bound = Bound::memory;
  def.shows_flop_rate = false;
  def.bytes = [](const Shape& shape, DType dtype) { return 2.0 * static_cast<double>(shape.n) * static_cast<double>(dtype_size(dtype)); };
  def.flops = [](const Shape& shape) { return static_cast<double>(shape.n); };
  def.output_size = [](const Shape& shape) { return shape.n; };
  def.build_inputs = [](Problem& problem) {
    require_positive(problem.shape.n, "negate size n");
    problem.input_distribution = "uniform[-2,2)";
    problem.x = uniform_array(problem.dtype, problem.shape.n, input_key(problem), -2, 2);
  };
  def.references = [](const Problem& problem, const std::vector<std::int64_t>& entries) {
    std::vector<Reference> references;
    for (std::int64_t entry : entries) {
      const double x = problem.x.at(static_cast<std::size_t>(entry));
      references.push_back({-x, std::abs(x)});
    }
    return references;
  };
  def.tolerance = [](const Problem&, const Rounding&) { return 0.0; };  // negation is exact
  def.error_scale = "error / |x| (negation is exact)";
  return def;
}

// Registered when the executable starts, as a plug-in would be, before any test names it.
const Op kNegate = register_op(negate_definition());

// Seconds per launch that a backend's timer reports: a fixed cost plus a cost per element.
struct TimeModel {
  double fixed_s = 0;
  double per_element_s = 0;
};

struct LaunchCount {
  int runs = 0;
};

class ScriptedTimer final : public SampleTimer {
 public:
  ScriptedTimer(const LaunchCount& count, double launch_s) : count_(count), launch_s_(launch_s) {}
  void start() override { start_ = count_.runs; }
  void stop() override { stop_ = count_.runs; }
  double elapsed_seconds() override { return (stop_ - start_) * launch_s_; }
  std::string name() const override { return "scripted"; }

 private:
  const LaunchCount& count_;
  double launch_s_;
  int start_ = 0, stop_ = 0;
};

template <class T>
class NegatePrepared final : public Prepared {
 public:
  NegatePrepared(const Problem& problem, TimeModel model, bool corrupt)
      : x_(problem.x.as<T>()),
        y_(x_.size()),
        launch_s_(model.fixed_s + model.per_element_s * static_cast<double>(x_.size())),
        corrupt_(corrupt) {}
  void run() override {
    for (std::size_t i = 0; i < x_.size(); ++i) y_[i] = static_cast<T>(-static_cast<double>(x_[i]));
    ++count_.runs;
  }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<ScriptedTimer>(count_, launch_s_); }
  HostArray result() override {
    std::vector<T> output = y_;
    if (corrupt_) output[output.size() / 2] = static_cast<T>(2 * static_cast<double>(output[output.size() / 2]));
    return HostArray(std::move(output));
  }

 private:
  const std::vector<T>& x_;
  std::vector<T> y_;
  double launch_s_;
  bool corrupt_;
  LaunchCount count_;
};

class NegateBackend final : public Backend {
 public:
  NegateBackend(std::string name, DeviceKind kind, TimeModel model, bool corrupt = false)
      : name_(std::move(name)), kind_(kind), model_(model), corrupt_(corrupt) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "negation for the synthetic-op test"; }
  DeviceKind kind() const override { return kind_; }
  Availability availability() const override { return {}; }
  Support supports(Op op, DType) const override { return op == kNegate ? Support{} : no_kernel_for(name_, op); }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings&) override {
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<NegatePrepared<decltype(tag)>>(problem, model_, corrupt_);
    });
  }

 private:
  std::string name_;
  DeviceKind kind_;
  TimeModel model_;
  bool corrupt_;
};

// The host backend takes 1 ns per element; the "device" one 10 us per launch plus 0.1 ns per
// element, so it wins from about 11K elements: between the 4K and 16K sizes of the suite.
constexpr TimeModel kHostModel{0, 1e-9};
constexpr TimeModel kDeviceModel{10e-6, 1e-10};
const std::vector<std::int64_t> kSizes{1024, 4096, 16384, 65536};

std::vector<std::unique_ptr<Backend>> suite_backends() {
  std::vector<std::unique_ptr<Backend>> backends = make_all_backends();
  backends.push_back(std::make_unique<NegateBackend>("host-negate", DeviceKind::cpu, kHostModel));
  backends.push_back(std::make_unique<NegateBackend>("device-negate", DeviceKind::gpu, kDeviceModel));
  return backends;
}

Context suite_context() {
  Context context;
  context.tool_version = "test";
  context.cpu_copy_gbps = 10;
  GpuInfo gpu;
  gpu.name = "scripted device";
  gpu.copy_gbps = 100;
  gpu.theoretical_bandwidth_gbps = 120;
  context.gpus = {gpu};
  return context;
}

// negate over four sizes and f32 and f64 on the two negate backends and on eigen and openblas,
// which have no kernel for it, planned from the op's name as the CLI would, run and annotated once.
const std::vector<ResultRecord>& suite_results() {
  static const std::vector<ResultRecord> results = [] {
    RunOptions options;
    options.ops = {parse_op(kName)};
    options.dtypes = {DType::f32, DType::f64};
    options.sizes = kSizes;
    Plan plan;
    plan.cases = expand_cases(options, {"host-negate", "device-negate", "eigen", "openblas"});
    check_plan_fits_memory(plan);
    RunnerOptions runner;
    runner.warmup = 1;
    runner.stopping.min_samples = 5;
    runner.stopping.min_time_s = 0;
    runner.stopping.max_time_s = 2;
    auto backends = suite_backends();
    std::vector<ResultRecord> records = run_plan(plan, backends, runner);
    annotate_roofline(suite_context(), records, 0);
    return records;
  }();
  return results;
}

const ResultRecord& find(const std::vector<ResultRecord>& results, const std::string& id) {
  for (const auto& record : results)
    if (record.spec.id() == id) return record;
  throw std::runtime_error("no record " + id);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

std::string line_containing(const std::string& text, const std::string& fragment) {
  for (const auto& line : split(text, '\n'))
    if (line.find(fragment) != std::string::npos) return line;
  return {};
}

TEST(SyntheticOp, TheRegistryKnowsItByName) {
  const Op op = kNegate;
  EXPECT_EQ(parse_op(kName), op);
  EXPECT_EQ(to_string(op), kName);
  EXPECT_EQ(all_ops().back(), op);
  EXPECT_EQ(all_ops().size(), 6u);
  EXPECT_FALSE(is_builtin(op));
  EXPECT_EQ(to_string(Op::spmv), "spmv");  // the built-in entries stay where they are
  EXPECT_EQ(op_bytes(op, elementwise_shape(10), DType::f64), 160);
  EXPECT_EQ(footprint_elements(op, elementwise_shape(10)), 10);
  EXPECT_EQ(elementwise_shape(10).label(op), "10");
  try {
    parse_op("negat");
    ADD_FAILURE() << "negat parsed";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "unknown op 'negat' (expected one of: sin, sqrt, sum, matmul, spmv, negate)");
  }
}

TEST(SyntheticOp, RegistrationRefusesTakenNamesAndMissingRules) {
  OpDef copy = negate_definition();
  EXPECT_THROW(register_op(copy), std::invalid_argument);
  copy.name = "sin";
  EXPECT_THROW(register_op(copy), std::invalid_argument);
  copy.name = "";
  EXPECT_THROW(register_op(copy), std::invalid_argument);
  copy.name = "negate2";
  copy.references = nullptr;
  EXPECT_THROW(register_op(copy), std::invalid_argument);
  EXPECT_EQ(all_ops().size(), 6u);
}

TEST(SyntheticOp, RunsThroughTheRunnerAndVerification) {
  const auto& results = suite_results();
  ASSERT_EQ(results.size(), kSizes.size() * 2 * 4);
  for (const char* dtype : {"f32", "f64"})
    for (std::int64_t n : kSizes) {
      for (const char* backend : {"host-negate", "device-negate"}) {
        const ResultRecord& record = find(results, std::string(kName) + "/" + backend + "/" + dtype + "/" + std::to_string(n));
        EXPECT_EQ(record.status, Status::ok) << record.reason;
        EXPECT_TRUE(record.verification.passed);
        EXPECT_EQ(record.verification.entries_checked, n);
        EXPECT_EQ(record.verification.tolerance, 0);
        EXPECT_EQ(record.verification.method, "all " + std::to_string(n) + " entries; error / |x| (negation is exact)");
        EXPECT_EQ(record.input_distribution, "uniform[-2,2)");
        EXPECT_EQ(record.bytes, 2.0 * static_cast<double>(n) * (std::string(dtype) == "f32" ? 4 : 8));
        EXPECT_GT(record.gbps, 0);
        EXPECT_EQ(record.roofline.bound, Bound::memory);
        EXPECT_EQ(record.roofline.ceiling, std::string(backend) == "host-negate" ? 10 : 100);
        EXPECT_GT(record.roofline.fraction, 0);
      }
      for (const std::string backend : {"eigen", "openblas"}) {
        const ResultRecord& record = find(results, std::string(kName) + "/" + backend + "/" + dtype + "/" + std::to_string(n));
        EXPECT_EQ(record.status, Status::skipped);
        EXPECT_EQ(record.reason, backend + " has no negate kernel");
      }
    }
  const ResultRecord& large = find(results, "negate/device-negate/f32/65536");
  EXPECT_DOUBLE_EQ(large.stats.median, kDeviceModel.fixed_s + kDeviceModel.per_element_s * 65536);
}

TEST(SyntheticOp, VerificationCatchesAWrongResult) {
  NegateBackend broken("broken-negate", DeviceKind::cpu, kHostModel, true);
  const Problem problem = make_problem(kNegate, DType::f32, elementwise_shape(1000), 3);
  CaseSpec spec;
  spec.op = kNegate;
  spec.backend = broken.name();
  spec.shape = problem.shape;
  RunnerOptions options;
  options.warmup = 1;
  options.stopping.min_samples = 3;
  options.stopping.min_time_s = 0;
  const ResultRecord record = run_case(spec, problem, broken, options);
  EXPECT_EQ(record.status, Status::failed);
  EXPECT_FALSE(record.verification.passed);
  EXPECT_NE(record.reason.find("verification failed"), std::string::npos) << record.reason;
}

TEST(SyntheticOp, TheSummaryFindsTheCrossover) {
  const SpeedupSummary summary = summarize_speedups(suite_results());
  ASSERT_EQ(summary.groups.size(), 2u);
  for (const SpeedupGroup& group : summary.groups) {
    EXPECT_EQ(group.op, kNegate);
    EXPECT_EQ(group.rows.size(), kSizes.size());
    EXPECT_EQ(group.kernel_crossover.kind, CrossoverKind::at);
    EXPECT_EQ(group.kernel_crossover.last_losing_size, 4096);
    EXPECT_EQ(group.kernel_crossover.first_winning_size, 16384);
    EXPECT_TRUE(group.kernel_crossover.interpolated);
  }
  EXPECT_EQ(summary.groups[0].name(), "negate f32");
  EXPECT_NE(render_speedups_console(summary).find("negate f32"), std::string::npos);
  EXPECT_NE(render_speedups_markdown(summary).find("negate f64"), std::string::npos);
}

TEST(SyntheticOp, ConsoleAndMarkdownShowTheRatesItsEntryNames) {
  ReportOptions options;
  options.relative_to = "host-negate";
  const std::string console = render_console(suite_context(), suite_results(), options);
  EXPECT_NE(console.find("negate/device-negate/f64/65536"), std::string::npos);
  EXPECT_NE(console.find("skipped: eigen has no negate kernel"), std::string::npos);

  // | case | median | spread | samples | GB/s | GFLOP/s | %peak | vs host-negate | verify |
  const std::string markdown = render_markdown(suite_context(), suite_results(), options);
  const std::vector<std::string> cells = split(line_containing(markdown, "| negate/device-negate/f32/65536 |"), '|');
  ASSERT_EQ(cells.size(), 10u) << markdown;
  EXPECT_NE(cells[5], " - ");  // bandwidth: the entry shows it
  EXPECT_EQ(cells[6], " - ");  // flop rate: the entry does not
  EXPECT_EQ(cells[8], " 3.96x ");  // 65.5 us / 16.6 us
  EXPECT_EQ(cells[9], " ok ");
}

TEST(SyntheticOp, JsonWritesAndReadsItBack) {
  const std::string text = render_json(suite_context(), suite_results());
  const LoadedReport report = parse_json_report(text, "negate.json");
  ASSERT_EQ(report.results.size(), suite_results().size());
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    EXPECT_EQ(report.results[i].spec.op, kNegate);
    EXPECT_EQ(report.results[i].spec.id(), suite_results()[i].spec.id());
  }
  EXPECT_EQ(render_json(report.context, report.results), text);
  const auto document = nlohmann::json::parse(text);
  EXPECT_EQ(document["results"][0]["op"], kName);
  EXPECT_EQ(document["results"][0]["shape"], (nlohmann::json{{"label", "1024"}, {"n", 1024}}));
  EXPECT_EQ(document["summary"]["groups"][0]["op"], kName);
}

TEST(SyntheticOp, CsvFillsTheColumnsOfItsShapeKind) {
  const std::vector<std::string> lines = split(render_csv(suite_context(), suite_results()), '\n');
  const std::vector<std::string> header = split(lines.at(0), ',');
  const auto column = [&header](const std::string& name) {
    return static_cast<std::size_t>(std::distance(header.begin(), std::find(header.begin(), header.end(), name)));
  };
  const std::vector<std::string> row = split(lines.at(1), ',');
  EXPECT_EQ(row.at(column("op")), kName);
  EXPECT_EQ(row.at(column("n")), "1024");
  EXPECT_EQ(row.at(column("m")), "");
  EXPECT_EQ(row.at(column("verified")), "true");
}

TEST(SyntheticOp, HtmlPlotsIt) {
  const std::string html = render_html(suite_context(), suite_results());
  EXPECT_NE(html.find("data-op=\"negate\" data-dtype=\"f32\""), std::string::npos);
  EXPECT_NE(html.find("data-op=\"negate\" data-dtype=\"f64\""), std::string::npos);
}

// What makes the proof: the op lives in this file alone.
TEST(SyntheticOp, NoFileOutsideTheTestsNamesIt) {
  namespace fs = std::filesystem;
  const fs::path root = GPUBENCH_SOURCE_DIR;
  std::size_t files = 0;
  for (const char* folder : {"src", "cpu_backend", "gpu_backend", "kernels", "configs"})
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream file(entry.path());
      const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      EXPECT_EQ(text.find(kName), std::string::npos) << entry.path();
      ++files;
    }
  EXPECT_GT(files, 40u);
}

}  // namespace
}  // namespace gpb
