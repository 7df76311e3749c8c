#include "config/run_config.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <functional>
#include <set>

#include "analysis/compare.hpp"
#include "base/atomic_file.hpp"
#include "base/build_info.hpp"
#include "base/text.hpp"
#include "config/cli_checks.hpp"
#include "config/test_knobs.hpp"
#include "fleet/launcher.hpp"
#include "measure/context.hpp"
#include "measure/gpu_backend_list.hpp"
#include "model/op_table.hpp"
#include "model/threshold.hpp"
#include "store/database_url.hpp"

namespace gpb {
namespace {

std::vector<std::string> flatten_lists(const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const auto& value : values)
    for (auto& item : split_list(value)) items.push_back(std::move(item));
  return items;
}

// The option a word is a value of, where it parses as one ("--dtype" for "f16", "--size" for
// "4096"); empty where it is none's. A multi-valued option reads the words after it as its
// own, so `--op sin 4096` hands 4096 to --op (and `--op sin,4096` says so itself): this names
// where it belongs.
std::string option_taking(const std::string& word) {
  const auto parses = [&](const auto& parse) {
    try {
      parse(word);
      return true;
    } catch (const UsageError&) {
      return false;
    }
  };
  if (parses([](const std::string& w) { return parse_op(w); })) return "--op";
  if (parses([](const std::string& w) { return parse_dtype(w); })) return "--dtype";
  if (parses([](const std::string& w) { return parse_pattern(w); })) return "--pattern";
  if (parses([](const std::string& w) { return parse_timing_mode(w); })) return "--timing";
  if (parses([](const std::string& w) { return parse_matmul_shape(w); })) return "--shape";
  if (parses([](const std::string& w) { return parse_size(w); })) return "--size";
  for (const GpuBackendEntry& entry : kGpuBackends)
    if (word == entry.name) return "--backend";
  return "";
}

// `refusal` with where the word probably belongs, if it is another option's value; a word that
// is an option ("--op --op") took the place of the missing value.
std::string with_owner_hint(const std::string& refusal, const std::string& word, const std::string& flag) {
  if (word.size() > 2 && word.compare(0, 2, "--") == 0 && std::isalpha(static_cast<unsigned char>(word[2])))
    return refusal.find("is an option") != std::string::npos  // parse_size says so itself
               ? refusal
               : refusal + "; '" + word + "' is an option: the value of " + flag + " before it is missing";
  const std::string owner = option_taking(word);
  if (owner.empty() || owner == flag) return refusal;
  return refusal + "; '" + word + "' is a value of " + owner + ", not of " + flag + " (write " + owner + " " + word + ")";
}

// --backend's names. No backend is named like another option's value: such a word was meant
// for that option (the rest are checked against the backends when the plan is made).
std::vector<std::string> backend_names(const std::vector<std::string>& values) {
  std::vector<std::string> names = flatten_lists(values);
  for (const auto& name : names) {
    const std::string owner = option_taking(name);
    if (!owner.empty() && owner != "--backend")
      throw UsageError(with_owner_hint("unknown backend '" + name + "'", name, "--backend"));
  }
  return names;
}

// Each of a multi-valued option's values parsed; a refused one says which option it belongs
// to where it is another's.
template <class T, class Parse>
std::vector<T> parse_each(const std::vector<std::string>& values, Parse parse, const std::string& flag) {
  std::vector<T> parsed;
  for (const auto& item : flatten_lists(values)) {
    try {
      parsed.push_back(parse(item));
    } catch (const UsageError& error) {
      throw UsageError(with_owner_hint(error.what(), item, flag));
    }
  }
  return parsed;
}

// --nnz-per-row: a positive integer.
std::int64_t parse_nnz_per_row(const std::string& text) {
  std::int64_t number = 0;
  const char* last = text.data() + text.size();
  const auto result = std::from_chars(text.data(), last, number);
  if (result.ptr != last || (result.ec != std::errc() && result.ec != std::errc::result_out_of_range))
    throw UsageError("--nnz-per-row: expected an integer, got '" + text + "'");
  if (result.ec != std::errc() || number < 1 || number > kMaxNnzPerRow)
    throw UsageError("--nnz-per-row: " + text + " is out of range (at least 1, at most " + std::to_string(kMaxNnzPerRow) + ")");
  return number;
}


// "sin, sqrt, sum" for the help text, "matmul or spmv" for a message: the names the op and
// dtype tables hold.
template <class Value>
std::string names_of(const std::vector<Value>& values, const char* separator = ", ") {
  std::string names;
  for (const Value value : values) names += (names.empty() ? "" : separator) + to_string(value);
  return names;
}

// A run writes its report files and its database: none of them may be one of the files it
// reads (the suite, matrices, a baseline report or history database), nor a report file its
// database. Checked before the database is opened, which creates a SQLite file.
void refuse_writing_inputs(const RunConfig& config, const std::string& baseline, const std::string& db) {
  std::vector<NamedFile> inputs;
  if (!config.suite_path.empty()) inputs.push_back({"the suite of --config", config.suite_path});
  for (const auto& group : config.groups)
    if (!group.options.matrix_path.empty()) inputs.push_back({"the matrix file", group.options.matrix_path});
  const bool history_baseline = store::is_history_baseline(baseline);
  if (!baseline.empty() && !history_baseline) inputs.push_back({"the --baseline report", baseline});
  // The history a run is compared with may be the store it is kept in (pooled before it is stored).
  const NamedFile database{"the database of --db", store::database_file(db)};
  refuse_outputs_over_inputs({database}, inputs);
  if (history_baseline) {
    const store::DatabaseUrl history = store::parse_history_baseline(baseline).database;
    if (history.engine == store::Engine::sqlite) inputs.push_back({"the --baseline database", history.target});
  }
  std::vector<NamedFile> outputs;
  for (const auto& output : config.outputs)
    if (!output.path.empty()) outputs.push_back({"--out", output.path});
  inputs.push_back(database);
  refuse_outputs_over_inputs(outputs, inputs);
}

}  // namespace

