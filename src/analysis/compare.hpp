// Baseline comparison for CI: one verdict per case and an exit code that fails on a real
// slowdown, never waves a clear one through, and says so when the evidence settles nothing.
//
// Evidence first, judged on the raw samples: a case is slower (or faster) when the 95 %
// bounds of the ratio of medians (current / baseline) lie wholly beyond 1 +- threshold and a
// two-sided Mann-Whitney U test rejects "same distribution" at alpha, its p-value adjusted
// over the comparison's cases (Benjamini-Hochberg by default, Holm on request), noisy
// samples or not. Noise can only leave a case inconclusive: its median moved beyond the
// threshold but the evidence does not settle it. A case whose median stayed within the
// threshold is same, "same (noisy)" when a side could not have resolved a change of the
// threshold's size (a median CI wider than the threshold, or interference: its fastest 5 %
// of samples far below its median). Serial correlation of the samples is estimated and
// widens the CIs and the test's variance. A sequential re-measurement (analysis/resolve.hpp)
// splits alpha over its looks. The rules for CI owners: docs/ci.md. Compare returns its
// verdicts and prints nothing: report/compare_render.hpp renders them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/device_match.hpp"
#include "model/record_format.hpp"
#include "model/result.hpp"

namespace gpb {

inline constexpr double kDefaultSignificanceLevel = 0.001;

// compare's exit codes (cli/exit_codes.hpp lists the program's): nothing regressed, a
// regression, and no regression but a case the evidence did not settle.
inline constexpr int kCompareExitPass = 0;
inline constexpr int kCompareExitRegression = 1;
inline constexpr int kCompareExitInconclusive = 4;

// How the p-values of one comparison's cases are adjusted for their number: Benjamini-
// Hochberg (the false discovery rate, the default), Holm (the family-wise error rate), or
// none (each case at alpha on its own).
enum class PAdjust { bh, holm, none };
std::string to_string(PAdjust adjust);       // "bh", "holm", "none"
PAdjust parse_p_adjust(std::string_view text);  // UsageError naming --p-adjust

// What an inconclusive case makes of the exit code: fail (kCompareExitInconclusive, the
// default) or pass (0).
enum class InconclusivePolicy { fail, pass };
std::string to_string(InconclusivePolicy policy);                 // "fail", "pass"
InconclusivePolicy parse_inconclusive_policy(std::string_view text);  // UsageError naming --inconclusive

struct CompareOptions {
  std::optional<double> threshold;           // replaces the suite's global ("*") threshold
  double alpha = kDefaultSignificanceLevel;  // Mann-Whitney significance level, two-sided, over all looks
  PAdjust p_adjust = PAdjust::bh;            // over the cases of the comparison
  InconclusivePolicy inconclusive = InconclusivePolicy::fail;
  // Looks a sequential re-measurement may take at its growing samples (1: one comparison):
  // each look tests at alpha / looks, so the whole sequence keeps alpha.
  int looks = 1;
  bool allow_missing = false;                // cases absent from the current report do not fail
  bool allow_machine_mismatch = false;       // compare across GPU/CPU models; verdicts marked cross-machine
  DeviceMatch match_devices = DeviceMatch::uuid;  // how reports over several GPUs or ranks pair their records
  bool allow_interrupted = false;            // compare reports of interrupted runs (their finished cases)
};

// In order of severity; the tables list cases in this order.
enum class Verdict { failed, slower, missing, inconclusive, same, faster, new_case };
// "failed", "slower", "missing", "inconclusive", "same", "faster", "new"
std::string to_string(Verdict verdict);

struct Interval {
  double low = 0, high = 0;
};

struct CaseComparison {
  std::string id;  // CaseSpec::id()
  std::string device;  // where, when the case ran on several GPUs or ranks ("node-a GPU 1"); else empty
  Op op = Op::sin;
  std::string backend;
  Verdict verdict = Verdict::same;
  bool noisy = false;          // same, and a side could not have resolved a threshold-sized change
  bool cross_machine = false;  // the reports come from different GPU/CPU models
  // Where both sides have GPU telemetry and their SM clock medians or mean powers differ by
  // more than kTelemetryDifferenceTolerance: what differs. The verdict stands; this says
  // the device ran differently, not the code.
  std::string telemetry_difference;
  // Where a side's CPU telemetry shows interference (model/cpu_telemetry.hpp): which side and
  // what, "current: 41/60 samples oversubscribed, load 6.1 on 2 cores". The verdict stands.
  std::string interference;
  // Recomputed from the raw samples; absent where a side has no measurement.
  std::optional<double> baseline_median_s, current_median_s;
  std::optional<Interval> baseline_median_ci_s, current_median_ci_s;  // 95 %
  std::optional<double> ratio;                                        // current median / baseline median
  std::optional<Interval> ratio_bounds;  // current CI over baseline CI: [low / high, high / low]
  std::optional<double> p_value;         // Mann-Whitney U, two-sided
  std::optional<double> p_adjusted;      // p_value adjusted over the comparison's cases (CompareOptions::p_adjust)
  double threshold = 0;                  // the fraction this case was judged against
  int rounds = 0;                        // rounds of re-measurement pooled into the samples (ResultRecord::resolve_rounds)
  std::string note;                      // why, where the verdict needs a reason
  std::string next_step;                 // inconclusive cases: what would settle them

  // "slower", "same (noisy)", "faster (cross-machine)", "slower (clocks/power differ)",
  // "inconclusive (interference)".
  std::string label() const;
};

struct VerdictCounts {
  std::size_t failed = 0, slower = 0, missing = 0, inconclusive = 0, same = 0, noisy = 0, faster = 0, new_cases = 0;
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
  double alpha = kDefaultSignificanceLevel;  // over all looks
  PAdjust p_adjust = PAdjust::bh;
  InconclusivePolicy inconclusive = InconclusivePolicy::fail;
  int looks = 1;
  bool allow_missing = false;

  double alpha_per_look() const { return alpha / looks; }
  // kCompareExitRegression when a case is slower or failed, or missing unless allowed; else
  // kCompareExitInconclusive when a case is inconclusive (unless the policy passes it); else 0.
  int exit_code() const;
  bool passed() const;  // exit code 0
};

// What settles inconclusive cases, in general: "" when there are none.
std::string inconclusive_advice(const Comparison& comparison);

// Matches cases by CaseSpec::id() and device (device_match.hpp) and judges each. Throws
// UsageError when the GPU or CPU models differ (unless allowed), when a report is of an
// interrupted run (unless allowed), on a case listed twice (on one device) in one report, on
// thresholds or alpha outside (0, 1) and on fewer than one look.
Comparison compare_reports(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& options);

// UsageError unless `alpha` (a significance level) is inside (0, 1).
void require_alpha(double alpha);

// Throws UsageError when `report` (the "baseline" or "current" one, as `side` says) is of an
// interrupted run and allow_interrupted is not set: its missing cases would read as regressions.
void require_complete_report(const LoadedReport& report, const std::string& side, bool allow_interrupted);

}  // namespace gpb
