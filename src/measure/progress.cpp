#include "measure/progress.hpp"

#include <cmath>

#include "base/errors.hpp"

namespace gpb {

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

void ProgressLine::show(const std::string& text) {
  if (terminal_)
    std::fprintf(out_, "\r\033[K%s", text.c_str());
  else
    std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

void ProgressLine::clear() {
  if (!terminal_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

}  // namespace gpb
