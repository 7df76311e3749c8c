#include "cli/list.hpp"

#include <algorithm>
#include <map>

#include "cli/exit_codes.hpp"
#include "measure/backend.hpp"
#include "model/op_table.hpp"

namespace gpb {

int command_list(std::ostream& out) {
  auto backends = make_all_backends();
  out << "Ops:\n";
  for (Op op : all_ops()) {
    const OpDef& def = op_def(op);
    out << "  " << def.name << std::string(std::max<std::size_t>(8, def.name.size() + 1) - def.name.size(), ' ')
        << def.description << "  [" << shape_parameters(def.shape_kind) << "; inputs " << def.input_distribution << "]\n";
  }
  out << "\nBackends:\n";
  for (auto& backend : backends) {
    const Availability availability = backend->availability();
    out << "  " << backend->name() << std::string(10 - std::min<std::size_t>(9, backend->name().size()), ' ')
        << to_string(backend->kind()) << "  " << (availability.available ? "available" : "unavailable: " + availability.reason) << "\n"
        << "            " << backend->description() << "\n";
  }
  out << "\nSupport (op/dtype):\n  backend   ";
  for (Op op : all_ops())
    for (DType dtype : all_dtypes()) {
      const std::string column = to_string(op) + "/" + to_string(dtype);
      out << column << std::string(column.size() < 12 ? 12 - column.size() : 1, ' ');
    }
  out << "\n";
  std::map<std::string, std::string> reasons;
  for (auto& backend : backends) {
    const bool available = backend->availability().available;
    out << "  " << backend->name() << std::string(10 - std::min<std::size_t>(9, backend->name().size()), ' ');
    for (Op op : all_ops()) {
      std::vector<std::pair<DType, std::string>> refused;
      for (DType dtype : all_dtypes()) {
        const Support support = backend->supports(op, dtype);
        const std::string column = to_string(op) + "/" + to_string(dtype);
        const std::string mark = support.supported ? "yes" : "-";
        out << mark << std::string(std::max<std::size_t>(12, column.size() + 1) - mark.size(), ' ');
        // An unavailable backend's reason is already on its line above.
        if (!support.supported && available) refused.emplace_back(dtype, support.reason);
      }
      // One line per op where every dtype is refused for one reason, else one per dtype.
      const bool one_reason = refused.size() == all_dtypes().size() &&
                              std::all_of(refused.begin(), refused.end(), [&](const auto& entry) { return entry.second == refused[0].second; });
      for (const auto& [dtype, reason] : refused)
        reasons[backend->name() + " " + to_string(op) + (one_reason ? "" : " " + to_string(dtype))] = reason;
    }
    out << "\n";
  }
  if (!reasons.empty()) {
    out << "\nWhy not:\n";
    for (const auto& [what, why] : reasons) out << "  " << what << ": " << why << "\n";
  }
  return kExitOk;
}

}  // namespace gpb
