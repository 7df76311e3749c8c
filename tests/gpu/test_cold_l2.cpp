// Cold against warm L2 on the GPU: a sum whose input fits in L2 (8M floats, 32 MiB, within
// the 40 to 60 MB of an A100, H100 or H200) must take longer per launch with the L2 flushed
// before every single launch than warm. (At 4 MiB both are a few microseconds of launch
// overhead, and the HBM read the flush adds is about one.) The verdict depends on timing, so ctest labels these tests gpu and perf
// (scripts/device-check.sh runs them; scripts/test.sh leaves them out). Each skips where no
// CUDA device is present; without the CUDA toolkit the file builds and skips for that reason.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <memory>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "model/problem.hpp"
#include "measure/runner.hpp"

namespace gpb {
namespace {

class ColdL2 : public ::testing::TestWithParam<std::string> {};

TEST_P(ColdL2, FlushedSumOfAnL2ResidentInputIsSlowerThanWarm) {
  auto backends = make_all_backends();
  Backend& backend = find_backend(backends, GetParam());
  const Availability availability = backend.availability();
  if (!availability.available) GTEST_SKIP() << GetParam() << " unavailable: " << availability.reason;

  const Problem problem = make_problem(Op::sum, DType::f32, elementwise_shape(1 << 23), 42);
  CaseSpec spec;
  spec.op = Op::sum;
  spec.backend = GetParam();
  spec.dtype = DType::f32;
  spec.shape = problem.shape;
  RunnerOptions options;
  options.stopping.min_samples = 50;
  options.stopping.max_time_s = 2;

  spec.l2 = L2Mode::flush;
  const ResultRecord cold = run_case(spec, problem, backend, options);
  spec.l2 = L2Mode::warm;
  const ResultRecord warm = run_case(spec, problem, backend, options);
  ASSERT_EQ(cold.status, Status::ok) << cold.reason;
  ASSERT_EQ(warm.status, Status::ok) << warm.reason;
  EXPECT_EQ(cold.batch, 1);  // every timed launch starts from an evicted L2
  EXPECT_GT(cold.stats.median, warm.stats.median)
      << "cold " << cold.stats.median * 1e6 << " us, warm " << warm.stats.median * 1e6 << " us";
  EXPECT_NE(cold.timing_note.find("single cold launches"), std::string::npos) << cold.timing_note;
}

// cuda only: a batch of CUB DeviceReduce calls is bound by the host's launch rate on an H100
// (9.7 us per call warm, against 8.9 us for one cold launch timed by events alone), so its
// warm batch says nothing about the L2.
INSTANTIATE_TEST_SUITE_P(Cuda, ColdL2, ::testing::Values("cuda"));

}  // namespace
}  // namespace gpb

#else

TEST(ColdL2, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
