#include "analysis/device_match.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "model/types.hpp"

namespace gpb {
namespace {

struct RecordsById {
  std::vector<std::string> ids;  // in order of first appearance
  std::map<std::string, std::vector<const ResultRecord*>> records;
};

RecordsById group_by_id(const std::vector<ResultRecord>& results) {
  RecordsById grouped;
  for (const auto& record : results) {
    auto& records = grouped.records[record.spec.id()];
    if (records.empty()) grouped.ids.push_back(record.spec.id());
    records.push_back(&record);
  }
  return grouped;
}

std::map<std::string, const ResultRecord*> by_device(const std::vector<const ResultRecord*>& records, DeviceMatch match,
                                                     const char* side) {
  std::map<std::string, const ResultRecord*> keyed;
  for (const ResultRecord* record : records)
    if (!keyed.emplace(device_key(*record, match), record).second)
      throw UsageError(std::string("the ") + side + " report lists case " + record->spec.id() + " twice on " +
                       placement_label(*record) + " (matching devices by " + to_string(match) + "); cannot match it");
  return keyed;
}

}  // namespace

std::string device_key(const ResultRecord& record, DeviceMatch match) {
  const std::string rank = "rank " + std::to_string(std::max(record.rank, 0));
  if (record.device == DeviceKind::cpu) return match == DeviceMatch::uuid ? rank + " on " + record.host : rank;
  if (match == DeviceMatch::uuid && !record.gpu.uuid.empty()) return record.gpu.uuid;
  return rank + " GPU " + std::to_string(record.gpu.ordinal);
}

std::string to_string(DeviceMatch match) { return match == DeviceMatch::uuid ? "uuid" : "ordinal"; }

DeviceMatch parse_device_match(std::string_view text) {
  if (text == "uuid") return DeviceMatch::uuid;
  if (text == "ordinal") return DeviceMatch::ordinal;
  throw UsageError("--match-devices '" + std::string(text) + "': expected uuid or ordinal");
}

std::string placement_label(const ResultRecord& record) {
  std::string label = record.host;
  if (record.rank >= 0) label += (label.empty() ? "" : " ") + std::string("rank ") + std::to_string(record.rank);
  const std::string device =
      record.device == DeviceKind::cpu ? "CPU" : "GPU " + (record.gpu.recorded() ? std::to_string(record.gpu.ordinal) : "?");
  return label + (label.empty() ? "" : " ") + device;
}

std::vector<MatchedRecords> match_records(const std::vector<ResultRecord>& baseline, const std::vector<ResultRecord>& current,
                                          DeviceMatch match) {
  const RecordsById base = group_by_id(baseline);
  const RecordsById cur = group_by_id(current);
  static const std::vector<const ResultRecord*> none;
  const auto records_of = [](const RecordsById& grouped, const std::string& id) -> const std::vector<const ResultRecord*>& {
    const auto found = grouped.records.find(id);
    return found == grouped.records.end() ? none : found->second;
  };

  std::vector<MatchedRecords> pairs;
  const auto pair_case = [&](const std::string& id) {
    const auto& in_base = records_of(base, id);
    const auto& in_cur = records_of(cur, id);
    if (in_base.size() <= 1 && in_cur.size() <= 1) {
      pairs.push_back({in_base.empty() ? nullptr : in_base.front(), in_cur.empty() ? nullptr : in_cur.front(), ""});
      return;
    }
    const auto base_keyed = by_device(in_base, match, "baseline");
    auto cur_keyed = by_device(in_cur, match, "current");
    for (const ResultRecord* record : in_base) {
      const auto found = cur_keyed.find(device_key(*record, match));
      const ResultRecord* partner = found == cur_keyed.end() ? nullptr : found->second;
      if (found != cur_keyed.end()) cur_keyed.erase(found);
      pairs.push_back({record, partner, placement_label(partner ? *partner : *record)});
    }
    for (const ResultRecord* record : in_cur)
      if (cur_keyed.count(device_key(*record, match))) pairs.push_back({nullptr, record, placement_label(*record)});
  };
  for (const auto& id : base.ids) pair_case(id);
  for (const auto& id : cur.ids)
    if (base.records.count(id) == 0) pair_case(id);
  return pairs;
}

}  // namespace gpb