std::string run_option_taking(const std::string& word) {
  const std::vector<std::string> items = split_list(word);
  if (items.empty()) return "";
  const std::string owner = option_taking(items.front());
  for (const auto& item : items)
    if (option_taking(item) != owner) return "";
  return owner;
}

double parse_threshold_flag(const std::string& flag, const std::string& text) {
  double percent = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), percent);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size())
    throw UsageError(flag + ": expected a percentage, got '" + text + "'");
  const double fraction = percent / 100.0;
  require_threshold(fraction, flag);
  return fraction;
}

ProgressMode parse_progress_mode(std::string_view text) {
  if (text == "never") return ProgressMode::never;
  if (text == "always") return ProgressMode::always;
  if (text == "auto") return ProgressMode::auto_detect;
  throw UsageError("--progress must be always, never or auto, not '" + std::string(text) + "'");
}

bool progress_wanted(ProgressMode mode, bool quiet, bool stderr_is_terminal) {
  switch (mode) {
    case ProgressMode::never: return false;
    case ProgressMode::always: return true;
    case ProgressMode::auto_detect: return stderr_is_terminal && !quiet;
  }
  return false;
}

RunCommandLine::RunCommandLine(CLI::App& run) : app_(&run) {
  const auto& table = setting_table();
  setting_inputs_.resize(table.size());  // never resized again: the App keeps pointers into it
  run.add_option("--op", ops_, "Ops: " + names_of(all_ops()))->delimiter(',');
  run.add_option("--backend", backends_, "Backends (default: all available)")->delimiter(',');
  run.add_option("--dtype", dtypes_, names_of(all_dtypes()) + " (default f32)")->delimiter(',');
  run.add_option("--size", sizes_,
                 "Sizes: 4096, 16M (K, M, G: powers of two), a list 1M,16M, a range 1K..256M:x4 (x2 unless a step is "
                 "given); n, matmul's square n, spmv's rows (defaults below)");
  run.add_option("--shape", shapes_, "matmul shape MxNxK (C is MxN, inner K)")->delimiter(',');
  run.add_option("--rows", rows_, "spmv: rows (square matrix)");
  run.add_option("--nnz-per-row", nnz_per_row_, "spmv: nonzeros per row (mean for powerlaw; default 16)")->type_name("INT");
  run.add_option("--pattern", patterns_, "spmv: " + names_of(generated_patterns()) + " (default random; README.md describes them)")
      ->delimiter(',');
  run.add_option("--matrix", matrix_, "spmv: a Matrix Market (.mtx) file");
  run.add_option("--spmv-kernel", spmv_kernel_, "spmv on cuda: auto (from the row lengths), row_split or merge_path");
  run.add_option("--timing", timings_, "kernel (op alone), e2e (h2d + op + d2h) or graph (GPU: the op's launches replayed from a CUDA graph, "
                 "without per-launch overhead); a list runs each")->delimiter(',');
  run.add_flag("--tf32", tf32_, "cuBLAS f32 matmul on tensor cores (TF32)");
  for (std::size_t i = 0; i < table.size(); ++i) {
    const SettingSpec& spec = table[i];
    if (is_switch(spec)) {
      run.add_flag(spec.flag, setting_inputs_[i].set, spec.help);
      continue;
    }
    const SettingValue shown = spec.percent ? SettingValue(std::get<double>(spec.default_value) * 100) : spec.default_value;
    const char* type = holds_field<double>(spec)   ? (spec.percent ? "PERCENT" : "NUMBER")
                       : holds_field<L2Mode>(spec) || holds_field<InputData>(spec) || holds_field<std::string>(spec) ? "TEXT"
                                                   : "INT";
    // A setting whose default depends on the run (--device) says so in its help instead.
    const std::string default_text = to_string(shown);
    run.add_option(spec.flag, setting_inputs_[i].text,
                   std::string(spec.help) + (default_text.empty() ? "" : " (default " + default_text + ")"))
        ->type_name(type);
  }
  run.add_option("--config", config_, "Suite file (configs/*.json)");
  run.add_option("--format", format_, "The terminal's report: console, json, csv or markdown");
  run.add_option("--out", outs_, "Write a report file (format from the extension: .json .csv .md .txt); {rank}, {host} and {device} expand");
  run.add_flag("--quiet", quiet_, "No progress, and no report on the terminal when --out writes files");
  run.add_flag("--dry-run", dry_run_,
               "Print the plan (the cases, the skipped ones with their reasons, an estimate of the time) and measure "
               "nothing");
  run.add_option("--progress", progress_, "Progress line on stderr: always, never or auto (a terminal, not --quiet)");
  run.add_option("--baseline", baseline_,
                 "Compare against this JSON report, or db:URL[?key=value&last=N] (the history), after running");
  run.add_option("--threshold", threshold_, "Regression threshold in percent (with --baseline)")->type_name("PERCENT");
  add_verdict_flags(run, verdict_);
  run.add_option("--resolve", resolve_rounds_,
                 "With --baseline: re-measure the cases that come out inconclusive (or same on noise that leaves the threshold "
                 "in doubt), up to this many more rounds, pooling their samples")
      ->check(CLI::Range(1, 1000))
      ->type_name("ROUNDS");
  run.add_option("--resolve-time", resolve_seconds_, "With --resolve: start no round of re-measurement after this many seconds")
      ->check(positive_number())
      ->type_name("SECONDS");
  run.add_option("--case", cases_, "Run only the cases with these ids (as reports name them), of those the other options select; * and "
                 "? match any text and one character (--case 'matmul/cuda/*')")
      ->delimiter(',');
  run.add_flag("--allow-missing", allow_missing_, "With --baseline: cases missing from this run do not fail");
  run.add_flag("--allow-machine-mismatch", allow_machine_mismatch_, "With --baseline: compare across machines");
  run.add_flag("--allow-interrupted", allow_interrupted_, "With --baseline: accept a baseline of an interrupted run");
  run.add_option("--relative-to", relative_to_, "Add a speed-up column against this backend");
  run.add_option("--db", db_, "Store this run in a results database (SQLite file, sqlite:PATH, postgresql://...)");
  run.add_option("--tag", tags_, "With --db: a key=value tag for the stored run (commit=SHA, branch=main); repeatable");
}

