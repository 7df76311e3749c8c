// The record format: the JSON document (schema "gpubench-report", docs/report-schema.json)
// that holds a run's context and every record, raw samples included. Everything that
// keeps or reads records goes through it: report files, the results store, the ranks of an
// MPI run, compare and merge. One field list (record_format.cpp) is its only description:
// the writer, the reader, the JSON Schema and the lookup of single values for flat tables
// all walk it. What the user-facing report adds to the document (the speed-up column, the
// summary, the fleet view) is computed above, in report/json.cpp, and handed in as
// RecordAdditions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// A report read back from JSON (for compare, merge, report and the store).
// The schema names of a report and of gpubench history export's JSON (a report per run): each
// reader names the other's file for what it is.
inline constexpr const char* kReportSchemaName = "gpubench-report";
inline constexpr const char* kHistorySchemaName = "gpubench-history";

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

// A section a report places beside the records, for the schema: its name and its JSON
// Schema (JSON text, which may refer to the record format's definitions by
// "#/definitions/<name>").
struct SectionSchema {
  std::string name;
  std::string schema_json;
};

// The JSON Schema (draft-07) of the document, generated from the field list, with the
// schemas of the sections a report adds. docs/report-schema.json is its output.
std::string render_records_schema(const std::vector<SectionSchema>& sections);

// One value of a record, named by its path in the document ("statistics.median",
// "settings.threads_used"; below a list of records a segment names the element:
// "phases.h2d.statistics.median"). monostate where the document leaves the field out (a
// shape field of another shape kind, a null telemetry) unless `where_omitted`, which gives
// the record's value anyway. std::logic_error for a path that names no value of the format.
using RecordValue = std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, std::vector<std::string>>;
RecordValue record_value(const ResultRecord& record, const std::string& path, bool where_omitted = false);

}  // namespace gpb
