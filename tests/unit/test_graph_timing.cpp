// Launch-free (graph) timing against a scripted GPU-like backend: the mode's name and case id,
// the refusal for CPU backends, the graph strategy's samples (replay time / launches), its cold
// variant (evictions subtracted), cases that cannot be captured, and the kernel-vs-graph table.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "measure/runner.hpp"
#include "model/problem.hpp"
#include "report/report.hpp"
#include "scripted_backend.hpp"

namespace gpb {
namespace {

// Device time as a scripted sum: each op run costs op_s, each eviction evict_s; a plain
// launch (run() outside a graph) also costs launch_s, the per-launch overhead a graph avoids.
struct GraphScript : testing::BackendScript {
  GraphScript() { kind = DeviceKind::gpu; }
  double op_s = 2e-6;
  double evict_s = 30e-6;
  double launch_s = 3e-6;
  double elapsed = 0;  // device seconds so far
  int plain_runs = 0;
  int graph_runs = 0;
  int captures = 0;
  bool capturable = true;

  // The timer's clock: the device seconds so far.
  double timer_mark() const { return elapsed; }
  double seconds_between(double start, double stop) const { return stop - start; }
};

class ScriptedGraph final : public LaunchGraph {
 public:
  ScriptedGraph(GraphScript& script, std::int64_t launches, bool evictions, bool op)
      : script_(script), launches_(launches), evictions_(evictions), op_(op) {}
  void replay() override {
    for (std::int64_t i = 0; i < launches_; ++i) {
      if (evictions_) script_.elapsed += script_.evict_s;
      if (op_) {
        script_.elapsed += script_.op_s;
        ++script_.graph_runs;
      }
    }
  }
  std::int64_t launches() const override { return launches_; }

 private:
  GraphScript& script_;
  std::int64_t launches_;
  bool evictions_, op_;
};

class ScriptedPrepared final : public Prepared {
 public:
  ScriptedPrepared(GraphScript& script, const Problem& problem) : script_(script), problem_(problem) {}
  void run() override {
    script_.elapsed += script_.op_s + script_.launch_s;
    ++script_.plain_runs;
  }
  bool has_cache_flush() const override { return true; }
  void flush_cache() override { script_.elapsed += script_.evict_s; }
  GraphCapture capture_graph(std::int64_t launches, bool evictions, bool op) override {
    if (!script_.capturable) return {nullptr, "cudaMalloc inside run() under stream capture"};
    ++script_.captures;
    return {std::make_unique<ScriptedGraph>(script_, launches, evictions, op), {}};
  }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<testing::ScriptedTimer<GraphScript>>(script_); }
  HostArray result() override {
    std::vector<float> out(problem_.x.size());
    // What a correct sqrt gives, once the op has run at all.
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = script_.graph_runs + script_.plain_runs > 0 ? static_cast<float>(std::sqrt(problem_.x.at(i))) : std::nanf("");
    return HostArray(std::move(out));
  }

 private:
  GraphScript& script_;
  const Problem& problem_;
};

struct GraphTimingTest : testing::ScriptedCaseTest<GraphScript, ScriptedPrepared> {
  void SetUp() override {
    ScriptedCaseTest::SetUp();
    spec.timing = TimingMode::graph;
    spec.l2 = L2Mode::warm;
  }
};

TEST(GraphTimingMode, ParsesNamesAndTagsTheCaseId) {
  EXPECT_EQ(parse_timing_mode("graph"), TimingMode::graph);
  EXPECT_EQ(to_string(TimingMode::graph), "graph");
  CaseSpec spec;
  spec.op = Op::sin;
  spec.backend = "cuda";
  spec.shape = elementwise_shape(1024);
  const std::string kernel_id = spec.id();
  spec.timing = TimingMode::graph;
  EXPECT_EQ(spec.id(), kernel_id + "/graph");
  // compare matches by id: kernel and graph are different cases.
  CaseSpec kernel = spec;
  kernel.timing = TimingMode::kernel;
  EXPECT_NE(kernel.id(), spec.id());
  try {
    parse_timing_mode("graphs");
    FAIL() << "parse_timing_mode accepted 'graphs'";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("graph"), std::string::npos) << error.what();
  }
}

TEST_F(GraphTimingTest, CpuBackendIsSkippedWithTheReason) {
  script.kind = DeviceKind::cpu;
  EXPECT_FALSE(timing_support(backend, TimingMode::graph).supported);
  EXPECT_TRUE(timing_support(backend, TimingMode::kernel).supported);
  EXPECT_TRUE(timing_support(backend, TimingMode::e2e).supported);
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.status, Status::skipped);
  EXPECT_NE(record.reason.find("CUDA graph"), std::string::npos) << record.reason;
  EXPECT_NE(record.reason.find("CPU"), std::string::npos) << record.reason;
  EXPECT_TRUE(record.samples_s.empty());
  EXPECT_EQ(script.plain_runs + script.graph_runs, 0);
}