bool RunCommandLine::given(const std::string& flag) const { return app_->get_option(flag)->count() > 0; }

RunSettings RunCommandLine::merge_settings(const Suite* suite) const {
  RunSettings settings;
  const auto& table = setting_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const SettingSpec& spec = table[i];
    SettingValue value = spec.default_value;
    if (given(spec.flag))
      value = is_switch(spec) ? SettingValue(setting_inputs_[i].set)
                              : checked(spec, from_flag_text(spec, setting_inputs_[i].text), spec.flag, spec.percent ? 0.01 : 1);
    else if (suite && spec.suite_key && suite->settings.count(spec.suite_key) != 0)
      value = suite->settings.at(spec.suite_key);
    store_setting(settings, spec, value);
  }
  check_together(settings);
  // A profiler session is one pass: the capture range covers exactly one measurement of each case.
  if (settings.profile) settings.repetitions = 1;
  return settings;
}

std::vector<SuiteGroup> RunCommandLine::command_line_groups() const {
  SuiteGroup group;
  RunOptions& options = group.options;
  options.ops = parse_each<Op>(ops_, parse_op, "--op");
  options.backends = backend_names(backends_);
  if (!dtypes_.empty()) options.dtypes = parse_each<DType>(dtypes_, parse_dtype, "--dtype");
  for (const auto& size : sizes_) {
    try {
      append_size_list(options.sizes, size, "--size");
    } catch (const UsageError& error) {
      throw UsageError(with_owner_hint(error.what(), size, "--size"));
    }
  }
  // --shape 4096,4096,4096 (or 4096 4096 4096): three sides, each of which is read as a shape.
  const auto shape_words = flatten_lists(shapes_);
  if (shape_words.size() == 3 && std::all_of(shape_words.begin(), shape_words.end(), [](const std::string& word) {
        return word.find_first_of("xX") == std::string::npos && shape_sides(word).size() == 1;
      }))
    throw UsageError("--shape " + shape_words[0] + "," + shape_words[1] + "," + shape_words[2] +
                     " is three sizes, each read as a shape: did you mean --shape " + shape_words[0] + "x" +
                     shape_words[1] + "x" + shape_words[2] + "?");
  options.matmul_shapes = parse_each<Shape>(shapes_, parse_matmul_shape, "--shape");
  if (!rows_.empty()) options.spmv_rows = parse_size(rows_);
  if (given("--nnz-per-row")) options.nnz_per_row = parse_nnz_per_row(nnz_per_row_);
  if (given("--pattern")) options.patterns = parse_each<SpmvPattern>(patterns_, parse_pattern, "--pattern");
  options.matrix_path = matrix_;
  if (given("--spmv-kernel")) options.spmv_kernel = parse_spmv_kernel(spmv_kernel_);
  if (!timings_.empty()) options.timings = parse_each<TimingMode>(timings_, parse_timing_mode, "--timing");
  options.tf32 = tf32_;
  refuse_flags_without_effect(options);
  return {group};
}

