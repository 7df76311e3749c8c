#include "analysis/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "base/text.hpp"
#include "model/cpu_telemetry.hpp"
#include "model/rank_statistics.hpp"
#include "model/statistics.hpp"
#include "model/telemetry.hpp"
#include "model/threshold.hpp"
#include "model/types.hpp"

namespace gpb {
namespace {

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

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string text;
  for (const std::string& part : parts)
    if (!part.empty()) text += (text.empty() ? "" : separator) + part;
  return text;
}

// A case while it is judged: what the samples say, before the p-values of all cases are
// adjusted and the verdict decided.
struct PendingCase {
  CaseComparison comparison;
  bool measured = false;                    // both sides have samples: decided after the adjustment
  std::vector<std::string> noise_problems;  // noise_problem() of each side that has one
  std::size_t rounds = 1;                   // rounds in which both sides were measured (ab), else 1
  std::size_t rounds_slower = 0, rounds_faster = 0;  // of those, where the round's median ratio is beyond the threshold
  std::string serial_remark;                // why the test's variance was widened, where it was
  bool serial_remark_always = false;        // said with every verdict (a blocked test's discount), not only inconclusive
  std::string wait_remark;                  // why CPU samples were judged with their waits for a CPU in, where so
};

// The samples of each round of a record (`samples` are the record's, as judged), where its
// rounds were pooled (round_sizes); one block otherwise, or where the sizes do not add up to
// its samples.
std::vector<std::vector<double>> round_blocks(const ResultRecord& record, const std::vector<double>& samples) {
  std::size_t total = 0;
  for (const std::size_t size : record.round_sizes) total += size;
  if (record.round_sizes.size() < 2 || total != samples.size()) return {samples};
  std::vector<std::vector<double>> blocks;
  auto next = samples.begin();
  for (const std::size_t size : record.round_sizes) {
    blocks.emplace_back(next, next + static_cast<std::ptrdiff_t>(size));
    next += static_cast<std::ptrdiff_t>(size);
  }
  return blocks;
}

// " (rank test stratified by 8 rounds; within-round serial correlation: variance x1.6; the
// rounds disagree beyond that: variance x2.1)": what the blocked test discounted, where it did.
std::string blocked_remark(const StratifiedRankResult& test, std::size_t rounds) {
  std::string remark = " (rank test stratified by " + std::to_string(rounds) + " rounds";
  if (test.within_inflation > 1.005)
    remark += "; within-round serial correlation: variance x" + format_significant(test.within_inflation, 2);
  if (test.between_inflation > 1.005)
    remark += "; the rounds disagree beyond their within-round noise: variance x" +
              format_significant(test.between_inflation, 2);
  return remark + ")";
}

bool has_sample_waits(const ResultRecord& record) {
  return !record.sample_waits_s.empty() && record.sample_waits_s.size() == record.samples_s.size();
}

// A record's samples less the time its threads waited for a CPU in each: what the op took
// on the CPU, whatever else the machine ran. The runner records no wait beyond its sample's
// host-observed time (a hair over the timed one); a sample that a wait reaches, or a report
// that says more, is judged at kBusyThreadShare of itself, never at zero.
std::vector<double> samples_less_waits(const ResultRecord& record) {
  std::vector<double> judged(record.samples_s.size());
  for (std::size_t i = 0; i < judged.size(); ++i)
    judged[i] = std::max(record.samples_s[i] - record.sample_waits_s[i], kBusyThreadShare * record.samples_s[i]);
  return judged;
}

// The share of a record's sample time its waits took.
double wait_share(const ResultRecord& record) {
  double waited = 0, total = 0;
  for (std::size_t i = 0; i < record.samples_s.size(); ++i) {
    waited += std::min(record.sample_waits_s[i], record.samples_s[i]);
    total += record.samples_s[i];
  }
  return total > 0 ? waited / total : 0;
}

// Both sides ran: the evidence of their raw samples -- less each sample's wait for a CPU
// where both sides measured those waits (a side that did not leaves both as measured, so
// that the two are judged alike).
void weigh_samples(const ResultRecord& baseline, const ResultRecord& current, PendingCase& pending) {
  CaseComparison& out = pending.comparison;
  if (baseline.samples_s.empty() || current.samples_s.empty()) {
    out.verdict = Verdict::inconclusive;
    out.note = std::string("no raw samples in the ") + (baseline.samples_s.empty() ? "baseline" : "current") + " report";
    out.next_step = "rerun that side: its report holds no samples to judge";
    return;
  }
  const bool less_waits = has_sample_waits(baseline) && has_sample_waits(current);
  const std::vector<double> base_samples = less_waits ? samples_less_waits(baseline) : baseline.samples_s;
  const std::vector<double> cur_samples = less_waits ? samples_less_waits(current) : current.samples_s;
  if (less_waits) {
    out.baseline_wait_share = wait_share(baseline);
    out.current_wait_share = wait_share(current);
  } else if (baseline.cpu_telemetry && current.cpu_telemetry && (has_sample_waits(baseline) || has_sample_waits(current))) {
    pending.wait_remark = std::string("judged as measured, waits for a CPU included: the ") +
                          (has_sample_waits(baseline) ? "current" : "baseline") +
                          " report has no per-sample waits (written before they were recorded, or on a kernel "
                          "without scheduler statistics)";
  }
  const SideEvidence base = evidence_of(base_samples);
  const SideEvidence cur = evidence_of(cur_samples);
  out.baseline_median_s = base.stats.median;
  out.current_median_s = cur.stats.median;
  out.baseline_median_ci_s = base.median_ci;
  out.current_median_ci_s = cur.median_ci;
  out.ratio = cur.stats.median / base.stats.median;
  out.ratio_bounds = Interval{cur.median_ci.low / base.median_ci.high, cur.median_ci.high / base.median_ci.low};
  pending.measured = true;
  for (const auto& problem :
       {noise_problem("baseline", base, out.threshold), noise_problem("current", cur, out.threshold)})
    if (!problem.empty()) pending.noise_problems.push_back(problem);
  const std::vector<std::vector<double>> base_rounds = round_blocks(baseline, base_samples),
                                         cur_rounds = round_blocks(current, cur_samples);
  if (base_rounds.size() >= 2 && base_rounds.size() == cur_rounds.size()) {
    // Both sides measured in the same rounds: each round compared within itself, so a drift
    // between rounds needs no discount; a within-round one does where a round shows it.
    // Each round's median ratio beyond the threshold counts towards the change replicating.
    std::vector<RankStratum> strata;
    for (std::size_t r = 0; r < base_rounds.size(); ++r) {
      strata.push_back({cur_rounds[r], base_rounds[r], serial_variance_inflation(cur_rounds[r]),
                        serial_variance_inflation(base_rounds[r])});
      if (base_rounds[r].empty() || cur_rounds[r].empty()) continue;
      const double round_ratio = compute_statistics(cur_rounds[r]).median / compute_statistics(base_rounds[r]).median;
      pending.rounds_slower += round_ratio > 1 + out.threshold;
      pending.rounds_faster += round_ratio < 1 - out.threshold;
    }
    const StratifiedRankResult test = stratified_rank_test(strata);
    pending.rounds = base_rounds.size();
    out.p_value = test.p_value;
    pending.serial_remark = blocked_remark(test, test.strata);
    pending.serial_remark_always = test.within_inflation > 1.005 || test.between_inflation > 1.005;
    return;
  }
  out.p_value = mann_whitney_u(cur.samples, base.samples, cur.variance_inflation, base.variance_inflation).p_value;
  pending.serial_remark = serial_correlation_remark(base, cur);
}

// "current: 41/60 samples oversubscribed, load 6.1 on 2 cores" for each side whose CPU
// telemetry shows interference.
std::string interference_of(const ResultRecord& baseline, const ResultRecord& current) {
  std::vector<std::string> sides;
  for (const auto& [name, record] :
       {std::pair<const char*, const ResultRecord&>{"baseline", baseline}, {"current", current}}) {
    if (!record.cpu_telemetry) continue;
    const std::string summary = interference_summary(*record.cpu_telemetry, record.samples_s.size(), record.threads_used);
    if (!summary.empty()) sides.push_back(std::string(name) + ": " + summary);
  }
  return joined(sides, "; ");
}

// What would settle an inconclusive case: more samples first; a quieter machine where the
// samples show interference or noise; or a threshold above the noise.
std::string settling_steps(const CaseComparison& c, bool noisy) {
  std::string steps = "more samples (run --baseline with --resolve N, or gpubench ab to re-measure both sides)";
  if (!c.interference.empty())
    steps += "; a quieter runner (" + c.interference + ")";
  else if (noisy)
    steps += "; a quieter runner";
  if (c.ratio)
    steps += "; or, if a change of " + format_percent(std::abs(*c.ratio - 1), "%.1f%%") +
             " does not matter here, a threshold above it for this case (the suite's \"thresholds\")";
  return steps;
}

// The verdict once the case's p-value is adjusted: slower or faster where the evidence
// settles the change beyond the threshold, inconclusive where the median moved beyond it and
// the evidence does not settle it, same otherwise.
void decide(PendingCase& pending, double alpha, int min_rounds) {
  CaseComparison& out = pending.comparison;
  const double ratio = *out.ratio;
  const Interval bounds = *out.ratio_bounds;
  const double threshold = out.threshold;
  const bool significant = *out.p_adjusted < alpha;
  const std::string noise = joined(pending.noise_problems, "; ");
  // A blocked test's discount is said with every verdict: it is part of what was weighed.
  const std::string remark = pending.serial_remark_always ? trim(pending.serial_remark) : std::string();
  const auto with_remark = [&remark](std::string note) {
    return remark.empty() ? note : note + (note.empty() ? "" : " ") + remark;
  };
  // Where the sides ran in rounds that must replicate the change (ab), it must be beyond the
  // threshold in at least min_rounds of them and in most.
  const std::size_t agreeing = ratio > 1 ? pending.rounds_slower : pending.rounds_faster;
  const bool replicated = min_rounds <= 1 || (agreeing >= static_cast<std::size_t>(min_rounds) && 2 * agreeing > pending.rounds);
  if (significant && replicated && (bounds.low > 1 + threshold || bounds.high < 1 - threshold)) {
    out.verdict = bounds.low > 1 + threshold ? Verdict::slower : Verdict::faster;
    out.note = with_remark(noise.empty() ? "" : "decided despite the noise: " + noise);
    return;
  }
  const bool moved = ratio > 1 + threshold || ratio < 1 - threshold;
  if (!moved) {
    out.noisy = !noise.empty();
    out.note = with_remark(noise);
    return;
  }
  out.verdict = Verdict::inconclusive;
  std::vector<std::string> missing;
  const bool bounds_clear = ratio > 1 ? bounds.low > 1 + threshold : bounds.high < 1 - threshold;
  if (!bounds_clear) {
    char range[96];
    std::snprintf(range, sizeof range, "its 95%% bounds [%.3f, %.3f] reach within the threshold", bounds.low, bounds.high);
    missing.emplace_back(range);
  }
  if (!significant) {
    std::string test = "p = " + format_short(*out.p_value);
    if (*out.p_adjusted != *out.p_value) test += " (adjusted " + format_short(*out.p_adjusted) + ")";
    missing.push_back(test + " >= alpha " + format_short(alpha));
  }
  if (!replicated)
    missing.push_back("beyond the threshold in " + std::to_string(agreeing) + " of " + std::to_string(pending.rounds) +
                      (pending.rounds == 1 ? " round" : " rounds") + ", a verdict needs at least " +
                      std::to_string(min_rounds) + " and most of them (a change between two stretches of time can be "
                      "the machine's)");
  missing.insert(missing.end(), pending.noise_problems.begin(), pending.noise_problems.end());
  out.note = "median " + format_percent(ratio - 1, "%+.1f%%") + " beyond the " + format_percent(threshold, "%g%%") +
             " threshold, not settled: " + joined(missing, "; ") + pending.serial_remark;
  out.next_step = settling_steps(out, !noise.empty());
}

// baseline or current may be null (missing / new). The verdict rules are in docs/ci.md.
PendingCase judge_case(const ResultRecord* baseline, const ResultRecord* current, double threshold) {
  const ResultRecord& either = current ? *current : *baseline;
  PendingCase pending;
  CaseComparison& out = pending.comparison;
  out.id = either.spec.id();
  out.op = either.spec.op;
  out.backend = either.spec.backend;
  out.threshold = threshold;
  out.rounds = std::max(baseline ? baseline->resolve_rounds : 0, current ? current->resolve_rounds : 0);

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
    weigh_samples(*baseline, *current, pending);
    out.interference = interference_of(*baseline, *current);
    if (baseline->telemetry && current->telemetry)
      out.telemetry_difference = telemetry_difference(*baseline->telemetry, *current->telemetry);
  }
  return pending;
}

