// The proof that an op is an op table entry plus kernels. "negate" (y = -x) is defined only
// here -- its input builder, fp64 reference and tolerance -- and added with register_op; two
// backends that exist only here run it, added with register_backend, one reporting as a CPU
// and one as a GPU (with scripted timings, so that the speed-up summary has a crossover to
// find, and scripted sensors, so that it has telemetry). The program's own command line
// (cli/program.hpp, as main.cpp calls it) then runs `gpubench run --op negate` through the
// run configuration, the plan, the runner, verification, the roofline, the reports, the
// telemetry table, compare and the results store, and no file of the core or of the real
// backends names the op. An executable of its own, so that no other test's process holds
// the op or the backends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "analysis/summary.hpp"
#include "cli/program.hpp"
#include "measure/backend.hpp"
#include "measure/runner.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"

namespace gpb {
namespace {

namespace fs = std::filesystem;

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

// The "device's" sensors: 1500 of 2000 MHz (below the throttle threshold), 300 W, and an
// energy counter that runs at that power.
class ScriptedSensors final : public TelemetrySource {
 public:
  TelemetryReading read() override {
    TelemetryReading reading;
    reading.sm_clock_mhz = 1500;
    reading.power_w = 300;
    reading.temperature_c = 60;
    return reading;
  }
  std::optional<double> energy_j() override {
    return 300 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  double max_sm_clock_mhz() override { return 2000; }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

template <class T>
class NegatePrepared final : public Prepared {
 public:
  NegatePrepared(const Problem& problem, TimeModel model, bool sensors, bool corrupt)
      : x_(problem.x.as<T>()),
        y_(x_.size()),
        launch_s_(model.fixed_s + model.per_element_s * static_cast<double>(x_.size())),
        sensors_(sensors),
        corrupt_(corrupt) {}
  void run() override {
    for (std::size_t i = 0; i < x_.size(); ++i) y_[i] = static_cast<T>(-static_cast<double>(x_[i]));
    ++count_.runs;
  }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<ScriptedTimer>(count_, launch_s_); }
  std::unique_ptr<TelemetrySource> telemetry_source() override {
    return sensors_ ? std::make_unique<ScriptedSensors>() : nullptr;
  }
  HostArray result() override {
    std::vector<T> output = y_;
    if (corrupt_) output[output.size() / 2] = static_cast<T>(2 * static_cast<double>(output[output.size() / 2]));
    return HostArray(std::move(output));
  }

 private:
  const std::vector<T>& x_;
  std::vector<T> y_;
  double launch_s_;
  bool sensors_;
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
  Support supports(Op op, DType) const override { return op == parse_op(kName) ? Support{} : no_kernel_for(name_, op); }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings&) override {
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<NegatePrepared<decltype(tag)>>(problem, model_, kind_ == DeviceKind::gpu, corrupt_);
    });
  }

 private:
  std::string name_;
  DeviceKind kind_;
  TimeModel model_;
  bool corrupt_;
};

// The host backend takes 1 ns per element; the "device" one 10 us per launch plus 0.1 ns per
// element, so it wins from about 11K elements: between the 4K and 16K sizes of the run.
constexpr TimeModel kHostModel{0, 1e-9};
constexpr TimeModel kDeviceModel{10e-6, 1e-10};
const std::vector<std::int64_t> kSizes{1024, 4096, 16384, 65536};

// Registered when the executable starts, as a plug-in would be, before any test names them.
const Op kNegate = register_op(negate_definition());
const bool kBackendsRegistered = [] {
  register_backend([] { return std::make_unique<NegateBackend>("host-negate", DeviceKind::cpu, kHostModel); });
  register_backend([] { return std::make_unique<NegateBackend>("device-negate", DeviceKind::gpu, kDeviceModel); });
  return true;
}();

struct Program {
  int exit_code = 0;
  std::string out, err;
};

// `gpubench <args>`, in this process, through the command line main.cpp runs.
Program gpubench(std::vector<std::string> args) {
  args.insert(args.begin(), "gpubench");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  std::streambuf* const cout = std::cout.rdbuf(out.rdbuf());
  std::streambuf* const cerr = std::cerr.rdbuf(err.rdbuf());
  Program program;
  program.exit_code = run_program(static_cast<int>(argv.size()) - 1, argv.data());
  std::cout.rdbuf(cout);
  std::cerr.rdbuf(cerr);
  program.out = out.str();
  program.err = err.str();
  return program;
}

// Where the runs write: a folder of this process's, emptied first.
const fs::path& work_dir() {
  static const fs::path dir = [] {
    const fs::path made = fs::temp_directory_path() / ("gpubench-synthetic-op-" + std::to_string(::getpid()));
    fs::remove_all(made);
    fs::create_directories(made);
    return made;
  }();
  return dir;
}