// A flag changes what runs or is refused; it is never silently ignored. Which ops and dtypes
// a flag applies to is the op and dtype tables' to say: the ops of a shape kind, the ops and
// dtypes --tf32 applies to.
void RunCommandLine::refuse_flags_without_effect(const RunOptions& options) const {
  const auto refuse_if_given = [&](const char* flag, const std::string& why) {
    if (given(flag)) throw UsageError(std::string(flag) + " " + why);
  };
  // "applies to matmul, and no --op is matmul", from the ops the rule holds for.
  const auto refuse_without_op = [&](const char* flag, const std::function<bool(Op)>& applies) {
    if (std::any_of(options.ops.begin(), options.ops.end(), applies)) return;
    std::vector<Op> ops = all_ops();
    ops.erase(std::remove_if(ops.begin(), ops.end(), [&](Op op) { return !applies(op); }), ops.end());
    const std::string names = names_of(ops, " or ");
    refuse_if_given(flag, "applies to " + names + ", and no --op is " + (ops.size() == 1 ? names : "one of them"));
  };
  const auto of_kind = [](ShapeKind kind) { return [kind](Op op) { return shape_kind(op) == kind; }; };
  refuse_without_op("--shape", of_kind(ShapeKind::dense_matrix));
  const auto tf32_op = [](Op op) { return op_def(op).accepts_tf32; };
  refuse_without_op("--tf32", tf32_op);
  const auto tf32_dtype = [](DType dtype) { return dtype_info(dtype).tf32_eligible; };
  if (std::none_of(options.dtypes.begin(), options.dtypes.end(), tf32_dtype)) {
    std::vector<DType> dtypes = all_dtypes();
    dtypes.erase(std::remove_if(dtypes.begin(), dtypes.end(), [&](DType dtype) { return !tf32_dtype(dtype); }), dtypes.end());
    std::vector<Op> ops = all_ops();
    ops.erase(std::remove_if(ops.begin(), ops.end(), [&](Op op) { return !tf32_op(op); }), ops.end());
    refuse_if_given("--tf32", "applies to " + names_of(dtypes, " or ") + " " + names_of(ops, " or ") + ", and no --dtype is " +
                                  names_of(dtypes, " or "));
  }
  if (!options.backends.empty() && std::none_of(options.backends.begin(), options.backends.end(), takes_tf32))
    refuse_if_given("--tf32", "applies to a backend with a TF32 path (cublas), and no --backend is one");
  // --spmv-kernel forces the kernel of the cuda backend's spmv cases, and of no other.
  refuse_without_op("--spmv-kernel", of_kind(ShapeKind::sparse_matrix));
  if (!options.backends.empty() && std::none_of(options.backends.begin(), options.backends.end(), takes_spmv_kernel))
    refuse_if_given("--spmv-kernel", "applies to the cuda backend's spmv, and no --backend is cuda");
  for (const char* flag : {"--rows", "--nnz-per-row", "--pattern", "--matrix"}) {
    refuse_without_op(flag, of_kind(ShapeKind::sparse_matrix));
    if (flag != std::string("--matrix") && given("--matrix"))
      refuse_if_given(flag, "does not apply with --matrix: the file is the matrix");
  }
  if (!sizes_apply(options))
    refuse_if_given("--size", "applies to none of the ops here (matmul takes --shape; spmv --rows or --matrix, and keeps its "
                              "default rows beside other ops with a single size)");
}