// The measured cases' p-values adjusted over the comparison, then their verdicts.
void decide_measured(std::vector<PendingCase>& cases, PAdjust adjust, double alpha, int min_rounds) {
  std::vector<double> p_values;
  for (const PendingCase& pending : cases)
    if (pending.measured) p_values.push_back(*pending.comparison.p_value);
  const std::vector<double> adjusted = adjust == PAdjust::bh     ? benjamini_hochberg(p_values)
                                       : adjust == PAdjust::holm ? holm(p_values)
                                                                 : p_values;
  std::size_t next = 0;
  for (PendingCase& pending : cases) {
    if (!pending.measured) continue;
    pending.comparison.p_adjusted = adjusted[next++];
    decide(pending, alpha, min_rounds);
  }
}

// A wait share of at least this much is said in the note: below it, taking the waits out
// changed the figures by less than any threshold could notice.
constexpr double kWaitShareWorthSaying = 0.01;

// What the machines did beside the verdict: the notes every verdict carries.
void add_remarks(PendingCase& pending) {
  CaseComparison& c = pending.comparison;
  if (!pending.wait_remark.empty()) c.note += (c.note.empty() ? "" : "; ") + pending.wait_remark;
  if (c.baseline_wait_share && c.current_wait_share &&
      std::max(*c.baseline_wait_share, *c.current_wait_share) >= kWaitShareWorthSaying)
    c.note += (c.note.empty() ? "" : "; ") + std::string("judged less the time waiting for a CPU (baseline ") +
              format_percent(*c.baseline_wait_share, "%.0f%%") + ", current " +
              format_percent(*c.current_wait_share, "%.0f%%") + " of the sample time)";
  if (!c.interference.empty()) c.note += (c.note.empty() ? "" : "; ") + std::string("interference: ") + c.interference;
  if (!c.telemetry_difference.empty())
    c.note += (c.note.empty() ? "" : "; ") + std::string("clocks/power differ: ") + c.telemetry_difference;
  if (c.rounds > 0)
    c.note += (c.note.empty() ? "" : "; ") + std::string("after ") + std::to_string(c.rounds) +
              (c.rounds == 1 ? " round" : " rounds") + " of re-measurement";
}

