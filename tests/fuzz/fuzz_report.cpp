// libFuzzer target: the JSON report reader, and what reads its records next (the reports
// `gpubench report` renders, and compare, which recomputes statistics from the raw samples).
// A UsageError is the expected answer to bad input; anything else (another exception, a
// crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/compare.hpp"
#include "model/record_format.hpp"
#include "report/compare_render.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const gpb::LoadedReport report = gpb::parse_json_report(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    for (auto format : {gpb::ReportFormat::console, gpb::ReportFormat::json, gpb::ReportFormat::csv, gpb::ReportFormat::markdown})
      gpb::render_report(format, report.context, report.results);
    gpb::CompareOptions options;
    options.allow_interrupted = true;
    gpb::render_comparison(gpb::compare_reports(report, report, options), gpb::ReportFormat::json);
  } catch (const gpb::UsageError&) {
  }
  return 0;
}
