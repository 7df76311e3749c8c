// The results store on both engines: a run read back exactly, the same report refused twice,
// filters, a failed ingest leaving nothing behind, migrations in transactions, and how
// databases are opened.
#include <sys/stat.h>

#include <functional>

#include "report/report.hpp"
#include "store/schema.hpp"
#include "store_fixture.hpp"

namespace gpb::store::testing {
namespace {

// Forwards to a real connection and fails the n-th statement inside a write transaction,
// as a full disk or a dropped connection would.
class FailingConnection final : public SqlConnection {
 public:
  FailingConnection(std::unique_ptr<SqlConnection> inner, int fail_at) : inner_(std::move(inner)), fail_at_(fail_at) {}
  const SqlDialect& dialect() const override { return inner_->dialect(); }
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    if (in_transaction_ && ++statements_ == fail_at_) throw StoreError("injected failure at statement " + std::to_string(fail_at_));
    return inner_->query(sql, params);
  }
  void begin_write() override {
    inner_->begin_write();
    in_transaction_ = true;
  }
  void commit() override {
    if (++statements_ == fail_at_) throw StoreError("injected failure at commit");
    inner_->commit();
    in_transaction_ = false;
  }
  void rollback() noexcept override {
    inner_->rollback();
    in_transaction_ = false;
  }
  int statements() const { return statements_; }

 private:
  std::unique_ptr<SqlConnection> inner_;
  int fail_at_;
  int statements_ = 0;
  bool in_transaction_ = false;
};

LoadedReport rich_report() {
  LoadedReport report = synthetic_run(1, 1e-3);
  ResultRecord e2e = measured(case_spec(Op::sum, "cuda"), 2e-3, 12);
  e2e.spec.timing = TimingMode::e2e;
  e2e.phases = {{PhaseKind::h2d, e2e.samples_s, e2e.stats}, {PhaseKind::op, e2e.samples_s, e2e.stats}, {PhaseKind::d2h, e2e.samples_s, e2e.stats}};
  e2e.details = "quotes \" and 'apostrophes', a ? mark, unicode \u00b5s";
  report.results.push_back(e2e);
  ResultRecord skipped;
  skipped.spec = case_spec(Op::sin, "openblas");
  skipped.status = Status::skipped;
  skipped.reason = "openblas implements matmul only";
  report.results.push_back(skipped);
  ResultRecord failed = measured(case_spec(Op::matmul, "cuda", 512), 3e-4);
  failed.status = Status::failed;
  failed.verification.passed = false;
  report.results.push_back(failed);
  report.context.notes = {"GPU backends unavailable: no CUDA device"};
  report.context.settings = {{"seed", integer_setting(42)}, {"l2", std::string("flush")}};
  return report;
}

TEST_P(StoreTest, RunReadsBackExactly) {
  const auto store = db().open();
  const LoadedReport report = rich_report();
  const std::int64_t id = store->ingest(report.context, report.results, {{"commit", "abc123"}, {"branch", "main"}});
  const LoadedReport back = store->report(id);
  EXPECT_EQ(render_json(back.context, back.results), render_json(report.context, report.results));

  const auto runs = store->runs({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, id);
  EXPECT_EQ(runs[0].timestamp, report.context.timestamp);
  EXPECT_EQ(runs[0].machine, "AMD EPYC 9654 96-Core Processor + NVIDIA H100 80GB HBM3");
  EXPECT_EQ(runs[0].results, report.results.size());
  EXPECT_EQ(runs[0].tags, (Tags{{"branch", "main"}, {"commit", "abc123"}}));
  EXPECT_EQ(runs[0].label(), "abc123");

  const auto results = store->results(runs);
  ASSERT_EQ(results.size(), report.results.size());
  std::int64_t samples = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ResultRecord& record = report.results[i];
    EXPECT_EQ(results[i].case_id, record.spec.id());
    EXPECT_EQ(results[i].status, to_string(record.status));
    EXPECT_EQ(results[i].verified, record.status == Status::ok && record.verification.passed);
    EXPECT_EQ(results[i].samples, static_cast<std::int64_t>(record.samples_s.size()));
    if (record.status == Status::skipped) {
      EXPECT_TRUE(std::isnan(results[i].median_s) || results[i].median_s == 0);
    } else {
      EXPECT_DOUBLE_EQ(results[i].median_s, record.stats.median);
      EXPECT_DOUBLE_EQ(results[i].median_ci_low_s, record.stats.median_ci_low);
    }
    samples += results[i].samples;
    EXPECT_EQ(store->record(id, results[i].result_index).spec.id(), record.spec.id());
  }
  EXPECT_EQ(db().count("samples"), samples);
  EXPECT_EQ(db().count("run_tags"), 2);
  EXPECT_EQ(store->context(id).settings, report.context.settings);
}

TEST_P(StoreTest, SameReportIsRefusedTwice) {
  const auto store = db().open();
  const LoadedReport report = synthetic_run(1, 1e-3);
  const std::int64_t id = store->ingest(report.context, report.results, {});
  try {
    store->ingest(report.context, report.results, {{"commit", "again"}});
    FAIL() << "stored the same report twice";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("already stored, as run " + std::to_string(id)), std::string::npos) << error.what();
  }
  EXPECT_EQ(db().count("runs"), 1);
  EXPECT_EQ(db().count("run_tags"), 0);
  // The store is still usable after the refused transaction.
  const LoadedReport next = synthetic_run(2, 1e-3);
  EXPECT_GT(store->ingest(next.context, next.results, {}), id);
}

