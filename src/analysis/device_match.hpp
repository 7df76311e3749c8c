// Which record of one report compare holds against which of another: the same case on the
// same device. A report over several GPUs or ranks has several records per case; two such
// reports compare GPU by GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// How records of one case are told apart across reports:
//   uuid     the GPU's UUID (the same physical GPU, wherever it was enumerated); CPU records
//            by host and rank;
//   ordinal  the rank and GPU ordinal (the same slot, on whatever GPU or host: a new node
//            against a reference node); CPU records by rank.
enum class DeviceMatch { uuid, ordinal };
std::string to_string(DeviceMatch match);
DeviceMatch parse_device_match(std::string_view text);  // throws UsageError

// The device a record ran on, as matching tells devices apart: a GPU's UUID (uuid) or
// "rank 0 GPU 1" (ordinal); a CPU record's "rank 0 on node-a" (uuid) or "rank 0" (ordinal).
std::string device_key(const ResultRecord& record, DeviceMatch match);

// Where a record ran, for tables and messages: "GPU 1", "node-b rank 3 GPU 0", "node-a rank 1 CPU".
std::string placement_label(const ResultRecord& record);

// A case's record in each report; either may be null (missing from current, or new).
struct MatchedRecords {
  const ResultRecord* baseline = nullptr;
  const ResultRecord* current = nullptr;
  std::string device;  // where, when the case has several records ("node-a GPU 1"); else empty
};

// Pairs records by case id. A case with at most one record in each report pairs them
// whatever devices they name (single-GPU reports, old reports that name none, compare as
// before); otherwise records pair by device. Throws UsageError when one report lists a case
// twice on the same device. Pairs come in baseline order, then the current report's new ones.
std::vector<MatchedRecords> match_records(const std::vector<ResultRecord>& baseline, const std::vector<ResultRecord>& current,
                                          DeviceMatch match);

}  // namespace gpb