// Failures and slowdowns first (largest first), then what is worth a look, then the rest.
int display_rank(const CaseComparison& c) {
  switch (c.verdict) {
    case Verdict::failed: return 0;
    case Verdict::slower: return 1;
    case Verdict::missing: return 2;
    case Verdict::inconclusive: return 3;
    case Verdict::same: return c.noisy ? 4 : 7;
    case Verdict::faster: return 5;
    case Verdict::new_case: return 6;
  }
  return 7;
}

double change_size(const CaseComparison& c) {
  const bool moved = c.verdict == Verdict::slower || c.verdict == Verdict::faster || c.verdict == Verdict::inconclusive;
  return moved && c.ratio ? std::abs(std::log(*c.ratio)) : 0.0;
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
      case Verdict::inconclusive: ++counts.inconclusive; break;
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
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::new_case: return "new";
  }
  return "?";
}

std::string to_string(PAdjust adjust) {
  switch (adjust) {
    case PAdjust::bh: return "bh";
    case PAdjust::holm: return "holm";
    case PAdjust::none: return "none";
  }
  return "?";
}

PAdjust parse_p_adjust(std::string_view text) {
  for (PAdjust adjust : {PAdjust::bh, PAdjust::holm, PAdjust::none})
    if (text == to_string(adjust)) return adjust;
  // The other names of the two methods, and Bonferroni's, which holm bounds the same error with more power.
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const char* meant = lower == "fdr" || lower == "benjamini-hochberg" || lower == "bh-fdr" ? "bh"
                      : lower == "bonferroni" || lower == "fwer" || lower == "holm-bonferroni" ? "holm"
                      : lower == "no" || lower == "off" ? "none"
                                                        : nullptr;
  throw UsageError("--p-adjust '" + std::string(text) + "': " +
                   (meant ? std::string("did you mean ") + meant + "? " : std::string()) +
                   "expected bh (Benjamini-Hochberg, the false discovery rate), holm (the family-wise error rate, "
                   "as Bonferroni bounds it) or none");
}

