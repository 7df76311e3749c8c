// GPU telemetry through NVML: the loader's failure is a reason, not a crash; on a device
// with NVML a GPU case's record carries clocks and power and the context the device's
// management state. Tests that need a device (and NVML) skip without one; without the CUDA
// toolkit the file builds and skips for that reason.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <cmath>
#include <memory>
#include <string>

#include "measure/backend.hpp"
#include "measure/context.hpp"
#include "gpu_backend/nvml.hpp"
#include "model/problem.hpp"
#include "measure/runner.hpp"

namespace gpb {
namespace {

TEST(Nvml, AMissingLibraryIsUnavailableWithTheReason) {
  const nvml::Library library("libnvidia-ml-gpubench-test-missing.so.1");
  EXPECT_FALSE(library.available());
  EXPECT_NE(library.reason().find("cannot load libnvidia-ml-gpubench-test-missing.so.1"), std::string::npos)
      << library.reason();
  std::string why;
  EXPECT_FALSE(library.device_by_pci_bus_id("0000:00:00.0", why).has_value());
  EXPECT_EQ(why, library.reason());
}

// The reason telemetry cannot be tested here, or nullopt.
std::optional<std::string> no_telemetry(const Backend& backend) {
  const Availability availability = backend.availability();
  if (!availability.available) return backend.name() + " unavailable: " + availability.reason;
  if (!nvml::Library::instance().available()) return "NVML unavailable: " + nvml::Library::instance().reason();
  return std::nullopt;
}

TEST(GpuTelemetry, AGpuCaseRecordsClocksPowerAndFlags) {
  const auto backends = make_all_backends();
  Backend* cublas = nullptr;
  for (const auto& backend : backends)
    if (backend->name() == "cublas") cublas = backend.get();
  ASSERT_NE(cublas, nullptr);
  if (const auto reason = no_telemetry(*cublas)) GTEST_SKIP() << *reason;

  const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(2048, 2048, 2048), 7);
  CaseSpec spec;
  spec.op = Op::matmul;
  spec.backend = "cublas";
  spec.shape = problem.shape;
  RunnerOptions options;
  options.stopping.min_time_s = 0.2;
  const ResultRecord record = run_case(spec, problem, *cublas, options);
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.telemetry.has_value());
  const TelemetrySummary& telemetry = *record.telemetry;
  EXPECT_GE(telemetry.readings, 2u);
  EXPECT_GT(telemetry.sm_clock_median_mhz, 0);
  EXPECT_LE(telemetry.sm_clock_min_mhz, telemetry.sm_clock_max_mhz);
  EXPECT_GT(telemetry.sm_clock_limit_mhz, 0);
  EXPECT_LE(telemetry.flagged_samples, record.samples_s.size());
  EXPECT_EQ(telemetry.discarded_samples, 0u);
  if (std::isfinite(telemetry.power_mean_w)) {
    EXPECT_GT(telemetry.power_mean_w, 0);
  }
  if (std::isfinite(telemetry.energy_per_op_j)) {
    EXPECT_GT(telemetry.gflops_per_j, 0);
  }
}

TEST(GpuTelemetry, TheContextRecordsTheManagementState) {
  const auto backends = make_all_backends();
  if (const auto reason = no_telemetry(*backends.back())) GTEST_SKIP() << *reason;
  const Context context = collect_context({"gpubench", "info"}, 1);
  ASSERT_FALSE(context.gpus.empty());
  const GpuManagement& nvml = context.gpus.front().nvml;
  EXPECT_TRUE(nvml.available) << nvml.reason;
  EXPECT_GT(nvml.max_sm_clock_mhz, 0);
}

}  // namespace
}  // namespace gpb

#else

TEST(GpuTelemetry, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
