#include "cli/list.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/exit_codes.hpp"
#include "cli/help.hpp"
#include "measure/backend.hpp"
#include "model/op_table.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"

namespace gpb {
namespace {

std::string op_dtype(Op op, DType dtype) { return to_string(op) + "/" + to_string(dtype); }

// A name in a column of `indent` - 2 characters, then its text wrapped within kHelpWidth.
void append_entry(std::ostream& out, const std::string& name, const std::string& text, std::size_t indent) {
  std::string first = "  " + name;
  if (first.size() + 1 > indent) {
    report_model::append_console_line(out, first);
    first.clear();
  }
  first.resize(indent, ' ');
  report_model::append_wrapped(out, first, indent, text, kHelpWidth - indent);
}

// Why a backend cannot run an op: one line per op where every dtype is refused for one
// reason, else one per dtype. An unavailable backend's reason is on its own line already.
std::map<std::string, std::string> refusals(Backend& backend) {
  std::map<std::string, std::string> reasons;
  if (!backend.availability().available) return reasons;
  for (Op op : all_ops()) {
    std::vector<std::pair<DType, std::string>> refused;
    for (DType dtype : all_dtypes()) {
      const Support support = backend.supports(op, dtype);
      if (!support.supported) refused.emplace_back(dtype, support.reason);
    }
    const bool one_reason = refused.size() == all_dtypes().size() &&
                            std::all_of(refused.begin(), refused.end(), [&](const auto& entry) { return entry.second == refused[0].second; });
    for (const auto& [dtype, reason] : refused)
      reasons[backend.name() + " " + (one_reason ? to_string(op) : op_dtype(op, dtype))] = reason;
  }
  return reasons;
}

void render_console(std::ostream& out, std::vector<std::unique_ptr<Backend>>& backends) {
  out << "Ops:\n";
  for (Op op : all_ops()) {
    const OpDef& def = op_def(op);
    append_entry(out, def.name,
                 def.description + " [" + shape_parameters(def.shape_kind) + "; inputs " + def.input_distribution + "]", 10);
  }
  out << "\nBackends:\n";
  for (auto& backend : backends) {
    const Availability availability = backend->availability();
    append_entry(out, backend->name(),
                 to_string(backend->kind()) + ", " + (availability.available ? "available" : "unavailable: " + availability.reason) +
                     ". " + backend->description(),
                 12);
  }
  // One row per op and dtype, one column per backend: as many columns as backends, so it
  // stays narrow however many ops and dtypes there are.
  report_model::Table table;
  table.columns.push_back({"op/dtype", report_model::Align::left});
  for (auto& backend : backends) table.columns.push_back({backend->name(), report_model::Align::left});
  table.key_columns = 1;
  for (Op op : all_ops())
    for (DType dtype : all_dtypes()) {
      report_model::Row row;
      row.cells.push_back(op_dtype(op, dtype));
      for (auto& backend : backends) row.cells.push_back(backend->supports(op, dtype).supported ? "yes" : "-");
      table.rows.push_back(std::move(row));
    }
  out << "\nSupport (yes: the backend runs the op in that dtype; -: see below):\n";
  report_model::append_console_table(out, table, "  ");
  std::map<std::string, std::string> reasons;
  for (auto& backend : backends) reasons.merge(refusals(*backend));
  if (!reasons.empty()) {
    out << "\nWhy not:\n";
    for (const auto& [what, why] : reasons) report_model::append_wrapped(out, "  ", 4, what + ": " + why, kHelpWidth - 4);
  }
}

void render_json(std::ostream& out, std::vector<std::unique_ptr<Backend>>& backends) {
  using Json = nlohmann::ordered_json;
  Json ops = Json::array();
  for (Op op : all_ops()) {
    const OpDef& def = op_def(op);
    ops.push_back({{"name", def.name},
                   {"description", def.description},
                   {"shape", shape_parameters(def.shape_kind)},
                   {"inputs", def.input_distribution}});
  }
  Json listed = Json::array();
  for (auto& backend : backends) {
    const Availability availability = backend->availability();
    Json support = Json::object();
    for (Op op : all_ops())
      for (DType dtype : all_dtypes()) {
        const Support answer = backend->supports(op, dtype);
        support[op_dtype(op, dtype)] = answer.supported ? Json{{"supported", true}}
                                                        : Json{{"supported", false}, {"reason", answer.reason}};
      }
    listed.push_back({{"name", backend->name()},
                      {"kind", to_string(backend->kind())},
                      {"available", availability.available},
                      {"reason", availability.reason},
                      {"description", backend->description()},
                      {"support", support}});
  }
  std::vector<std::string> dtypes;
  for (DType dtype : all_dtypes()) dtypes.push_back(to_string(dtype));
  out << Json{{"ops", ops}, {"dtypes", dtypes}, {"backends", listed}}.dump(2) << "\n";
}

}  // namespace

int command_list(const std::string& format_name, std::ostream& out) {
  const ReportFormat format = parse_report_format(format_name, {ReportFormat::console, ReportFormat::json});
  auto backends = make_all_backends();
  if (format == ReportFormat::json)
    render_json(out, backends);
  else
    render_console(out, backends);
  return kExitOk;
}

}  // namespace gpb
