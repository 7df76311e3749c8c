// The record format: the JSON document (schema "gpubench-report", docs/report-schema.json)
// that holds a run's context and every record, raw samples included. Everything that
// keeps or reads records goes through it: report files, the results store, the ranks of an
// MPI run, compare and merge. Only render and parse live here; what the user-facing report
// adds to the document (the speed-up column, the summary, the fleet view) is computed above,
// in report/json.cpp, and handed in as RecordAdditions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// A report read back from JSON (for compare, merge, report and the store).
struct LoadedReport {
  Context context;
  std::vector<ResultRecord> results;
};

// What a report places into the document beside the records. The reader skips all of it:
// it is derived from the records.
struct RecordAdditions {
  // A speed-up column against this backend: "relative_to" in the document and each record's
  // "speedup", one value per record (nullopt where that backend did not measure the case).
  std::optional<std::string> relative_to;
  std::vector<std::optional<double>> speedups;
  // Sections after the results, by name, each JSON text ("summary", "fleet").
  std::vector<std::pair<std::string, std::string>> sections;
};

// The document of a context and its records.
std::string render_records_json(const Context& context, const std::vector<ResultRecord>& results,
                                const RecordAdditions& additions = {});

// Throw UsageError with a one-line message, naming `origin` (or the path) and where in the
// document, on unreadable files, malformed JSON and schema version mismatches.
LoadedReport parse_json_report(const std::string& text, const std::string& origin);
LoadedReport read_json_report(const std::string& path);

}  // namespace gpb
