// The HTML report: one self-contained page (inline CSS and SVG, no script, nothing fetched)
// with the context, the CPU-versus-GPU summary and, per op/dtype, plots of time,
// throughput and speed-up against size, and every result in a table.
//
// Plot elements carry machine-checkable attributes: <svg class="plot" data-op data-dtype
// data-variant data-kind="time|throughput|speedup" data-series=N>, each series a
// <g class="series" data-backend data-timing data-points=K> of <circle class="point">.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "analysis/fleet.hpp"
#include "model/op_table.hpp"
#include "report/costs_render.hpp"
#include "report/energy_render.hpp"
#include "report/fleet_render.hpp"
#include "report/html_parts.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/summary_render.hpp"

namespace gpb {
namespace {

// Every string that comes from a report goes through this, attributes included.
std::string escape(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// Attribute values that must read back exactly (sizes, medians), in their shortest form.
std::string exact(double value) {
  char text[32];
  for (int digits = 15;; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (digits == 17 || std::strtod(text, nullptr) == value) return text;
  }
}

// ---- plot geometry ----

// Three plots side by side fit a 1400-pixel-wide window.
constexpr double kPlotWidth = 440, kPlotHeight = 310;
constexpr double kLeft = 80, kRight = 300, kTop = 34, kBottom = 262;  // the data area; tick labels such as "100 GFLOP/s" fit left of it
constexpr double kLegendX = 308;

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
const char* const kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};

// log10(value) from `low` to `high` mapped onto [pixel_low, pixel_high]; ticks at the decades between.
struct LogAxis {
  double low = 0, high = 1;
  double pixel_low = 0, pixel_high = 1;

