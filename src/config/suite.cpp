#include "config/suite.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "base/input_file.hpp"
#include "base/json_input.hpp"
#include "base/text.hpp"

#include "config/settings.hpp"
#include "model/record_format.hpp"
#include "model/threshold.hpp"

namespace gpb {
namespace {

using nlohmann::json;

void reject_unknown_keys(const json& object, const std::set<std::string>& known, const std::string& where) {
  for (const auto& item : object.items())
    if (known.count(item.key()) == 0)
      throw UsageError(where + ": " + unknown_word_message("key", item.key(), {known.begin(), known.end()}));
}

// `parse()`, its refusal placed in the file ("s.json: groups[0].sizes: size '0' is zero"); a
// refusal that names its place already (single_string's, append_size_list's) is left as it is.
template <class Parse>
auto located(const std::string& where, Parse parse) {
  try {
    return parse();
  } catch (const UsageError& error) {
    const std::string message = error.what();
    if (message.rfind(where, 0) == 0) throw;
    throw UsageError(where + ": " + message);
  }
}

std::vector<std::string> string_list(const json& value, const std::string& where) {
  std::vector<std::string> items;
  const json list = value.is_array() ? value : json::array({value});
  for (const auto& item : list) {
    if (item.is_string())
      items.push_back(item.get<std::string>());
    else if (item.is_number_unsigned())
      items.push_back(std::to_string(item.get<std::uint64_t>()));
    else if (item.is_number_integer())
      items.push_back(std::to_string(item.get<std::int64_t>()));
    else
      throw UsageError(where + ": expected a string, a whole number or a list of them, got " + item.dump());
  }
  return items;
}

std::vector<std::int64_t> size_list(const json& value, const std::string& where) {
  std::vector<std::int64_t> sizes;
  for (const auto& text : string_list(value, where)) located(where, [&] { append_size_list(sizes, text, where); });
  return sizes;
}

// Keys that take one value: a string, or a list of exactly one.
std::string single_string(const json& value, const std::string& where) {
  const auto items = string_list(value, where);
  if (items.size() != 1) throw UsageError(where + ": expected one value, got " + std::to_string(items.size()));
  return items.front();
}

// An integer in [min, max], 0 <= min: a number that does not fit (0.7, 1e30, 2^64) is refused.
std::int64_t integer(const json& value, std::int64_t min, std::int64_t max, const std::string& where) {
  if (!value.is_number_integer()) throw UsageError(where + ": expected an integer, got " + value.dump());
  // Non-negative JSON integers read as unsigned; the others fall below min anyway.
  const bool in_range = value.is_number_unsigned() && value.get<std::uint64_t>() >= static_cast<std::uint64_t>(min) &&
                        value.get<std::uint64_t>() <= static_cast<std::uint64_t>(max);
  if (!in_range)
    throw UsageError(where + ": " + value.dump() + " is out of range (at least " + std::to_string(min) + ", at most " +
                     std::to_string(max) + ")");
  return static_cast<std::int64_t>(value.get<std::uint64_t>());
}

template <class T>
T number(const json& value, const std::string& where) {
  if (!value.is_number()) throw UsageError(where + ": expected a number");
  return value.get<T>();
}

double threshold(const json& value, const std::string& where) {
  const double fraction = number<double>(value, where);
  require_threshold(fraction, where);
  return fraction;
}

// A JSON scalar as a setting's value; check_suite_setting decides whether it fits.
SettingValue setting_value(const json& value, const std::string& where) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_unsigned()) return integer_setting(value.get<std::uint64_t>());
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  throw UsageError(where + ": expected a number, a string or true/false, got " + value.type_name());
}

std::map<std::string, SettingValue> parse_settings(const json& object, const std::string& where) {
  if (!object.is_object()) throw UsageError(where + ": expected an object");
  std::map<std::string, SettingValue> settings;
  for (const auto& item : object.items())
    settings[item.key()] = check_suite_setting(item.key(), setting_value(item.value(), where + "." + item.key()), where);
  return settings;
}

