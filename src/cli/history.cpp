#include "cli/history.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include "analysis/history.hpp"
#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "config/test_knobs.hpp"
#include "model/record_format.hpp"
#include "report/history_report.hpp"
#include "report/report.hpp"
#include "store/database_url.hpp"
#include "store/result_store.hpp"

namespace gpb {

namespace {

constexpr const char* kDefaultDatabase = "gpubench.db";
constexpr const char* kDatabaseHelp =
    "Results database: a SQLite file (default gpubench.db), sqlite:PATH, or postgresql://user@host/dbname";

}  // namespace

struct HistoryCli {
  std::string db = kDefaultDatabase;
  std::vector<std::string> tags, cases;
  std::string machine, since, until, report, html, format, out;
  std::size_t last = 0;
  double threshold_percent = 0;
  bool allow_interrupted = false;
  CLI::App *ingest = nullptr, *list = nullptr, *show = nullptr, *export_ = nullptr, *check = nullptr;
};

namespace {

void add_filters(CLI::App& command, HistoryCli& cli) {
  command.add_option("--db", cli.db, kDatabaseHelp);
  command.add_option("--tag", cli.tags, "Only runs with this key=value tag; repeatable (all must match)");
  command.add_option("--machine", cli.machine, "Only runs on a machine whose name (CPU + GPU models) contains this");
  command.add_option("--since", cli.since, "Only runs from this date on (2024-11-21 or 2024-11-21T05:00:00Z)");
  command.add_option("--until", cli.until, "Only runs up to this date (inclusive)");
}

void add_analysis_options(CLI::App& command, HistoryCli& cli) {
  // Checked as text first: CLI11 would otherwise wrap "-1" into the largest count.
  const CLI::Validator run_count(
      [](const std::string& text) {
        return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos
                   ? std::string()
                   : "expected 0 (every run) or a positive number of runs, not '" + text + "'";
      },
      "N");
  command.add_option("--last", cli.last, "Only the newest N runs of each case (0: all)")->check(run_count);
  command.add_option("--threshold", cli.threshold_percent,
                     "Threshold in percent, in place of the suite's global one (case and op thresholds still win)")
      ->type_name("PERCENT");
}

store::RunFilter run_filter(const HistoryCli& cli) {
  store::RunFilter filter;
  filter.tags = store::parse_tags(cli.tags);
  filter.machine = cli.machine;
  filter.since = cli.since;
  filter.until = cli.until;
  filter.validate();
  return filter;
}

history::HistoryQuery history_query(const HistoryCli& cli) {
  history::HistoryQuery query;
  query.runs = run_filter(cli);
  query.cases = cli.cases;
  query.last = cli.last;
  if (cli.check->get_option("--threshold")->count() + cli.show->get_option("--threshold")->count() > 0) {
    if (!(cli.threshold_percent > 0 && cli.threshold_percent < 100))
      throw UsageError("--threshold must be above 0 and below 100 percent");
    query.threshold = cli.threshold_percent / 100.0;
  }
  return query;
}

std::unique_ptr<store::ResultStore> open_for_reading(const HistoryCli& cli) {
  return store::ResultStore::open(store::parse_database_url(cli.db), store::OpenMode::read);
}

std::vector<history::CaseHistory> load_matching(store::ResultStore& store, const history::HistoryQuery& query) {
  auto histories = history::load_histories(store, query);
  if (histories.empty()) throw UsageError("database '" + store.shown() + "': no stored run matches the filter");
  return histories;
}

int command_ingest(const HistoryCli& cli) {
  refuse_outputs_over_inputs({{"the database of --db", store::database_file(cli.db)}}, {{"the report", cli.report}});
  const store::Tags tags = store::parse_tags(cli.tags);
  const LoadedReport report = read_json_report(cli.report);
  // Its missing cases would read as regressions in every comparison against the history.
  if (report.context.interrupted && !cli.allow_interrupted)
    throw UsageError("report '" + cli.report + "' is of an interrupted run and holds only the cases finished before it " +
                     "(pass --allow-interrupted to store it, marked interrupted)");
  const auto store = store::ResultStore::open(store::parse_database_url(cli.db), store::OpenMode::write);
  const std::int64_t id = store->ingest(report.context, report.results, tags, ingest_pauses());
  std::cout << "stored " << cli.report << " as run " << id << " in " << store->shown() << " (" << report.results.size()
            << " results" << (report.context.interrupted ? ", interrupted" : "") << ")" << settle_interrupt_after_commit() << "\n";
  return 0;
}

int command_list(const HistoryCli& cli) {
  const store::RunFilter filter = run_filter(cli);
  const auto store = open_for_reading(cli);
  std::cout << render_runs_console(store->runs(filter));
  return 0;
}

int command_show(const HistoryCli& cli) {
  refuse_outputs_over_inputs({{"--html", cli.html}}, {{"the database of --db", store::database_file(cli.db)}});
  if (!cli.html.empty()) {
    require_html_path(cli.html, "--html");
    check_report_destination(cli.html);
  }
  const history::HistoryQuery query = history_query(cli);
  const auto store = open_for_reading(cli);
  const auto histories = load_matching(*store, query);
  if (!cli.html.empty()) write_file_atomic(cli.html, render_histories_html(histories, store->shown()));
  std::cout << render_histories_console(histories) << std::flush;
  return 0;
}

int command_export(const HistoryCli& cli) {
  if (cli.format != "csv" && cli.format != "json") throw UsageError("history export --format takes csv or json, not '" + cli.format + "'");
  refuse_outputs_over_inputs({{"--out", cli.out}}, {{"the database of --db", store::database_file(cli.db)}});
  // An --out named for the other format (--format csv --out runs.json) is a slip, not a wish.
  if (!cli.out.empty()) {
    check_report_destination(cli.out);
    const std::optional<ReportFormat> named = report_format_named_by(cli.out);
    const ReportFormat chosen = cli.format == "csv" ? ReportFormat::csv : ReportFormat::json;
    const std::string other = cli.format == "csv" ? "json" : "csv";
    if (named && (*named == ReportFormat::csv || *named == ReportFormat::json) && *named != chosen)
      throw UsageError("--out '" + cli.out + "' is named ." + other + " but --format " + cli.format + " writes " +
                       (cli.format == "csv" ? "CSV" : "JSON") + ": name it ." + cli.format + ", or give --format " + other);
  }
  const store::RunFilter filter = run_filter(cli);
  const auto store = open_for_reading(cli);
  const auto runs = store->runs(filter);
  std::string text;
  if (cli.format == "csv") {
    std::vector<store::StoredResult> all = store->results(runs);
    std::set<std::string> stored;  // for --case alone: its exact ids and the nearest to a missing one
    if (!cli.cases.empty())
      for (const auto& result : all) stored.insert(result.case_id);
    CaseSelection selection(cli.cases, stored);
    std::vector<store::StoredResult> results;
    for (auto& result : all)
      if (selection.empty() || selection.picks(result.case_id)) results.push_back(std::move(result));
    // A --case that matches nothing would export a header alone: said, with the nearest case.
    history::refuse_unmatched_cases(selection, stored, !runs.empty(), store->shown());
    text = render_history_csv(runs, results);
  } else {
    if (!cli.cases.empty()) throw UsageError("history export --format json writes whole runs; --case applies to csv");
    std::vector<std::pair<store::RunInfo, LoadedReport>> reports;
    for (const auto& run : runs) reports.emplace_back(run, store->report(run.id));
    text = render_history_json(reports);
  }
  if (cli.out.empty())
    std::cout << text << std::flush;
  else
    write_file_atomic(cli.out, text);
  return 0;
}

int command_check(const HistoryCli& cli, bool colour) {
  const ReportFormat format =
      parse_report_format(cli.format.empty() ? "console" : cli.format, {ReportFormat::console, ReportFormat::markdown});
  const history::HistoryQuery query = history_query(cli);
  const auto store = open_for_reading(cli);
  const auto histories = load_matching(*store, query);
  std::cout << render_history_check(histories, format, colour) << std::flush;
  const bool regressed = std::any_of(histories.begin(), histories.end(),
                                     [](const history::CaseHistory& h) { return history::newest_regression(h).has_value(); });
  return regressed ? 1 : 0;
}

}  // namespace

HistoryCommand add_history_command(CLI::App& app) {
  auto cli = std::make_shared<HistoryCli>();
  CLI::App* history = app.add_subcommand(
      "history", "The results database: store runs, list them, show trends and change points, export, check for regressions");
  history->require_subcommand(1);

  cli->ingest = history->add_subcommand("ingest", "Store a JSON report (one transaction) with its tags");
  cli->ingest->add_option("report", cli->report, "Report (JSON) from gpubench run --out")->required();
  cli->ingest->add_option("--db", cli->db, kDatabaseHelp);
  cli->ingest->add_option("--tag", cli->tags, "A key=value tag for the run (commit=SHA, branch=main); repeatable");
  cli->ingest->add_flag("--allow-interrupted", cli->allow_interrupted,
                        "Store the report of an interrupted run (marked so: compare against the history leaves it out)");

  cli->list = history->add_subcommand("list", "The stored runs, oldest first");
  add_filters(*cli->list, *cli);

  cli->show = history->add_subcommand("show", "A case's median and CI over runs, with its change points, per machine");
  cli->show->add_option("--case", cli->cases, "Case id (as in reports: op/backend/dtype/shape...), or a pattern ('matmul/cuda/*'); "
                        "repeatable")->required();
  add_filters(*cli->show, *cli);
  add_analysis_options(*cli->show, *cli);
  cli->show->add_option("--html", cli->html, "Also write a page with one trend plot per case and machine");

  cli->export_ = history->add_subcommand("export", "Every stored result (csv) or run (json)");
  cli->export_->add_option("--format", cli->format, "csv (one row per result) or json (whole runs)")->required();
  cli->export_->add_option("--out", cli->out, "Write to this file instead of stdout");
  cli->export_->add_option("--case", cli->cases, "Only these cases (csv): ids or patterns ('sum/*'); repeatable");
  add_filters(*cli->export_, *cli);

  cli->check = history->add_subcommand(
      "check", "Exit 1 when some case's newest runs form a segment slower than the one before beyond its threshold");
  cli->check->add_option("--case", cli->cases, "Only these cases: ids or patterns ('sum/*'); repeatable");
  cli->check->add_option("--format", cli->format, "console or markdown");
  add_filters(*cli->check, *cli);
  add_analysis_options(*cli->check, *cli);
  return {history, cli};
}

int run_history_command(const HistoryCommand& command, bool colour) {
  const HistoryCli& cli = *command.options;
  if (cli.ingest->parsed()) return command_ingest(cli);
  if (cli.list->parsed()) return command_list(cli);
  if (cli.show->parsed()) return command_show(cli);
  if (cli.export_->parsed()) return command_export(cli);
  if (cli.check->parsed()) return command_check(cli, colour);
  throw UsageError("history needs a subcommand: ingest, list, show, export or check");
}

}  // namespace gpb
