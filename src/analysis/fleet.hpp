// Many GPUs, many ranks: the reports of a run's processes joined into one, and the fleet
// view of it -- per case, every GPU's median against the fleet's, and the slow GPUs named.
// Readers of records like the reporters: nothing here measures anything.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/record_format.hpp"
#include "model/result.hpp"

namespace gpb {

// A GPU slower than the fleet median by more than this fraction (with its spread above it)
// is an outlier in the fleet view.
inline constexpr double kDefaultOutlierThreshold = 0.05;

// ---- Merging ------------------------------------------------------------------------------

struct NamedReport {
  std::string origin;  // a path, or "rank 3" for an MPI rank's report
  LoadedReport report;
};

// Joins the reports that the ranks of one run wrote. Refuses (UsageError naming both
// origins) reports of different gpubench builds (tool version or git sha), of different
// suites (a run setting differs, or a case is in one report only) and two reports of the
// same rank on the same host. The result's context is the lowest rank's, with every rank
// in `ranks`, the GPUs the ranks used in `gpus` and the notes of all; each record carries
// its rank and host; records come rank by rank.
//
// The ranks must belong to one run: a rank at or past its run's world size, or two reports
// whose runs had different world sizes, is refused. Ranks of the run that no report holds are
// named in a note of the merged context (missing_ranks gives them).
LoadedReport merge_reports(std::vector<NamedReport> reports);

// The ranks below the world size the context's ranks report (0: unknown) that none of them
// holds, in order; empty where the world size is unknown or every rank is there.
std::vector<int> missing_ranks(const Context& context);

// "rank 2", "ranks 1 and 2": missing ranks named in a sentence.
std::string ranks_text(const std::vector<int>& ranks);

// ---- The fleet view -----------------------------------------------------------------------

// One GPU, or for CPU cases one rank's CPU, that measured cases of the report.
struct FleetUnit {
  std::string label;  // "node-b GPU 3"; "node-b rank 5 GPU 0" where the host's ranks share ordinals
  std::string host;
  int rank = 0;
  DeviceKind kind = DeviceKind::gpu;
  GpuIdentity gpu;  // GPU units
};

struct FleetMember {
  std::size_t unit = 0;  // index into FleetView::units
  double median_s = 0;
  double ci_low_s = 0, ci_high_s = 0;  // 95 % confidence interval of that median
  double deviation = 0;  // median / fleet median - 1: above 0 is slower than the fleet
  // Robust outlier score: (median - fleet median) / (1.4826 * MAD), the MAD scaled to a
  // standard deviation for normal data. Infinite when the MAD is 0 and this median differs.
  double score = 0;
  bool outlier = false;
};

struct FleetCase {
  std::string id;
  double fleet_median_s = 0;  // median of the members' medians
  double mad_s = 0;           // median absolute deviation of the members' medians from it
  std::vector<FleetMember> members;
};

// A unit whose record of a fleet case failed (or failed verification): worse than slow.
struct FleetFailure {
  std::size_t unit = 0;
  std::string id;
  std::string reason;
};

struct FleetView {
  double threshold = kDefaultOutlierThreshold;
  std::vector<FleetUnit> units;         // in the order the report first lists them
  std::vector<FleetCase> cases;         // cases measured by at least two units, in report order
  std::vector<FleetFailure> failures;

  // Whether the report spans several GPUs or ranks for some case.
  bool applies() const { return !cases.empty() || !failures.empty(); }
  std::size_t outlier_count() const;
};

// One unit's measurement of a case, what the outlier rule reads.
struct UnitMeasurement {
  std::size_t unit = 0;
  double median_s = 0;
  double ci_low_s = 0, ci_high_s = 0;
};

// The fleet statistics of one case and its outliers (at least two measurements). A member
// is an outlier when it is slower than the fleet median by more than `threshold` AND its
// median's confidence interval lies wholly above the fleet median: a noisy GPU whose spread
// covers the fleet median is not one, however far its median strays. The score is shown,
// not used: with two GPUs it is always +-0.67, whatever their difference.
FleetCase judge_fleet_case(const std::string& id, const std::vector<UnitMeasurement>& measurements, double threshold);

// The fleet view of a report (a merged one, or one run over several GPUs). Records that ran
// cleanly (ok, verified where checked) are measurements; failed ones are failures; skipped
// ones are left out.
FleetView analyze_fleet(const Context& context, const std::vector<ResultRecord>& results, double threshold);

// "node-b GPU 3: sum/cuda/f32/64M 14 % slower than the fleet median (1.23 ms against 1.08 ms)"
std::string describe_outlier(const FleetView& view, const FleetCase& fleet_case, const FleetMember& member);

// "node-b GPU 3: sum/cuda/f32/64M failed: out of device memory ..."
std::string describe_failure(const FleetView& view, const FleetFailure& failure);

}  // namespace gpb