std::string path_of(const std::string& name) { return (work_dir() / name).string(); }
std::string database() { return "sqlite:" + path_of("history.db"); }

// negate over four sizes and f32 and f64 on the two negate backends and on eigen and openblas,
// which have no kernel for it: `gpubench run --op negate`, written to run.json and stored.
std::vector<std::string> run_arguments(const std::string& out) {
  return {"run",      "--op",        kName,    "--backend", "host-negate,device-negate,eigen,openblas",
          "--dtype",  "f32,f64",     "--size", "1K,4K,16K,64K", "--warmup",  "1",
          "--min-samples", "5",      "--min-time", "0",    "--max-time", "2",
          "--relative-to", "host-negate", "--out", path_of(out)};
}

const Program& first_run() {
  static const Program program = [] {
    std::vector<std::string> args = run_arguments("run.json");
    args.insert(args.end(), {"--db", database(), "--tag", "commit=first"});
    return gpubench(args);
  }();
  return program;
}

const LoadedReport& report() {
  static const LoadedReport loaded = [] {
    if (first_run().exit_code != 0) throw std::runtime_error("gpubench run failed: " + first_run().err);
    return read_json_report(path_of("run.json"));
  }();
  return loaded;
}

const std::vector<ResultRecord>& suite_results() { return report().results; }
const Context& suite_context() { return report().context; }

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
    EXPECT_STREQ(error.what(), "unknown op 'negat' (did you mean 'negate'? expected one of: sin, sqrt, sum, matmul, spmv, negate)");
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
  ASSERT_TRUE(kBackendsRegistered);
  EXPECT_THROW(register_backend([] { return std::make_unique<NegateBackend>("eigen", DeviceKind::cpu, kHostModel); }),
               std::invalid_argument);
}