std::string to_string(InconclusivePolicy policy) { return policy == InconclusivePolicy::fail ? "fail" : "pass"; }

InconclusivePolicy parse_inconclusive_policy(std::string_view text) {
  if (text == "fail") return InconclusivePolicy::fail;
  if (text == "pass") return InconclusivePolicy::pass;
  throw UsageError("--inconclusive '" + std::string(text) + "': expected fail (exit " +
                   std::to_string(kCompareExitInconclusive) + ") or pass (exit 0)");
}

std::string CaseComparison::label() const {
  std::vector<std::string> qualifiers;
  if (noisy) qualifiers.emplace_back("noisy");
  if (cross_machine) qualifiers.emplace_back("cross-machine");
  if (!telemetry_difference.empty()) qualifiers.emplace_back("clocks/power differ");
  if (!interference.empty()) qualifiers.emplace_back("interference");
  const std::string text = joined(qualifiers, ", ");
  return to_string(verdict) + (text.empty() ? "" : " (" + text + ")");
}

int Comparison::exit_code() const {
  if (counts.slower > 0 || counts.failed > 0 || (counts.missing > 0 && !allow_missing)) return kCompareExitRegression;
  if (counts.inconclusive > 0 && inconclusive == InconclusivePolicy::fail) return kCompareExitInconclusive;
  return kCompareExitPass;
}

