// The HTML report's structure: a time and a throughput plot per op/dtype and a speed-up plot
// where the group has a CPU-GPU pair (never an empty one), the expected series and points in
// each, x axes named by the op table, ceilings and crossover marks, notes merged across
// backends, one spelling of microseconds, escaping, and no external requests; the history's
// trend page marks planted slowdowns. (tests/cli/test_report_html.py renders both in a real
// browser.)
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "analysis/history.hpp"
#include "analysis/summary.hpp"
#include "model/op_table.hpp"
#include "report/history_report.hpp"
#include "report/report.hpp"

namespace gpb {
namespace {

ResultRecord measured(Op op, const std::string& backend, DeviceKind device, DType dtype, const Shape& shape, double median_s,
                      TimingMode timing = TimingMode::kernel) {
  ResultRecord r;
  r.spec.op = op;
  r.spec.backend = backend;
  r.spec.dtype = dtype;
  r.spec.shape = shape;
  r.spec.timing = timing;
  r.device = device;
  r.stats.count = 5;
  r.stats.median = median_s;
  r.stats.p5 = median_s * 0.9;
  r.stats.p95 = median_s * 1.2;
  r.bytes = 8.0 * static_cast<double>(footprint_elements(op, shape));
  r.flops = op == Op::matmul ? 2.0 * static_cast<double>(shape.m * shape.n * shape.k) : r.bytes / 8;
  r.gbps = r.bytes / median_s / 1e9;
  r.gflops = r.flops / median_s / 1e9;
  r.verification = {true, true, 100, 0, 1e-6, "all entries"};
  return r;
}

// sin f32 on eigen, cuda (kernel) and cuda (e2e) at four sizes, where the GPU wins from
// 10^4 elements kernel-only; matmul f64 on eigen and openblas only at three sizes; one
// skipped and one failed record that no plot shows.
std::vector<ResultRecord> sample_results() {
  std::vector<ResultRecord> results;
  for (double n : {1024.0, 4096.0, 16384.0, 65536.0}) {
    const Shape shape = elementwise_shape(static_cast<std::int64_t>(n));
    results.push_back(measured(Op::sin, "eigen", DeviceKind::cpu, DType::f32, shape, n * 1e-9));
    results.push_back(measured(Op::sin, "cuda", DeviceKind::gpu, DType::f32, shape, 1e-5));
    results.push_back(measured(Op::sin, "cuda", DeviceKind::gpu, DType::f32, shape, 1e-5 + n * 4e-9, TimingMode::e2e));
  }
  for (std::int64_t n : {64, 128, 256}) {
    const double time = 1e-9 * static_cast<double>(n * n * n);
    results.push_back(measured(Op::matmul, "eigen", DeviceKind::cpu, DType::f64, matmul_shape(n, n, n), time));
    results.push_back(measured(Op::matmul, "openblas", DeviceKind::cpu, DType::f64, matmul_shape(n, n, n), time / 2));
  }
  ResultRecord skipped = measured(Op::sin, "cub", DeviceKind::gpu, DType::f32, elementwise_shape(1024), 1e-6);
  skipped.status = Status::skipped;
  skipped.stats = {};
  skipped.reason = "no CUDA device";
  results.push_back(skipped);
  ResultRecord failed = measured(Op::sin, "cub", DeviceKind::gpu, DType::f32, elementwise_shape(4096), 1e-6);
  failed.status = Status::failed;
  failed.verification.passed = false;
  results.push_back(failed);
  return results;
}

Context sample_context() {
  Context context;
  context.tool_version = "0.1.0";
  context.hostname = "bench-01";
  context.argv = {"gpubench", "run", "--op", "sin,matmul"};
  GpuInfo gpu;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.theoretical_bandwidth_gbps = 3352.32;
  gpu.copy_gbps = 2900;
  context.gpus = {gpu};
  return context;
}

std::string attribute(const std::string& tag, const std::string& name) {
  std::smatch match;
  if (std::regex_search(tag, match, std::regex("\\s" + name + "=\"([^\"]*)\""))) return match[1];
  return "<none>";
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

struct SvgPlot {
  std::string tag;   // the opening <svg ...>
  std::string body;  // up to </svg>
};

std::vector<SvgPlot> plots_of(const std::string& html) {
  std::vector<SvgPlot> plots;
  for (auto at = html.find("<svg class=\"plot\""); at != std::string::npos; at = html.find("<svg class=\"plot\"", at + 1)) {
    const auto tag_end = html.find('>', at);
    const auto end = html.find("</svg>", tag_end);
    plots.push_back({html.substr(at, tag_end + 1 - at), html.substr(tag_end + 1, end - tag_end - 1)});
  }
  return plots;
}

// backend/timing -> number of points, read from the plot's series groups.
std::map<std::string, std::size_t> series_points(const SvgPlot& plot) {
  std::map<std::string, std::size_t> points;
  const std::string marker = "<g class=\"series\"";
  for (auto at = plot.body.find(marker); at != std::string::npos; at = plot.body.find(marker, at + 1)) {
    const std::string tag = plot.body.substr(at, plot.body.find('>', at) + 1 - at);
    const std::string inner = plot.body.substr(at, plot.body.find("</g>", at) - at);
    const std::size_t circles = count(inner, "<circle class=\"point\"");
    EXPECT_EQ(attribute(tag, "data-points"), std::to_string(circles)) << tag;
    points[attribute(tag, "data-backend") + "/" + attribute(tag, "data-timing")] = circles;
  }
  EXPECT_EQ(attribute(plot.tag, "data-series"), std::to_string(points.size())) << plot.tag;
  return points;
}

const SvgPlot& find_plot(const std::vector<SvgPlot>& plots, const std::string& op, const std::string& kind) {
  for (const auto& plot : plots)
    if (attribute(plot.tag, "data-op") == op && attribute(plot.tag, "data-kind") == kind) return plot;
  ADD_FAILURE() << "no " << kind << " plot for " << op;
  return plots.front();
}

TEST(HtmlReport, TimeAndThroughputPerOpAndDtypeAndSpeedupWhereThereIsOne) {
  const auto plots = plots_of(render_html(sample_context(), sample_results()));
  ASSERT_EQ(plots.size(), 5u) << "matmul ran on the CPU only: no speed-up plot";
  for (const char* op : {"sin", "matmul"})
    for (const char* kind : {"time", "throughput", "speedup"}) {
      if (std::string(op) == "matmul" && std::string(kind) == "speedup") continue;
      const SvgPlot plot = find_plot(plots, op, kind);
      EXPECT_EQ(attribute(plot.tag, "data-dtype"), std::string(op) == "sin" ? "f32" : "f64");
      EXPECT_EQ(attribute(plot.tag, "data-variant"), "");
    }
  for (const auto& plot : plots)
    EXPECT_NE(attribute(plot.tag, "data-op") + "/" + attribute(plot.tag, "data-kind"), "matmul/speedup");
}

TEST(HtmlReport, SeriesAndPointsFollowTheRecords) {
  const auto plots = plots_of(render_html(sample_context(), sample_results()));
  const std::map<std::string, std::size_t> sin_series = {{"eigen/kernel", 4}, {"cuda/kernel", 4}, {"cuda/e2e", 4}};
  EXPECT_EQ(series_points(find_plot(plots, "sin", "time")), sin_series);
  EXPECT_EQ(series_points(find_plot(plots, "sin", "throughput")), sin_series);
  const std::map<std::string, std::size_t> sin_speedups = {{"best-gpu-vs-best-cpu/kernel", 4}, {"best-gpu-vs-best-cpu/e2e", 4}};
  EXPECT_EQ(series_points(find_plot(plots, "sin", "speedup")), sin_speedups);

  const std::map<std::string, std::size_t> matmul_series = {{"eigen/kernel", 3}, {"openblas/kernel", 3}};
  EXPECT_EQ(series_points(find_plot(plots, "matmul", "time")), matmul_series);
  EXPECT_EQ(series_points(find_plot(plots, "matmul", "throughput")), matmul_series);
  for (const auto& plot : plots) EXPECT_FALSE(series_points(plot).empty()) << "an empty plot: " << plot.tag;
}

TEST(HtmlReport, AGroupWithoutGpuSaysSoInOneLineInsteadOfAnEmptyPlot) {
  const std::string html = render_html(sample_context(), sample_results());
  const auto matmul = html.find("<section class=\"group\" id=\"group-matmul-f64\">");
  ASSERT_NE(matmul, std::string::npos);
  const std::string section = html.substr(matmul, html.find("</section>", matmul) - matmul);
  EXPECT_EQ(count(section, "<p class=\"no-speedup\">No speed-up: no GPU result</p>"), 1u) << section;
  EXPECT_EQ(count(section, "data-kind=\"speedup\""), 0u);
  EXPECT_EQ(count(html, "No GPU cases"), 0u) << "sin has GPU results";
}

TEST(HtmlReport, CpuOnlyRunShowsNoSpeedupAndSaysWhyOnce) {
  std::vector<ResultRecord> cpu_only;
  for (const auto& record : sample_results())
    if (record.device == DeviceKind::cpu) cpu_only.push_back(record);
  const std::string html = render_html(sample_context(), cpu_only);
  const auto plots = plots_of(html);
  ASSERT_EQ(plots.size(), 4u) << "time and throughput for sin f32 and matmul f64";
  for (const auto& plot : plots) {
    EXPECT_NE(attribute(plot.tag, "data-kind"), "speedup");
    EXPECT_FALSE(series_points(plot).empty()) << plot.tag;
  }
  EXPECT_EQ(count(html, "speed-up"), 1u) << html;
  EXPECT_EQ(count(html, "<p class=\"no-speedup\">No GPU cases: no speed-up (every case ran on the CPU).</p>"), 1u);
  EXPECT_EQ(count(html, "No speed-up:"), 0u);
  EXPECT_EQ(count(html, "<table class=\"speedup\">"), 0u);
}

TEST(HtmlReport, XAxisNamesWhatEachOpsSizeCounts) {
  auto results = sample_results();
  for (std::int64_t rows : {1024, 4096}) {
    Shape shape;
    shape.rows = rows;
    shape.cols = rows;
    shape.nnz_per_row = 16;
    shape.nnz = rows * 16 - 3;
    results.push_back(measured(Op::spmv, "eigen", DeviceKind::cpu, DType::f32, shape, 1e-6 * static_cast<double>(rows)));
  }
  const auto plots = plots_of(render_html(sample_context(), results));
  const std::map<std::string, std::string> expected = {
      {"sin", "size: elements (n)"}, {"matmul", "size: m\u00b7n (entries of C)"}, {"spmv", "size: nonzeros"}};
  std::map<std::string, std::size_t> seen;
  for (const auto& plot : plots) {
    const std::string op = attribute(plot.tag, "data-op");
    ASSERT_EQ(expected.count(op), 1u) << op;
    EXPECT_EQ(expected.at(op), "size: " + op_footprint_name(parse_op(op))) << "the op table names the axis";
    EXPECT_NE(plot.body.find("<text class=\"axis-title\" x=\"190\" y=\"298\" text-anchor=\"middle\">" + expected.at(op) + "</text>"),
              std::string::npos)
        << plot.body;
    EXPECT_EQ(attribute(plot.tag, "data-x"), expected.at(op));
    ++seen[op];
  }
  EXPECT_EQ(seen, (std::map<std::string, std::size_t>{{"sin", 3}, {"matmul", 2}, {"spmv", 2}}));
  // The points sit at the footprint the axis names: m*n for matmul, the nonzeros for spmv.
  EXPECT_NE(find_plot(plots, "matmul", "time").body.find("data-size=\"16384\""), std::string::npos);
  EXPECT_NE(find_plot(plots, "spmv", "time").body.find("data-size=\"65533\""), std::string::npos);
}

TEST(HtmlReport, BackendsSkippedForOneReasonShareOneNote) {
  Context context = sample_context();
  context.notes = {"backend cuda skipped: CUDA driver version is insufficient for CUDA runtime version",
                   "backend cublas skipped: CUDA driver version is insufficient for CUDA runtime version",
                   "backend openblas skipped: not built",
                   "backend cub skipped: CUDA driver version is insufficient for CUDA runtime version",
                   "GPU 0 telemetry unavailable (no NVML): no clocks, power or energy in the records",
                   "GPU 1 telemetry unavailable (no NVML): no clocks, power or energy in the records",
                   "GPU backends unavailable: no CUDA device",
                   "GPU backends unavailable: no CUDA device"};
  const std::string html = render_html(context, sample_results());
  EXPECT_EQ(count(html, "<p class=\"note\">"), 4u) << html;
  EXPECT_EQ(count(html, "CUDA driver version is insufficient"), 1u);
  EXPECT_NE(html.find("<p class=\"note\">Note: backends cuda, cublas, cub skipped: CUDA driver version is insufficient for CUDA "
                      "runtime version</p><p class=\"note\">Note: backend openblas skipped: not built</p>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("Note: GPUs 0, 1 telemetry unavailable (no NVML)"), std::string::npos);
  EXPECT_EQ(count(html, "GPU backends unavailable: no CUDA device"), 1u);
}

TEST(HtmlReport, MicrosecondsAreSpelledAsTheConsoleSpellsThem) {
  std::vector<ResultRecord> results;
  for (double n : {1024.0, 4096.0, 16384.0})
    results.push_back(measured(Op::sin, "eigen", DeviceKind::cpu, DType::f32, elementwise_shape(static_cast<std::int64_t>(n)),
                               n * 3e-9));
  const std::string html = render_html(sample_context(), results);
  EXPECT_EQ(html.find("\u00b5"), std::string::npos) << "a micro sign";
  EXPECT_EQ(html.find("\u03bc"), std::string::npos) << "a Greek mu";
  EXPECT_NE(html.find(">10 us</text>"), std::string::npos) << "an axis tick";
  EXPECT_NE(html.find(format_seconds(3072e-9)), std::string::npos) << "a tooltip";
  EXPECT_NE(format_seconds(3072e-9).find(" us"), std::string::npos);
}

TEST(HtmlReport, PointsCarryTheirSizeAndValue) {
  const SvgPlot time = find_plot(plots_of(render_html(sample_context(), sample_results())), "sin", "time");
  EXPECT_NE(time.body.find("<circle class=\"point\" cx=\""), std::string::npos);
  EXPECT_NE(time.body.find("data-size=\"16384\" data-value=\"1.6384e-05\""), std::string::npos) << time.body;
  EXPECT_EQ(count(time.body, "<line class=\"spread\""), 12u);
}

TEST(HtmlReport, BandwidthCeilingsForMemoryBoundOpsOnly) {
  const auto plots = plots_of(render_html(sample_context(), sample_results()));
  const SvgPlot sin = find_plot(plots, "sin", "throughput");
  std::map<std::string, double> ceilings;  // name -> bytes per second
  const std::regex ceiling("<g class=\"ceiling\" data-name=\"([^\"]+)\" data-value=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(sin.body.begin(), sin.body.end(), ceiling); it != std::sregex_iterator(); ++it)
    ceilings[(*it)[1]] = std::stod((*it)[2]);
  ASSERT_EQ(ceilings.size(), 2u) << sin.body;
  EXPECT_NEAR(ceilings["gpu0-theoretical"], 3352.32e9, 1);
  EXPECT_NEAR(ceilings["gpu0-copy"], 2900e9, 1);
  EXPECT_EQ(count(find_plot(plots, "matmul", "throughput").body, "<g class=\"ceiling\""), 0u);
}

TEST(HtmlReport, CrossoverIsMarkedOnTheSpeedupPlot) {
  const SvgPlot speedup = find_plot(plots_of(render_html(sample_context(), sample_results())), "sin", "speedup");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(speedup.body, match, std::regex("<g class=\"crossover\" data-timing=\"kernel\" data-size=\"([^\"]+)\"")));
  EXPECT_NEAR(std::stod(match[1]), 1e4, 1e-6);
  EXPECT_EQ(count(speedup.body, "<g class=\"crossover\""), 1u) << "end to end the GPU never wins here";
}

TEST(HtmlReport, SelfContainedWithNoExternalRequests) {
  const std::string html = render_html(sample_context(), sample_results());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex("href=\"[^#]")));
  EXPECT_FALSE(std::regex_search(html, std::regex("url\\(")));
}

TEST(HtmlReport, EscapesEveryStringFromTheReport) {
  Context context = sample_context();
  context.hostname = "<script>alert(1)</script>";
  context.argv.push_back("--out=\"a&b.json\"");
  context.notes = {"<img src=x onerror=alert(2)>"};
  auto results = sample_results();
  for (auto& record : results)
    if (record.spec.backend == "eigen") record.spec.backend = "ei<g>en\"'&";
  results.back().reason = "<b>bold</b>";
  const std::string html = render_html(context, results);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_EQ(html.find("ei<g>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("data-backend=\"ei&lt;g&gt;en&quot;&#39;&amp;\""), std::string::npos);
  EXPECT_NE(html.find("--out=&quot;a&amp;b.json&quot;"), std::string::npos);
}

TEST(HtmlReport, ContextSummaryAndResultsTable) {
  ReportOptions options;
  options.relative_to = "eigen";
  const std::string html = render_html(sample_context(), sample_results(), options);
  EXPECT_NE(html.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(html.find("<code>gpubench run --op sin,matmul</code>"), std::string::npos);
  EXPECT_NE(html.find("\u22489.77K elements (interpolated between 4K and 16K)"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"speedup\">"), std::string::npos);
  EXPECT_EQ(count(html, "<table class=\"speedup\">"), 1u) << "matmul has no GPU, so no speed-up table";
  EXPECT_NE(html.find("<th>vs eigen</th>"), std::string::npos);
  EXPECT_NE(html.find("skipped: no CUDA device"), std::string::npos);
  EXPECT_NE(html.find("20 cases: 18 ok, 1 skipped, 1 failed"), std::string::npos);
}

history::HistoryPoint history_point(std::int64_t run_id, double median_s, const std::string& slowdown = "") {
  history::HistoryPoint point;
  point.run.id = run_id;
  point.run.timestamp = "2026-01-0" + std::to_string(run_id) + "T00:00:00Z";
  point.run.tags = {{"commit", "c" + std::to_string(run_id)}};
  point.median_s = median_s;
  point.ci_low_s = median_s * 0.98;
  point.ci_high_s = median_s * 1.02;
  point.samples = 20;
  point.test_slowdown = slowdown;
  return point;
}

history::CaseHistory sample_history(const std::vector<history::HistoryPoint>& points) {
  history::CaseHistory history;
  history.case_id = "sin/eigen/f32/65536";
  history.machine = "bench-01";
  history.threshold = 0.05;
  history.points = points;
  return history;
}

TEST(HistoryHtml, PlantedSlowdownRunsAreMarkedWithALegend) {
  const auto history = sample_history({history_point(1, 1e-4), history_point(2, 1e-4), history_point(3, 1e-3, "10"),
                                       history_point(4, 1e-4), history_point(5, 1.05e-3, "10.5")});
  const std::string html = render_histories_html({history}, "gpubench.db");
  EXPECT_NE(html.find("data-planted=\"2\""), std::string::npos);
  EXPECT_EQ(count(html, "<circle class=\"run planted\""), 2u);
  EXPECT_EQ(count(html, "<circle class=\"run\""), 3u);
  EXPECT_NE(html.find("<g class=\"planted\" data-run-id=\"3\" data-test-slowdown=\"10\">"), std::string::npos) << html;
  EXPECT_NE(html.find("<g class=\"planted\" data-run-id=\"5\" data-test-slowdown=\"10.5\">"), std::string::npos);
  EXPECT_EQ(count(html, "<circle class=\"planted-marker\""), 3u) << "two rings and the legend's";
  EXPECT_NE(html.find(">\u00d710</text>"), std::string::npos);
  EXPECT_NE(html.find("planted slowdown: not a regression</text>"), std::string::npos);
  EXPECT_NE(html.find("measured with GPUBENCH_TEST_SLOWDOWN=10 (a test knob, not a regression)</title>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"planted\">2 runs measured with GPUBENCH_TEST_SLOWDOWN"), std::string::npos);
}

TEST(HistoryHtml, NoMarkWithoutAPlantedRun) {
  const std::string html = render_histories_html({sample_history({history_point(1, 1e-4), history_point(2, 1.1e-4)})}, "h.db");
  EXPECT_NE(html.find("data-planted=\"0\""), std::string::npos);
  EXPECT_EQ(html.find("planted slowdown"), std::string::npos);
  EXPECT_EQ(html.find("class=\"planted"), std::string::npos);
  EXPECT_EQ(html.find("\u00b5"), std::string::npos);
}

TEST(HtmlReport, EmptyReportStillRenders) {
  const std::string html = render_html(Context{}, {});
  EXPECT_TRUE(plots_of(html).empty());
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace gpb
