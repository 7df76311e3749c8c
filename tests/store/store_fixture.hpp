// A fresh, empty database per test, on either engine: a SQLite file in a temporary
// directory, or a new database on the PostgreSQL server that ctest starts for these tests
// (tests/postgres/cluster.py; its state file is named by GPUBENCH_TEST_POSTGRES_STATE).
// Synthetic runs whose medians the tests choose.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "model/statistics.hpp"
#include "store/database_url.hpp"
#include "store/result_store.hpp"
#include "store/sql.hpp"

namespace gpb::store::testing {

inline std::string engine_name(const ::testing::TestParamInfo<Engine>& info) {
  return info.param == Engine::sqlite ? "SQLite" : "PostgreSQL";
}

// The server's connection URL, or a test failure saying why there is none. GTEST_SKIP only
// where the build turned these tests off explicitly (GPUBENCH_POSTGRES_TESTS=OFF).
inline std::string postgres_server_url() {
  const char* state_path = std::getenv("GPUBENCH_TEST_POSTGRES_STATE");
  if (!state_path) {
    ADD_FAILURE() << "GPUBENCH_TEST_POSTGRES_STATE is not set: run these tests through ctest, which starts the server";
    return "";
  }
  std::ifstream state(state_path);
  if (!state) {
    ADD_FAILURE() << "no PostgreSQL server state at " << state_path << " (did the postgres.start test fail?)";
    return "";
  }
  return nlohmann::json::parse(state).at("url").get<std::string>();
}

class Database {
 public:
  explicit Database(Engine engine) : engine_(engine) {
    static int counter = 0;
    const std::string name = "gpubench_test_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
    if (engine == Engine::sqlite) {
      char pattern[] = "/tmp/gpubench-store-XXXXXX";
      if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
      directory_ = pattern;
      url_ = directory_ + "/history.db";
      return;
    }
    const std::string server = postgres_server_url();
    if (server.empty()) return;
    if (!have_postgres()) {
      ADD_FAILURE() << "this build has no libpq, so the PostgreSQL store cannot be tested (install libpq-dev)";
      return;
    }
    const auto slash = server.find("/postgres?");
    server_ = server;
    url_ = server.substr(0, slash) + "/" + name + server.substr(slash + 9);
    database_ = name;
    open_postgres(server_, server_)->query("CREATE DATABASE " + name, {});
  }
  ~Database() {
    if (!database_.empty()) {
      try {
        open_postgres(server_, server_)->query("DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)", {});
      } catch (const std::exception& error) {
        ADD_FAILURE() << "dropping " << database_ << ": " << error.what();
      }
    }
    if (!directory_.empty()) std::filesystem::remove_all(directory_);
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  bool ready() const { return !url_.empty(); }
  const std::string& url() const { return url_; }
  DatabaseUrl parsed() const { return parse_database_url(url_); }
  std::unique_ptr<ResultStore> open(OpenMode mode = OpenMode::write) const { return ResultStore::open(parsed(), mode); }
  std::unique_ptr<SqlConnection> connect() const {
    return engine_ == Engine::sqlite ? open_sqlite(url_, true, url_) : open_postgres(url_, url_);
  }
  std::int64_t count(const std::string& table) const {
    return connect()->query("SELECT COUNT(*) FROM " + table, {}).at(0).integer(0);
  }

 private:
  Engine engine_;
  std::string url_, directory_, server_, database_;
};

class StoreTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    const char* state = std::getenv("GPUBENCH_TEST_POSTGRES_STATE");
    if (GetParam() == Engine::postgresql && state && std::string(state) == "off")
      GTEST_SKIP() << "PostgreSQL tests turned off (GPUBENCH_POSTGRES_TESTS=OFF)";
    database_ = std::make_unique<Database>(GetParam());
    if (!database_->ready()) GTEST_FAIL() << "no database for this test";
  }
  Database& db() { return *database_; }

 private:
  std::unique_ptr<Database> database_;
};

// ---- synthetic runs ----

inline Context machine_context(int run, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  Context context;
  context.tool_version = "0.1.0";
  context.git_sha = "0123456789ab";
  context.build_type = "Release";
  char timestamp[32];
  std::snprintf(timestamp, sizeof timestamp, "2024-11-%02dT05:%02d:00Z", 1 + run / 60, run % 60);
  context.timestamp = timestamp;
  context.hostname = "ci-runner";
  context.cpu_model = "AMD EPYC 9654 96-Core Processor";
  context.cpu_cores = 16;
  context.threads = 1;
  context.thresholds = {{"*", 0.05}};
  GpuInfo info;
  info.name = gpu;
  context.gpus.push_back(info);
  return context;
}

inline CaseSpec case_spec(Op op, const std::string& backend, std::int64_t n = 1 << 20) {
  CaseSpec spec;
  spec.op = op;
  spec.backend = backend;
  spec.shape = op == Op::matmul ? matmul_shape(n, n, n) : elementwise_shape(n);
  return spec;
}

// Tight samples around median_s (+-0.2 %), as a steady process gives.
inline ResultRecord measured(const CaseSpec& spec, double median_s, std::size_t count = 30) {
  ResultRecord record;
  record.spec = spec;
  record.device = spec.backend == "eigen" ? DeviceKind::cpu : DeviceKind::gpu;
  for (std::size_t i = 0; i < count; ++i)
    record.samples_s.push_back(median_s * (1 + 0.004 * (static_cast<double>(i % 7) / 6 - 0.5)));
  record.host_samples_s = record.samples_s;
  record.stats = compute_statistics(record.samples_s);
  record.host_stats = record.stats;
  record.timer = "cuda_event";
  record.verification = {true, true, 4096, 0.1, 1, "4096 sampled entries"};
  return record;
}

inline const CaseSpec& sum_case() {
  static const CaseSpec spec = case_spec(Op::sum, "cuda");
  return spec;
}
inline const CaseSpec& sin_case() {
  static const CaseSpec spec = case_spec(Op::sin, "cub");
  return spec;
}

// Run `run` of a history: sum at sum_s, sin at 50 us.
inline LoadedReport synthetic_run(int run, double sum_s, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  return {machine_context(run, gpu), {measured(sum_case(), sum_s), measured(sin_case(), 50e-6)}};
}

inline std::string commit_label(int run) {
  char label[16];
  std::snprintf(label, sizeof label, "run%02d", run);
  return label;
}

}  // namespace gpb::store::testing