std::vector<SuiteGroup> RunCommandLine::filtered_suite_groups(const Suite& suite) const {
  for (const char* flag : {"--size", "--shape", "--rows", "--nnz-per-row", "--pattern", "--matrix", "--spmv-kernel", "--tf32"})
    if (given(flag))
      throw UsageError(std::string(flag) +
                       " cannot be combined with a suite (--config, or no --op); --op, --backend, --dtype and --timing "
                       "select from a suite");
  const auto backends = backend_names(backends_);
  const auto dtypes = parse_each<DType>(dtypes_, parse_dtype, "--dtype");
  const auto timings = parse_each<TimingMode>(timings_, parse_timing_mode, "--timing");
  // Leaves out of `values` what `wanted` (when given) does not list.
  const auto keep = [](auto& values, const auto& wanted) {
    if (wanted.empty()) return;
    values.erase(std::remove_if(values.begin(), values.end(),
                                [&](const auto& value) { return std::find(wanted.begin(), wanted.end(), value) == wanted.end(); }),
                 values.end());
  };
  std::vector<SuiteGroup> groups;
  for (SuiteGroup group : suite.groups) {
    RunOptions& options = group.options;
    keep(options.dtypes, dtypes);
    keep(options.timings, timings);
    if (options.backends.empty())
      options.backends = backends;
    else
      keep(options.backends, backends);
    if (!options.dtypes.empty() && !options.timings.empty() && (backends.empty() || !options.backends.empty()))
      groups.push_back(std::move(group));
  }
  if (groups.empty()) throw UsageError("nothing to measure: no group of the suite has the --dtype, --timing and --backend given");
  return groups;
}

std::vector<ReportOutput> RunCommandLine::outputs(const ProcessPlace& place, const DeviceChoice& devices) const {
  std::vector<ReportOutput> outputs;
  std::set<std::string> paths;
  // Ranks that each write their own report must not write the same file.
  if (!place.rank_zero_writes) require_rank_in_outputs(outs_, place.launch);
  for (const auto& given_path : outs_) {
    const std::string path = expand_output_path(given_path, {place.launch.rank, place.host, devices.devices});
    outputs.push_back({report_format_for_path(path), path});
    check_report_destination(path);  // before anything runs, without creating it
    if (!paths.insert(std::filesystem::absolute(path).lexically_normal().string()).second)
      throw UsageError("--out " + path + " is named twice");
  }
  // The terminal gets --format (console by default); with report files, unless --quiet.
  const ReportFormat terminal = given("--format") ? parse_report_format(format_) : ReportFormat::console;
  if (outputs.empty() || !quiet_)
    outputs.push_back({terminal, ""});
  else if (given("--format"))
    throw UsageError("--format chooses what the terminal shows, and --quiet with --out shows nothing there");
  return outputs;
}

