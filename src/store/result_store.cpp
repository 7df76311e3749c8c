#include "store/result_store.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "base/input_file.hpp"
#include "base/interrupt.hpp"
#include "base/json_input.hpp"
#include "measure/context.hpp"
#include "store/schema.hpp"

namespace gpb::store {
namespace {

using Json = nlohmann::ordered_json;

// Rows per INSERT of samples: few round trips, far below both engines' parameter limits.
constexpr std::size_t kSampleRowsPerInsert = 200;

// FNV-1a: a stable fingerprint of a report, to refuse storing the same report twice.
std::string fingerprint(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(hex) + "-" + std::to_string(text.size());
}

bool usable(const ResultRecord& record) {
  return record.status == Status::ok && (!record.verification.checked || record.verification.passed);
}

std::string gpu_names(const Context& context) {
  std::string names;
  for (const GpuInfo& gpu : context.gpus) names += (names.empty() ? "" : ", ") + gpu.name;
  return names;
}

// "2024-11-21" or "2024-11-21T05:00:00Z" (a prefix of the timestamps the store orders on).
bool is_iso_date_or_time(const std::string& text) {
  const std::string pattern = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != 10 && text.size() != pattern.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (pattern[i] == 'd' ? !digit : text[i] != pattern[i]) return false;
  }
  return true;
}

bool matches(const RunInfo& run, const RunFilter& filter) {
  if (!filter.machine.empty()) {
    const bool found = filter.exact_machine ? run.machine == filter.machine
                                            : run.machine.find(filter.machine) != std::string::npos;
    if (!found) return false;
  }
  if (!filter.since.empty() && run.timestamp.compare(0, filter.since.size(), filter.since) < 0) return false;
  if (!filter.until.empty() && run.timestamp.compare(0, filter.until.size(), filter.until) > 0) return false;
  return true;
}

}  // namespace

std::string join_tags(const Tags& tags, const char* separator) {
  std::string text;
  for (const auto& [name, value] : tags) text += (text.empty() ? "" : separator) + name + "=" + value;
  return text;
}

std::string machine_of(const Context& context) {
  const std::string gpus = gpu_names(context);
  return context.cpu_model + (gpus.empty() ? "" : " + " + gpus);
}

std::string RunInfo::label() const {
  if (const auto commit = tags.find("commit"); commit != tags.end()) return commit->second;
  if (!git_sha.empty() && git_sha != "unknown") return git_sha;
  return "run " + std::to_string(id);
}

void RunFilter::validate() const {
  for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{"--since", since}, {"--until", until}})
    if (!value.empty() && !is_iso_date_or_time(value))
      throw UsageError(std::string(flag) + " '" + value + "': expected a date (2024-11-21) or a UTC timestamp (2024-11-21T05:00:00Z)");
  if (!since.empty() && !until.empty() && since.compare(0, until.size(), until) > 0)
    throw UsageError("--since " + since + " is after --until " + until);
}

ResultStore::ResultStore(std::unique_ptr<SqlConnection> connection, std::string shown)
    : connection_(std::move(connection)), shown_(std::move(shown)) {}

std::unique_ptr<ResultStore> ResultStore::open(const DatabaseUrl& url, OpenMode mode) {
  auto connection = url.engine == Engine::postgresql ? open_postgres(url.target, url.shown, url.password)
                                                     : open_sqlite(url.target, mode == OpenMode::write, url.shown);
  if (schema_version(*connection) == 0) {
    if (mode == OpenMode::read)
      throw NoHistoryError("database '" + url.shown + "' holds no gpubench history yet (no run stored)");
    // Someone else's database: gpubench's tables do not belong in it. (Some of gpubench's
    // own, without a version yet, are another process's migration under way.)
    std::string tables;
    for (const SqlRow& row : connection->query(connection->dialect().list_tables, {}))
      if (!is_history_table(row.text(0))) tables += (tables.empty() ? "" : ", ") + row.text(0);
    if (!tables.empty())
      throw StoreError("database '" + url.shown + "' holds other tables (" + tables +
                       ") and no gpubench history; refusing to add gpubench's tables to it (give a new database)");
  }
  apply_migrations(*connection, history_migrations(), url.shown);
  auto store = std::make_unique<ResultStore>(std::move(connection), url.shown);
  if (mode == OpenMode::write) store->check_writable();
  return store;
}

void ResultStore::check_writable() {
  // A write transaction that inserts nothing, rolled back: a read-only file, a read-only
  // server or a role without INSERT fails here, before a run measures anything.
  try {
    WriteTransaction transaction(*connection_);
    for (const auto& [table, column] : {std::pair<const char*, const char*>{"runs", "digest"}, {"run_tags", "run_id"},
                                        {"results", "run_id"}, {"samples", "run_id"}})
      connection_->query(std::string("INSERT INTO ") + table + " (" + column + ") SELECT " + column + " FROM " + table +
                             " WHERE 1 = 0",
                         {});
  } catch (const StoreError& error) {
    throw StoreError("database '" + shown_ + "' does not take writes (read-only?), so nothing could be stored: " + error.what());
  }
}

