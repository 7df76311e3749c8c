// One-time costs on the GPU, in a process of their own (a fresh context and fresh modules):
// the context's creation is timed as the process's first GPU call; the first cuda-backend case
// pays module loading under lazy loading, so its first call exceeds its steady-state median;
// cublas records its first handle; every GPU case records the host cost of a call. The first
// call's verdict depends on timing, so ctest labels these tests gpu and perf. Each skips where
// no CUDA device is present; without the CUDA toolkit the file builds and skips for that reason.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/one_time_costs.hpp"
#include "measure/runner.hpp"
#include "model/problem.hpp"

namespace gpb {
namespace {

Backend& backend_named(const std::string& name) {
  static const std::vector<std::unique_ptr<Backend>> backends = make_all_backends();
  for (const auto& backend : backends)
    if (backend->name() == name) return *backend;
  throw std::logic_error("no backend named " + name);
}

#define SKIP_WITHOUT_DEVICE(backend)                                                                   \
  do {                                                                                                 \
    const Availability gpb_availability = (backend).availability();                                   \
    if (!gpb_availability.available) GTEST_SKIP() << (backend).name() << ": " << gpb_availability.reason; \
  } while (false)

RunnerOptions quick_options() {
  RunnerOptions options;
  options.warmup = 3;
  options.stopping.min_samples = 20;
  options.stopping.min_time_s = 0;
  options.stopping.max_time_s = 2;
  return options;
}

ResultRecord run_sin(const std::string& backend_name) {
  Backend& backend = backend_named(backend_name);
  const Problem problem = make_problem(Op::sin, DType::f32, elementwise_shape(1 << 20), 42);
  CaseSpec spec;
  spec.op = Op::sin;
  spec.backend = backend_name;
  spec.shape = problem.shape;
  spec.l2 = L2Mode::warm;
  return run_case(spec, problem, backend, quick_options());
}

// First in the file, so that in a run of the whole executable it is also the process's first.
TEST(GpuOneTimeCosts, ContextCreationIsTimedAsTheFirstCall) {
  SKIP_WITHOUT_DEVICE(backend_named("cuda"));
  const OneTimeCosts costs = measure_context_creation(0);
  ASSERT_TRUE(costs.context_creation_s) << costs.context_note;
  EXPECT_GT(*costs.context_creation_s, 0);
  EXPECT_NE(costs.context_note.find("cudaFree(0)"), std::string::npos) << costs.context_note;
  EXPECT_TRUE(costs.module_loading == "lazy" || costs.module_loading == "eager") << costs.module_loading;
  // A second time the context exists: not measured, and said so.
  const OneTimeCosts again = measure_context_creation(0);
  EXPECT_FALSE(again.context_creation_s);
  EXPECT_NE(again.context_note.find("existed before"), std::string::npos) << again.context_note;
}

TEST(GpuOneTimeCosts, TheFirstCudaCaseOfAProcessPaysMoreThanItsMedian) {
  SKIP_WITHOUT_DEVICE(backend_named("cuda"));
  const ResultRecord record = run_sin("cuda");
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  ASSERT_TRUE(record.first_call);
  EXPECT_TRUE(record.first_call->first_of_backend);
  EXPECT_GT(record.first_call->host_s, record.stats.median);
  EXPECT_GT(record.first_call->timer_s, 0);
  ASSERT_TRUE(record.host_cost);
  EXPECT_GE(record.host_cost->samples_s.size(), 5u);
  EXPECT_TRUE(std::all_of(record.host_cost->samples_s.begin(), record.host_cost->samples_s.end(),
                          [](double s) { return s >= 0 && std::isfinite(s); }));
  // Issuing the op returns before it finishes: at 4 MiB each way it takes longer than its launch.
  EXPECT_LT(record.host_cost->stats.median, record.first_call->host_s);
}

TEST(GpuOneTimeCosts, CublasRecordsItsFirstHandle) {
  SKIP_WITHOUT_DEVICE(backend_named("cublas"));
  Backend& backend = backend_named("cublas");
  const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(256, 256, 256), 42);
  CaseSpec spec;
  spec.op = Op::matmul;
  spec.backend = "cublas";
  spec.shape = problem.shape;
  spec.l2 = L2Mode::warm;
  const ResultRecord record = run_case(spec, problem, backend, quick_options());
  ASSERT_EQ(record.status, Status::ok) << record.reason;
  const auto uses = recorded_first_uses();
  const auto handle = std::find_if(uses.begin(), uses.end(), [](const FirstUse& use) {
    return use.backend == "cublas" && use.what == "handle creation (cublasCreate)";
  });
  ASSERT_NE(handle, uses.end());
  EXPECT_GT(handle->seconds, 0);
  ASSERT_TRUE(record.host_cost);
  EXPECT_GE(record.host_cost->stats.min, 0);
}

TEST(GpuOneTimeCosts, ZerosAndOnesVerifyOnEveryGpuBackend) {
  SKIP_WITHOUT_DEVICE(backend_named("cuda"));
  for (const std::string name : {"cuda", "cublas", "cub", "cusparse"})
    for (InputData data : all_input_data())
      for (Op op : {Op::sin, Op::sqrt, Op::sum, Op::matmul, Op::spmv}) {
        Backend& backend = backend_named(name);
        if (!backend.supports(op, DType::f32).supported) continue;
        Shape shape = elementwise_shape(100000);
        if (op == Op::matmul) shape = matmul_shape(300, 200, 100);
        if (op == Op::spmv) {
          shape = Shape{};
          shape.rows = 5000;
          shape.nnz_per_row = 9;
        }
        const Problem problem = make_problem(op, DType::f32, shape, 42, data);
        CaseSpec spec;
        spec.op = op;
        spec.backend = name;
        spec.shape = problem.shape;
        spec.data = data;
        spec.l2 = L2Mode::warm;
        RunnerOptions options = quick_options();
        options.stopping.min_samples = 3;
        const ResultRecord record = run_case(spec, problem, backend, options);
        EXPECT_EQ(record.status, Status::ok) << record.spec.id() << ": " << record.reason;
      }
}

}  // namespace
}  // namespace gpb

#else

TEST(GpuOneTimeCosts, NeedsCuda) { GTEST_SKIP() << "built without the CUDA toolkit"; }

#endif
