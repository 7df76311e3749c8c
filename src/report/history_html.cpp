// The history's trend page: per case and machine, the median over runs with its 95 % CI
// band, segment levels and change points, in the HTML report's style.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/history_report.hpp"
#include "report/html_parts.hpp"

namespace gpb {
namespace {

using html::coordinate;
using html::escape;
using html::exact;

constexpr double kWidth = 780, kHeight = 292;
constexpr double kLeft = 80, kRight = 760, kTop = 34, kBottom = 240;  // the data area

constexpr const char* kTrendStyle = R"(
svg.trend .ci-band { fill: #0072B2; opacity: 0.18; stroke: none; }
svg.trend .series polyline { fill: none; stroke: #0072B2; stroke-width: 1.5; }
svg.trend .series circle { fill: #0072B2; }
svg.trend .segment line { stroke: #009E73; stroke-width: 2; stroke-dasharray: 6 3; }
svg.trend .change-point line { stroke: #D55E00; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.trend .change-point text { fill: #D55E00; font-size: 10px; }
svg.trend .run-label { font-size: 9px; fill: #444; }
svg.trend .planted-marker { fill: none; stroke: #CC79A7; stroke-width: 2; }
svg.trend .planted-label { fill: #CC79A7; font-size: 9px; font-weight: 600; }
svg.trend .legend text { fill: #222; font-size: 10px; }
p.planted { color: #8a3a6a; }
p.regression { color: #b00; font-weight: 600; }
)";

// Maps [low, high] onto [pixel_low, pixel_high], with ticks at 1, 2 or 5 times a power of ten.
struct LinearAxis {
  double low = 0, high = 1, pixel_low = 0, pixel_high = 1;
  double map(double value) const { return pixel_low + (value - low) / (high - low) * (pixel_high - pixel_low); }
  std::vector<double> ticks() const {
    const double raw = (high - low) / 5;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = decade * (raw / decade < 2 ? 2 : raw / decade < 5 ? 5 : 10);
    std::vector<double> out;
    for (double tick = std::ceil(low / step) * step; tick <= high; tick += step) out.push_back(tick);
    return out;
  }
};

LinearAxis time_axis(const history::CaseHistory& history) {
  double low = history.points.front().median_s, high = low;
  for (const auto& point : history.points)
    for (double value : {point.median_s, point.ci_low_s, point.ci_high_s})
      if (value > 0 && std::isfinite(value)) {
        low = std::min(low, value);
        high = std::max(high, value);
      }
  const double margin = std::max(high - low, 0.02 * high) * 0.1;
  return {std::max(0.0, low - margin), high + margin, kBottom, kTop};
}

// What a run measured under GPUBENCH_TEST_SLOWDOWN is, in its tooltip and the legend.
std::string planted_text(const std::string& factor) {
  return "planted slowdown: measured with GPUBENCH_TEST_SLOWDOWN=" + factor + " (a test knob, not a regression)";
}

std::size_t planted_runs(const history::CaseHistory& history) {
  return static_cast<std::size_t>(std::count_if(history.points.begin(), history.points.end(),
                                                 [](const history::HistoryPoint& point) { return !point.test_slowdown.empty(); }));
}

std::string trend_plot(const history::CaseHistory& history) {
  const auto& points = history.points;
  const auto& analysis = history.analysis;
  const LinearAxis y = time_axis(history);
  const double slot = (kRight - kLeft) / static_cast<double>(points.size());
  const auto x = [&](double index) { return kLeft + (index + 0.5) * slot; };

  std::ostringstream out;
  out << "<svg class=\"plot trend\" data-case=\"" << escape(history.case_id) << "\" data-machine=\"" << escape(history.machine)
      << "\" data-runs=\"" << points.size() << "\" data-change-points=\"" << analysis.change_points.size()
      << "\" data-planted=\"" << planted_runs(history) << "\" width=\""
      << kWidth << "\" height=\"" << kHeight << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" role=\"img\" aria-label=\""
      << escape(history.case_id + " on " + history.machine) << "\">";
  out << "<text class=\"plot-title\" x=\"" << kLeft << "\" y=\"18\">median per run, 95% CI band; segment medians dashed</text>";

  out << "<g class=\"axes\">";
  for (double tick : y.ticks()) {
    const std::string py = coordinate(y.map(tick));
    out << "<line class=\"grid\" x1=\"" << kLeft << "\" x2=\"" << kRight << "\" y1=\"" << py << "\" y2=\"" << py << "\"/><text x=\""
        << kLeft - 6 << "\" y=\"" << py << "\" text-anchor=\"end\" dominant-baseline=\"middle\">" << escape(format_seconds(tick))
        << "</text>";
  }
  // Every run is labelled where they fit; otherwise every k-th and each segment's first.
  const std::size_t every = std::max<std::size_t>(1, points.size() / 40 + 1);
  std::vector<bool> labelled(points.size(), false);
  for (std::size_t i = 0; i < points.size(); i += every) labelled[i] = true;
  for (const auto& change : analysis.change_points) labelled[change.index] = true;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!labelled[i]) continue;
    const std::string px = coordinate(x(static_cast<double>(i)));
    out << "<text class=\"run-label\" x=\"" << px << "\" y=\"" << kBottom + 12 << "\" text-anchor=\"end\" transform=\"rotate(-40 " << px
        << " " << kBottom + 12 << ")\">" << escape(points[i].run.label()) << "</text>";
  }
  out << "<rect class=\"frame\" x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kRight - kLeft << "\" height=\""
      << kBottom - kTop << "\"/></g>";

  std::string upper, lower;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& point = points[i];
    if (!(point.ci_low_s > 0 && point.ci_high_s > 0)) continue;
    const std::string px = coordinate(x(static_cast<double>(i)));
    upper += px + "," + coordinate(y.map(point.ci_high_s)) + " ";
    lower = px + "," + coordinate(y.map(point.ci_low_s)) + " " + lower;
  }
  if (!upper.empty()) out << "<polygon class=\"ci-band\" points=\"" << upper << lower << "\"/>";

  for (const Segment& segment : analysis.segments)
    out << "<g class=\"segment\" data-begin=\"" << segment.begin << "\" data-end=\"" << segment.end << "\" data-median=\""
        << exact(segment.median) << "\"><line x1=\"" << coordinate(x(static_cast<double>(segment.begin) - 0.4)) << "\" x2=\""
        << coordinate(x(static_cast<double>(segment.end - 1) + 0.4)) << "\" y1=\"" << coordinate(y.map(segment.median))
        << "\" y2=\"" << coordinate(y.map(segment.median)) << "\"/></g>";

  for (const ChangePoint& change : analysis.change_points) {
    const auto& run = points[change.index].run;
    const std::string px = coordinate(x(static_cast<double>(change.index) - 0.5));
    out << "<g class=\"change-point\" data-index=\"" << change.index << "\" data-run-id=\"" << run.id << "\" data-label=\""
        << escape(run.label()) << "\" data-change=\"" << exact(change.change) << "\" data-p-value=\"" << exact(change.p_value)
        << "\"><line x1=\"" << px << "\" x2=\"" << px << "\" y1=\"" << kTop << "\" y2=\"" << kBottom << "\"/><text x=\""
        << px << "\" y=\"" << kTop - 4 << "\" text-anchor=\"middle\">" << escape(run.label() + " " + format_change(change.change))
        << "</text></g>";
  }

  std::string line;
  for (std::size_t i = 0; i < points.size(); ++i)
    line += coordinate(x(static_cast<double>(i))) + "," + coordinate(y.map(points[i].median_s)) + " ";
  out << "<g class=\"series\"><polyline points=\"" << line << "\"/>";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& point = points[i];
    const bool planted = !point.test_slowdown.empty();
    std::string tooltip = point.run.label() + " (run " + std::to_string(point.run.id) + ", " + point.run.timestamp +
                          "): " + format_seconds(point.median_s) + ", 95% CI " +
                          (point.ci_low_s > 0 ? format_seconds(point.ci_low_s) : "-") + " .. " +
                          (point.ci_high_s > 0 ? format_seconds(point.ci_high_s) : "-");
    if (planted) tooltip += "; " + planted_text(point.test_slowdown);
    out << "<circle class=\"run" << (planted ? " planted" : "") << "\" cx=\"" << coordinate(x(static_cast<double>(i))) << "\" cy=\""
        << coordinate(y.map(point.median_s)) << "\" r=\"3.5\" data-run-id=\"" << point.run.id << "\" data-label=\""
        << escape(point.run.label()) << "\" data-median=\"" << exact(point.median_s) << "\"";
    if (planted) out << " data-test-slowdown=\"" << escape(point.test_slowdown) << "\"";
    out << "><title>" << escape(tooltip) << "</title></circle>";
  }
  out << "</g>";
  // A planted run gets a ring and its factor above it, and the plot a legend saying what they are.
  bool any_planted = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& point = points[i];
    if (point.test_slowdown.empty()) continue;
    any_planted = true;
    const std::string px = coordinate(x(static_cast<double>(i))), py = coordinate(y.map(point.median_s));
    out << "<g class=\"planted\" data-run-id=\"" << point.run.id << "\" data-test-slowdown=\"" << escape(point.test_slowdown)
        << "\"><title>" << escape(point.run.label() + ": " + planted_text(point.test_slowdown)) << "</title><circle class=\"planted-marker\" cx=\""
        << px << "\" cy=\"" << py << "\" r=\"7.5\"/><text class=\"planted-label\" x=\"" << px << "\" y=\""
        << coordinate(y.map(point.median_s) - 11) << "\" text-anchor=\"middle\">" << escape("\u00d7" + point.test_slowdown)
        << "</text></g>";
  }
  if (any_planted)
    out << "<g class=\"legend\"><circle class=\"planted-marker\" cx=\"" << kRight - 190 << "\" cy=\"" << kTop - 20
        << "\" r=\"5\"/><text x=\"" << kRight - 180 << "\" y=\"" << kTop - 20
        << "\" dominant-baseline=\"middle\">planted slowdown: not a regression</text></g>";
  out << "</svg>";
  return out.str();
}

}  // namespace

std::string render_histories_html(const std::vector<history::CaseHistory>& histories, const std::string& source) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpubench history</title><style>"
      << html::page_style() << kTrendStyle << "</style></head>\n<body><header><h1>gpubench history</h1><p>"
      << escape(source) << ": " << histories.size()
      << " case histories. Each plot is one case on one machine over its runs (oldest left): the median per run, its 95% "
         "confidence band, each segment's median, and the change points that start segments (E-Divisive means with a "
         "permutation test; changes under the case's threshold merged).</p></header>";
  for (const auto& history : histories) {
    out << "<section class=\"history\"><h2>" << escape(history.case_id) << "</h2><p>" << escape(history.machine) << "; "
        << history.points.size() << " runs; threshold " << escape(format_threshold(history.threshold)) << "</p>";
    if (history.points.empty()) {
      out << "<p class=\"note\">No run measured it: every stored result is skipped or failed.</p></section>";
      continue;
    }
    if (const auto regression = history::newest_regression(history))
      out << "<p class=\"regression\">Newest segment slower by " << escape(format_change(regression->change.change)) << " since "
          << escape(regression->first().run.label()) << " (run " << regression->first().run.id << ", "
          << escape(regression->first().run.timestamp) << ")"
          << (regression->first().test_slowdown.empty()
                  ? std::string()
                  : escape(", which was measured with GPUBENCH_TEST_SLOWDOWN=" + regression->first().test_slowdown +
                           ": a planted slowdown"))
          << ".</p>";
    if (const std::size_t planted = planted_runs(history))
      out << "<p class=\"planted\">" << planted << (planted == 1 ? " run" : " runs")
          << " measured with GPUBENCH_TEST_SLOWDOWN (ringed, with the factor): a planted slowdown, not a regression.</p>";
    out << "<div class=\"plots\">" << trend_plot(history) << "</div></section>";
  }
  out << "\n</body></html>\n";
  return out.str();
}

}  // namespace gpb
