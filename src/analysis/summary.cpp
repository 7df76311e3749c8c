#include "analysis/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "model/op_table.hpp"

namespace gpb {
namespace {

// An e2e record's op phase is its kernel-only time.
std::optional<double> op_phase_median(const ResultRecord& record) {
  for (const auto& phase : record.phases)
    if (phase.kind == PhaseKind::op && phase.stats.count > 0) return phase.stats.median;
  return std::nullopt;
}

void keep_best(std::optional<BestBackend>& best, const std::string& backend, double median_s) {
  if (!best || median_s < best->median_s) best = BestBackend{backend, median_s};
}

void keep_lowest(std::optional<BestEnergy>& best, const std::string& backend, const EnergyMeasurement& energy) {
  if (!best || energy.energy_per_op_j < best->joules_per_op)
    best = BestEnergy{backend, energy.energy_per_op_j, energy.uncertainty_j};
}

void add_energy(SpeedupRow& row, const ResultRecord& record, const std::string& label) {
  if (!record.energy || !record.energy->measured()) return;
  if (record.device == DeviceKind::cpu)
    keep_lowest(row.cpu_energy, label, *record.energy);
  else if (record.spec.timing == TimingMode::kernel)
    keep_lowest(row.gpu_energy, label, *record.energy);
}

// `label` is the backend's in the summary: its backend_label, with "/l2warm" for a warm record
// in a group whose GPU records are of both modes.
void add_record(SpeedupRow& row, const ResultRecord& record, const std::string& label) {
  add_energy(row, record, label);
  const double median = record.stats.median;
  if (record.first_call && record.first_call->host_s > 0) {
    const double first = record.first_call->host_s;
    if (record.device == DeviceKind::cpu)
      keep_best(row.cpu_first_call, label, first);
    else if (record.spec.timing == TimingMode::kernel)
      keep_best(row.first_call.gpu, label, first);
  }
  if (record.device == DeviceKind::cpu) {
    keep_best(row.cpu, label, median);
  } else if (record.spec.timing == TimingMode::graph) {
    // Launch-free figures have no CPU counterpart: the crossovers compare kernel and e2e
    // figures, and graph figures stand beside kernel ones in the launch-overhead table.
    return;
  } else if (record.spec.timing == TimingMode::kernel) {
    keep_best(row.kernel.gpu, label, median);
  } else {
    keep_best(row.e2e.gpu, label, median);
    if (const auto op = op_phase_median(record)) keep_best(row.kernel.gpu, label, *op);
  }
}

void set_speedup(GpuComparison& comparison, const std::optional<BestBackend>& cpu) {
  if (cpu && comparison.gpu && comparison.gpu->median_s > 0) comparison.speedup = cpu->median_s / comparison.gpu->median_s;
}

// The crossover over (size, ratio) points by size, where a ratio above 1 is a GPU win.
Crossover crossover_of(const std::vector<std::pair<std::int64_t, double>>& speedups, bool any_cpu, bool any_gpu) {
  Crossover crossover;
  if (!any_gpu) return crossover;
  crossover.kind = !any_cpu ? CrossoverKind::no_cpu : CrossoverKind::no_common_size;
  if (speedups.empty()) return crossover;

  // "From which the GPU wins": what matters is the last size where it does not.
  const auto losing = std::find_if(speedups.rbegin(), speedups.rend(), [](const auto& point) { return point.second <= 1; });
  if (losing == speedups.rend()) {
    crossover.kind = CrossoverKind::always;
    crossover.size = static_cast<double>(speedups.front().first);
    return crossover;
  }
  if (losing == speedups.rbegin()) {
    crossover.kind = CrossoverKind::never;
    return crossover;
  }
  const auto& [losing_size, losing_speedup] = *losing;
  const auto& [winning_size, winning_speedup] = *std::prev(losing);
  crossover.kind = CrossoverKind::at;
  crossover.last_losing_size = losing_size;
  crossover.first_winning_size = winning_size;
  if (losing_size == winning_size) {
    crossover.size = static_cast<double>(winning_size);
    return crossover;
  }
  // The speed-up of a launch- or transfer-bound GPU against a CPU grows roughly as a power
  // of the size, so it is interpolated on a straight line in log-log space.
  const double fraction = -std::log(losing_speedup) / (std::log(winning_speedup) - std::log(losing_speedup));
  const double log_low = std::log(static_cast<double>(losing_size)), log_high = std::log(static_cast<double>(winning_size));
  crossover.size = std::exp(log_low + fraction * (log_high - log_low));
  crossover.interpolated = true;
  return crossover;
}

// The crossover of one view: `gpu_of` picks a row's GPU comparison, `cpu_of` its CPU figure.
template <class GpuOf, class CpuOf>
Crossover find_crossover(const std::vector<SpeedupRow>& rows, GpuOf gpu_of, CpuOf cpu_of) {
  bool any_cpu = false, any_gpu = false;
  std::vector<std::pair<std::int64_t, double>> speedups;  // (size, speed-up), by size
  for (const auto& row : rows) {
    const GpuComparison& comparison = gpu_of(row);
    any_cpu = any_cpu || cpu_of(row).has_value();
    any_gpu = any_gpu || comparison.gpu.has_value();
    if (comparison.speedup) speedups.emplace_back(row.size, *comparison.speedup);
  }
  return crossover_of(speedups, any_cpu, any_gpu);
}

Crossover find_energy_crossover(const std::vector<SpeedupRow>& rows) {
  bool any_cpu = false, any_gpu = false;
  std::vector<std::pair<std::int64_t, double>> ratios;  // (size, CPU J / GPU J), by size
  for (const auto& row : rows) {
    any_cpu = any_cpu || row.cpu_energy.has_value();
    any_gpu = any_gpu || row.gpu_energy.has_value();
    if (row.energy_ratio) ratios.emplace_back(row.size, *row.energy_ratio);
  }
  return crossover_of(ratios, any_cpu, any_gpu);
}

}  // namespace

std::int64_t footprint_elements(Op op, const Shape& shape) { return op_footprint(op, shape); }

std::string comparison_variant(const CaseSpec& spec) {
  std::vector<std::string> parts = spec.variant_tags();
  if (shape_kind(spec.op) == ShapeKind::sparse_matrix) parts.insert(parts.begin(), to_string(spec.shape.pattern));
  std::string variant;
  for (const auto& part : parts) variant += (variant.empty() ? "" : "+") + part;
  return variant;
}

namespace {

// The comparison variant of the record with its L2 flushed: the group CPU records and
// GPU records of either L2 mode share.
std::string flushed_variant(const CaseSpec& spec) {
  CaseSpec flushed = spec;
  flushed.l2 = L2Mode::flush;
  return comparison_variant(flushed);
}

}  // namespace

bool is_comparable(const ResultRecord& record) {
  return record.status == Status::ok && record.verification.checked && record.verification.passed && record.stats.count > 0 &&
         record.stats.median > 0;
}

std::string to_string(GpuL2 l2) {
  switch (l2) {
    case GpuL2::none:
      return "";
    case GpuL2::flush:
      return "flush";
    case GpuL2::warm:
      return "warm";
    case GpuL2::mixed:
      return "flush+warm";
  }
  return "?";
}

std::string to_string(CrossoverKind kind) {
  switch (kind) {
    case CrossoverKind::at:
      return "at";
    case CrossoverKind::never:
      return "never";
    case CrossoverKind::always:
      return "always";
    case CrossoverKind::no_gpu:
      return "no_gpu";
    case CrossoverKind::no_cpu:
      return "no_cpu";
    case CrossoverKind::no_common_size:
      return "no_common_size";
  }
  return "?";
}

std::string SpeedupGroup::name() const {
  std::string qualifiers = variant;
  std::replace(qualifiers.begin(), qualifiers.end(), '+', ' ');
  return to_string(op) + " " + to_string(dtype) + (qualifiers.empty() ? "" : " " + qualifiers);
}

bool SpeedupGroup::contains(const CaseSpec& spec) const {
  if (spec.op != op || spec.dtype != dtype) return false;
  if (comparison_variant(spec) == variant) return true;
  // A GPU record with the L2 warm, paired here with the CPU records (its backend has no
  // flushed ones).
  if (spec.l2 != L2Mode::warm || (gpu_l2 != GpuL2::warm && gpu_l2 != GpuL2::mixed)) return false;
  return flushed_variant(spec) == variant &&
         std::find(warm_set_aside.begin(), warm_set_aside.end(), spec.backend_label()) == warm_set_aside.end();
}

bool SpeedupGroup::has_cpu_gpu_pair() const {
  return std::any_of(rows.begin(), rows.end(), [](const SpeedupRow& row) { return row.kernel.speedup || row.e2e.speedup; });
}

bool SpeedupGroup::has_first_calls() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const SpeedupRow& row) { return row.cpu_first_call.has_value() || row.first_call.gpu.has_value(); });
}

