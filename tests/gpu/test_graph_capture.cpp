// Graph timing on the GPU backends: every GPU backend's every op (f32 and bf16 where it runs
// them) either captures into a CUDA graph and verifies the output the graph replays wrote, or
// is skipped with a reason that says why it cannot be captured; never timed another way. The
// custom kernels (cuda) must capture. Warm and flushed L2 both. Each test skips where no CUDA
// device is present; without the CUDA toolkit the file builds and skips for that reason.
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

Shape small_shape(Op op) {
  switch (shape_kind(op)) {
    case ShapeKind::elements:
      return elementwise_shape(4099);
    case ShapeKind::dense_matrix:
      return matmul_shape(67, 45, 129);
    case ShapeKind::sparse_matrix:
      break;
  }
  Shape shape;
  shape.rows = shape.cols = 3001;
  shape.nnz_per_row = 9;
  shape.pattern = SpmvPattern::random;
  return shape;
}

TEST(GraphCapture, EveryGpuBackendAndOpCapturesOrSaysWhyNot) {
  const auto backends = make_all_backends();
  int gpu_backends = 0, captured = 0;
  for (const auto& backend : backends) {
    if (backend->kind() != DeviceKind::gpu) continue;
    const Availability availability = backend->availability();
    if (!availability.available) GTEST_SKIP() << backend->name() << " unavailable: " << availability.reason;
    ++gpu_backends;
    for (Op op : {Op::sin, Op::sqrt, Op::sum, Op::matmul, Op::spmv})
      for (DType dtype : {DType::f32, DType::bf16}) {
        if (!backend->supports(op, dtype).supported) continue;
        const Problem problem = make_problem(op, dtype, small_shape(op), 7);
        for (L2Mode l2 : {L2Mode::warm, L2Mode::flush}) {
          CaseSpec spec;
          spec.op = op;
          spec.backend = backend->name();
          spec.dtype = dtype;
          spec.shape = problem.shape;
          spec.timing = TimingMode::graph;
          spec.l2 = l2;
          RunnerOptions options;
          options.warmup = 1;
          options.stopping.min_samples = 3;
          options.stopping.max_samples = 5;
          options.stopping.min_time_s = 0;
          options.stopping.max_time_s = 0.5;
          const ResultRecord record = run_case(spec, problem, *backend, options);
          SCOPED_TRACE(spec.id() + (l2 == L2Mode::flush ? " (L2 flushed)" : ""));
          if (record.status == Status::skipped) {
            EXPECT_EQ(record.reason.rfind("graph timing: ", 0), 0u) << record.reason;
            EXPECT_GT(record.reason.size(), std::string("graph timing: ").size());
            EXPECT_NE(backend->name(), "cuda") << "the custom kernels must capture: " << record.reason;
            std::printf("not captured: %s: %s\n", spec.id().c_str(), record.reason.c_str());
            continue;
          }
          // A flushed graph of a tiny op may lose the op in the evictions' noise: a failure
          // that says so is an answer, not a capture problem.
          if (record.status == Status::failed && l2 == L2Mode::flush &&
              record.reason.find("L2 evictions") != std::string::npos)
            continue;
          ASSERT_EQ(record.status, Status::ok) << record.reason;
          EXPECT_TRUE(record.verification.checked);
          EXPECT_TRUE(record.verification.passed) << record.verification.max_error;
          EXPECT_NE(record.timing_note.find("CUDA graph of"), std::string::npos) << record.timing_note;
          EXPECT_GT(record.stats.median, 0);
          ++captured;
        }
      }
  }
  ASSERT_GT(gpu_backends, 0);
  EXPECT_GT(captured, 0);
}

}  // namespace
}  // namespace gpb

#else

TEST(GraphCapture, EveryGpuBackendAndOpCapturesOrSaysWhyNot) { GTEST_SKIP() << "built without the CUDA toolkit"; }

#endif
