#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "base/text.hpp"
#include "model/rank_statistics.hpp"
#include "model/statistics.hpp"
#include "model/telemetry.hpp"
#include "model/threshold.hpp"
#include "model/types.hpp"

namespace gpb {
namespace {

constexpr int kExitNoRegression = 0;
constexpr int kExitRegression = 1;

// ---- Inputs -------------------------------------------------------------------------------

// The current suite's thresholds win; the baseline's fill in keys the current one lacks.
std::map<std::string, double> merged_thresholds(const Context& baseline, const Context& current) {
  std::map<std::string, double> thresholds = current.thresholds;
  thresholds.insert(baseline.thresholds.begin(), baseline.thresholds.end());
  for (const auto& [key, value] : thresholds) require_threshold(value, "threshold '" + key + "'");
  return thresholds;
}

// ---- Machine guard ------------------------------------------------------------------------

std::string shown(const std::string& value) { return value.empty() ? "(none)" : "'" + value + "'"; }

void note_difference(std::vector<std::string>& out, const std::string& what, const std::string& baseline,
                     const std::string& current) {
  if (baseline != current)
    out.push_back("different " + what + ": baseline " + shown(baseline) + ", current " + shown(current));
}

void note_map_differences(std::vector<std::string>& out, const std::string& what,
                          const std::map<std::string, std::string>& baseline,
                          const std::map<std::string, std::string>& current) {
  std::set<std::string> keys;
  for (const auto& entry : baseline) keys.insert(entry.first);
  for (const auto& entry : current) keys.insert(entry.first);
  const auto value_of = [](const std::map<std::string, std::string>& values, const std::string& key) {
    const auto found = values.find(key);
    return found == values.end() ? std::string() : found->second;
  };
  for (const std::string& key : keys)
    note_difference(out, what + " " + key, value_of(baseline, key), value_of(current, key));
}

// One field over all GPUs, e.g. "NVIDIA H100 80GB HBM3"; empty without a GPU.
std::string gpu_field(const Context& context, std::string GpuInfo::*field) {
  std::string joined;
  for (const GpuInfo& gpu : context.gpus) joined += (joined.empty() ? "" : ", ") + gpu.*field;
  return joined;
}

std::string machine_mismatch(const Context& baseline, const Context& current) {
  std::vector<std::string> differences;
  note_difference(differences, "GPU model", gpu_field(baseline, &GpuInfo::name), gpu_field(current, &GpuInfo::name));
  note_difference(differences, "CPU model", baseline.cpu_model, current.cpu_model);
  std::string joined;
  for (const std::string& difference : differences) joined += (joined.empty() ? "" : "; ") + difference;
  return joined;
}

// The suite's path as the run spelt it: "./configs/ci.json" and "configs/ci.json" name one
// suite, so they are compared in one spelling.
std::map<std::string, std::string> setting_texts(const std::map<std::string, SettingValue>& settings) {
  std::map<std::string, std::string> texts;
  for (const auto& [key, value] : settings) texts[key] = gpb::to_string(value);
  if (const auto suite = texts.find("suite"); suite != texts.end())
    suite->second = std::filesystem::path(suite->second).lexically_normal().generic_string();
  return texts;
}

// Differences that can move timings but do not make the machines different ones.
std::vector<std::string> context_warnings(const Context& baseline, const Context& current) {
  std::vector<std::string> warnings;
  note_difference(warnings, "GPU driver", gpu_field(baseline, &GpuInfo::driver_version),
                  gpu_field(current, &GpuInfo::driver_version));
  note_difference(warnings, "CUDA runtime", gpu_field(baseline, &GpuInfo::runtime_version),
                  gpu_field(current, &GpuInfo::runtime_version));
  note_difference(warnings, "CPU threads", std::to_string(baseline.threads), std::to_string(current.threads));
  note_difference(warnings, "CPU cores", std::to_string(baseline.cpu_cores), std::to_string(current.cpu_cores));
  note_difference(warnings, "build type", baseline.build_type, current.build_type);
  note_difference(warnings, "tool version", baseline.tool_version, current.tool_version);
  note_map_differences(warnings, "library", baseline.libraries, current.libraries);
  note_map_differences(warnings, "setting", setting_texts(baseline.settings), setting_texts(current.settings));
  return warnings;
}

// ---- Verdicts -----------------------------------------------------------------------------

bool ran_cleanly(const ResultRecord& record) {
  return record.status == Status::ok && (!record.verification.checked || record.verification.passed);
}

// Why a record has no usable measurement: "skipped: no CUDA device", "verification failed: ...".
std::string not_run_reason(const ResultRecord& record) {
  if (record.status != Status::ok)
    return to_string(record.status) + (record.reason.empty() ? "" : ": " + record.reason);
  return "verification failed: max error " + format_short(record.verification.max_error) + " > tolerance " +
         format_short(record.verification.tolerance);
}

// One side's measurement, from its raw samples. Consecutive samples are correlated (clock
// and thermal drift, interference), which makes independent-sample intervals too narrow:
// the median CI is widened by the square root of the serial variance inflation, within the
// range of the samples (no interval of a median reaches beyond them).
struct SideEvidence {
  const std::vector<double>& samples;
  Statistics stats;
  double variance_inflation = 1;
  Interval median_ci;
  double relative_halfwidth = 0;  // of median_ci; infinite when too few samples bound the median
  double fast_tail_gap = 0;       // (median - p5) / median
};

SideEvidence evidence_of(const std::vector<double>& samples) {
  SideEvidence side{samples, compute_statistics(samples), serial_variance_inflation(samples), {}, 0, 0};
  const Statistics& stats = side.stats;
  const double widening = std::sqrt(side.variance_inflation);
  side.median_ci = {std::max(stats.min, stats.median - (stats.median - stats.median_ci_low) * widening),
                    std::min(stats.max, stats.median + (stats.median_ci_high - stats.median) * widening)};
  side.relative_halfwidth = std::isfinite(median_relative_halfwidth(stats))
                                ? (side.median_ci.high - side.median_ci.low) / 2 / stats.median
                                : std::numeric_limits<double>::infinity();
  side.fast_tail_gap = (stats.median - stats.p5) / stats.median;
  return side;
}

// " (serially correlated samples: effective n 9 of 30 in the baseline)", where that discounted the evidence.
std::string serial_correlation_remark(const SideEvidence& baseline, const SideEvidence& current) {
  std::string remark;
  for (const auto& [side_name, side] :
       {std::pair<const char*, const SideEvidence&>{"baseline", baseline}, {"current", current}}) {
    if (side.variance_inflation <= 1) continue;
    const auto effective =
        static_cast<long>(std::lround(static_cast<double>(side.samples.size()) / side.variance_inflation));
    remark += std::string(remark.empty() ? " (serially correlated samples: " : ", ") + "effective n " +
              std::to_string(effective) + " of " + std::to_string(side.samples.size()) + " in the " + side_name;
  }
  return remark.empty() ? remark : remark + ")";
}

// Why a side cannot resolve a change of the threshold's size, or "" when it can. Besides a
// wide median CI, that is interference: when the fastest samples run much faster than the
// median, other processes or the scheduler set the median, and their load differs between
// runs in a way no within-run interval shows (seen as false alarms on a loaded 2-core host).
std::string noise_problem(const char* side_name, const SideEvidence& side, double threshold) {
  const std::string side_text(side_name);
  if (!std::isfinite(side.relative_halfwidth))
    return side_text + " has too few samples (" + std::to_string(side.stats.count) + ") to bound its median";
  if (side.relative_halfwidth > threshold)
    return side_text + " median CI " + format_percent(side.relative_halfwidth, "+-%.1f%%") + " > " +
           format_percent(threshold, "%g%%") + " threshold";
  if (side.fast_tail_gap > threshold)
    return side_text + " interference: p5 " + format_percent(side.fast_tail_gap, "%.1f%%") + " below the median > " +
           format_percent(threshold, "%g%%") + " threshold";
  return {};
}

// Both sides ran: the statistical verdict on their raw samples.
void judge_samples(const ResultRecord& baseline, const ResultRecord& current, double alpha, CaseComparison& out) {
  if (baseline.samples_s.empty() || current.samples_s.empty()) {
    out.noisy = true;
    out.note =
        std::string("no raw samples in the ") + (baseline.samples_s.empty() ? "baseline" : "current") + " report";
    return;
  }
  const SideEvidence base = evidence_of(baseline.samples_s);
  const SideEvidence cur = evidence_of(current.samples_s);
  out.baseline_median_s = base.stats.median;
  out.current_median_s = cur.stats.median;
  out.baseline_median_ci_s = base.median_ci;
  out.current_median_ci_s = cur.median_ci;
  out.ratio = cur.stats.median / base.stats.median;
  out.ratio_bounds = Interval{cur.median_ci.low / base.median_ci.high, cur.median_ci.high / base.median_ci.low};
  out.p_value = mann_whitney_u(cur.samples, base.samples, cur.variance_inflation, base.variance_inflation).p_value;

  for (const auto& problem :
       {noise_problem("baseline", base, out.threshold), noise_problem("current", cur, out.threshold)}) {
    if (problem.empty()) continue;
    out.noisy = true;
    out.note += (out.note.empty() ? "" : "; ") + problem;
  }
  if (out.noisy) return;

  const bool slower = *out.ratio > 1 + out.threshold;
  const bool faster = *out.ratio < 1 - out.threshold;
  if (!slower && !faster) return;
  const bool significant = *out.p_value < alpha;
  const bool separated = slower ? cur.median_ci.low > base.median_ci.high : cur.median_ci.high < base.median_ci.low;
  if (significant && separated) {
    out.verdict = slower ? Verdict::slower : Verdict::faster;
    return;
  }
  out.noisy = true;
  out.note = "change of " + format_percent(*out.ratio - 1, "%+.1f%%") + " lacks evidence: " +
             (significant ? "the median CIs overlap"
                          : "p = " + format_short(*out.p_value) + " >= alpha " + format_short(alpha)) +
             serial_correlation_remark(base, cur);
}

// baseline or current may be null (missing / new). The verdict rules are in docs/ci.md.
CaseComparison judge_case(const ResultRecord* baseline, const ResultRecord* current, double threshold, double alpha) {
  const ResultRecord& either = current ? *current : *baseline;
  CaseComparison out;
  out.id = either.spec.id();
  out.op = either.spec.op;
  out.backend = either.spec.backend;
  out.threshold = threshold;

  if (!current) {
    out.verdict = Verdict::missing;
    out.note = "not in the current report";
  } else if (current->status == Status::skipped && !(baseline && ran_cleanly(*baseline))) {
    // Never measured on either side (e.g. an op the backend does not support): nothing was lost.
    out.verdict = baseline ? Verdict::same : Verdict::new_case;
    out.note = not_run_reason(*current);
  } else if (!ran_cleanly(*current)) {
    out.verdict = Verdict::failed;
    out.note = not_run_reason(*current);
  } else if (!baseline) {
    out.verdict = Verdict::new_case;
    out.note = "not in the baseline report";
  } else if (!ran_cleanly(*baseline)) {
    out.verdict = Verdict::new_case;
    out.note = "no baseline measurement: " + not_run_reason(*baseline);
  } else {
    judge_samples(*baseline, *current, alpha, out);
    if (baseline->telemetry && current->telemetry) {
      out.telemetry_difference = telemetry_difference(*baseline->telemetry, *current->telemetry);
      if (!out.telemetry_difference.empty())
        out.note += (out.note.empty() ? "" : "; ") + std::string("clocks/power differ: ") + out.telemetry_difference;
    }
  }
  return out;
}

// Failures and slowdowns first (largest first), then what is worth a look, then the rest.
int display_rank(const CaseComparison& c) {
  switch (c.verdict) {
    case Verdict::failed: return 0;
    case Verdict::slower: return 1;
    case Verdict::missing: return 2;
    case Verdict::same: return c.noisy ? 3 : 6;
    case Verdict::faster: return 4;
    case Verdict::new_case: return 5;
  }
  return 6;
}

double change_size(const CaseComparison& c) {
  const bool decided = c.verdict == Verdict::slower || c.verdict == Verdict::faster;
  return decided && c.ratio ? std::abs(std::log(*c.ratio)) : 0.0;
}

void sort_for_display(std::vector<CaseComparison>& cases) {
  std::sort(cases.begin(), cases.end(), [](const CaseComparison& a, const CaseComparison& b) {
    return std::make_tuple(display_rank(a), -change_size(a), a.id, a.device) <
           std::make_tuple(display_rank(b), -change_size(b), b.id, b.device);
  });
}

VerdictCounts count_verdicts(const std::vector<CaseComparison>& cases) {
  VerdictCounts counts;
  for (const CaseComparison& c : cases) {
    switch (c.verdict) {
      case Verdict::failed: ++counts.failed; break;
      case Verdict::slower: ++counts.slower; break;
      case Verdict::missing: ++counts.missing; break;
      case Verdict::same: ++counts.same; break;
      case Verdict::faster: ++counts.faster; break;
      case Verdict::new_case: ++counts.new_cases; break;
    }
    if (c.noisy) ++counts.noisy;
  }
  return counts;
}

ReportOrigin origin_of(const Context& context) { return {context.git_sha, context.timestamp, context.hostname}; }

}  // namespace

std::string to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::failed: return "failed";
    case Verdict::slower: return "slower";
    case Verdict::missing: return "missing";
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::new_case: return "new";
  }
  return "?";
}

