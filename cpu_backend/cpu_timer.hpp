// Sample timer for CPU backends: their work is synchronous, so a steady clock read before
// and after run() brackets it exactly.
#pragma once

#include <chrono>
#include <string>

#include "measure/backend.hpp"

namespace gpb {

class SteadyClockTimer final : public SampleTimer {
 public:
  void start() override { start_ = Clock::now(); }
  void stop() override { stop_ = Clock::now(); }
  double elapsed_seconds() override { return std::chrono::duration<double>(stop_ - start_).count(); }
  std::string name() const override { return "steady_clock"; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  Clock::time_point stop_;
};

}  // namespace gpb
