// The results store: every run gpubench reports, kept in SQLite or PostgreSQL for trends,
// change-point detection and comparisons against history. A run is stored whole or not at
// all (one transaction), and holds what the JSON report holds: the context and every
// record, raw samples included, as JSON text beside the columns queries select on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/record_format.hpp"
#include "model/result.hpp"
#include "store/database_url.hpp"
#include "store/sql.hpp"

namespace gpb::store {

using Tags = std::map<std::string, std::string>;

// "branch=main;commit=abc123" with separator ";".
std::string join_tags(const Tags& tags, const char* separator);

// The machine a history belongs to: the CPU model, and the GPU models where there are any
// ("AMD EPYC 9654 96-Core Processor + NVIDIA H100 80GB HBM3"), the models compare's guard checks.
std::string machine_of(const Context& context);

struct RunInfo {
  std::int64_t id = 0;
  std::string timestamp;    // the report's (ISO 8601 UTC): orders the history, then id
  std::string ingested_at;
  std::string machine, hostname, git_sha;
  Tags tags;
  std::size_t results = 0;
  bool interrupted = false;  // the report of an interrupted run: it holds the cases finished before the signal

  // How reports name the run: its commit tag, else the git SHA in its context, else "run <id>".
  std::string label() const;
};

struct RunFilter {
  Tags tags;                  // runs carrying every one of these
  std::string machine;        // a part of the machine's name ("H100"); empty: any
  bool exact_machine = false;  // machine must equal it
  std::string since, until;   // "2024-11-21" or a full timestamp, both inclusive; empty: open

  // UsageError unless since and until are ISO dates or timestamps, in order.
  void validate() const;
};

// One stored record, by the columns queries select on.
struct StoredResult {
  std::int64_t run_id = 0, result_index = 0;
  std::string case_id, op, backend, dtype, device, status;
  bool verified = false;  // status ok and verification passed (or not checked): a usable measurement
  std::int64_t samples = 0;
  double median_s = 0, median_ci_low_s = 0, median_ci_high_s = 0;  // NaN where not measured
};

// Points inside an ingestion where a test may hold the process (config/test_knobs.hpp).
struct IngestPauses {
  std::function<void()> halfway;    // inside the transaction, halfway through the records
  std::function<void()> committed;  // just after the commit
};

enum class OpenMode {
  read,   // the database must exist and hold a history
  write,  // a SQLite file is created; the schema is brought up to date
};

class ResultStore {
 public:
  ResultStore(std::unique_ptr<SqlConnection> connection, std::string shown);

  // Opens (and for writing, migrates) the database. StoreError (a usage error) when it
  // cannot be opened, holds no gpubench history (to read) or another program's tables, or
  // (to write) does not take writes.
  static std::unique_ptr<ResultStore> open(const DatabaseUrl& url, OpenMode mode);

  const std::string& shown() const { return shown_; }

  // Stores a run with its tags in one transaction; returns its id. A report already stored
  // (the same context and results) is a StoreError naming the run that holds it. A signal
  // (SIGINT, SIGTERM) before the commit rolls it back and throws StoppedBySignal. `pauses`,
  // for tests: called halfway through the records inside the transaction, and just after
  // the commit (a test signals or kills the process there).
  std::int64_t ingest(const Context& context, const std::vector<ResultRecord>& results, const Tags& tags,
                      const IngestPauses& pauses = {});

  // Runs matching the filter, oldest first (report timestamp, then id).
  std::vector<RunInfo> runs(const RunFilter& filter);
  // The results of these runs, in their order (then the report's order); only case_id's
  // when it is not empty.
  std::vector<StoredResult> results(const std::vector<RunInfo>& runs, const std::string& case_id = "");

  LoadedReport report(std::int64_t run_id);
  Context context(std::int64_t run_id);
  ResultRecord record(std::int64_t run_id, std::int64_t result_index);

  SqlConnection& connection() { return *connection_; }

 private:
  struct StoredRun {
    std::string context_json;
    bool interrupted = false;
  };
  StoredRun stored_run(std::int64_t run_id);
  LoadedReport parse_stored(const StoredRun& run, const std::vector<std::string>& record_jsons, std::int64_t run_id);
  void check_writable();

  std::unique_ptr<SqlConnection> connection_;
  std::string shown_;
};

}  // namespace gpb::store
