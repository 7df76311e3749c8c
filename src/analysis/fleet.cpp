#include "analysis/fleet.hpp"

#include "base/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "base/text.hpp"
#include "model/statistics.hpp"

namespace gpb {
namespace {

// ---- Merging ------------------------------------------------------------------------------

// The ranks a report describes; reports written before ranks were recorded are one rank 0.
std::vector<RankInfo> ranks_of(const Context& context) {
  if (!context.ranks.empty()) return context.ranks;
  RankInfo rank;
  rank.host = context.hostname;
  return {rank};
}

std::string build_of(const Context& context) { return context.tool_version + " (git " + context.git_sha + ")"; }

std::string quoted(const std::string& value) { return "'" + value + "'"; }

void require_same_build(const NamedReport& first, const NamedReport& other) {
  if (build_of(first.report.context) != build_of(other.report.context))
    throw UsageError("cannot merge " + other.origin + " with " + first.origin + ": they come from different gpubench builds (" +
                     build_of(other.report.context) + " against " + build_of(first.report.context) +
                     "); run one build on every rank");
}

void require_same_suite(const NamedReport& first, const NamedReport& other) {
  const auto fail = [&](const std::string& difference) {
    throw UsageError("cannot merge " + other.origin + " with " + first.origin + ": they ran different suites (" + difference + ")");
  };
  const auto& a = first.report.context.settings;
  const auto& b = other.report.context.settings;
  std::set<std::string> keys;
  for (const auto& entry : a) keys.insert(entry.first);
  for (const auto& entry : b) keys.insert(entry.first);
  for (const auto& key : keys) {
    const auto in_a = a.find(key), in_b = b.find(key);
    const std::string value_a = in_a == a.end() ? "(unset)" : quoted(to_string(in_a->second));
    const std::string value_b = in_b == b.end() ? "(unset)" : quoted(to_string(in_b->second));
    if (value_a != value_b)
      fail("setting " + key + " is " + value_b + " in " + other.origin + ", " + value_a + " in " + first.origin);
  }
  std::set<std::string> ids_a, ids_b;
  for (const auto& record : first.report.results) ids_a.insert(record.spec.id());
  for (const auto& record : other.report.results) ids_b.insert(record.spec.id());
  for (const auto& id : ids_a)
    if (ids_b.count(id) == 0) fail("case " + id + " is only in " + first.origin);
  for (const auto& id : ids_b)
    if (ids_a.count(id) == 0) fail("case " + id + " is only in " + other.origin);
}

// The GPUs of a report's context that its ranks ran cases on.
std::vector<GpuInfo> used_gpus(const Context& context) {
  std::set<int> used;
  for (const auto& rank : context.ranks) used.insert(rank.devices.begin(), rank.devices.end());
  std::vector<GpuInfo> gpus;
  for (const auto& gpu : context.gpus)
    if (used.empty() || used.count(gpu.ordinal)) gpus.push_back(gpu);
  return gpus;
}

// ---- The fleet view -----------------------------------------------------------------------

bool ran_cleanly(const ResultRecord& record) {
  return record.status == Status::ok && record.stats.count > 0 && record.stats.median > 0 &&
         (!record.verification.checked || record.verification.passed);
}

bool failed(const ResultRecord& record) {
  return record.status == Status::failed || (record.verification.checked && !record.verification.passed);
}

std::string failure_reason(const ResultRecord& record) {
  if (!record.reason.empty()) return record.reason;
  if (record.verification.checked && !record.verification.passed) return "verification failed";
  return "failed";
}

// Where a record ran, as the fleet tells units apart.
struct UnitKey {
  int rank;
  std::string host;
  DeviceKind kind;
  std::string gpu;  // UUID where known, else the ordinal
  bool operator<(const UnitKey& other) const {
    return std::tie(rank, host, kind, gpu) < std::tie(other.rank, other.host, other.kind, other.gpu);
  }
};

std::string report_host(const Context& context) {
  return context.ranks.size() == 1 && !context.ranks.front().host.empty() ? context.ranks.front().host : context.hostname;
}

int report_rank(const Context& context) { return context.ranks.size() == 1 ? context.ranks.front().rank : 0; }

std::string gpu_text(const GpuIdentity& gpu) { return gpu.recorded() ? std::to_string(gpu.ordinal) : "?"; }

std::string unit_label(const FleetUnit& unit, bool with_rank) {
  std::string label = unit.host + (with_rank ? " rank " + std::to_string(unit.rank) : "");
  return label + (unit.kind == DeviceKind::gpu ? " GPU " + gpu_text(unit.gpu) : " CPU");
}

std::string percent(double fraction) {
  char text[32];
  const double value = std::abs(fraction) * 100;
  std::snprintf(text, sizeof text, value >= 10 ? "%.0f %%" : "%.1f %%", value);
  return text;
}

}  // namespace

LoadedReport merge_reports(std::vector<NamedReport> reports) {
  if (reports.empty()) throw UsageError("merge: no reports to merge");
  for (auto& named : reports) named.report.context.ranks = ranks_of(named.report.context);
  std::stable_sort(reports.begin(), reports.end(), [](const NamedReport& a, const NamedReport& b) {
    const RankInfo& ra = a.report.context.ranks.front();
    const RankInfo& rb = b.report.context.ranks.front();
    return std::tie(ra.rank, ra.host) < std::tie(rb.rank, rb.host);
  });

  const NamedReport& first = reports.front();
  std::map<std::pair<std::string, int>, std::string> origin_of_rank;
  LoadedReport merged;
  merged.context = first.report.context;
  merged.context.ranks.clear();
  merged.context.gpus.clear();
  merged.context.notes.clear();
  std::set<std::string> uuids;
  // The world size of the first report that says one, and which report said it.
  int world_size = 0;
  std::string world_origin;
  for (const auto& named : reports) {
    require_same_build(first, named);
    require_same_suite(first, named);
    const Context& context = named.report.context;
    for (const auto& rank : context.ranks) {
      if (rank.world_size > 0 && (rank.rank < 0 || rank.rank >= rank.world_size))
        throw UsageError("cannot merge " + named.origin + ": it holds rank " + std::to_string(rank.rank) +
                         " of a run of " + std::to_string(rank.world_size) + (rank.world_size == 1 ? " rank" : " ranks"));
      if (rank.world_size > 0 && world_size > 0 && rank.world_size != world_size)
        throw UsageError("cannot merge " + named.origin + " with " + world_origin + ": they come from a run of " +
                         std::to_string(rank.world_size) + " and one of " + std::to_string(world_size) +
                         " ranks (reports of different runs?)");
      if (rank.world_size > 0 && world_size == 0) {
        world_size = rank.world_size;
        world_origin = named.origin;
      }
      const auto [existing, inserted] = origin_of_rank.emplace(std::make_pair(rank.host, rank.rank), named.origin);
      if (!inserted)
        throw UsageError("cannot merge " + named.origin + " with " + existing->second + ": both hold rank " +
                         std::to_string(rank.rank) + " on " + rank.host + " (the same report twice?)");
      merged.context.ranks.push_back(rank);
    }
    for (const auto& gpu : used_gpus(context))
      if (gpu.uuid.empty() || uuids.insert(gpu.uuid).second) merged.context.gpus.push_back(gpu);
    for (const auto& note : context.notes)
      if (std::find(merged.context.notes.begin(), merged.context.notes.end(), note) == merged.context.notes.end())
        merged.context.notes.push_back(note);
    // One interrupted rank makes the whole an interrupted run: its cases are missing.
    merged.context.interrupted = merged.context.interrupted || context.interrupted;
    const RankInfo& own = context.ranks.front();
    for (auto record : named.report.results) {
      if (record.rank < 0) record.rank = own.rank;
      if (record.host.empty()) record.host = own.host.empty() ? context.hostname : own.host;
      merged.results.push_back(std::move(record));
    }
  }
  if (const std::vector<int> missing = missing_ranks(merged.context); !missing.empty())
    merged.context.notes.push_back(ranks_text(missing) + " of the run's " + std::to_string(world_size) +
                                   (missing.size() == 1 ? " is" : " are") + " missing from this merge");
  return merged;
}

std::string ranks_text(const std::vector<int>& ranks) {
  std::vector<std::string> numbers;
  for (int rank : ranks) numbers.push_back(std::to_string(rank));
  return (ranks.size() == 1 ? "rank " : "ranks ") + join_words(numbers);
}

std::vector<int> missing_ranks(const Context& context) {
  int world_size = 0;
  std::set<int> present;
  for (const auto& rank : context.ranks) {
    world_size = std::max(world_size, rank.world_size);
    present.insert(rank.rank);
  }
  std::vector<int> missing;
  for (int rank = 0; rank < world_size; ++rank)
    if (present.count(rank) == 0) missing.push_back(rank);
  return missing;
}

std::size_t FleetView::outlier_count() const {
  std::size_t count = 0;
  for (const auto& fleet_case : cases)
    count += static_cast<std::size_t>(std::count_if(fleet_case.members.begin(), fleet_case.members.end(),
                                                    [](const FleetMember& member) { return member.outlier; }));
  return count;
}

FleetCase judge_fleet_case(const std::string& id, const std::vector<UnitMeasurement>& measurements, double threshold) {
  FleetCase fleet_case;
  fleet_case.id = id;
  std::vector<double> medians;
  for (const auto& measurement : measurements) medians.push_back(measurement.median_s);
  fleet_case.fleet_median_s = compute_statistics(medians).median;
  std::vector<double> distances;
  for (double median : medians) distances.push_back(std::abs(median - fleet_case.fleet_median_s));
  fleet_case.mad_s = compute_statistics(distances).median;

  // 1.4826 * MAD estimates the standard deviation of normally distributed medians.
  const double scale = 1.4826 * fleet_case.mad_s;
  const double fleet = fleet_case.fleet_median_s;
  for (const auto& measurement : measurements) {
    FleetMember member;
    member.unit = measurement.unit;
    member.median_s = measurement.median_s;
    member.ci_low_s = measurement.ci_low_s;
    member.ci_high_s = measurement.ci_high_s;
    member.deviation = fleet > 0 ? measurement.median_s / fleet - 1 : 0;
    const double distance = measurement.median_s - fleet;
    member.score = scale > 0 ? distance / scale
                             : (distance == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), distance));
    member.outlier = member.deviation > threshold && measurement.ci_low_s > fleet;
    fleet_case.members.push_back(member);
  }
  return fleet_case;
}

