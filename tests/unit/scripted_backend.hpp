// The scripted backend of the runner's tests: a Backend whose cases are a test's own Prepared
// class, driven by the test's script (a struct deriving from BackendScript), a timer that reads
// the script's clock, and a fixture that runs one sqrt case of 1000 f32 elements on it.
//
// A script says what the backend reports (BackendScript's fields; a script may hide
// backend_kind() to derive the kind from its other fields) and keeps the clock the timer reads:
// timer_mark() is the script's state when the timer starts or stops, and
// seconds_between(start, stop) the time the timer reports for what ran in between.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "measure/runner.hpp"
#include "model/problem.hpp"

namespace gpb::testing {

struct BackendScript {
  std::string backend_name = "scripted";
  std::string description = "test double";
  DeviceKind kind = DeviceKind::cpu;
  bool supported = true;
  bool throw_in_prepare = false;
  double timer_resolution_s = 0;

  DeviceKind backend_kind() const { return kind; }
};

template <typename Script>
class ScriptedTimer final : public SampleTimer {
 public:
  explicit ScriptedTimer(Script& script) : script_(script) {}
  void start() override { start_ = script_.timer_mark(); }
  void stop() override { stop_ = script_.timer_mark(); }
  double elapsed_seconds() override { return script_.seconds_between(start_, stop_); }
  std::string name() const override { return "scripted"; }
  double resolution_s() const override { return script_.timer_resolution_s; }

 private:
  using Mark = decltype(std::declval<Script&>().timer_mark());
  Script& script_;
  Mark start_{}, stop_{};
};

// PreparedT is constructed as PreparedT(script, problem).
template <typename Script, typename PreparedT>
class ScriptedBackend final : public Backend {
 public:
  explicit ScriptedBackend(Script& script) : script_(script) {}
  std::string name() const override { return script_.backend_name; }
  std::string description() const override { return script_.description; }
  DeviceKind kind() const override { return script_.backend_kind(); }
  Availability availability() const override { return {}; }
  Support supports(Op, DType) const override {
    if (script_.supported) return {};
    return {false, "scripted backend has no such op"};
  }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings&) override {
    if (script_.throw_in_prepare) throw std::runtime_error("out of device memory: test needs 1 TiB");
    return std::make_unique<PreparedT>(script_, problem);
  }

 private:
  Script& script_;
};

// One sqrt case of 1000 f32 elements (inputs drawn with kProblemSeed) on the scripted backend:
// 2 warm-up runs, at least 10 samples, no minimum time, at most 5 s. A test's fixture derives
// from it and sets what its cases have of their own in its SetUp, after this one's.
template <typename Script, typename PreparedT, std::uint64_t kProblemSeed = 1>
struct ScriptedCaseTest : ::testing::Test {
  Script script;
  ScriptedBackend<Script, PreparedT> backend{script};
  Problem problem = make_problem(Op::sqrt, DType::f32, elementwise_shape(1000), kProblemSeed);
  CaseSpec spec;
  RunnerOptions options;

  void SetUp() override {
    spec.op = Op::sqrt;
    spec.backend = backend.name();
    spec.shape = problem.shape;
    options.warmup = 2;
    options.stopping.min_samples = 10;
    options.stopping.min_time_s = 0;
    options.stopping.max_time_s = 5;
  }
};

}  // namespace gpb::testing