std::int64_t ResultStore::ingest(const Context& context, const std::vector<ResultRecord>& results, const Tags& tags,
                                 const IngestPauses& pauses) {
  const std::string report_text = render_records_json(context, results);
  // What gpubench stores it can read back (parse_stored holds a run to the same bound).
  if (report_text.size() > kMaxReportBytes)
    throw StoreError("database '" + shown_ + "': this run's records take " + describe_bytes(report_text.size()) +
                     ", more than the " + describe_bytes(kMaxReportBytes) + " that gpubench reads back (docs/bounds.md)");
  const Json document = Json::parse(report_text);
  const std::string digest = fingerprint(report_text);
  SqlConnection& db = *connection_;
  const std::string nothing_stored = "nothing stored in " + shown_;

  WriteTransaction transaction(db);
  const auto existing = db.query("SELECT id FROM runs WHERE digest = ?", {digest});
  if (!existing.empty())
    throw StoreError("database '" + shown_ + "': this report is already stored, as run " +
                     std::to_string(existing[0].integer(0)));
  const auto inserted = db.query(
      "INSERT INTO runs (digest, run_timestamp, ingested_at, machine, cpu_model, gpu_name, hostname, git_sha,"
      " tool_version, report_schema_version, context_json, interrupted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
      " RETURNING id",
      {digest, context.timestamp, utc_timestamp(), machine_of(context), context.cpu_model, gpu_names(context),
       context.hostname, context.git_sha, context.tool_version, std::int64_t{context.schema_version},
       document.at("context").dump(), std::int64_t{context.interrupted ? 1 : 0}});
  if (inserted.size() != 1) throw StoreError("database '" + shown_ + "': storing the run returned no id");
  const std::int64_t run_id = inserted[0].integer(0);

  for (const auto& [name, value] : tags)
    db.query("INSERT INTO run_tags (run_id, tag_name, tag_value) VALUES (?, ?, ?)", {run_id, name, value});

  const Json& records = document.at("results");
  for (std::size_t index = 0; index < results.size(); ++index) {
    if (index == results.size() / 2 && pauses.halfway) pauses.halfway();
    stop_if_interrupted(nothing_stored);
    const ResultRecord& record = results[index];
    const auto result_index = static_cast<std::int64_t>(index);
    db.query(
        "INSERT INTO results (run_id, result_index, case_id, op, backend, dtype, device, status, verified,"
        " sample_count, median_s, median_ci_low_s, median_ci_high_s, record_json)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        {run_id, result_index, record.spec.id(), to_string(record.spec.op), record.spec.backend,
         to_string(record.spec.dtype), to_string(record.device), to_string(record.status),
         std::int64_t{usable(record) ? 1 : 0}, static_cast<std::int64_t>(record.samples_s.size()), record.stats.median,
         record.stats.median_ci_low, record.stats.median_ci_high, records.at(index).dump()});
    for (std::size_t first = 0; first < record.samples_s.size(); first += kSampleRowsPerInsert) {
      const std::size_t count = std::min(kSampleRowsPerInsert, record.samples_s.size() - first);
      std::string sql = "INSERT INTO samples (run_id, result_index, sample_index, seconds) VALUES ";
      std::vector<SqlValue> values;
      values.reserve(4 * count);
      for (std::size_t i = first; i < first + count; ++i) {
        sql += i == first ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)";
        values.insert(values.end(), {run_id, result_index, static_cast<std::int64_t>(i), record.samples_s[i]});
      }
      db.query(sql, values);
    }
  }
  if (results.empty() && pauses.halfway) pauses.halfway();
  stop_if_interrupted(nothing_stored);
  transaction.commit();
  if (pauses.committed) pauses.committed();
  return run_id;
}

std::vector<RunInfo> ResultStore::runs(const RunFilter& filter) {
  filter.validate();
  std::string sql =
      "SELECT id, run_timestamp, ingested_at, machine, hostname, git_sha,"
      " (SELECT COUNT(*) FROM results WHERE results.run_id = runs.id), interrupted FROM runs WHERE 1 = 1";
  std::vector<SqlValue> params;
  for (const auto& [name, value] : filter.tags) {
    sql += " AND EXISTS (SELECT 1 FROM run_tags WHERE run_tags.run_id = runs.id AND tag_name = ? AND tag_value = ?)";
    params.insert(params.end(), {name, value});
  }
  sql += " ORDER BY run_timestamp, id";
  std::vector<RunInfo> runs;
  for (const SqlRow& row : connection_->query(sql, params)) {
    RunInfo run;
    run.id = row.integer(0);
    run.timestamp = row.text(1);
    run.ingested_at = row.text(2);
    run.machine = row.text(3);
    run.hostname = row.text(4);
    run.git_sha = row.text(5);
    run.results = static_cast<std::size_t>(row.integer(6));
    run.interrupted = row.integer(7) != 0;
    if (matches(run, filter)) runs.push_back(std::move(run));
  }
  std::unordered_map<std::int64_t, RunInfo*> by_id;
  for (RunInfo& run : runs) by_id[run.id] = &run;
  for (const SqlRow& row : connection_->query("SELECT run_id, tag_name, tag_value FROM run_tags", {})) {
    const auto found = by_id.find(row.integer(0));
    if (found != by_id.end()) found->second->tags[row.text(1)] = row.text(2);
  }
  return runs;
}

