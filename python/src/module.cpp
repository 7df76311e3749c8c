// gpubench._core: the package's bindings over the core. Nothing here measures or renders by
// itself: run_program is the program's command line, measure_callable hands a function to
// the runner (callable_case.hpp), render_report and speedup_summary are the reporters.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/summary.hpp"
#include "base/build_info.hpp"
#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/nvtx.hpp"
#include "base/text.hpp"
#include "callable_case.hpp"
#include "cli/program.hpp"
#include "config/run_config.hpp"
#include "config/settings.hpp"
#include "measure/context.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"

namespace nb = nanobind;

namespace gpb::python {
namespace {

// Swaps std::cout and std::cerr for strings for as long as it lives.
class CapturedOutput {
 public:
  CapturedOutput() : cout_(std::cout.rdbuf(out_.rdbuf())), cerr_(std::cerr.rdbuf(err_.rdbuf())) {}
  ~CapturedOutput() {
    std::cout.rdbuf(cout_);
    std::cerr.rdbuf(cerr_);
  }
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;
  std::string out() const { return out_.str(); }
  std::string err() const { return err_.str(); }

 private:
  std::ostringstream out_, err_;
  std::streambuf* cout_;
  std::streambuf* cerr_;
};

// `gpubench <args>` in this process, through the command line main.cpp runs: the exit code
// and what it wrote to stdout and stderr. The GIL is released: nothing in it calls Python.
// The program's own SIGINT and SIGTERM handlers stand in for Python's meanwhile, so that
// Ctrl-C stops a run after its current sample (the command exits 130, its report holding the
// cases finished); the caller raises KeyboardInterrupt then. Python's handlers, which would
// run only once the command returned, come back after it.
std::tuple<int, std::string, std::string> run_program_captured(std::vector<std::string> args) {
  args.insert(args.begin(), "gpubench");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  nb::gil_scoped_release release;
  CapturedOutput captured;
  ScopedInterruptHandlers handlers;
  const int code = run_program(static_cast<int>(argv.size()) - 1, argv.data());
  return {code, captured.out(), captured.err()};
}

// The run-wide settings that apply to one function's case, by their suite keys.
const std::vector<std::string> kCallableSettings{"warmup",        "min_samples",        "max_samples",
                                                 "max_noise",     "min_time",           "max_time",
                                                 "l2",            "throttle_threshold", "discard_throttled",
                                                 "soak",          "no_energy"};

SettingValue setting_value(const std::string& key, const nb::handle& value) {
  if (nb::isinstance<nb::bool_>(value)) return nb::cast<bool>(value);
  if (nb::isinstance<nb::int_>(value)) return nb::cast<std::int64_t>(value);
  if (nb::isinstance<nb::float_>(value)) return nb::cast<double>(value);
  if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
  throw UsageError("setting '" + key + "': expected a number, a bool or a string, got " +
                   nb::cast<std::string>(nb::str(value.type().attr("__name__"))));
}

// The settings table's defaults with the given ones (suite keys) checked and stored in.
RunSettings callable_settings(const nb::dict& given) {
  RunSettings settings = default_run_settings();
  for (const auto& [key_handle, value] : given) {
    const std::string key = nb::cast<std::string>(key_handle);
    if (std::find(kCallableSettings.begin(), kCallableSettings.end(), key) == kCallableSettings.end())
      throw UsageError(unknown_word_message("setting", key, kCallableSettings));
    for (const auto& spec : setting_table())
      if (spec.suite_key && key == spec.suite_key)
        store_setting(settings, spec, check_suite_setting(key, setting_value(key, value), "gpubench"));
  }
  check_together(settings);
  return settings;
}

DeviceKind device_kind(const std::string& device) {
  if (device == "cpu") return DeviceKind::cpu;
  if (device == "cuda") return DeviceKind::gpu;
  throw UsageError(unknown_word_message("device", device, {"cpu", "cuda"}));
}

// What the reference check returns: passed, max error, tolerance, entries checked, method.
using CheckResult = std::tuple<bool, double, double, std::int64_t, std::string>;

// Measures `function` with the runner and returns the JSON report of its one record.
std::string measure_callable(nb::callable function, const std::string& name, const std::string& device,
                             std::uintptr_t stream, int ordinal, std::int64_t size, const std::string& dtype,
                             const std::string& timing, const nb::dict& given_settings, const std::string& range_name,
                             std::optional<nb::callable> check, std::vector<std::string> argv) {
  RunConfig config;
  config.settings = callable_settings(given_settings);
  const RunnerOptions runner = runner_options(config);
  const CallableTarget target{device_kind(device), stream, ordinal};
  const CaseSpec spec =
      callable_case(name, target.device, size, parse_dtype(dtype), config.settings.l2, parse_timing_mode(timing));
  const Problem problem = make_problem(spec.op, spec.dtype, spec.shape, spec.seed);

  // The function's own exception (KeyboardInterrupt included) goes back to the caller as it
  // was raised; the runner sees a failed case.
  std::optional<nb::python_error> raised;
  CallableBackend backend(name, target, [&] {
    try {
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      function();
    } catch (nb::python_error& error) {
      if (!raised) raised.emplace(error);
      throw std::runtime_error(std::string("the function raised: ") + error.what());
    }
  });
  ResultRecord record;
  {
    nvtx::ScopedRange range(range_name);
    record = run_case(spec, problem, backend, runner);
  }
  if (raised) throw *raised;

  record.verification = Verification{};
  record.verification.method = "not checked (no reference given)";
  if (check && record.status == Status::ok) {
    const auto [passed, max_error, tolerance, entries, method] = nb::cast<CheckResult>((*check)());
    record.verification = {true, passed, entries, max_error, tolerance, method};
    if (!passed) {
      record.status = Status::failed;
      record.reason = "verification failed: the output differs from the reference's (" + method + ")";
    }
  }

  Context context = collect_context(argv, record.threads_used);
  append_cpu_context(context);
  if (target.device == DeviceKind::gpu) append_gpu_context(context);
  record_settings(config, context);
  return render_records_json(context, {record});
}

LoadedReport joined(const std::vector<std::string>& documents) {
  LoadedReport all;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    LoadedReport report = parse_json_report(documents[i], "report " + std::to_string(i));
    if (i == 0) all.context = report.context;
    for (auto& record : report.results) all.results.push_back(std::move(record));
  }
  return all;
}

// The records of several JSON reports as one report of `format`, under the first's context.
std::string render_documents(const std::vector<std::string>& documents, const std::string& format) {
  const LoadedReport all = joined(documents);
  // The HTML page is `gpubench report --html`'s, not a --format of its own.
  if (format == "html") return render_html(all.context, all.results);
  return render_report(parse_report_format(format), all.context, all.results, {});
}

std::string speedup_summary(const std::vector<std::string>& documents, const std::string& format) {
  const SpeedupSummary summary = summarize_speedups(joined(documents).results);
  if (format == "markdown") return render_speedups_markdown(summary);
  if (format == "json") return render_speedups_json(summary);
  if (format == "console") return render_speedups_console(summary);
  throw UsageError(unknown_word_message("summary format", format, {"console", "markdown", "json"}));
}

// The settings table as Python keywords need it: (keyword, flag, percent, switch), the
// keyword being the suite key (the flag's name where the setting has none).
std::vector<std::tuple<std::string, std::string, bool, bool>> setting_flags() {
  std::vector<std::tuple<std::string, std::string, bool, bool>> flags;
  for (const auto& spec : setting_table())
    flags.emplace_back(spec.suite_key ? spec.suite_key : spec.name, spec.flag, spec.percent, is_switch(spec));
  return flags;
}

}  // namespace
}  // namespace gpb::python

