#include "report/summary_render.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/text.hpp"
#include "model/op_table.hpp"
#include "report/energy_render.hpp"

namespace gpb {
namespace {

using report_model::Align;
using report_model::escape_markdown;
using report_model::Table;
using Json = nlohmann::ordered_json;

constexpr const char* kSpeedupMeaning = "speed-up = best CPU time / best GPU time at each size; above 1x the GPU is faster";
constexpr const char* kTimingMeaning = "kernel: the op alone; e2e: host-to-device copy + op + device-to-host copy";
constexpr const char* kFirstCallMeaning =
    "first call: each side's first run in the process, before any warm-up, with the wait for it (what a one-shot user "
    "pays; GPU: its kernel-timing cases)";

bool any_first_calls(const SpeedupSummary& summary) {
  return std::any_of(summary.groups.begin(), summary.groups.end(), [](const SpeedupGroup& group) { return group.has_first_calls(); });
}

const char* timing_title(TimingMode timing) { return timing == TimingMode::kernel ? "kernel-only" : "end-to-end"; }

std::string backend_cell(const std::optional<BestBackend>& best) {
  return best ? best->backend + " " + format_seconds(best->median_s) : "-";
}

std::string speedup_cell(const std::optional<double>& speedup) { return speedup ? format_speedup(*speedup) : "-"; }

// Sizes at which both a CPU and a GPU figure exist in a view (`gpu_of` picks its comparison),
// smallest and largest.
template <class GpuOf>
std::pair<std::int64_t, std::int64_t> compared_range(const SpeedupGroup& group, GpuOf gpu_of) {
  std::vector<std::int64_t> sizes;
  for (const auto& row : group.rows)
    if (gpu_of(row).speedup) sizes.push_back(row.size);
  if (sizes.empty()) return {0, 0};
  return {sizes.front(), sizes.back()};
}

// One crossover as a phrase; `no_gpu` is what to say without a GPU figure.
// What a view's crossover compares, in words: the GPU "is faster" / "is not faster", and what
// stands in for a missing side.
struct CrossoverWords {
  std::string wins, loses;
  std::string no_gpu, no_cpu = "no CPU result", no_common_size = "no size with both a CPU and a GPU result";
};

std::string describe(const Crossover& crossover, std::pair<std::int64_t, std::int64_t> range, Op op,
                     const CrossoverWords& words) {
  const auto [smallest, largest] = range;
  const std::string unit = " " + op_footprint_unit(op);
  switch (crossover.kind) {
    case CrossoverKind::at:
      if (!crossover.interpolated) return format_elements(crossover.size) + unit;
      return "\u2248" + format_elements(crossover.size) + unit + " (interpolated between " +
             format_elements(static_cast<double>(crossover.last_losing_size)) + " and " +
             format_elements(static_cast<double>(crossover.first_winning_size)) + ")";
    case CrossoverKind::never:
      return "never: the GPU " + words.loses + " at the largest size compared, " + format_elements(static_cast<double>(largest));
    case CrossoverKind::always:
      return "always: the GPU " + words.wins + " at every size compared, from " + format_elements(static_cast<double>(smallest));
    case CrossoverKind::no_gpu:
      return words.no_gpu;
    case CrossoverKind::no_cpu:
      return words.no_cpu;
    case CrossoverKind::no_common_size:
      return words.no_common_size;
  }
  return "?";
}

bool has_e2e_figures(const SpeedupGroup& group) {
  return std::any_of(group.rows.begin(), group.rows.end(), [](const SpeedupRow& row) { return row.e2e.gpu.has_value(); });
}

Json real_or_null(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? Json(*value) : Json(nullptr);
}

Json best_json(const std::optional<BestBackend>& best) {
  if (!best) return nullptr;
  return {{"backend", best->backend}, {"median_s", real_or_null(best->median_s)}};
}

bool has_energy_figures(const SpeedupGroup& group) {
  return std::any_of(group.rows.begin(), group.rows.end(),
                     [](const SpeedupRow& row) { return row.cpu_energy.has_value() || row.gpu_energy.has_value(); });
}

std::string energy_cell(const std::optional<BestEnergy>& best) {
  return best ? best.value().backend + " " + report_model::format_energy_per_op(best->joules_per_op, best->uncertainty_j) : "-";
}

Json energy_json(const std::optional<BestEnergy>& best) {
  if (!best) return nullptr;
  return {{"backend", best->backend},
          {"energy_per_op_j", real_or_null(best->joules_per_op)},
          {"uncertainty_j", real_or_null(best->uncertainty_j)}};
}

Json crossover_json(const Crossover& crossover) {
  const bool has_size = crossover.kind == CrossoverKind::at || crossover.kind == CrossoverKind::always;
  Json json = {{"kind", to_string(crossover.kind)},
               {"size", has_size ? real_or_null(crossover.size) : Json(nullptr)},
               {"interpolated", crossover.interpolated}};
  if (crossover.kind == CrossoverKind::at) {
    json["last_losing_size"] = crossover.last_losing_size;
    json["first_winning_size"] = crossover.first_winning_size;
  }
  return json;
}

Json energy_crossover_json(const SpeedupGroup& group) {
  Json json = crossover_json(group.energy_crossover);
  json["text"] = describe_energy_crossover(group);
  return json;
}

}  // namespace

std::string format_elements(double elements) {
  static const char* const kPrefixes[] = {"", "K", "M", "G", "T", "P"};
  std::size_t index = 0;
  while (index + 1 < std::size(kPrefixes) && std::fabs(elements) >= 1024) {
    elements /= 1024;
    ++index;
  }
  const bool whole = elements == std::floor(elements);
  return (whole ? std::to_string(static_cast<std::int64_t>(elements)) : format_significant(elements, 3)) +
         kPrefixes[index];
}

std::string format_speedup(double speedup) { return format_significant(speedup, 3) + "x"; }

std::string describe_crossover(const SpeedupGroup& group, TimingMode timing) {
  return describe(crossover_for(group, timing),
                  compared_range(group, [timing](const SpeedupRow& row) -> const GpuComparison& { return comparison_for(row, timing); }),
                  group.op,
                  {"is faster", "is not faster",
                   timing == TimingMode::e2e ? "no end-to-end GPU result (run with --timing e2e)" : "no GPU result"});
}

std::string describe_first_call_crossover(const SpeedupGroup& group) {
  return describe(group.first_call_crossover,
                  compared_range(group, [](const SpeedupRow& row) -> const GpuComparison& { return row.first_call; }), group.op,
                  {"is faster", "is not faster", "no GPU first call"});
}

std::string describe_energy_crossover(const SpeedupGroup& group) {
  std::pair<std::int64_t, std::int64_t> range{0, 0};
  for (const auto& row : group.rows)
    if (row.energy_ratio) range = {range.first ? range.first : row.size, row.size};  // rows by size
  const auto reason = [](const std::string& text) { return text.empty() ? std::string() : " (" + text + ")"; };
  return describe(group.energy_crossover, range, group.op,
                  {"uses fewer joules per op", "uses more joules per op", "unknown: no GPU energy" + reason(group.gpu_energy_reason),
                   "unknown: no CPU energy" + reason(group.cpu_energy_reason),
                   "unknown: no size with both a CPU and a GPU energy figure"});
}

std::string describe_l2_choice(const SpeedupGroup& group) {
  if (group.warm_set_aside.empty()) return {};
  const std::string backends = join_words(group.warm_set_aside, ", ");
  SpeedupGroup warm = group;
  warm.variant += (warm.variant.empty() ? "" : "+") + std::string("l2warm");
  return backends + " ran with the L2 flushed and warm: the flushed records are compared here, the warm ones in " +
         warm.name();
}

namespace {

// What the GPU columns' L2 mode was: " (L2 flushed)", " (L2 warm)", or for a group of both
// (some backends flushed, others warm only) " (L2 flushed; /l2warm: warm)".
std::string l2_suffix(const SpeedupGroup& group) {
  switch (group.gpu_l2) {
    case GpuL2::none:
      return "";
    case GpuL2::flush:
      return " (L2 flushed)";
    case GpuL2::warm:
      return " (L2 warm)";
    case GpuL2::mixed:
      return " (L2 flushed; /l2warm: warm)";
  }
  return "";
}

}  // namespace

Table speedup_table(const SpeedupGroup& group) {
  const bool show_e2e = has_e2e_figures(group);
  Table table;
  table.columns = {{"size", Align::right}, {"shape", Align::left}, {"CPU", Align::left}, {"GPU kernel" + l2_suffix(group), Align::left},
                   {"kernel speed-up", Align::right}};
  if (show_e2e) table.columns.insert(table.columns.end(), {{"GPU e2e", Align::left}, {"e2e speed-up", Align::right}});
  const bool show_first_calls = group.has_first_calls();
  if (show_first_calls)
    table.columns.insert(table.columns.end(),
                         {{"CPU first call", Align::left}, {"GPU first call", Align::left}, {"first-call speed-up", Align::right}});
  const bool show_energy = has_energy_figures(group);
  if (show_energy)
    table.columns.insert(table.columns.end(),
                         {{"CPU J/op", Align::left}, {"GPU J/op", Align::left}, {"CPU J / GPU J", Align::right}});
  table.key_columns = 2;
  for (const auto& row : group.rows) {
    report_model::Row cells;
    cells.cells = {format_elements(static_cast<double>(row.size)), row.shape, backend_cell(row.cpu), backend_cell(row.kernel.gpu),
                   speedup_cell(row.kernel.speedup)};
    if (show_e2e) cells.cells.insert(cells.cells.end(), {backend_cell(row.e2e.gpu), speedup_cell(row.e2e.speedup)});
    if (show_first_calls)
      cells.cells.insert(cells.cells.end(), {backend_cell(row.cpu_first_call), backend_cell(row.first_call.gpu),
                                             speedup_cell(row.first_call.speedup)});
    if (show_energy)
      cells.cells.insert(cells.cells.end(), {energy_cell(row.cpu_energy), energy_cell(row.gpu_energy), speedup_cell(row.energy_ratio)});
    table.rows.push_back(std::move(cells));
  }
  return table;
}

std::vector<std::string> unpaired_groups(const SpeedupSummary& summary) {
  std::vector<std::string> lines;
  for (const auto& group : summary.groups)
    if (!group.has_cpu_gpu_pair()) lines.push_back(group.name() + " (" + describe_crossover(group, TimingMode::kernel) + ")");
  return lines;
}

std::string render_speedups_console(const SpeedupSummary& summary) {
  std::ostringstream out;
  out << "CPU versus GPU (" << kSpeedupMeaning << ")\n" << kTimingMeaning << '\n';
  if (any_first_calls(summary)) out << kFirstCallMeaning << '\n';
  for (const auto& group : summary.groups) {
    if (!group.has_cpu_gpu_pair()) continue;
    out << '\n' << group.name() << '\n';
    for (TimingMode timing : {TimingMode::kernel, TimingMode::e2e})
      out << "  crossover, " << timing_title(timing) << ": " << describe_crossover(group, timing) << '\n';
    if (group.has_first_calls()) out << "  crossover, first call: " << describe_first_call_crossover(group) << '\n';
    if (group.energy_known)
      out << "  energy crossover (GPU uses fewer joules per op from): " << describe_energy_crossover(group) << '\n';
    if (const std::string l2 = describe_l2_choice(group); !l2.empty()) out << "  L2: " << l2 << '\n';
    report_model::append_console_table(out, speedup_table(group), "  ");
  }
  const auto unpaired = unpaired_groups(summary);
  if (!unpaired.empty()) {
    out << '\n' << (summary.has_cpu_gpu_pair() ? "Not compared:" : "Nothing to compare:") << '\n';
    for (const auto& line : unpaired) out << "  " << line << '\n';
  }
  return out.str();
}

std::string render_speedups_markdown(const SpeedupSummary& summary) {
  std::ostringstream out;
  out << "**CPU versus GPU** (" << escape_markdown(kSpeedupMeaning) << "; " << escape_markdown(kTimingMeaning);
  if (any_first_calls(summary)) out << "; " << escape_markdown(kFirstCallMeaning);
  out << ")\n";
  for (const auto& group : summary.groups) {
    if (!group.has_cpu_gpu_pair()) continue;
    out << "\n**" << escape_markdown(group.name()) << "**: crossover " << timing_title(TimingMode::kernel) << ": "
        << escape_markdown(describe_crossover(group, TimingMode::kernel)) << "; " << timing_title(TimingMode::e2e) << ": "
        << escape_markdown(describe_crossover(group, TimingMode::e2e));
    if (group.has_first_calls()) out << "; first call: " << escape_markdown(describe_first_call_crossover(group));
    if (group.energy_known)
      out << "; energy (GPU uses fewer joules per op from): " << escape_markdown(describe_energy_crossover(group));
    if (const std::string l2 = describe_l2_choice(group); !l2.empty()) out << "; L2: " << escape_markdown(l2);
    out << ".\n\n";
    report_model::append_markdown_table(out, speedup_table(group));
  }
  const auto unpaired = unpaired_groups(summary);
  if (!unpaired.empty()) {
    out << '\n' << (summary.has_cpu_gpu_pair() ? "Not compared: " : "Nothing to compare: ");
    for (std::size_t i = 0; i < unpaired.size(); ++i) out << (i ? "; " : "") << escape_markdown(unpaired[i]);
    out << ".\n";
  }
  return out.str();
}

std::string render_speedups_json(const SpeedupSummary& summary) {
  Json groups = Json::array();
  for (const auto& group : summary.groups) {
    Json rows = Json::array();
    for (const auto& row : group.rows) {
      rows.push_back({{"size", row.size},
                      {"shape", row.shape},
                      {"cpu", best_json(row.cpu)},
                      {"kernel", {{"gpu", best_json(row.kernel.gpu)}, {"speedup", real_or_null(row.kernel.speedup)}}},
                      {"e2e", {{"gpu", best_json(row.e2e.gpu)}, {"speedup", real_or_null(row.e2e.speedup)}}},
                      {"first_call",
                       {{"cpu", best_json(row.cpu_first_call)},
                        {"gpu", best_json(row.first_call.gpu)},
                        {"speedup", real_or_null(row.first_call.speedup)}}},
                      {"energy",
                       {{"cpu", energy_json(row.cpu_energy)}, {"gpu", energy_json(row.gpu_energy)}, {"ratio", real_or_null(row.energy_ratio)}}}});
    }
    groups.push_back({{"op", to_string(group.op)},
                      {"dtype", to_string(group.dtype)},
                      {"variant", group.variant},
                      {"gpu_l2", to_string(group.gpu_l2)},
                      {"warm_set_aside", group.warm_set_aside},
                      {"rows", std::move(rows)},
                      {"crossover",
                       {{"kernel", crossover_json(group.kernel_crossover)},
                        {"e2e", crossover_json(group.e2e_crossover)},
                        {"first_call", crossover_json(group.first_call_crossover)}}},
                      {"energy_crossover", energy_crossover_json(group)}});
  }
  const Json section = {{"description", std::string(kSpeedupMeaning) + "; " + kTimingMeaning}, {"groups", std::move(groups)}};
  return section.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gpb
