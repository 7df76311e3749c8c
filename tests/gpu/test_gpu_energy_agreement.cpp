// Two measurements of the same GPU case agree within their stated energy uncertainties: a
// verdict that depends on the board's power staying put, so labelled perf. Skips without a
// device, NVML or an energy counter.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <cmath>
#include <string>

#include "gpu_energy_case.hpp"

namespace gpb {
namespace {

TEST(GpuEnergyAgreement, TwoMeasurementsAgreeWithinTheirUncertainty) {
  std::string why;
  Backend* cublas = energy_test_backend("cublas", why);
  if (!cublas) GTEST_SKIP() << why;
  // A first run warms the board, so that both measured runs see the same temperature.
  const ResultRecord warm = run_energy_case(*cublas, 4096, 1.0);
  if (warm.energy && warm.energy->reason.rfind("no GPU energy counter", 0) == 0) GTEST_SKIP() << warm.energy->reason;
  const ResultRecord first = run_energy_case(*cublas, 4096, 1.0);
  const ResultRecord second = run_energy_case(*cublas, 4096, 1.0);
  for (const ResultRecord* record : {&first, &second}) {
    ASSERT_EQ(record->status, Status::ok) << record->reason;
    ASSERT_TRUE(record->energy && record->energy->measured()) << (record->energy ? record->energy->reason : "no energy");
  }
  const EnergyMeasurement& a = *first.energy;
  const EnergyMeasurement& b = *second.energy;
  EXPECT_LE(std::fabs(a.energy_per_op_j - b.energy_per_op_j), a.uncertainty_j + b.uncertainty_j)
      << a.energy_per_op_j << " +- " << a.uncertainty_j << " J vs " << b.energy_per_op_j << " +- " << b.uncertainty_j << " J";
}

}  // namespace
}  // namespace gpb

#else

TEST(GpuEnergyAgreement, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
