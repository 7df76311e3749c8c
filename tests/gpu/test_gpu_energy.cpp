// Energy per op on a GPU: a GPU case's record carries the energy counter's figure with an
// uncertainty, its window at least ten update intervals long (a short case lengthened by
// untimed runs, which the record counts). Skips without a device, NVML or an energy counter.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <cmath>
#include <string>

#include "gpu_energy_case.hpp"

namespace gpb {
namespace {

TEST(GpuEnergy, AShortCaseHasEnergyPerOpWithAnUncertainty) {
  std::string why;
  Backend* cublas = energy_test_backend("cublas", why);
  if (!cublas) GTEST_SKIP() << why;
  // About 0.1 ms per launch and 20 ms of samples: far shorter than ten update intervals.
  const ResultRecord record = run_energy_case(*cublas, 1024, 0.02);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.energy.has_value());
  if (record.energy->reason.rfind("no GPU energy counter", 0) == 0) GTEST_SKIP() << record.energy->reason;
  const EnergyMeasurement& energy = *record.energy;
  ASSERT_TRUE(energy.measured()) << energy.reason;
  EXPECT_EQ(energy.counter, "nvml_total_energy");
  EXPECT_GT(energy.update_interval_s, 0);
  EXPECT_GE(energy.window_s, energy.min_window_s);
  EXPECT_GT(energy.extra_launches, 0) << "a 20 ms measurement needed no lengthening?";
  EXPECT_TRUE(energy.includes_timed_samples);
  EXPECT_GT(energy.launches, energy.extra_launches);
  EXPECT_GT(energy.uncertainty_j, 0);
  EXPECT_LT(energy.uncertainty_j, energy.energy_per_op_j);
  // A board's power: above nothing, below any GPU's limit.
  EXPECT_GT(energy.power_w, 10);
  EXPECT_LT(energy.power_w, 2000);
  EXPECT_GT(energy.gflops_per_j, 0);
  ASSERT_TRUE(record.telemetry.has_value());
  EXPECT_DOUBLE_EQ(record.telemetry->energy_per_op_j, energy.energy_per_op_j);
}

TEST(GpuEnergy, AColdCaseMeasuresUntimedRunsAlone) {
  std::string why;
  Backend* cuda = energy_test_backend("cuda", why);
  if (!cuda) GTEST_SKIP() << why;
  const ResultRecord record = run_energy_case(*cuda, 256, 0.02, L2Mode::flush);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  if (record.energy && record.energy->reason.rfind("no GPU energy counter", 0) == 0) GTEST_SKIP() << record.energy->reason;
  ASSERT_TRUE(record.energy && record.energy->measured()) << (record.energy ? record.energy->reason : "no energy");
  EXPECT_FALSE(record.energy->includes_timed_samples);
  EXPECT_EQ(record.energy->launches, record.energy->extra_launches);
}

}  // namespace
}  // namespace gpb

#else

TEST(GpuEnergy, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
