// Baseline comparison for CI: one verdict per case and an exit code that fails on a real
// slowdown and only then.
//
// A case is slower (or faster) only when three things agree, judged on the raw samples:
//   - the ratio of medians (current / baseline) is beyond 1 +- threshold,
//   - a two-sided Mann-Whitney U test rejects "same distribution" at alpha,
//   - the 95 % confidence intervals of the two medians do not overlap, in that direction.
// A side cannot resolve a change of the threshold's size when its median CI half-width
// exceeds the threshold, or when its fastest 5 % of samples run more than the threshold below
// its median (interference sets the median); its case is then "same (noisy)", and so is a
// change beyond the threshold without the evidence. Serial correlation of the samples is
// estimated and widens the CIs and the test's variance. The rules for CI owners: docs/ci.md.
// Compare returns its verdicts and prints nothing: report/compare_render.hpp renders them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/device_match.hpp"
#include "model/record_format.hpp"
#include "model/result.hpp"

namespace gpb {

inline constexpr double kDefaultSignificanceLevel = 0.001;

struct CompareOptions {
  std::optional<double> threshold;           // replaces the suite's global ("*") threshold
  double alpha = kDefaultSignificanceLevel;  // Mann-Whitney significance level, two-sided
  bool allow_missing = false;                // cases absent from the current report do not fail
  bool allow_machine_mismatch = false;       // compare across GPU/CPU models; verdicts marked cross-machine
  DeviceMatch match_devices = DeviceMatch::uuid;  // how reports over several GPUs or ranks pair their records
  bool allow_interrupted = false;            // compare reports of interrupted runs (their finished cases)
};

// In order of severity; the tables list cases in this order.
enum class Verdict { failed, slower, missing, same, faster, new_case };
std::string to_string(Verdict verdict);  // "failed", "slower", "missing", "same", "faster", "new"

struct Interval {
  double low = 0, high = 0;
};

struct CaseComparison {
  std::string id;  // CaseSpec::id()
  std::string device;  // where, when the case ran on several GPUs or ranks ("node-a GPU 1"); else empty
  Op op = Op::sin;
  std::string backend;
  Verdict verdict = Verdict::same;
  bool noisy = false;          // same because the samples could not resolve a threshold-sized change
  bool cross_machine = false;  // the reports come from different GPU/CPU models
  // Where both sides have GPU telemetry and their SM clock medians or mean powers differ by
  // more than kTelemetryDifferenceTolerance: what differs. The verdict stands; this says
  // the device ran differently, not the code.
  std::string telemetry_difference;
  // Recomputed from the raw samples; absent where a side has no measurement.
  std::optional<double> baseline_median_s, current_median_s;
  std::optional<Interval> baseline_median_ci_s, current_median_ci_s;  // 95 %
  std::optional<double> ratio;                                        // current median / baseline median
  std::optional<Interval> ratio_bounds;  // current CI over baseline CI: [low / high, high / low]
  std::optional<double> p_value;         // Mann-Whitney U, two-sided
  double threshold = 0;                  // the fraction this case was judged against
  std::string note;                      // why, where the verdict needs a reason

  // "slower", "same (noisy)", "faster (cross-machine)", "slower (clocks/power differ)".
  std::string label() const;
};

struct VerdictCounts {
  std::size_t failed = 0, slower = 0, missing = 0, same = 0, noisy = 0, faster = 0, new_cases = 0;
};

struct ReportOrigin {
  std::string git_sha, timestamp, hostname;
};

struct Comparison {
  std::vector<CaseComparison> cases;  // regressions first
  std::vector<std::string> warnings;  // context differences that do not refuse the comparison
  std::string machine_mismatch;       // set when GPU/CPU models differ (allowed by the options)
  VerdictCounts counts;               // same includes the noisy ones
  ReportOrigin baseline, current;
  double alpha = kDefaultSignificanceLevel;
  bool allow_missing = false;

  // 0 when nothing regressed; 1 when a case is slower or failed, or missing unless allowed.
  int exit_code() const;
  bool passed() const;  // exit code 0
};

// Matches cases by CaseSpec::id() and device (device_match.hpp) and judges each. Throws
// UsageError when the GPU or CPU models differ (unless allowed), when a report is of an
// interrupted run (unless allowed), on a case listed twice (on one device) in one report, and
// on thresholds or alpha outside (0, 1).
Comparison compare_reports(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& options);

// UsageError unless `alpha` (a significance level) is inside (0, 1).
void require_alpha(double alpha);

// Throws UsageError when `report` (the "baseline" or "current" one, as `side` says) is of an
// interrupted run and allow_interrupted is not set: its missing cases would read as regressions.
void require_complete_report(const LoadedReport& report, const std::string& side, bool allow_interrupted);

}  // namespace gpb
