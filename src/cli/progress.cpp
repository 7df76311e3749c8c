#include "cli/progress.hpp"

#include <cmath>

#include "base/terminal.hpp"

namespace gpb {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  const auto total = static_cast<long long>(std::llround(seconds));
  char text[32];
  if (total < 3600)
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return text;
}

std::string progress_text(std::size_t done, std::size_t total, double elapsed_s, const std::string& current) {
  const double eta = done == 0 ? -1 : elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
  return "[" + std::to_string(done) + "/" + std::to_string(total) + " done, " + format_duration(elapsed_s) + " elapsed, ETA " +
         format_duration(eta) + "] " + current;
}

void ProgressLine::case_started(const CaseStart& start) {
  const std::string current = start.passes > 1 ? "pass " + std::to_string(start.pass + 1) + "/" +
                                                     std::to_string(start.passes) + ": " + start.spec.id()
                                               : start.spec.id();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  show(progress_text(start.done, start.total, elapsed, current));
}

void ProgressLine::show(const std::string& text) {
  // The case id may hold a matrix file's name: escaped like everything else gpubench prints.
  const std::string shown = printable(text);
  if (terminal_)
    std::fprintf(out_, "\r\033[K%s", shown.c_str());
  else
    std::fprintf(out_, "%s\n", shown.c_str());
  std::fflush(out_);
}

void ProgressLine::run_started() { start_ = std::chrono::steady_clock::now(); }

void ProgressLine::run_finished() {
  if (!terminal_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

}  // namespace gpb