std::string CaseComparison::label() const {
  std::string qualifiers;
  if (noisy) qualifiers = "noisy";
  if (cross_machine) qualifiers += (qualifiers.empty() ? "" : ", ") + std::string("cross-machine");
  if (!telemetry_difference.empty()) qualifiers += (qualifiers.empty() ? "" : ", ") + std::string("clocks/power differ");
  return to_string(verdict) + (qualifiers.empty() ? "" : " (" + qualifiers + ")");
}

int Comparison::exit_code() const {
  const bool regressed = counts.slower > 0 || counts.failed > 0 || (counts.missing > 0 && !allow_missing);
  return regressed ? kExitRegression : kExitNoRegression;
}

bool Comparison::passed() const { return exit_code() == kExitNoRegression; }

void require_complete_report(const LoadedReport& report, const std::string& side, bool allow_interrupted) {
  if (report.context.interrupted && !allow_interrupted)
    throw UsageError("the " + side + " report is of an interrupted run and holds only the cases finished before it " +
                     "(pass --allow-interrupted to compare them)");
}

void require_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw UsageError("alpha must be between 0 and 1, got " + format_short(alpha));
}

Comparison compare_reports(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& options) {
  require_complete_report(baseline, "baseline", options.allow_interrupted);
  require_complete_report(current, "current", options.allow_interrupted);
  require_alpha(options.alpha);
  if (options.threshold) require_threshold(*options.threshold, "threshold");

  Comparison comparison;
  comparison.alpha = options.alpha;
  comparison.allow_missing = options.allow_missing;
  comparison.baseline = origin_of(baseline.context);
  comparison.current = origin_of(current.context);
  comparison.machine_mismatch = machine_mismatch(baseline.context, current.context);
  if (!comparison.machine_mismatch.empty() && !options.allow_machine_mismatch)
    throw UsageError("refusing to compare reports from different machines: " + comparison.machine_mismatch +
                     " (rerun the baseline on this machine, or pass --allow-machine-mismatch)");
  comparison.warnings = context_warnings(baseline.context, current.context);

  const auto thresholds = merged_thresholds(baseline.context, current.context);
  for (const MatchedRecords& pair : match_records(baseline.results, current.results, options.match_devices)) {
    const ResultRecord& either = pair.current ? *pair.current : *pair.baseline;
    const double threshold = case_threshold(thresholds, either.spec.op, either.spec.id(), options.threshold);
    comparison.cases.push_back(judge_case(pair.baseline, pair.current, threshold, options.alpha));
    comparison.cases.back().device = pair.device;
    comparison.cases.back().cross_machine = !comparison.machine_mismatch.empty();
  }

  sort_for_display(comparison.cases);
  comparison.counts = count_verdicts(comparison.cases);
  return comparison;
}

}  // namespace gpb