double Comparison::alpha_this_look() const { return alpha_at_look(alpha, look, looks); }

double alpha_spent(double alpha, int look, int looks) {
  if (looks < 1 || look < 0 || look > looks)
    throw UsageError("look " + std::to_string(look) + " is not one of the " + std::to_string(looks) + " looks");
  if (look == looks) return alpha;  // exactly: a single comparison tests at alpha
  const double t = static_cast<double>(look) / looks;
  return alpha * std::expm1(-kSpendingGamma * t) / std::expm1(-kSpendingGamma);
}

double alpha_at_look(double alpha, int look, int looks) {
  if (look < 1) throw UsageError("look " + std::to_string(look) + " is not one of the " + std::to_string(looks) + " looks");
  return alpha_spent(alpha, look, looks) - alpha_spent(alpha, look - 1, looks);
}

bool unsettled_same(const CaseComparison& c) {
  if (c.verdict != Verdict::same || !c.noisy || !c.ratio_bounds) return false;
  return c.ratio_bounds->low < 1 - c.threshold || c.ratio_bounds->high > 1 + c.threshold;
}

void settle_unsettled_same(Comparison& comparison, int rounds) {
  bool changed = false;
  for (CaseComparison& c : comparison.cases) {
    if (!unsettled_same(c)) continue;
    changed = true;
    c.verdict = Verdict::inconclusive;
    c.noisy = false;
    char range[160];
    std::snprintf(range, sizeof range,
                  "median %+.1f%% within the %g%% threshold, but its 95%% bounds [%.3f, %.3f] still reach beyond it",
                  (*c.ratio - 1) * 100, c.threshold * 100, c.ratio_bounds->low, c.ratio_bounds->high);
    c.note = std::string(range) + " after " + std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") +
             " of re-measurement: not shown within the threshold" + (c.note.empty() ? "" : "; " + c.note);
    c.next_step = settling_steps(c, true);
  }
  if (!changed) return;
  sort_for_display(comparison.cases);
  comparison.counts = count_verdicts(comparison.cases);
}

bool Comparison::passed() const { return exit_code() == kCompareExitPass; }

