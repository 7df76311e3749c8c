#include "report/fleet_render.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace gpb {
namespace {

using report_model::Align;
using report_model::escape_markdown;
using report_model::Table;
using Json = nlohmann::ordered_json;

std::string signed_percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", fraction * 100);
  return text;
}

std::string score_cell(double score) {
  if (std::isinf(score)) return score > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", score);
  return text;
}

std::string plural(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

Json finite_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

}  // namespace

std::string fleet_heading(const FleetView& view) {
  std::size_t gpus = 0, cpus = 0;
  std::set<std::string> hosts;
  std::set<int> ranks;
  for (const auto& unit : view.units) {
    (unit.kind == DeviceKind::gpu ? gpus : cpus) += 1;
    hosts.insert(unit.host);
    ranks.insert(unit.rank);
  }
  std::string units = gpus > 0 ? plural(gpus, "GPU") : "";
  if (cpus > 0) units += (units.empty() ? "" : " and ") + plural(cpus, "CPU");
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g %%", view.threshold * 100);
  return "Fleet: " + units + " on " + plural(hosts.size(), "host") + ", " + plural(ranks.size(), "rank") +
         ". Outlier: slower than the fleet median by more than " + threshold + ", with its median's 95 % CI above it.";
}

Table fleet_table(const FleetView& view) {
  Table table;
  table.columns = {{"case", Align::left},        {"where", Align::left},   {"median", Align::right}, {"95% CI", Align::right},
                   {"vs fleet", Align::right}, {"score", Align::right}, {"verdict", Align::left}};
  table.key_columns = 2;
  for (const auto& fleet_case : view.cases) {
    const double fleet = fleet_case.fleet_median_s;
    const std::string mad = fleet > 0 ? "MAD " + format_significant(fleet_case.mad_s / fleet * 100, 2) + "%" : "-";
    table.rows.push_back({{fleet_case.id, "fleet median", format_seconds(fleet), "", mad, "", ""}, ""});
    for (const auto& member : fleet_case.members) {
      table.rows.push_back({{"", view.units.at(member.unit).label, format_seconds(member.median_s),
                             "[" + format_seconds(member.ci_low_s) + ", " + format_seconds(member.ci_high_s) + "]",
                             signed_percent(member.deviation), score_cell(member.score), member.outlier ? "OUTLIER" : ""},
                            ""});
    }
  }
  return table;
}

std::vector<std::string> fleet_findings(const FleetView& view) {
  std::vector<std::string> findings;
  for (const auto& fleet_case : view.cases)
    for (const auto& member : fleet_case.members)
      if (member.outlier) findings.push_back("outlier: " + describe_outlier(view, fleet_case, member));
  for (const auto& failure : view.failures) findings.push_back("failure: " + describe_failure(view, failure));
  if (findings.empty()) findings.push_back("no outliers");
  return findings;
}

std::string render_fleet_console(const FleetView& view) {
  std::ostringstream out;
  out << fleet_heading(view) << "\n";
  if (!view.cases.empty()) {
    out << '\n';
    report_model::append_console_table(out, fleet_table(view));
  }
  out << '\n';
  for (const auto& finding : fleet_findings(view)) out << finding << '\n';
  return out.str();
}

std::string render_fleet_markdown(const FleetView& view) {
  std::ostringstream out;
  out << "**Fleet view.** " << escape_markdown(fleet_heading(view)) << "\n\n";
  if (!view.cases.empty()) {
    report_model::append_markdown_table(out, fleet_table(view));
    out << '\n';
  }
  for (const auto& finding : fleet_findings(view)) out << "- " << escape_markdown(finding) << '\n';
  return out.str();
}

std::string fleet_json_schema() {
  const Json seconds = {{"type", Json::array({"number", "null"})}, {"minimum", 0}};
  const Json number = {{"type", Json::array({"number", "null"})}};
  const Json count = {{"type", "integer"}, {"minimum", 0}};
  const Json unit = {{"type", "object"},
                     {"required", {"label", "host", "rank", "device"}},
                     {"properties",
                      {{"label", {{"type", "string"}}},
                       {"host", {{"type", "string"}}},
                       {"rank", count},
                       {"device", {{"enum", Json::array({"cpu", "gpu"})}}},
                       {"gpu", {{"$ref", "#/definitions/gpu_identity"}}}}}};
  const Json member = {{"type", "object"},
                       {"required", {"unit", "median_s", "median_ci_s", "deviation", "score", "outlier"}},
                       {"properties",
                        {{"unit", count},
                         {"median_s", seconds},
                         {"median_ci_s", {{"type", "array"}, {"items", seconds}, {"minItems", 2}, {"maxItems", 2}}},
                         {"deviation", number},
                         {"score", number},
                         {"outlier", {{"type", "boolean"}}}}}};
  const Json fleet_case = {{"type", "object"},
                           {"required", {"id", "fleet_median_s", "mad_s", "members"}},
                           {"properties",
                            {{"id", {{"type", "string"}}},
                             {"fleet_median_s", seconds},
                             {"mad_s", seconds},
                             {"members", {{"type", "array"}, {"items", member}}}}}};
  const Json texts = {{"type", "array"}, {"items", {{"type", "string"}}}};
  const Json section = {
      {"type", "object"},
      {"description",
       "Derived from the results (readers ignore it): per case measured by several GPUs or ranks, each one's median "
       "against the fleet median"},
      {"required", {"threshold", "units", "cases", "outliers", "failures"}},
      {"properties",
       {{"threshold", {{"type", "number"}}},
        {"units", {{"type", "array"}, {"items", unit}}},
        {"cases", {{"type", "array"}, {"items", fleet_case}}},
        {"outliers", texts},
        {"failures", texts}}}};
  return section.dump();
}

std::string render_fleet_json(const FleetView& view) {
  Json units = Json::array();
  for (const auto& unit : view.units) {
    Json json = {{"label", unit.label}, {"host", unit.host}, {"rank", unit.rank}, {"device", to_string(unit.kind)}};
    if (unit.gpu.recorded())
      json["gpu"] = {{"ordinal", unit.gpu.ordinal},
                     {"name", unit.gpu.name},
                     {"uuid", unit.gpu.uuid},
                     {"pci_bus_id", unit.gpu.pci_bus_id}};
    units.push_back(std::move(json));
  }
  Json cases = Json::array();
  for (const auto& fleet_case : view.cases) {
    Json members = Json::array();
    for (const auto& member : fleet_case.members)
      members.push_back({{"unit", member.unit},
                         {"median_s", finite_or_null(member.median_s)},
                         {"median_ci_s", {finite_or_null(member.ci_low_s), finite_or_null(member.ci_high_s)}},
                         {"deviation", finite_or_null(member.deviation)},
                         {"score", finite_or_null(member.score)},
                         {"outlier", member.outlier}});
    cases.push_back({{"id", fleet_case.id},
                     {"fleet_median_s", finite_or_null(fleet_case.fleet_median_s)},
                     {"mad_s", finite_or_null(fleet_case.mad_s)},
                     {"members", std::move(members)}});
  }
  Json outliers = Json::array();
  for (const auto& fleet_case : view.cases)
    for (const auto& member : fleet_case.members)
      if (member.outlier) outliers.push_back(describe_outlier(view, fleet_case, member));
  Json failures = Json::array();
  for (const auto& failure : view.failures) failures.push_back(describe_failure(view, failure));
  const Json section = {{"threshold", view.threshold}, {"units", std::move(units)},       {"cases", std::move(cases)},
                        {"outliers", std::move(outliers)}, {"failures", std::move(failures)}};
  return section.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gpb
