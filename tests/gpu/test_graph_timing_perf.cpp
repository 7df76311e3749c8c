// Graph against kernel timing on the GPU for a 1K-element op: kernel timing enqueues every
// launch from the host, so a launch of a kernel this short is bound by the host's launch rate
// (a few microseconds each), while a graph replays the same launches without it. The graph's
// median must not exceed the kernel's. The tolerance (5 % plus 0.2 us, the event timer's half
// resolution) covers noise on a shared device where both figures are close, as they are on a
// device whose launch overhead is already below the kernel's time; a graph figure above that
// means the replay added work. A timing verdict: ctest labels it gpu and perf. Skips where no
// CUDA device is present; without the CUDA toolkit the file builds and skips for that reason.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <memory>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/runner.hpp"
#include "model/problem.hpp"

namespace gpb {
namespace {

class GraphTiming : public ::testing::TestWithParam<std::string> {};

TEST_P(GraphTiming, GraphMedianIsAtMostKernelMedianForA1KElementOp) {
  auto backends = make_all_backends();
  Backend& backend = find_backend(backends, GetParam());
  const Availability availability = backend.availability();
  if (!availability.available) GTEST_SKIP() << GetParam() << " unavailable: " << availability.reason;

  const Problem problem = make_problem(Op::sin, DType::f32, elementwise_shape(1024), 42);
  CaseSpec spec;
  spec.op = Op::sin;
  spec.backend = GetParam();
  spec.dtype = DType::f32;
  spec.shape = problem.shape;
  spec.l2 = L2Mode::warm;
  RunnerOptions options;
  options.stopping.min_samples = 30;
  options.stopping.max_time_s = 2;
  options.min_sample_s = 1e-3;  // the kernel samples as long as the graph's

  spec.timing = TimingMode::kernel;
  const ResultRecord kernel = run_case(spec, problem, backend, options);
  spec.timing = TimingMode::graph;
  const ResultRecord graph = run_case(spec, problem, backend, options);
  ASSERT_EQ(kernel.status, Status::ok) << kernel.reason;
  ASSERT_EQ(graph.status, Status::ok) << graph.reason;
  EXPECT_TRUE(graph.verification.passed);
  EXPECT_LE(graph.stats.median, kernel.stats.median * 1.05 + 0.2e-6)
      << "graph " << graph.stats.median * 1e6 << " us, kernel " << kernel.stats.median * 1e6 << " us per op ("
      << graph.timing_note << ")";
  std::printf("%s: kernel %.3f us, graph %.3f us per op\n", spec.backend.c_str(), kernel.stats.median * 1e6,
              graph.stats.median * 1e6);
}

INSTANTIATE_TEST_SUITE_P(GpuBackends, GraphTiming, ::testing::Values("cuda", "cub"));

}  // namespace
}  // namespace gpb

#else

TEST(GraphTiming, GraphMedianIsAtMostKernelMedianForA1KElementOp) { GTEST_SKIP() << "built without the CUDA toolkit"; }

#endif