TEST_P(StoreTest, FiltersRunsByTagMachineAndDate) {
  const auto store = db().open();
  for (int run = 1; run <= 6; ++run) {
    const LoadedReport report = synthetic_run(run * 60, 1e-3, run % 2 ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200");
    store->ingest(report.context, report.results, {{"branch", run <= 4 ? "main" : "dev"}, {"commit", commit_label(run)}});
  }
  const auto labels = [&](const RunFilter& filter) {
    std::vector<std::string> out;
    for (const auto& run : store->runs(filter)) out.push_back(run.label());
    return out;
  };
  using Labels = std::vector<std::string>;
  EXPECT_EQ(labels({}), (Labels{"run01", "run02", "run03", "run04", "run05", "run06"}));
  RunFilter filter;
  filter.tags = {{"branch", "main"}};
  EXPECT_EQ(labels(filter), (Labels{"run01", "run02", "run03", "run04"}));
  filter.machine = "H200";
  EXPECT_EQ(labels(filter), (Labels{"run02", "run04"}));
  filter = {};
  filter.machine = "AMD EPYC 9654 96-Core Processor + NVIDIA H200";
  filter.exact_machine = true;
  EXPECT_EQ(labels(filter), (Labels{"run02", "run04", "run06"}));
  filter.machine = "H200";
  EXPECT_TRUE(labels(filter).empty());
  filter = {};
  filter.since = "2024-11-03";  // run r is on November r + 1
  filter.until = "2024-11-05";
  EXPECT_EQ(labels(filter), (Labels{"run02", "run03", "run04"}));
  filter.until = "2024-11-05T04:59:59Z";
  EXPECT_EQ(labels(filter), (Labels{"run02", "run03"}));
  filter = {};
  filter.since = "yesterday";
  EXPECT_THROW(store->runs(filter), UsageError);
  filter.since = "2024-11-05";
  filter.until = "2024-11-03";
  EXPECT_THROW(store->runs(filter), UsageError);
}

TEST_P(StoreTest, FailedIngestLeavesNothing) {
  db().open();  // migrated
  const LoadedReport report = rich_report();
  // Count the statements of one ingest, then fail at each of them in turn.
  int total = 0;
  {
    auto probe = std::make_unique<FailingConnection>(db().connect(), 1 << 30);
    FailingConnection* probe_view = probe.get();
    ResultStore store(std::move(probe), "probe");
    store.ingest(report.context, report.results, {{"commit", "probe"}});
    total = probe_view->statements();
    auto cleanup = db().connect();
    cleanup->query("DELETE FROM samples", {});
    cleanup->query("DELETE FROM results", {});
    cleanup->query("DELETE FROM run_tags", {});
    cleanup->query("DELETE FROM runs", {});
  }
  ASSERT_GT(total, 8);
  for (int fail_at = 1; fail_at <= total; ++fail_at) {
    ResultStore store(std::make_unique<FailingConnection>(db().connect(), fail_at), "failing");
    EXPECT_THROW(store.ingest(report.context, report.results, {{"commit", "x"}}), StoreError) << "statement " << fail_at;
    for (const char* table : {"runs", "run_tags", "results", "samples"})
      EXPECT_EQ(db().count(table), 0) << table << " after a failure at statement " << fail_at << " of " << total;
  }
  // And the database still takes the run.
  db().open()->ingest(report.context, report.results, {});
  EXPECT_EQ(db().count("runs"), 1);
}

TEST_P(StoreTest, MigrationsAreVersionedAndTransactional) {
  const int newest = history_migrations().back().version;
  const int next = newest + 1;
  auto connection = db().connect();
  EXPECT_EQ(schema_version(*connection), 0);
  apply_migrations(*connection, history_migrations(), "test");
  EXPECT_EQ(schema_version(*connection), newest);
  apply_migrations(*connection, history_migrations(), "test");  // nothing to do
  EXPECT_EQ(connection->query("SELECT COUNT(*) FROM schema_version", {}).at(0).integer(0), newest);

  // A migration that fails halfway leaves the database at the version before it.
  std::vector<Migration> with_broken = history_migrations();
  with_broken.push_back({next, {"CREATE TABLE added_by_next (x BIGINT)", "CREATE TABLE broken ("}});
  EXPECT_THROW(apply_migrations(*connection, with_broken, "test"), StoreError);
  EXPECT_EQ(schema_version(*connection), newest);
  EXPECT_EQ(connection->query(connection->dialect().table_exists, {std::string("added_by_next")}).at(0).integer(0), 0);

  std::vector<Migration> with_next = history_migrations();
  with_next.push_back({next, {"CREATE TABLE added_by_next (x BIGINT)"}});
  apply_migrations(*connection, with_next, "test");
  EXPECT_EQ(schema_version(*connection), next);
  // This gpubench knows the versions up to `newest` only: a database at the next is refused, not misread.
  try {
    db().open(OpenMode::read);
    FAIL() << "opened a database newer than the schema";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("schema version " + std::to_string(next) + ", newer"), std::string::npos)
        << error.what();
  }
}