NB_MODULE(_core, m) {
  using namespace gpb::python;
  m.doc() = "gpubench's core: the program's command line, the runner for a function, the reporters";
  m.attr("version") = gpb::build_info::version;
  m.attr("git_sha") = gpb::build_info::git_sha;
  m.attr("have_cuda") = gpb::build_info::have_cuda;
  m.attr("have_nvtx") = gpb::build_info::have_nvtx;
  m.attr("callable_op") = gpb::to_string(gpb::callable_op());
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    try {
      std::rethrow_exception(pointer);
    } catch (const gpb::UsageError& error) {
      PyErr_SetString(PyExc_ValueError, error.what());
    }
  });
  gpb::nvtx::initialize();

  m.def("run_program", &run_program_captured, nb::arg("args"),
        "Runs `gpubench <args>` in this process; returns (exit code, stdout, stderr).");
  m.def("measure_callable", &measure_callable, nb::arg("function"), nb::arg("name"), nb::arg("device"), nb::arg("stream"),
        nb::arg("ordinal"), nb::arg("size"), nb::arg("dtype"), nb::arg("timing"), nb::arg("settings"), nb::arg("range_name"),
        nb::arg("check").none(), nb::arg("argv"),
        "Measures function() with the runner's rules; returns the JSON report of its record.");
  m.def("setting_flags", &setting_flags,
        "The run-wide settings: (keyword, flag, whether the flag takes percent, whether it is a switch).");
  m.def("render_report", &render_documents, nb::arg("documents"), nb::arg("format"),
        "Renders the records of JSON reports as one report: console, json, csv, markdown or html.");
  m.def("speedup_summary", &speedup_summary, nb::arg("documents"), nb::arg("format") = "console",
        "The CPU-versus-GPU speed-up and crossover summary of the records of JSON reports.");
}
