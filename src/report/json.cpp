// The JSON report: the record format (model/record_format.hpp) with what every report adds
// to the records -- the speed-up column against --relative-to, the CPU-versus-GPU summary
// and, for a report over several GPUs or ranks, the fleet view.
#include "analysis/fleet.hpp"
#include "analysis/summary.hpp"
#include "base/errors.hpp"
#include "base/input_file.hpp"
#include "model/record_format.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/summary_render.hpp"

namespace gpb {

std::string render_json(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  RecordAdditions additions;
  if (options.relative_to) {
    additions.relative_to = options.relative_to;
    for (const auto& record : results)
      additions.speedups.push_back(report_model::speedup(record, results, *options.relative_to));
  }
  additions.sections.emplace_back("summary", render_speedups_json(summarize_speedups(results)));
  const FleetView fleet = analyze_fleet(context, results, options.outlier_threshold);
  if (fleet.applies()) additions.sections.emplace_back("fleet", render_fleet_json(fleet));
  std::string text = render_records_json(context, results, additions);
  if (text.size() > kMaxReportBytes)
    throw UsageError("the JSON report of these " + std::to_string(results.size()) + " results takes " +
                     describe_bytes(text.size()) + ", more than the " + describe_bytes(kMaxReportBytes) +
                     " that gpubench reads back (docs/bounds.md): run fewer cases or fewer --max-samples");
  return text;
}

std::string render_report_schema() { return render_records_schema({{"fleet", fleet_json_schema()}}); }

}  // namespace gpb