SuiteGroup parse_group(const json& object, const std::string& position) {
  if (!object.is_object()) throw UsageError(position + ": expected an object");
  // "class" names the group's kind of cases (the GEMM zoo's "long-k, tiny output"): errors in
  // the group name it, and scripts/performance_report.py tables the zoo by it.
  const std::string where =
      object.contains("class") ? position + " (class '" + single_string(object["class"], position + ".class") + "')"
                               : position;
  reject_unknown_keys(object, {"class", "ops", "dtypes", "sizes", "backends", "timing", "shapes", "rows", "nnz_per_row",
                               "pattern", "matrix", "spmv_kernel", "tf32", "threshold"},
                      where);
  if (!object.contains("ops")) throw UsageError(where + ": missing 'ops'");
  SuiteGroup group;
  RunOptions& options = group.options;
  for (const auto& op : string_list(object["ops"], where + ".ops"))
    options.ops.push_back(located(where + ".ops", [&] { return parse_op(op); }));
  if (object.contains("dtypes")) {
    options.dtypes.clear();
    for (const auto& d : string_list(object["dtypes"], where + ".dtypes"))
      options.dtypes.push_back(located(where + ".dtypes", [&] { return parse_dtype(d); }));
  }
  if (object.contains("sizes")) options.sizes = size_list(object["sizes"], where + ".sizes");
  if (object.contains("backends")) options.backends = string_list(object["backends"], where + ".backends");
  if (object.contains("timing")) {
    options.timings.clear();
    for (const auto& t : string_list(object["timing"], where + ".timing"))
      options.timings.push_back(located(where + ".timing", [&] { return parse_timing_mode(t); }));
  }
  if (object.contains("shapes"))
    for (const auto& s : string_list(object["shapes"], where + ".shapes"))
      options.matmul_shapes.push_back(located(where + ".shapes", [&] { return parse_matmul_shape(s); }));
  if (object.contains("rows")) {
    const auto rows = size_list(object["rows"], where + ".rows");
    if (rows.size() != 1) throw UsageError(where + ".rows: give one row count per group");
    options.spmv_rows = rows.front();
  }
  if (object.contains("nnz_per_row"))
    options.nnz_per_row = integer(object["nnz_per_row"], 1, kMaxNnzPerRow, where + ".nnz_per_row");
  if (object.contains("pattern")) {
    options.patterns.clear();
    for (const auto& p : string_list(object["pattern"], where + ".pattern"))
      options.patterns.push_back(located(where + ".pattern", [&] { return parse_pattern(p); }));
    if (options.patterns.empty()) throw UsageError(where + ".pattern: expected a pattern or a list of patterns, got []");
  }
  if (object.contains("matrix")) options.matrix_path = single_string(object["matrix"], where + ".matrix");
  if (object.contains("spmv_kernel"))
    options.spmv_kernel = located(where + ".spmv_kernel", [&] {
      return parse_spmv_kernel(single_string(object["spmv_kernel"], where + ".spmv_kernel"));
    });
  if (object.contains("tf32")) {
    if (!object["tf32"].is_boolean()) throw UsageError(where + ".tf32: expected true or false");
    options.tf32 = object["tf32"].get<bool>();
  }
  if (object.contains("threshold")) group.threshold = threshold(object["threshold"], where + ".threshold");
  return group;
}

}  // namespace

Suite parse_suite(const std::string& text, const std::string& origin) {
  json document = parse_json_input(text, "suite '" + origin + "'");
  if (!document.is_object()) throw UsageError("suite '" + origin + "': expected a JSON object at the top");
  // Another of gpubench's JSON files where a suite belongs: named for what it is.
  if (document.contains("schema") && document["schema"] == kReportSchemaName)
    throw UsageError("suite '" + origin + "' is a report (gpubench run --out), not a suite: gpubench report " + origin +
                     " shows it, gpubench run --baseline " + origin + " compares a new run against it");
  if (document.contains("schema") && document["schema"] == kHistorySchemaName)
    throw UsageError("suite '" + origin + "' is a history export (gpubench history export), not a suite");
  try {
    reject_unknown_keys(document, {"name", "description", "settings", "thresholds", "groups"}, origin);
    Suite suite;
    suite.name = document.value("name", origin);
    suite.description = document.value("description", "");
    if (document.contains("settings")) suite.settings = parse_settings(document["settings"], origin + ": settings");
    if (document.contains("thresholds")) {
      for (const auto& item : document["thresholds"].items())
        suite.thresholds[item.key()] = threshold(item.value(), origin + ": thresholds." + item.key());
    }
    if (!document.contains("groups") || !document["groups"].is_array() || document["groups"].empty())
      throw UsageError(origin + ": 'groups' must be a non-empty list");
    std::size_t index = 0;
    for (const auto& group : document["groups"])
      suite.groups.push_back(parse_group(group, origin + ": groups[" + std::to_string(index++) + "]"));
    return suite;
  } catch (const json::exception& error) {
    throw UsageError("suite '" + origin + "': " + error.what());
  }
}

Suite load_suite(const std::string& path) {
  return parse_suite(read_input_file(path, kMaxSuiteBytes, "suite"), path);
}

}  // namespace gpb