std::vector<StoredResult> ResultStore::results(const std::vector<RunInfo>& runs, const std::string& case_id) {
  std::unordered_map<std::int64_t, std::size_t> order;
  for (std::size_t i = 0; i < runs.size(); ++i) order[runs[i].id] = i;
  std::string sql =
      "SELECT run_id, result_index, case_id, op, backend, dtype, device, status, verified, sample_count, median_s,"
      " median_ci_low_s, median_ci_high_s FROM results";
  std::vector<SqlValue> params;
  if (!case_id.empty()) {
    sql += " WHERE case_id = ?";
    params.push_back(case_id);
  }
  std::vector<StoredResult> found;
  for (const SqlRow& row : connection_->query(sql, params)) {
    if (order.count(row.integer(0)) == 0) continue;
    StoredResult result;
    result.run_id = row.integer(0);
    result.result_index = row.integer(1);
    result.case_id = row.text(2);
    result.op = row.text(3);
    result.backend = row.text(4);
    result.dtype = row.text(5);
    result.device = row.text(6);
    result.status = row.text(7);
    result.verified = row.integer(8) != 0;
    result.samples = row.integer(9);
    result.median_s = row.real(10);
    result.median_ci_low_s = row.real(11);
    result.median_ci_high_s = row.real(12);
    found.push_back(std::move(result));
  }
  std::sort(found.begin(), found.end(), [&order](const StoredResult& a, const StoredResult& b) {
    return std::make_pair(order.at(a.run_id), a.result_index) < std::make_pair(order.at(b.run_id), b.result_index);
  });
  return found;
}

ResultStore::StoredRun ResultStore::stored_run(std::int64_t run_id) {
  const auto rows = connection_->query("SELECT context_json, interrupted FROM runs WHERE id = ?", {run_id});
  if (rows.empty()) throw StoreError("database '" + shown_ + "' has no run " + std::to_string(run_id));
  return {rows[0].text(0), rows[0].integer(1) != 0};
}

// A stored run is read as a report file is: each piece parsed with the bounds of JSON input
// (nesting depth, numbers that fit a double: a hostile or corrupted row is a usage error,
// never a crash), the whole no larger than a report gpubench reads, then the report's own
// reader over the envelope, the context and the records.
LoadedReport ResultStore::parse_stored(const StoredRun& run, const std::vector<std::string>& record_jsons, std::int64_t run_id) {
  const std::string origin = "database '" + shown_ + "' run " + std::to_string(run_id);
  std::uint64_t bytes = run.context_json.size();
  for (const std::string& record : record_jsons) bytes += record.size();
  if (bytes > kMaxReportBytes)
    throw StoreError(origin + " holds " + describe_bytes(bytes) + " of JSON, more than the " +
                     describe_bytes(kMaxReportBytes) + " that gpubench reads (docs/bounds.md)");
  const auto object = [&](const std::string& text, const std::string& what) {
    Json piece = parse_json_input(text, origin + " " + what);
    if (!piece.is_object()) throw StoreError(origin + " " + what + ": expected a JSON object, got " + piece.type_name());
    return piece;
  };
  // The report's own envelope (schema name and version) around the stored pieces.
  Json document = Json::parse(render_records_json(Context{}, {}));
  document["context"] = object(run.context_json, "context");
  Json records = Json::array();
  for (std::size_t i = 0; i < record_jsons.size(); ++i) records.push_back(object(record_jsons[i], "result " + std::to_string(i)));
  document["results"] = std::move(records);
  if (run.interrupted) document["interrupted"] = true;
  return parse_json_report(document.dump(), origin);
}

LoadedReport ResultStore::report(std::int64_t run_id) {
  const StoredRun run = stored_run(run_id);
  std::vector<std::string> records;
  for (const SqlRow& row :
       connection_->query("SELECT record_json FROM results WHERE run_id = ? ORDER BY result_index", {run_id}))
    records.push_back(row.text(0));
  return parse_stored(run, records, run_id);
}

Context ResultStore::context(std::int64_t run_id) { return parse_stored(stored_run(run_id), {}, run_id).context; }

ResultRecord ResultStore::record(std::int64_t run_id, std::int64_t result_index) {
  const auto rows = connection_->query("SELECT record_json FROM results WHERE run_id = ? AND result_index = ?",
                                       {run_id, result_index});
  if (rows.empty())
    throw StoreError("database '" + shown_ + "' has no result " + std::to_string(result_index) + " in run " +
                     std::to_string(run_id));
  return parse_stored({"{}", false}, {rows[0].text(0)}, run_id).results.at(0);
}

}  // namespace gpb::store
