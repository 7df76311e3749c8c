// The progress line of `gpubench run`, an observer of the runner (measure/runner.hpp): cases
// done of the total, elapsed time and an estimate of the time left, on stderr. On a terminal
// one line is rewritten in place and cleared at the end; elsewhere (--progress always into a
// file or pipe) each update is a line of its own.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "measure/runner.hpp"

namespace gpb {

// "1:05" (minutes:seconds) under an hour, "1:02:05" from an hour on; "-" when unknown.
std::string format_duration(double seconds);

// "[2/12 done, 0:05 elapsed, ETA 0:25] matmul/cublas/f64/4096x4096x4096" as case done+1
// (named last) starts; the ETA is the mean time of the cases done so far times the cases left, and
// "ETA -" before the first case is done.
std::string progress_text(std::size_t done, std::size_t total, double elapsed_s, const std::string& current);

class ProgressLine final : public RunObserver {
 public:
  ProgressLine(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}
  void run_started() override;  // the elapsed time and the estimate count from here
  // "pass 2/3: <case id>" as the current case where the run has several passes.
  void case_started(const CaseStart& start) override;
  void run_finished() override;  // on a terminal, erases the line

 private:
  void show(const std::string& text);

  std::FILE* out_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();  // of the run
};

}  // namespace gpb
