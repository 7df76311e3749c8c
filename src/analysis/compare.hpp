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
// widens the CIs and the test's variance. Where both sides were measured in the same rounds
// (gpubench ab: A and B back to back in each round), the rank test is stratified by round
// instead (model/rank_statistics.hpp's stratified_rank_test), so a drift between rounds is
// no evidence and needs no discount. A sequential re-measurement (analysis/resolve.hpp)
// spends alpha over its looks (alpha_at_look). The rules for CI owners: docs/ci.md. Compare
// returns its verdicts and prints nothing: report/compare_render.hpp renders them.
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

// The rounds of both sides gpubench ab weighs before its first verdict: three, the fewest in
// which the rounds' disagreement with each other can be measured.
constexpr int kAbMinRounds = 3;

struct CompareOptions {
  std::optional<double> threshold;           // replaces the suite's global ("*") threshold
  double alpha = kDefaultSignificanceLevel;  // Mann-Whitney significance level, two-sided, over all looks
  PAdjust p_adjust = PAdjust::bh;            // over the cases of the comparison
  InconclusivePolicy inconclusive = InconclusivePolicy::fail;
  // Looks a sequential re-measurement may take at its growing samples (1: one comparison),
  // and which of them this comparison is (1 to looks): it tests at alpha_at_look(alpha,
  // look, looks), so the whole sequence keeps alpha.
  int looks = 1;
  int look = 1;
  // Rounds in which both sides must have been measured before a change is a verdict (gpubench
  // ab: kAbMinRounds). A change seen between one stretch of time of each side can be the
  // machine's (another job started between them); rounds in alternating order replicate it.
  int min_rounds = 1;
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
  // Where both sides recorded each sample's run-queue wait (CPU cases, ResultRecord::
  // sample_waits_s): the share of each side's sample time those waits took. The medians,
  // bounds and test below are then of the samples less their waits. Absent otherwise.
  std::optional<double> baseline_wait_share, current_wait_share;
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
  int look = 1;
  bool allow_missing = false;

  // The level this look tests at (alpha for a single comparison).
  double alpha_this_look() const;
  // kCompareExitRegression when a case is slower or failed, or missing unless allowed; else
  // kCompareExitInconclusive when a case is inconclusive (unless the policy passes it); else 0.
  int exit_code() const;
  bool passed() const;  // exit code 0
};

// Alpha spending over the looks of a sequential re-measurement: Hwang-Shih-DeCani's family
// with gamma -4, alpha (e^(4t) - 1) / (e^4 - 1) spent by the information fraction t = look /
// looks (rounds of like size). Little early (1.2 % of alpha at the first of 8 looks, 12 % by
// the half), most late (40 % at the last of 8), the shape of O'Brien-Fleming's boundaries but
// with a first look a rank test on a round's samples can pass (Lan-DeMets' O'Brien-Fleming
// spends about 1e-20 there). alpha_spent is the cumulative share by `look` (0 at look 0,
// alpha at the last); alpha_at_look what that look adds, the level it tests at. Testing each
// look at what it adds keeps the whole sequence at alpha by the union bound, whatever the
// dependence between looks. UsageError unless 0 <= look <= looks (1 <= look for
// alpha_at_look) and looks >= 1.
inline constexpr double kSpendingGamma = -4;
double alpha_spent(double alpha, int look, int looks);
double alpha_at_look(double alpha, int look, int looks);

// A `same` whose evidence has not shown it within the threshold: its median stayed within,
// but a side was noisy and the ratio's 95 % bounds still reach beyond 1 +- threshold. A
// sequential re-measurement keeps measuring such a case and, once its budget is spent, calls
// it inconclusive (settle_unsettled_same).
bool unsettled_same(const CaseComparison& c);

// The end of a sequential re-measurement: every unsettled_same case becomes inconclusive, with
// the reason and the next step; the counts and the order follow. `rounds`: the rounds spent.
void settle_unsettled_same(Comparison& comparison, int rounds);

// What settles inconclusive cases, in general: "" when there are none.
std::string inconclusive_advice(const Comparison& comparison);

// Matches cases by CaseSpec::id() and device (device_match.hpp) and judges each. Throws
// UsageError when the GPU or CPU models differ (unless allowed), when a report is of an
// interrupted run (unless allowed), on a case listed twice (on one device) in one report, on
// thresholds or alpha outside (0, 1), on fewer than one look and on a look outside 1..looks.
Comparison compare_reports(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& options);

// UsageError unless `alpha` (a significance level) is inside (0, 1).
void require_alpha(double alpha);

// Throws UsageError when `report` (the "baseline" or "current" one, as `side` says) is of an
// interrupted run and allow_interrupted is not set: its missing cases would read as regressions.
void require_complete_report(const LoadedReport& report, const std::string& side, bool allow_interrupted);

}  // namespace gpb