bool SpeedupSummary::has_cpu_gpu_pair() const {
  return std::any_of(groups.begin(), groups.end(), [](const SpeedupGroup& group) { return group.has_cpu_gpu_pair(); });
}

const GpuComparison& comparison_for(const SpeedupRow& row, TimingMode timing) {
  return timing == TimingMode::kernel ? row.kernel : row.e2e;
}

const Crossover& crossover_for(const SpeedupGroup& group, TimingMode timing) {
  return timing == TimingMode::kernel ? group.kernel_crossover : group.e2e_crossover;
}

SpeedupSummary summarize_speedups(const std::vector<ResultRecord>& results) {
  using GroupKey = std::tuple<Op, DType, std::string>;
  // The group a record joins: CPU records, and GPU records of one L2 mode per backend, the
  // group of their flushed variant; warm GPU records of a backend that also has flushed ones,
  // their own.
  std::set<std::tuple<Op, DType, std::string, std::string>> flushed_backends;  // GPU, by flushed variant
  for (const auto& record : results)
    if (is_comparable(record) && record.device != DeviceKind::cpu && record.spec.l2.value_or(L2Mode::flush) == L2Mode::flush)
      flushed_backends.insert({record.spec.op, record.spec.dtype, flushed_variant(record.spec), record.spec.backend_label()});
  struct Placement {
    GroupKey group;
    bool warm_gpu = false;   // a GPU record with the L2 warm in its flushed variant's group
    bool set_aside = false;  // a warm GPU record left to its own group
  };
  const auto place = [&](const ResultRecord& record) {
    const CaseSpec& spec = record.spec;
    Placement placement{{spec.op, spec.dtype, flushed_variant(spec)}};
    if (record.device == DeviceKind::cpu || spec.l2 != L2Mode::warm) return placement;
    if (flushed_backends.count({spec.op, spec.dtype, flushed_variant(spec), spec.backend_label()})) {
      placement.group = {spec.op, spec.dtype, comparison_variant(spec)};
      placement.set_aside = true;
    } else {
      placement.warm_gpu = true;
    }
    return placement;
  };
  // Each group's GPU L2 modes, and the backends whose warm records went elsewhere.
  std::map<GroupKey, std::set<L2Mode>> gpu_modes;
  std::map<GroupKey, std::set<std::string>> set_aside;
  for (const auto& record : results) {
    if (!is_comparable(record) || record.device == DeviceKind::cpu) continue;
    const Placement placement = place(record);
    gpu_modes[placement.group].insert(record.spec.l2.value_or(L2Mode::flush));
    if (placement.set_aside)
      set_aside[{record.spec.op, record.spec.dtype, flushed_variant(record.spec)}].insert(record.spec.backend_label());
  }

  std::map<GroupKey, std::map<std::string, SpeedupRow>> rows_by_group;  // rows keyed by shape label
  std::map<GroupKey, std::string> cpu_energy_reasons, gpu_energy_reasons;  // the first each group met
  std::set<GroupKey> with_energy;
  for (const auto& record : results) {
    if (!is_comparable(record)) continue;
    const CaseSpec& spec = record.spec;
    const Placement placement = place(record);
    const GroupKey& key = placement.group;
    if (record.energy) with_energy.insert(key);
    if (record.energy && !record.energy->reason.empty()) {
      auto& reasons = record.device == DeviceKind::cpu ? cpu_energy_reasons : gpu_energy_reasons;
      reasons.emplace(key, record.energy->reason);
    }
    SpeedupRow& row = rows_by_group[key][spec.shape.label(spec.op)];
    row.size = footprint_elements(spec.op, spec.shape);
    row.shape = spec.shape.label(spec.op);
    const bool mixed = placement.warm_gpu && gpu_modes[key].size() > 1;
    add_record(row, record, spec.backend_label() + (mixed ? "/l2warm" : ""));
  }

  SpeedupSummary summary;
  for (auto& [key, rows] : rows_by_group) {
    SpeedupGroup group;
    std::tie(group.op, group.dtype, group.variant) = key;
    for (auto& entry : rows) {
      SpeedupRow& row = entry.second;
      set_speedup(row.kernel, row.cpu);
      set_speedup(row.e2e, row.cpu);
      set_speedup(row.first_call, row.cpu_first_call);
      if (row.cpu_energy && row.gpu_energy && row.gpu_energy->joules_per_op > 0)
        row.energy_ratio = row.cpu_energy->joules_per_op / row.gpu_energy->joules_per_op;
      group.rows.push_back(std::move(row));
    }
    std::stable_sort(group.rows.begin(), group.rows.end(), [](const SpeedupRow& a, const SpeedupRow& b) { return a.size < b.size; });
    const auto cpu = [](const SpeedupRow& row) -> const std::optional<BestBackend>& { return row.cpu; };
    group.kernel_crossover = find_crossover(group.rows, [](const SpeedupRow& row) -> const GpuComparison& { return row.kernel; }, cpu);
    group.e2e_crossover = find_crossover(group.rows, [](const SpeedupRow& row) -> const GpuComparison& { return row.e2e; }, cpu);
    group.first_call_crossover =
        find_crossover(group.rows, [](const SpeedupRow& row) -> const GpuComparison& { return row.first_call; },
                       [](const SpeedupRow& row) -> const std::optional<BestBackend>& { return row.cpu_first_call; });
    group.energy_crossover = find_energy_crossover(group.rows);
    group.energy_known = with_energy.count(key) > 0;
    if (const auto modes = gpu_modes.find(key); modes != gpu_modes.end() && !modes->second.empty())
      group.gpu_l2 = modes->second.size() > 1 ? GpuL2::mixed : *modes->second.begin() == L2Mode::warm ? GpuL2::warm : GpuL2::flush;
    if (const auto aside = set_aside.find(key); aside != set_aside.end())
      group.warm_set_aside.assign(aside->second.begin(), aside->second.end());
    if (const auto found = cpu_energy_reasons.find(key); found != cpu_energy_reasons.end()) group.cpu_energy_reason = found->second;
    if (const auto found = gpu_energy_reasons.find(key); found != gpu_energy_reasons.end()) group.gpu_energy_reason = found->second;
    summary.groups.push_back(std::move(group));
  }
  return summary;
}

}  // namespace gpb