// A database of version 1 (before runs said whether they were interrupted) is brought up to
// date, its runs read as complete.
TEST_P(StoreTest, VersionOneDatabasesAreMigrated) {
  auto connection = db().connect();
  apply_migrations(*connection, {history_migrations().front()}, "test");
  ASSERT_EQ(schema_version(*connection), 1);
  const LoadedReport report = synthetic_run(1, 1e-3);
  const std::string context_json = "{\"timestamp\": \"" + report.context.timestamp + "\"}";
  connection->query(
      "INSERT INTO runs (digest, run_timestamp, ingested_at, machine, cpu_model, gpu_name, hostname, git_sha, tool_version,"
      " report_schema_version, context_json) VALUES ('d', ?, ?, 'm', 'c', 'g', 'h', 's', 't', 1, ?)",
      {report.context.timestamp, report.context.timestamp, context_json});
  const auto store = db().open();
  EXPECT_EQ(schema_version(store->connection()), history_migrations().back().version);
  const auto runs = store->runs({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].interrupted);
  EXPECT_FALSE(store->context(runs[0].id).interrupted);
}

TEST_P(StoreTest, ReadingNeedsAHistory) {
  try {
    db().open(OpenMode::read);
    FAIL() << "read a database without a history";
  } catch (const NoHistoryError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(message.find("does not exist yet") != std::string::npos ||
                message.find("holds no gpubench history yet") != std::string::npos)
        << message;
  }
  db().open(OpenMode::write);
  EXPECT_TRUE(db().open(OpenMode::read)->runs({}).empty());
}

// A stored run read back passes the bounds of a report file: a corrupted or hostile row
// (nested 200000 levels deep, a number beyond a double, not an object, cut short, the wrong
// type) is a usage error of one line naming the database and the run, never a crash.
TEST_P(StoreTest, CorruptedStoredRunsAreUsageErrors) {
  const auto store = db().open();
  const LoadedReport report = synthetic_run(1, 1e-3);
  const std::int64_t id = store->ingest(report.context, report.results, {});
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::vector<std::string> corruptions = {
      "{\"a\": " + deep + "}", deep, "{\"timestamp\": 1e999}", "[]", "\"text\"", "{\"cpu_model\": ", "", "nul",
      "{\"argv\": [\"x\"], \"cpu_cores\": 99999999999999999999}", "{\"gpus\": [{\"sm_count\": -1.5e308}]}"};
  auto connection = db().connect();
  const auto expect_refused = [&](const char* what, const std::string& corruption) {
    for (const auto& read : std::vector<std::function<void()>>{[&] { store->report(id); }, [&] { store->context(id); },
                                                               [&] { store->record(id, 0); }}) {
      try {
        read();
      } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_EQ(message.find('\n'), std::string::npos) << message.substr(0, 300);
        EXPECT_NE(message.find("run " + std::to_string(id)), std::string::npos) << message.substr(0, 300);
        continue;
      } catch (const std::exception& error) {
        ADD_FAILURE() << what << " " << corruption.substr(0, 40) << ": not a usage error: " << error.what();
        continue;
      }
      // Some reads do not look at the corrupted piece (context() reads no record): fine.
    }
  };
  const std::string original_context = connection->query("SELECT context_json FROM runs WHERE id = ?", {id}).at(0).text(0);
  for (const std::string& corruption : corruptions) {
    connection->query("UPDATE runs SET context_json = ? WHERE id = ?", {corruption, id});
    EXPECT_THROW(store->report(id), UsageError) << "context " << corruption.substr(0, 40);
    expect_refused("context", corruption);
  }
  connection->query("UPDATE runs SET context_json = ? WHERE id = ?", {original_context, id});
  for (const std::string& corruption : corruptions) {
    connection->query("UPDATE results SET record_json = ? WHERE run_id = ? AND result_index = 0", {corruption, id});
    EXPECT_THROW(store->report(id), UsageError) << "record " << corruption.substr(0, 40);
    EXPECT_THROW(store->record(id, 0), UsageError) << "record " << corruption.substr(0, 40);
    expect_refused("record", corruption);
  }
}