FleetView analyze_fleet(const Context& context, const std::vector<ResultRecord>& results, double threshold) {
  FleetView view;
  view.threshold = threshold;
  const std::string default_host = report_host(context);
  const int default_rank = report_rank(context);

  // Skipped records (a backend without the op) measured nothing and name no unit.
  std::map<UnitKey, std::size_t> unit_of_key;
  std::vector<std::size_t> unit_of_record;
  for (const auto& record : results) {
    if (record.status == Status::skipped) {
      unit_of_record.push_back(0);
      continue;
    }
    FleetUnit unit;
    unit.host = record.host.empty() ? default_host : record.host;
    unit.rank = record.rank >= 0 ? record.rank : default_rank;
    unit.kind = record.device;
    unit.gpu = record.gpu;
    const std::string gpu_key =
        record.device == DeviceKind::cpu ? "" : (!record.gpu.uuid.empty() ? record.gpu.uuid : gpu_text(record.gpu));
    const auto [found, inserted] = unit_of_key.emplace(UnitKey{unit.rank, unit.host, unit.kind, gpu_key}, view.units.size());
    if (inserted) view.units.push_back(unit);
    unit_of_record.push_back(found->second);
  }
  // Labels name host and ordinal; where two units would read the same (ranks bound to one
  // GPU each see it as ordinal 0), the rank tells them apart.
  std::map<std::string, int> label_uses;
  for (const auto& unit : view.units) ++label_uses[unit_label(unit, false)];
  for (auto& unit : view.units) unit.label = unit_label(unit, label_uses[unit_label(unit, false)] > 1);

  std::vector<std::string> ids;
  std::map<std::string, std::vector<std::size_t>> records_of_id;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].status == Status::skipped) continue;
    const std::string id = results[i].spec.id();
    auto& indices = records_of_id[id];
    if (indices.empty()) ids.push_back(id);
    indices.push_back(i);
  }
  for (const auto& id : ids) {
    const auto& indices = records_of_id[id];
    std::set<std::size_t> units;
    for (std::size_t i : indices) units.insert(unit_of_record[i]);
    if (units.size() < 2) continue;
    std::vector<UnitMeasurement> measurements;
    for (std::size_t i : indices) {
      const ResultRecord& record = results[i];
      if (ran_cleanly(record))
        measurements.push_back({unit_of_record[i], record.stats.median, record.stats.median_ci_low, record.stats.median_ci_high});
      else if (failed(record))
        view.failures.push_back({unit_of_record[i], id, failure_reason(record)});
    }
    if (measurements.size() >= 2) view.cases.push_back(judge_fleet_case(id, measurements, threshold));
  }
  return view;
}

std::string describe_outlier(const FleetView& view, const FleetCase& fleet_case, const FleetMember& member) {
  return view.units.at(member.unit).label + ": " + fleet_case.id + " " + percent(member.deviation) + " " +
         (member.deviation >= 0 ? "slower" : "faster") + " than the fleet median (" + format_seconds(member.median_s) +
         " against " + format_seconds(fleet_case.fleet_median_s) + ")";
}

std::string describe_failure(const FleetView& view, const FleetFailure& failure) {
  return view.units.at(failure.unit).label + ": " + failure.id + " failed: " + failure.reason;
}

}  // namespace gpb