  double map(double value) const { return pixel_low + (std::log10(value) - low) / (high - low) * (pixel_high - pixel_low); }
  int first_decade() const { return static_cast<int>(std::ceil(low)); }
  int last_decade() const { return static_cast<int>(std::floor(high)); }
};

// Spans the positive values with a little room at both ends, and at least one decade so
// that there is always a labelled tick.
LogAxis log_axis(const std::vector<double>& values, double pixel_low, double pixel_high) {
  double smallest = 0, largest = 0;
  for (double value : values) {
    if (!(value > 0) || !std::isfinite(value)) continue;
    smallest = smallest > 0 ? std::min(smallest, value) : value;
    largest = std::max(largest, value);
  }
  LogAxis axis;
  axis.pixel_low = pixel_low;
  axis.pixel_high = pixel_high;
  if (smallest > 0) {
    axis.low = std::log10(smallest);
    axis.high = std::log10(largest);
  }
  const double centre = (axis.low + axis.high) / 2, half_span = std::max(0.5, (axis.high - axis.low) / 2 * 1.08);
  axis.low = centre - half_span;
  axis.high = centre + half_span;
  return axis;
}

// "1", "10", "100 ns", "1 us", "10 GB/s": the decade with an SI prefix. Micro is spelled
// "u", as the console and every other report spell microseconds (format_seconds: "12.3 us").
std::string decade_label(int exponent, const std::string& unit) {
  static const char* const kPrefixes[] = {"p", "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  constexpr int kFirst = -4;  // kPrefixes[0] is 10^(3 * kFirst)
  int group = exponent >= 0 ? exponent / 3 : -((-exponent + 2) / 3);
  group = std::clamp(group, kFirst, kFirst + static_cast<int>(std::size(kPrefixes)) - 1);
  char mantissa[32];
  std::snprintf(mantissa, sizeof mantissa, "%g", std::pow(10.0, exponent - 3 * group));
  const std::string prefix = kPrefixes[group - kFirst];
  if (unit.empty()) return mantissa + prefix;
  return std::string(mantissa) + " " + prefix + unit;
}

std::string speedup_decade_label(int exponent) {
  char text[32];
  std::snprintf(text, sizeof text, "%g\u00d7", std::pow(10.0, exponent));
  return text;
}

struct Point {
  double x = 0, y = 0;
  double low = 0, high = 0;  // the spread (p5..p95) where known, else 0
  std::string tooltip;
};

struct Series {
  std::string backend;  // data-backend
  TimingMode timing = TimingMode::kernel;
  std::string label, colour;
  std::vector<Point> points;  // by x
};

// A horizontal limit (a bandwidth ceiling) or a vertical mark (a crossover).
struct Guide {
  std::string name, label;
  double value = 0;
};

enum class PlotKind { time, throughput, speedup };

const char* to_string(PlotKind kind) {
  switch (kind) {
    case PlotKind::time:
      return "time";
    case PlotKind::throughput:
      return "throughput";
    case PlotKind::speedup:
      return "speedup";
  }
  return "?";
}

struct Plot {
  const SpeedupGroup* group = nullptr;
  PlotKind kind = PlotKind::time;
  std::string title, y_unit;
  std::string x_title;           // what the x axis counts, from the op table: "size: nonzeros"
  std::vector<double> x_domain;  // the group's sizes: the three plots of a group share their x axis
  std::vector<Series> series;
  std::vector<Guide> ceilings;    // horizontal
  std::vector<Guide> crossovers;  // vertical
};

void append_axes(std::ostringstream& out, const Plot& plot, const LogAxis& x, const LogAxis& y) {
  const auto y_label = [&](int exponent) {
    return plot.kind == PlotKind::speedup ? speedup_decade_label(exponent) : decade_label(exponent, plot.y_unit);
  };
  // Every decade gets a grid line; labels thin out so they never overlap.
  const int x_step = (x.last_decade() - x.first_decade() + 6) / 6, y_step = (y.last_decade() - y.first_decade() + 8) / 8;
  out << "<g class=\"axes\">";
  for (int e = x.first_decade(); e <= x.last_decade(); ++e) {
    const std::string px = number(x.map(std::pow(10.0, e)));
    out << "<line class=\"grid\" x1=\"" << px << "\" x2=\"" << px << "\" y1=\"" << kTop << "\" y2=\"" << kBottom << "\"/>";
    if ((e - x.first_decade()) % x_step == 0)
      out << "<text x=\"" << px << "\" y=\"" << kBottom + 16 << "\" text-anchor=\"middle\">" << escape(decade_label(e, "")) << "</text>";
  }
  for (int e = y.first_decade(); e <= y.last_decade(); ++e) {
    const std::string py = number(y.map(std::pow(10.0, e)));
    out << "<line class=\"grid\" x1=\"" << kLeft << "\" x2=\"" << kRight << "\" y1=\"" << py << "\" y2=\"" << py << "\"/>";
    if ((e - y.first_decade()) % y_step == 0)
      out << "<text x=\"" << kLeft - 6 << "\" y=\"" << py << "\" text-anchor=\"end\" dominant-baseline=\"middle\">"
          << escape(y_label(e)) << "</text>";
  }
  out << "<rect class=\"frame\" x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kRight - kLeft << "\" height=\""
      << kBottom - kTop << "\"/>";
  out << "<text class=\"axis-title\" x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << kPlotHeight - 12
      << "\" text-anchor=\"middle\">" << escape(plot.x_title) << "</text>";
  out << "</g>";
}

void append_series(std::ostringstream& out, const Series& series, const LogAxis& x, const LogAxis& y) {
  const bool dashed = series.timing == TimingMode::e2e;
  out << "<g class=\"series\" data-backend=\"" << escape(series.backend) << "\" data-timing=\"" << to_string(series.timing)
      << "\" data-points=\"" << series.points.size() << "\" stroke=\"" << series.colour << "\" fill=\"" << series.colour << "\">";
  std::string path;
  for (const auto& point : series.points) path += number(x.map(point.x)) + "," + number(y.map(point.y)) + " ";
  out << "<polyline fill=\"none\" stroke-width=\"1.5\"" << (dashed ? " stroke-dasharray=\"5 3\"" : "") << " points=\"" << path
      << "\"/>";
  for (const auto& point : series.points) {
    const std::string px = number(x.map(point.x));
    if (point.low > 0 && point.high > 0)
      out << "<line class=\"spread\" x1=\"" << px << "\" x2=\"" << px << "\" y1=\"" << number(y.map(point.low)) << "\" y2=\""
          << number(y.map(point.high)) << "\"/>";
    out << "<circle class=\"point\" cx=\"" << px << "\" cy=\"" << number(y.map(point.y)) << "\" r=\"3.5\" data-size=\""
        << exact(point.x) << "\" data-value=\"" << exact(point.y) << "\"><title>" << escape(point.tooltip) << "</title></circle>";
  }
  out << "</g>";
}

void append_legend(std::ostringstream& out, const Plot& plot) {
  out << "<g class=\"legend\">";
  double y = kTop + 6;
  for (const auto& series : plot.series) {
    out << "<line x1=\"" << kLegendX << "\" x2=\"" << kLegendX + 18 << "\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\""
        << series.colour << "\" stroke-width=\"2\"" << (series.timing == TimingMode::e2e ? " stroke-dasharray=\"5 3\"" : "")
        << "/><text x=\"" << kLegendX + 24 << "\" y=\"" << y << "\" dominant-baseline=\"middle\">" << escape(series.label)
        << "</text>";
    y += 16;
  }
  for (const auto& guide : plot.ceilings) {
    out << "<line class=\"ceiling\" x1=\"" << kLegendX << "\" x2=\"" << kLegendX + 18 << "\" y1=\"" << y << "\" y2=\"" << y
        << "\"/><text x=\"" << kLegendX + 24 << "\" y=\"" << y << "\" dominant-baseline=\"middle\">" << escape(guide.label)
        << "</text>";
    y += 16;
  }
  out << "</g>";
}

std::string render_plot(const Plot& plot) {
  std::vector<double> y_values;
  for (const auto& series : plot.series)
    for (const auto& point : series.points) y_values.insert(y_values.end(), {point.y, point.low, point.high});
  for (const auto& guide : plot.ceilings) y_values.push_back(guide.value);
  if (plot.kind == PlotKind::speedup) y_values.push_back(1);  // the break-even line stays in view
  const LogAxis x = log_axis(plot.x_domain, kLeft, kRight);
  const LogAxis y = log_axis(y_values, kBottom, kTop);

  const SpeedupGroup& group = *plot.group;
  std::ostringstream out;
  out << "<svg class=\"plot\" data-op=\"" << to_string(group.op) << "\" data-dtype=\"" << to_string(group.dtype) << "\" data-variant=\""
      << escape(group.variant) << "\" data-kind=\"" << to_string(plot.kind) << "\" data-x=\"" << escape(plot.x_title)
      << "\" data-series=\"" << plot.series.size()
      << "\" width=\"" << kPlotWidth << "\" height=\"" << kPlotHeight << "\" viewBox=\"0 0 " << kPlotWidth << " " << kPlotHeight
      << "\" role=\"img\" aria-label=\"" << escape(group.name() + ": " + plot.title) << "\">";
  out << "<text class=\"plot-title\" x=\"" << kLeft << "\" y=\"18\">" << escape(plot.title) << "</text>";
  append_axes(out, plot, x, y);
  if (plot.kind == PlotKind::speedup) {
    const std::string py = number(y.map(1));
    out << "<line class=\"break-even\" x1=\"" << kLeft << "\" x2=\"" << kRight << "\" y1=\"" << py << "\" y2=\"" << py << "\"/>";
  }
  for (const auto& guide : plot.ceilings) {
    const std::string py = number(y.map(guide.value));
    out << "<g class=\"ceiling\" data-name=\"" << escape(guide.name) << "\" data-value=\"" << exact(guide.value) << "\"><line x1=\""
        << kLeft << "\" x2=\"" << kRight << "\" y1=\"" << py << "\" y2=\"" << py << "\"/></g>";
  }
  // Labels sit beside their line, towards the plot's middle, one per row so that two
  // crossovers close together stay readable.
  double label_y = kTop - 4;
  for (const auto& guide : plot.crossovers) {
    const double px = x.map(guide.value);
    const bool left_half = px < (kLeft + kRight) / 2;
    out << "<g class=\"crossover\" data-timing=\"" << escape(guide.name) << "\" data-size=\"" << exact(guide.value) << "\"><line x1=\""
        << number(px) << "\" x2=\"" << number(px) << "\" y1=\"" << kTop << "\" y2=\"" << kBottom << "\"/><text x=\""
        << number(left_half ? px + 3 : px - 3) << "\" y=\"" << label_y << "\" text-anchor=\"" << (left_half ? "start" : "end") << "\">"
        << escape(guide.label) << "</text></g>";
    label_y += 14;
  }
  for (const auto& series : plot.series) append_series(out, series, x, y);
  append_legend(out, plot);
  out << "</svg>";
  return out.str();
}

// ---- what the plots show ----

class Colours {
 public:
  explicit Colours(const std::vector<ResultRecord>& results) {
    std::set<std::string> names;
    for (const auto& record : results) names.insert(record.spec.backend_label());
    for (const auto& name : names) by_backend_[name] = kPalette[by_backend_.size() % std::size(kPalette)];
  }
  const std::string& of(const std::string& backend) const { return by_backend_.at(backend); }

 private:
  std::map<std::string, std::string> by_backend_;
};

bool memory_bound(Op op) { return op_def(op).bound == Bound::memory; }

// Throughput in the unit that judges the op: bytes per second for memory-bound ops, flops per second otherwise.
double throughput_of(const ResultRecord& record) { return (memory_bound(record.spec.op) ? record.gbps : record.gflops) * 1e9; }

std::string series_label(const std::string& backend, TimingMode timing) {
  return timing == TimingMode::kernel ? backend : backend + " (" + to_string(timing) + ")";
}

// One series per backend and timing mode, one point per comparable record.
std::vector<Series> record_series(const SpeedupGroup& group, const std::vector<ResultRecord>& results, PlotKind kind,
                                  const Colours& colours) {
  std::map<std::pair<std::string, TimingMode>, Series> by_key;
  for (const auto& record : results) {
    if (!is_comparable(record) || !group.contains(record.spec)) continue;
    const Statistics& stats = record.stats;
    Point point;
    point.x = static_cast<double>(footprint_elements(record.spec.op, record.spec.shape));
    std::string value;
    if (kind == PlotKind::time) {
      point.y = stats.median;
      point.low = stats.p5;
      point.high = stats.p95;
      value = format_seconds(stats.median) + " (p5 " + format_seconds(stats.p5) + ", p95 " + format_seconds(stats.p95) + ")";
    } else {
      point.y = throughput_of(record);
      if (!(point.y > 0)) continue;
      // The rate at the p95 time is the slow end of the spread, at the p5 time the fast end.
      if (stats.p5 > 0 && stats.p95 > 0) {
        point.low = point.y * stats.median / stats.p95;
        point.high = point.y * stats.median / stats.p5;
      }
      value = format_rate(point.y, memory_bound(record.spec.op) ? "B/s" : "FLOP/s");
    }
    const std::string backend = record.spec.backend_label();
    point.tooltip = series_label(backend, record.spec.timing) + ", " + record.spec.shape.label(record.spec.op) + ": " + value;
    Series& series = by_key[{backend, record.spec.timing}];
    series.backend = backend;
    series.timing = record.spec.timing;
    series.label = series_label(series.backend, series.timing);
    series.colour = colours.of(series.backend);
    series.points.push_back(std::move(point));
  }
  std::vector<Series> series;
  for (auto& entry : by_key) {
    auto& points = entry.second.points;
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    series.push_back(std::move(entry.second));
  }
  return series;
}

// Memory-bound ops are drawn against the bandwidths the context knows (in B/s): each GPU's
// theoretical peak and, where measured, the GPU's and the CPU's copy bandwidth.
std::vector<Guide> bandwidth_ceilings(const Context& context) {
  std::vector<Guide> ceilings;
  for (const auto& gpu : context.gpus) {
    const std::string name = "GPU " + std::to_string(gpu.ordinal);
    const std::string key = "gpu" + std::to_string(gpu.ordinal);
    if (gpu.theoretical_bandwidth_gbps > 0)
      ceilings.push_back({key + "-theoretical", name + " peak " + format_rate(gpu.theoretical_bandwidth_gbps * 1e9, "B/s"),
                          gpu.theoretical_bandwidth_gbps * 1e9});
    if (gpu.copy_gbps > 0)
      ceilings.push_back({key + "-copy", name + " copy " + format_rate(gpu.copy_gbps * 1e9, "B/s"), gpu.copy_gbps * 1e9});
  }
  if (context.cpu_copy_gbps > 0)
    ceilings.push_back({"cpu-copy", "CPU copy " + format_rate(context.cpu_copy_gbps * 1e9, "B/s"), context.cpu_copy_gbps * 1e9});
  return ceilings;
}

// Time and throughput always (every group has a measured record); the speed-up only where some
// size has both a CPU and a GPU figure: an empty plot says nothing that the group's one line
// ("No speed-up: no GPU result") does not.
std::vector<Plot> group_plots(const Context& context, const SpeedupGroup& group, const std::vector<ResultRecord>& results,
                              const Colours& colours) {
  std::vector<double> sizes;
  for (const auto& row : group.rows) sizes.push_back(static_cast<double>(row.size));
  const bool bandwidth_bound = memory_bound(group.op);

  const auto make_plot = [&](PlotKind kind, std::string title, std::string y_unit) {
    Plot plot;
    plot.group = &group;
    plot.kind = kind;
    plot.title = std::move(title);
    plot.y_unit = std::move(y_unit);
    plot.x_title = "size: " + op_footprint_name(group.op);
    plot.x_domain = sizes;
    if (kind != PlotKind::speedup) plot.series = record_series(group, results, kind, colours);
    return plot;
  };
  const Plot time = make_plot(PlotKind::time, "time per run (median, p5\u2013p95)", "s");
  Plot throughput =
      make_plot(PlotKind::throughput, bandwidth_bound ? "bandwidth" : "flop rate", bandwidth_bound ? "B/s" : "FLOP/s");
  if (bandwidth_bound) throughput.ceilings = bandwidth_ceilings(context);

  Plot speedup = make_plot(PlotKind::speedup, "GPU speed-up over CPU (best of each)", "");
  for (TimingMode timing : {TimingMode::kernel, TimingMode::e2e}) {
    Series series;
    series.backend = "best-gpu-vs-best-cpu";
    series.timing = timing;
    series.label = timing == TimingMode::kernel ? "kernel-only" : "end-to-end";
    series.colour = kPalette[timing == TimingMode::kernel ? 0 : 1];
    for (const auto& row : group.rows) {
      const GpuComparison& comparison = comparison_for(row, timing);
      if (!comparison.speedup) continue;
      Point point;
      point.x = static_cast<double>(row.size);
      point.y = *comparison.speedup;
      point.tooltip = series.label + ", " + row.shape + ": " + comparison.gpu->backend + " vs " + row.cpu->backend + ", " +
                      format_speedup(*comparison.speedup);
      series.points.push_back(std::move(point));
    }
    if (!series.points.empty()) speedup.series.push_back(std::move(series));
    const Crossover& crossover = crossover_for(group, timing);
    if (crossover.kind == CrossoverKind::at)
      speedup.crossovers.push_back({to_string(timing),
                                    (timing == TimingMode::kernel ? "kernel " : "e2e ") + std::string(crossover.interpolated ? "\u2248" : "") +
                                        format_elements(crossover.size),
                                    crossover.size});
  }
  if (speedup.series.empty()) return {time, throughput};
  return {time, throughput, speedup};
}

// ---- the page ----

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; max-width: 1500px; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9em; }
.context li { margin: 2px 0; } .note { color: #8a5a00; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.88em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; } th { background: #f3f3f3; } td.num { text-align: right; }
td.message { color: #666; font-style: italic; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
svg.plot { border: 1px solid #e3e3e3; background: #fff; font-size: 10px; }
svg.plot .grid { stroke: #eee; } svg.plot .frame { fill: none; stroke: #999; }
svg.plot .plot-title { font-weight: 600; font-size: 12px; } svg.plot .axis-title { fill: #555; }
svg.plot .spread { stroke-width: 1.2; opacity: 0.6; }
svg.plot .ceiling, svg.plot .ceiling line { stroke: #b00; stroke-dasharray: 2 3; stroke-width: 1.2; }
svg.plot .crossover line { stroke: #555; stroke-dasharray: 4 3; } svg.plot .crossover text { font-size: 10px; }
svg.plot .break-even { stroke: #555; stroke-width: 1; } p.no-speedup { color: #555; }
svg.plot text { stroke: none; } svg.plot .legend text { fill: #222; font-size: 10px; }
)";

std::string anchor_of(const SpeedupGroup& group) {
  std::string anchor = "group-";
  for (char c : group.name()) anchor += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return anchor;
}

void append_table(std::ostringstream& out, const report_model::Table& table, const char* css_class) {
  out << "<table class=\"" << css_class << "\"><thead><tr>";
  for (const auto& column : table.columns) out << "<th>" << escape(column.header) << "</th>";
  out << "</tr></thead><tbody>";
  for (const auto& row : table.rows) {
    out << "<tr>";
    const std::size_t shown = row.message.empty() ? row.cells.size() : table.key_columns;
    for (std::size_t i = 0; i < shown; ++i)
      out << "<td" << (table.columns[i].align == report_model::Align::right ? " class=\"num\"" : "") << ">" << escape(row.cells[i])
          << "</td>";
    if (!row.message.empty())
      out << "<td class=\"message\" colspan=\"" << table.columns.size() - table.key_columns << "\">" << escape(row.message) << "</td>";
    out << "</tr>";
  }
  out << "</tbody></table>";
}

// The run's one-time costs and each case's first call and host cost per call, where the
// report holds them.
void append_costs(std::ostringstream& out, const Context& context, const std::vector<ResultRecord>& results) {
  const auto one_time = report_model::one_time_lines(context);
  const report_model::Table costs = report_model::costs_table(results);
  if (one_time.empty() && costs.rows.empty()) return;
  out << "<section id=\"costs\"><h2>One-time costs and first calls</h2>";
  if (!one_time.empty()) {
    out << "<ul class=\"one-time\">";
    for (const auto& line : one_time) out << "<li>" << escape(line) << "</li>";
    out << "</ul>";
  }
  if (!costs.rows.empty()) {
    append_table(out, costs, "costs");
    out << "<p>" << escape(report_model::costs_footnote(results)) << "</p>";
  }
  out << "</section>\n";
}

void append_context(std::ostringstream& out, const Context& context) {
  const auto summary = report_model::summarize_context(context);
  out << "<header><h1>gpubench: CPU versus GPU</h1><ul class=\"context\">";
  for (const auto& fact : summary.facts) out << "<li>" << escape(fact) << "</li>";
  for (const auto& gpu : context.gpus)
    if (!gpu.driver_version.empty() || !gpu.runtime_version.empty())
      out << "<li>GPU " << gpu.ordinal << " driver " << escape(gpu.driver_version) << ", CUDA runtime " << escape(gpu.runtime_version)
          << "</li>";
  if (!context.os.empty() || !context.compiler.empty())
    out << "<li>" << escape(context.os) << "; built " << escape(context.build_type) << " with " << escape(context.compiler) << "</li>";
  if (!context.libraries.empty()) {
    std::string libraries;
    for (const auto& [name, version] : context.libraries) libraries += (libraries.empty() ? "" : ", ") + name + " " + version;
    out << "<li>Libraries: " << escape(libraries) << "</li>";
  }
  if (!context.argv.empty()) {
    std::string command;
    for (const auto& argument : context.argv) command += (command.empty() ? "" : " ") + argument;
    out << "<li>Command: <code>" << escape(command) << "</code></li>";
  }
  if (!context.settings.empty()) {
    std::string settings;
    for (const auto& [key, value] : context.settings) settings += (settings.empty() ? "" : ", ") + key + "=" + gpb::to_string(value);
    out << "<li>Settings: <span class=\"mono\">" << escape(settings) << "</span></li>";
  }
  out << "</ul>";
  for (const auto& note : summary.notes) out << "<p class=\"note\">Note: " << escape(note) << "</p>";
  out << "</header>";
}

// A group without a CPU-GPU pair says why in one line, unless the page has no GPU result at
// all and has said so once at the top (`any_gpu`).
void append_group(std::ostringstream& out, const Context& context, const SpeedupGroup& group, const std::vector<ResultRecord>& results,
                  const Colours& colours, bool any_gpu) {
  out << "<section class=\"group\" id=\"" << escape(anchor_of(group)) << "\"><h2>" << escape(group.name()) << "</h2>";
  if (group.has_cpu_gpu_pair()) {
    out << "<p class=\"crossover\">GPU wins from: kernel-only <b>" << escape(describe_crossover(group, TimingMode::kernel))
        << "</b>; end-to-end <b>" << escape(describe_crossover(group, TimingMode::e2e)) << "</b></p>";
    if (group.energy_known)
      out << "<p class=\"crossover\">GPU uses fewer joules per op from: <b>" << escape(describe_energy_crossover(group))
          << "</b></p>";
    if (const std::string l2 = describe_l2_choice(group); !l2.empty())
      out << "<p class=\"crossover\">L2: " << escape(l2) << "</p>";
    append_table(out, speedup_table(group), "speedup");
  } else if (any_gpu) {
    out << "<p class=\"no-speedup\">No speed-up: " << escape(describe_crossover(group, TimingMode::kernel)) << "</p>";
  }
  out << "<div class=\"plots\">";
  for (const auto& plot : group_plots(context, group, results, colours)) out << render_plot(plot);
  out << "</div></section>";
}

// Per case, every GPU's median against the fleet's, for reports that span GPUs or ranks.
void append_fleet(std::ostringstream& out, const FleetView& fleet) {
  out << "<section id=\"fleet\"><h2>Fleet</h2><p>" << escape(fleet_heading(fleet)) << "</p>";
  if (!fleet.cases.empty()) append_table(out, fleet_table(fleet), "fleet");
  out << "<ul class=\"findings\">";
  for (const auto& finding : fleet_findings(fleet)) out << "<li>" << escape(finding) << "</li>";
  out << "</ul></section>";
}

}  // namespace

std::string render_html(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  const SpeedupSummary summary = summarize_speedups(results);
  const Colours colours(results);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpubench report";
  if (!context.hostname.empty()) out << ": " << escape(context.hostname);
  out << "</title><style>" << kStyle << "</style></head>\n<body>";
  append_context(out, context);

  // Whether any GPU case measured and verified: without one there is no speed-up anywhere,
  // which the page says once instead of in every group.
  const bool any_gpu = std::any_of(results.begin(), results.end(), [](const ResultRecord& record) {
    return record.device == DeviceKind::gpu && is_comparable(record);
  });
  out << "<p>"
      << escape(any_gpu ? "Per op and dtype: time, throughput and the GPU's speed-up against size (each op's footprint, "
                          "named under its x axis), log-log; dashed lines are end-to-end (copies included). Speed-up = "
                          "best CPU time / best GPU time."
                        : "Per op and dtype: time and throughput against size (each op's footprint, named under its x "
                          "axis), log-log.")
      << "</p>";
  if (!any_gpu && !results.empty()) {
    const bool gpu_records = std::any_of(results.begin(), results.end(),
                                         [](const ResultRecord& record) { return record.device == DeviceKind::gpu; });
    out << "<p class=\"no-speedup\">"
        << (gpu_records ? "No GPU case measured and verified: no speed-up." : "No GPU cases: no speed-up (every case ran on the CPU).")
        << "</p>";
  }
  if (!summary.groups.empty()) {
    out << "<nav><ul>";
    for (const auto& group : summary.groups)
      out << "<li><a href=\"#" << escape(anchor_of(group)) << "\">" << escape(group.name()) << "</a></li>";
    out << "</ul></nav>";
  }
  for (const auto& group : summary.groups) append_group(out, context, group, results, colours, any_gpu);
  const FleetView fleet = analyze_fleet(context, results, options.outlier_threshold);
  if (fleet.applies()) append_fleet(out, fleet);

  const report_model::Table overhead = report_model::launch_overhead_table(results);
  if (!overhead.rows.empty()) {
    out << "<section id=\"launch-overhead\"><h2>" << escape(report_model::kLaunchOverheadTitle) << "</h2><p>"
        << escape(report_model::kLaunchOverheadNote) << "</p>";
    append_table(out, overhead, "launch-overhead");
    out << "</section>";
  }
  // The reasons alone where no case has a figure (a virtual machine's CPU, a GPU without NVML).
  const report_model::Table energy = report_model::energy_table(results);
  const auto energy_notes = report_model::energy_footnotes(results);
  if (!energy_notes.empty()) {
    out << "<section id=\"energy\"><h2>Energy per op</h2>";
    if (!energy.rows.empty()) append_table(out, energy, "energy");
    for (const auto& note : energy_notes) out << "<p class=\"energy-note\">" << escape(note) << "</p>";
    out << "</section>";
  }
  out << "<section id=\"results\"><h2>All results</h2>";
  append_table(out, report_model::results_table(context, results, options), "results");
  out << "<p>" << escape(report_model::summary_line(results)) << "</p>";
  const auto failures = report_model::failure_lines(results);
  if (!failures.empty()) {
    out << "<ul class=\"failures\">";
    for (const auto& failure : failures) out << "<li>" << escape(failure) << "</li>";
    out << "</ul>";
  }
  const auto doubts = report_model::doubt_lines(context, results);
  if (!doubts.empty()) {
    out << "<ul class=\"doubts\">";
    for (const auto& doubt : doubts) out << "<li>! " << escape(doubt) << "</li>";
    out << "</ul>";
  }
  out << "</section>\n";
  append_costs(out, context, results);
  out << "</body></html>\n";
  return out.str();
}

namespace html {

std::string escape(const std::string& text) { return gpb::escape(text); }
std::string coordinate(double value) { return number(value); }
std::string exact(double value) { return gpb::exact(value); }
const char* page_style() { return kStyle; }

}  // namespace html

}  // namespace gpb