// gpubench's tables do not go into another program's database.
TEST_P(StoreTest, AnotherProgramsDatabaseIsRefused) {
  db().connect()->query("CREATE TABLE invoices (id BIGINT)", {});
  try {
    db().open(OpenMode::write);
    FAIL() << "added gpubench's tables to another program's database";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("holds other tables (invoices)"), std::string::npos) << error.what();
  }
  EXPECT_THROW(db().open(OpenMode::read), NoHistoryError);  // nothing of gpubench to read: no history yet
  auto connection = db().connect();
  EXPECT_EQ(schema_version(*connection), 0);
  EXPECT_EQ(connection->query(connection->dialect().list_tables, {}).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreTest, ::testing::Values(Engine::sqlite, Engine::postgresql), engine_name);

TEST(SqliteStore, FileThatIsNotADatabaseIsAUsageError) {
  char pattern[] = "/tmp/gpubench-store-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string path = std::string(pattern) + "/notes.txt";
  std::ofstream(path) << "these are notes, not a database\n";
  EXPECT_THROW(ResultStore::open(parse_database_url(path), OpenMode::read), UsageError);
  EXPECT_THROW(ResultStore::open(parse_database_url(path), OpenMode::write), UsageError);
  EXPECT_THROW(ResultStore::open(parse_database_url(std::string(pattern) + "/missing/dir/h.db"), OpenMode::write), UsageError);
  std::filesystem::remove_all(pattern);
}

// A history is a regular file or a new one: SQLite would open a device or a fifo and write
// its journal beside it (as root, "/dev/null-journal").
TEST(SqliteStore, SpecialFilesAreRefused) {
  char pattern[] = "/tmp/gpubench-store-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string directory = pattern;
  const std::string fifo = directory + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const bool journal_before = std::filesystem::exists("/dev/null-journal");
  for (const std::string& path : {std::string("/dev/null"), fifo, directory, "sqlite:" + directory}) {
    for (OpenMode mode : {OpenMode::write, OpenMode::read}) {
      try {
        ResultStore::open(parse_database_url(path), mode);
        ADD_FAILURE() << "opened " << path;
      } catch (const StoreError& error) {
        EXPECT_NE(std::string(error.what()).find("not a SQLite file"), std::string::npos) << error.what();
      }
    }
  }
  EXPECT_EQ(std::filesystem::exists("/dev/null-journal"), journal_before);
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) left.push_back(entry.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"fifo"});
  // A symbolic link to a history is the history.
  const std::string real = directory + "/real.db";
  ResultStore::open(parse_database_url(real), OpenMode::write);
  std::filesystem::create_symlink(real, directory + "/link.db");
  EXPECT_NO_THROW(ResultStore::open(parse_database_url(directory + "/link.db"), OpenMode::read));
  std::filesystem::remove_all(directory);
}

TEST(PostgresStore, UnreachableServerIsAUsageError) {
  if (!have_postgres()) {
    EXPECT_THROW(ResultStore::open(parse_database_url("postgresql://nobody@/x"), OpenMode::read), UsageError);
    return;
  }
  try {
    ResultStore::open(parse_database_url("postgresql://ci:s3cret@/nodb?host=/nonexistent-socket-dir&connect_timeout=2"),
                      OpenMode::read);
    FAIL() << "connected to a server that does not exist";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot connect"), std::string::npos) << message;
    EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace gpb::store::testing