// Every sample is the replay time over the launches: the op's own time, without the
// per-launch overhead a plain launch pays; nothing of the case runs outside a graph, so the
// verified output is the graphs'.
TEST_F(GraphTimingTest, SamplesAreReplayTimeOverLaunches) {
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  EXPECT_TRUE(record.verification.passed);
  EXPECT_EQ(script.plain_runs, 0);
  ASSERT_GE(record.samples_s.size(), 10u);
  for (double sample : record.samples_s) EXPECT_NEAR(sample, 2e-6, 1e-15);
  // 1 ms samples of 2 us ops (the probe replay's estimate): 500 launches in one graph.
  EXPECT_EQ(record.batch, 500);
  EXPECT_NE(record.timing_note.find("CUDA graph of 500 launches"), std::string::npos) << record.timing_note;
  EXPECT_EQ(script.captures, 2);  // the one-launch probe, then the measured graph
}

// Long batches are split into replays of a graph of at most 1024 launches.
TEST_F(GraphTimingTest, ShortOpsReplayAGraphSeveralTimes) {
  script.op_s = 0.1e-6;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  EXPECT_EQ(record.batch % 1024, 0);
  EXPECT_GE(static_cast<double>(record.batch) * 0.1e-6, 1e-3 - 1e-12);
  EXPECT_NE(record.timing_note.find("CUDA graph of 1024 launches"), std::string::npos) << record.timing_note;
  for (double sample : record.samples_s) EXPECT_NEAR(sample, 0.1e-6, 1e-15);
}

// With a cold L2, an eviction precedes every launch in the graph, and the replay of the
// evictions alone is subtracted: the samples are the cold op's time.
TEST_F(GraphTimingTest, ColdL2SubtractsTheEvictions) {
  spec.l2 = L2Mode::flush;
  script.op_s = 5e-6;
  const ResultRecord record = run_case(spec, problem, backend, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  for (double sample : record.samples_s) EXPECT_NEAR(sample, 5e-6, 1e-12);
  EXPECT_NE(record.timing_note.find("L2 eviction node before each"), std::string::npos) << record.timing_note;
  EXPECT_NE(record.timing_note.find("30 us"), std::string::npos) << record.timing_note;
  EXPECT_EQ(script.captures, 3);  // probe, the graph with the op, the evictions alone
}

// An op lost in the evictions' time (nothing left after subtracting) fails with the reason
// instead of reporting a zero or negative time.
TEST_F(GraphTimingTest, ColdL2WithNothingLeftFails) {
  spec.l2 = L2Mode::flush;
  script.op_s = 0;
  options.stopping.max_samples = 20;  // zero samples never converge
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.status, Status::failed);
  EXPECT_NE(record.reason.find("L2 evictions"), std::string::npos) << record.reason;
}

TEST_F(GraphTimingTest, UncapturableCaseIsSkippedWithTheReason) {
  script.capturable = false;
  const ResultRecord record = run_case(spec, problem, backend, options);
  EXPECT_EQ(record.status, Status::skipped);
  EXPECT_EQ(record.reason, "graph timing: cudaMalloc inside run() under stream capture");
  EXPECT_TRUE(record.samples_s.empty());
  EXPECT_EQ(script.plain_runs, 0);  // never timed another way
}

// Kernel timing of the same case pays the launch on every op: the table puts the two side by side.
TEST_F(GraphTimingTest, KernelAndGraphSideBySide) {
  spec.timing = TimingMode::kernel;
  options.min_sample_s = 1e-3;
  const ResultRecord kernel = run_case(spec, problem, backend, options);
  spec.timing = TimingMode::graph;
  const ResultRecord graph = run_case(spec, problem, backend, options);
  ASSERT_EQ(kernel.status, Status::ok) << kernel.reason;
  ASSERT_EQ(graph.status, Status::ok) << graph.reason;
  EXPECT_NEAR(kernel.stats.median, 5e-6, 1e-12);
  EXPECT_NEAR(graph.stats.median, 2e-6, 1e-12);

  Context context;
  const std::string console = render_console(context, {kernel, graph});
  const auto title = console.find("Kernel vs graph timing");
  ASSERT_NE(title, std::string::npos) << console;
  const std::string section = console.substr(title);
  EXPECT_NE(section.find(kernel.spec.id()), std::string::npos) << section;
  EXPECT_NE(section.find("2.50x"), std::string::npos) << section;  // 5 us / 2 us
  EXPECT_NE(render_markdown(context, {kernel, graph}).find("Kernel vs graph timing"), std::string::npos);
  EXPECT_NE(render_html(context, {kernel, graph}).find("id=\"launch-overhead\""), std::string::npos);
  // Without the kernel twin, no section.
  EXPECT_EQ(render_console(context, {graph}).find("Kernel vs graph timing"), std::string::npos);
}

}  // namespace
}  // namespace gpb
