// The progress line of `gpubench run`: cases done of the total, elapsed time and an
// estimate of the time left, on stderr. On a terminal one line is rewritten in place and
// cleared at the end; elsewhere (--progress always into a file or pipe) each update is a
// line of its own.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace gpb {

enum class ProgressMode { never, always, auto_detect };
ProgressMode parse_progress_mode(std::string_view text);  // "never", "always", "auto"; UsageError otherwise
// Whether to show progress: auto shows it when stderr is a terminal and --quiet is not given.
bool progress_wanted(ProgressMode mode, bool quiet, bool stderr_is_terminal);

// "1:05" (minutes:seconds) under an hour, "1:02:05" from an hour on; "-" when unknown.
std::string format_duration(double seconds);

// "[2/12 done, 0:05 elapsed, ETA 0:25] matmul/cublas/f64/4096x4096x4096" as case done+1
// (named last) starts; the ETA is the mean time of the cases done so far times the cases left, and
// "ETA -" before the first case is done.
std::string progress_text(std::size_t done, std::size_t total, double elapsed_s, const std::string& current);

class ProgressLine {
 public:
  ProgressLine(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}
  void show(const std::string& text);
  void clear();  // on a terminal, erases the line at the end

 private:
  std::FILE* out_;
  bool terminal_;
};

}  // namespace gpb