RunConfig RunCommandLine::resolve(const ProcessPlace& place) const {
  RunConfig config;
  config.place = place;
  const bool use_suite = given("--config") || ops_.empty();
  std::optional<Suite> suite;
  if (use_suite) {
    suite = config_.empty() ? parse_suite(build_info::default_suite, "configs/default.json (built in)") : load_suite(config_);
    config.suite_path = config_;
    config.thresholds = suite->thresholds;
    config.groups = filtered_suite_groups(*suite);
    config.only_ops = parse_each<Op>(ops_, parse_op, "--op");
  } else {
    config.groups = command_line_groups();
  }
  config.backends_named = given("--backend");
  config.settings = merge_settings(suite ? &*suite : nullptr);
  // The GPUs before the report paths: {device} in an --out path names them.
  const std::string& device = config.settings.device;
  config.devices = choose_devices(device.empty() ? std::nullopt : std::optional<DeviceRequest>(parse_device_request(device)),
                                  place.launch, visible_gpu_count());
  config.outputs = outputs(place, config.devices);
  if (given("--threshold")) config.compare.threshold = parse_threshold_flag("--threshold", threshold_);
  if (!baseline_.empty()) {
    // A history is pooled after measuring, for this machine; one that does not exist yet is
    // said then, after the run is measured and stored.
    config.baseline = Baseline::open(baseline_, true);
    if (const LoadedReport* file = config.baseline->file()) require_complete_report(*file, "baseline", allow_interrupted_);
  }
  config.compare.allow_interrupted = allow_interrupted_;
  std::vector<std::string> baseline_flags{"--allow-missing", "--allow-machine-mismatch", "--allow-interrupted", "--resolve"};
  baseline_flags.insert(baseline_flags.end(), verdict_flag_names().begin(), verdict_flag_names().end());
  for (const std::string& flag : baseline_flags)
    if (given(flag) && baseline_.empty()) throw UsageError(flag + " applies to --baseline, which is not given");
  if (given("--resolve-time") && !given("--resolve"))
    throw UsageError("--resolve-time bounds the rounds of --resolve, which is not given");
  apply_verdict_flags(verdict_, config.compare);
  config.resolve_rounds = resolve_rounds_;
  if (given("--resolve-time")) config.resolve_seconds = resolve_seconds_;
  config.only_cases = flatten_lists(cases_);
  config.compare.allow_missing = allow_missing_;
  config.compare.allow_machine_mismatch = allow_machine_mismatch_;
  if (!relative_to_.empty()) config.relative_to = relative_to_;
  config.quiet = quiet_;
  config.dry_run = dry_run_;
  config.progress = parse_progress_mode(progress_);
  config.tags = store::parse_tags(tags_);
  if (db_.empty() && !config.tags.empty()) throw UsageError("--tag needs --db (the database that stores the run)");
  // An MPI run's merged report is rank 0's to store; a bad database is a usage error on every rank.
  const store::DatabaseUrl database = db_.empty() ? store::DatabaseUrl{} : store::parse_database_url(db_);
  refuse_writing_inputs(config, baseline_, db_);
  // A dry run checks the URL and the tags, and opens nothing.
  if (!db_.empty() && !dry_run_ && (!place.rank_zero_writes || place.launch.rank == 0))
    config.store = store::ResultStore::open(database, store::OpenMode::write);
  config.test_slowdown = test_slowdown();
  return config;
}

RunnerOptions runner_options(const RunConfig& config) {
  const RunSettings& settings = config.settings;
  RunnerOptions runner;
  runner.warmup = static_cast<int>(settings.warmup);
  runner.stopping.min_samples = static_cast<std::size_t>(settings.min_samples);
  runner.stopping.max_samples = static_cast<std::size_t>(settings.max_samples);
  runner.stopping.max_noise = settings.max_noise;
  runner.stopping.min_time_s = settings.min_time_s;
  runner.stopping.max_time_s = settings.max_time_s;
  runner.repetitions = static_cast<int>(settings.repetitions);
  runner.profile = settings.profile;
  runner.telemetry.throttle_threshold = settings.throttle_threshold;
  runner.telemetry.discard_throttled = settings.discard_throttled;
  runner.telemetry.soak_s = settings.soak_s;
  runner.energy = !settings.no_energy;
  runner.hooks.wrap_prepared = slowdown_hook(config.test_slowdown);
  runner.hooks.batch_multiple = config.test_slowdown.batch_multiple();
  return runner;
}

bool shows_progress(const RunConfig& config, bool stderr_is_terminal) {
  return progress_wanted(config.progress, config.quiet, stderr_is_terminal);
}

void record_settings(const RunConfig& config, Context& context) {
  for (const auto& spec : setting_table())
    if (spec.recorded) context.settings[spec.name] = value_of(config.settings, spec);
  context.settings["min_sample_s"] = runner_options(config).min_sample_s;
  if (!config.suite_path.empty()) context.settings["suite"] = config.suite_path;
  record_slowdown(config.test_slowdown, context);
}

void check_baseline(const RunConfig& config, const Context& context) {
  if (const LoadedReport* file = config.baseline ? config.baseline->file() : nullptr)
    compare_reports(*file, LoadedReport{context, {}}, config.compare);
}

}  // namespace gpb