std::string inconclusive_advice(const Comparison& comparison) {
  if (comparison.counts.inconclusive == 0) return {};
  const std::size_t n = comparison.counts.inconclusive;
  return std::to_string(n) + (n == 1 ? " case moved" : " cases moved") +
         " beyond the threshold without the evidence to settle it: re-measure (gpubench run --baseline ... --resolve N "
         "pools more samples of them; gpubench ab re-measures both sides in turn), run on a quieter runner, or give "
         "those cases a threshold above their noise. --inconclusive pass lets them pass (exit 0).";
}

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
  if (options.looks < 1) throw UsageError("a comparison takes at least one look, got " + std::to_string(options.looks));
  if (options.look < 1 || options.look > options.looks)
    throw UsageError("look " + std::to_string(options.look) + " is not one of the " + std::to_string(options.looks) +
                     " looks");
  if (options.threshold) require_threshold(*options.threshold, "threshold");

  Comparison comparison;
  comparison.alpha = options.alpha;
  comparison.p_adjust = options.p_adjust;
  comparison.inconclusive = options.inconclusive;
  comparison.looks = options.looks;
  comparison.look = options.look;
  comparison.allow_missing = options.allow_missing;
  comparison.baseline = origin_of(baseline.context);
  comparison.current = origin_of(current.context);
  comparison.machine_mismatch = machine_mismatch(baseline.context, current.context);
  if (!comparison.machine_mismatch.empty() && !options.allow_machine_mismatch)
    throw UsageError("refusing to compare reports from different machines: " + comparison.machine_mismatch +
                     " (rerun the baseline on this machine, or pass --allow-machine-mismatch)");
  comparison.warnings = context_warnings(baseline.context, current.context);

  const auto thresholds = merged_thresholds(baseline.context, current.context);
  std::vector<PendingCase> cases;
  const auto matched = match_records(baseline.results, current.results, options.match_devices);
  // The same samples on both sides (the same file twice, or a copy of it): two runs never time
  // alike to the nanosecond, so this gate weighs one run against itself, and says so.
  std::size_t measured_both = 0, identical = 0;
  for (const MatchedRecords& pair : matched) {
    if (!pair.baseline || !pair.current || pair.baseline->samples_s.empty() || pair.current->samples_s.empty()) continue;
    ++measured_both;
    identical += pair.baseline->samples_s == pair.current->samples_s;
  }
  if (measured_both > 0 && identical == measured_both)
    comparison.warnings.push_back("the baseline and the current report hold the same samples in every case measured "
                                  "in both (the same run twice: the same file, or a copy of it?), so every verdict "
                                  "weighs a run against itself");
  for (const MatchedRecords& pair : matched) {
    const ResultRecord& either = pair.current ? *pair.current : *pair.baseline;
    const double threshold = case_threshold(thresholds, either.spec.op, either.spec.id(), options.threshold);
    cases.push_back(judge_case(pair.baseline, pair.current, threshold));
    cases.back().comparison.device = pair.device;
    cases.back().comparison.cross_machine = !comparison.machine_mismatch.empty();
  }
  decide_measured(cases, options.p_adjust, comparison.alpha_this_look(), options.min_rounds);
  for (PendingCase& pending : cases) {
    add_remarks(pending);
    comparison.cases.push_back(std::move(pending.comparison));
  }

  sort_for_display(comparison.cases);
  comparison.counts = count_verdicts(comparison.cases);
  // A gate that weighed no case (none measured on both sides: missing, new, or skipped on both)
  // passes or fails on what is missing or new alone: it says so.
  const bool weighed = std::any_of(comparison.cases.begin(), comparison.cases.end(), [](const CaseComparison& c) {
    return c.ratio.has_value() || c.verdict == Verdict::failed;
  });
  if (!weighed) {
    const VerdictCounts& n = comparison.counts;
    const std::size_t skipped = comparison.cases.size() - n.new_cases - n.missing;
    comparison.warnings.push_back("nothing compared: no case was measured in both reports (" +
                                  std::to_string(n.new_cases) + " only in the current one, " + std::to_string(n.missing) +
                                  " only in the baseline, " + std::to_string(skipped) + " skipped or unmeasured in both)");
  }
  return comparison;
}

}  // namespace gpb