TEST(SyntheticOp, ListShowsItAndItsBackends) {
  const Program list = gpubench({"list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(kName), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("device-negate"), std::string::npos) << list.out;
}

TEST(SyntheticOp, TheCommandLineRefusesFlagsOfOtherShapeKinds) {
  const Program run = gpubench({"run", "--op", kName, "--backend", "host-negate", "--shape", "4x4x4"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--shape applies to matmul, and no --op is matmul"), std::string::npos) << run.err;
}

TEST(SyntheticOp, RunsFromTheCommandLineThroughTheRunnerAndVerification) {
  ASSERT_EQ(first_run().exit_code, 0) << first_run().err;
  const auto& results = suite_results();
  ASSERT_EQ(results.size(), kSizes.size() * 2 * 4);
  for (const char* dtype : {"f32", "f64"})
    for (std::int64_t n : kSizes) {
      for (const char* backend : {"host-negate", "device-negate"}) {
        const ResultRecord record = find(results, std::string(kName) + "/" + backend + "/" + dtype + "/" + std::to_string(n));
        EXPECT_EQ(record.status, Status::ok) << record.reason;
        EXPECT_TRUE(record.verification.passed);
        EXPECT_EQ(record.verification.entries_checked, n);
        EXPECT_EQ(record.verification.tolerance, 0);
        EXPECT_EQ(record.verification.method, "all " + std::to_string(n) + " entries; error / |x| (negation is exact)");
        EXPECT_EQ(record.input_distribution, "uniform[-2,2)");
        EXPECT_EQ(record.bytes, 2.0 * static_cast<double>(n) * (std::string(dtype) == "f32" ? 4 : 8));
        EXPECT_GT(record.gbps, 0);
        EXPECT_EQ(record.roofline.bound, Bound::memory);
        EXPECT_FALSE(record.spec.l2.has_value());  // neither flushes an L2
      }
      for (const std::string backend : {"eigen", "openblas"}) {
        const ResultRecord record = find(results, std::string(kName) + "/" + backend + "/" + dtype + "/" + std::to_string(n));
        EXPECT_EQ(record.status, Status::skipped);
        EXPECT_EQ(record.reason, backend + " has no negate kernel");
      }
    }
  const ResultRecord host = find(results, "negate/host-negate/f32/65536");
  EXPECT_EQ(host.roofline.ceiling, suite_context().cpu_copy_gbps);  // the run measured the host's copy
  EXPECT_GT(host.roofline.fraction, 0);
  const ResultRecord large = find(results, "negate/device-negate/f32/65536");
  EXPECT_DOUBLE_EQ(large.stats.median, kDeviceModel.fixed_s + kDeviceModel.per_element_s * 65536);
  EXPECT_EQ(suite_context().settings.at("seed"), SettingValue(std::int64_t{42}));  // RunConfig's settings, recorded
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

// The scripted sensors run below the throttle threshold. The telemetry table shows no
// efficiency (the energy table does, from an energy measurement, which this case has no
// counter for); the record's telemetry keeps it per byte, as the op's entry shows no flop rate.
TEST(SyntheticOp, TheTelemetryTableShowsItsDeviceCases) {
  ASSERT_EQ(first_run().exit_code, 0) << first_run().err;
  const std::string& console = first_run().out;
  const std::size_t table = console.find("GPU telemetry while measuring:");
  ASSERT_NE(table, std::string::npos) << console;
  const std::string row = line_containing(console.substr(table), "negate/device-negate/f32/65536 ");
  EXPECT_NE(row.find("1500 [1500-1500]"), std::string::npos) << console;
  EXPECT_EQ(row.find("GB/J"), std::string::npos) << row;
  EXPECT_EQ(row.find("GFLOP/J"), std::string::npos) << row;
  const ResultRecord record = find(suite_results(), "negate/device-negate/f32/65536");
  ASSERT_TRUE(record.telemetry.has_value());
  EXPECT_EQ(record.telemetry->flagged_samples, record.samples_s.size());
  EXPECT_GT(record.telemetry->gb_per_j, 0);
  EXPECT_FALSE(find(suite_results(), "negate/host-negate/f32/65536").telemetry.has_value());
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
  const Program rendered = gpubench({"report", path_of("run.json")});  // the command that shows the summary
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_NE(rendered.out.find("negate f32"), std::string::npos) << rendered.out;
}

TEST(SyntheticOp, ConsoleAndMarkdownShowTheRatesItsEntryNames) {
  ReportOptions options;
  options.relative_to = "host-negate";
  const std::string& console = first_run().out;
  EXPECT_NE(console.find("negate/device-negate/f64/65536"), std::string::npos) << console;
  EXPECT_NE(console.find("skipped: eigen has no negate kernel"), std::string::npos) << console;

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
  const LoadedReport loaded = parse_json_report(text, "negate.json");
  ASSERT_EQ(loaded.results.size(), suite_results().size());
  for (std::size_t i = 0; i < loaded.results.size(); ++i) {
    EXPECT_EQ(loaded.results[i].spec.op, kNegate);
    EXPECT_EQ(loaded.results[i].spec.id(), suite_results()[i].spec.id());
  }
  EXPECT_EQ(render_json(loaded.context, loaded.results), text);
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
  ASSERT_EQ(first_run().exit_code, 0) << first_run().err;
  const Program html = gpubench({"report", path_of("run.json"), "--html", path_of("run.html")});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  std::ifstream file(path_of("run.html"));
  const std::string page((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("data-op=\"negate\" data-dtype=\"f32\""), std::string::npos);
  EXPECT_NE(page.find("data-op=\"negate\" data-dtype=\"f64\""), std::string::npos);
}

// A second run compares itself with the first (its baseline) and is compared again by
// `gpubench compare`: the scripted timings are the same, so nothing regressed.
TEST(SyntheticOp, CompareJudgesItsCases) {
  ASSERT_EQ(first_run().exit_code, 0) << first_run().err;
  std::vector<std::string> args = run_arguments("again.json");
  args.insert(args.end(), {"--baseline", path_of("run.json")});
  const Program again = gpubench(args);
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  EXPECT_NE(again.out.find("negate/device-negate/f32/65536"), std::string::npos);
  const Program compare = gpubench({"compare", path_of("run.json"), path_of("again.json"), "--format", "json"});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  const auto comparison = nlohmann::json::parse(compare.out);
  std::size_t negate_cases = 0;
  for (const auto& compared : comparison["cases"])
    if (compared["id"].get<std::string>().rfind("negate/", 0) == 0) ++negate_cases;
  EXPECT_EQ(negate_cases, suite_results().size());
}

// The first run was stored (--db, --tag); the history reads it back by case.
TEST(SyntheticOp, TheStoreKeepsItsRun) {
  ASSERT_EQ(first_run().exit_code, 0) << first_run().err;
  EXPECT_NE(first_run().err.find("stored as run 1"), std::string::npos) << first_run().err;
  const Program listed = gpubench({"history", "list", "--db", database()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("commit=first"), std::string::npos) << listed.out;
  const Program shown = gpubench({"history", "show", "--db", database(), "--case", "negate/device-negate/f64/16384"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("negate/device-negate/f64/16384"), std::string::npos) << shown.out;
}

// What makes the proof: the op lives in this file alone.
TEST(SyntheticOp, NoFileOutsideTheTestsNamesIt) {
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
