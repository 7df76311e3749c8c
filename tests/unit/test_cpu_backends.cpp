#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cpu_backend/cpu_backends.hpp"
#include "measure/backend.hpp"
#include "measure/gpu_backend_list.hpp"
#include "model/problem.hpp"
#include "model/verify.hpp"

namespace gpb {
namespace {

std::vector<std::unique_ptr<Backend>> cpu_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  append_cpu_backends(backends);
  return backends;
}

struct ShapeCase {
  Op op;
  Shape shape;
};

std::vector<ShapeCase> shape_cases() {
  std::vector<ShapeCase> cases;
  for (Op op : {Op::sin, Op::sqrt, Op::sum})
    for (std::int64_t n : {1, 3, 1000003}) cases.push_back({op, elementwise_shape(n)});
  for (const Shape& shape : {matmul_shape(1, 1, 1), matmul_shape(17, 5, 3), matmul_shape(1000, 333, 77)})
    cases.push_back({Op::matmul, shape});
  for (SpmvPattern pattern : {SpmvPattern::random, SpmvPattern::banded, SpmvPattern::powerlaw}) {
    cases.push_back({Op::spmv, spmv_shape(1000, 16, pattern)});
    cases.push_back({Op::spmv, spmv_shape(100003, 16, pattern)});  // above Eigen's parallel threshold
  }
  cases.push_back({Op::spmv, spmv_file_shape(std::string(GPUBENCH_TEST_DATA) + "/mm_empty_rows.mtx")});
  return cases;
}

// The vectorised double sin against std::sin where its reduction is hardest (next to
// multiples of pi/2, up to its 1e5 limit), past the limit (std::sin itself), and on the
// special values.
TEST(CpuBackends, VectorisedDoubleSinMatchesStdSin) {
  constexpr double kHalfPi = 1.5707963267948966;
  std::vector<double> x;
  for (int k = -63662; k <= 63662; k += 97)  // k pi/2 up to 1e5
    for (double direction : {-1.0, 1.0}) x.push_back(std::nextafter(k * kHalfPi, direction * 1e300));
  for (double value : {0.0, 1e-300, 1e-9, 0.5, 3.14159, -3.14159, 99999.9, 1e5, 1.5e5, 1e300})
    for (double sign : {-1.0, 1.0}) x.push_back(sign * value);
  const double infinity = std::numeric_limits<double>::infinity();
  x.push_back(infinity);
  x.push_back(std::numeric_limits<double>::quiet_NaN());
  std::vector<double> y(x.size());
  sin_block_f64(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double expected = std::sin(x[i]);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(y[i])) << x[i];
      continue;
    }
    const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::abs(expected), 0x1p-1022)) - 52);
    EXPECT_LE(std::abs(y[i] - expected), 2 * ulp) << "sin(" << x[i] << ")";
  }
}

TEST(CpuBackends, RegistersEigenThenOpenblas) {
  const auto backends = cpu_backends();
  ASSERT_EQ(backends.size(), 2u);
  EXPECT_EQ(backends[0]->name(), "eigen");
  EXPECT_EQ(backends[1]->name(), "openblas");
  for (const auto& backend : backends) {
    EXPECT_EQ(backend->kind(), DeviceKind::cpu);
    EXPECT_TRUE(backend->availability().available);
  }
  EXPECT_NE(backends[0]->description().find("Eigen 3."), std::string::npos) << backends[0]->description();
  EXPECT_NE(backends[1]->description().find("OpenBLAS"), std::string::npos) << backends[1]->description();
}

// Either build lists the GPU backends of the one list, after the CPU ones; a build without
// CUDA lists them as unavailable, with the reason.
TEST(Backends, EveryBuildListsTheGpuBackendsOfTheOneList) {
  const auto backends = make_all_backends();
  ASSERT_EQ(backends.size(), 2 + std::size(kGpuBackends));
  for (std::size_t i = 0; i < std::size(kGpuBackends); ++i) {
    const Backend& backend = *backends[2 + i];
    EXPECT_EQ(backend.name(), kGpuBackends[i].name);
    EXPECT_EQ(backend.description(), kGpuBackends[i].description);
    EXPECT_EQ(backend.kind(), DeviceKind::gpu);
#if !GPUBENCH_HAVE_CUDA
    EXPECT_EQ(backend.availability().reason, "built without the CUDA toolkit");
#endif
  }
  EXPECT_TRUE(takes_spmv_kernel("cuda"));
  EXPECT_FALSE(takes_spmv_kernel("cusparse"));
  EXPECT_FALSE(takes_spmv_kernel("eigen"));
}

TEST(CpuBackends, EverySupportedCaseVerifiesWithOneAndTwoThreads) {
  auto backends = cpu_backends();
  for (const ShapeCase& c : shape_cases())
    for (DType dtype : all_dtypes()) {
      const Problem problem = make_problem(c.op, dtype, c.shape, 42);
      for (auto& backend : backends) {
        if (!backend->supports(c.op, dtype).supported) continue;
        for (int threads : {1, 2}) {
          SCOPED_TRACE(backend->name() + " " + to_string(c.op) + " " + to_string(dtype) + " " +
                       problem.shape.label(c.op) + " threads=" + std::to_string(threads));
          BackendSettings settings;
          settings.threads = threads;
          EXPECT_EQ(backend->threads_used(settings), threads);
          const auto prepared = backend->prepare(problem, settings);
          prepared->run();
          prepared->run();  // repeated runs give the same answer (no accumulation into the output)
          const Verification verification = verify(problem, prepared->result());
          EXPECT_TRUE(verification.passed) << verification.max_error << " > " << verification.tolerance << " ("
                                           << verification.method << ")";
          EXPECT_FALSE(prepared->details().empty());
        }
      }
    }
}

TEST(CpuBackends, ResultsDoNotDependOnTheThreadCount) {
  // Sum and the elementwise ops split work into fixed blocks, so the bits match.
  auto backends = cpu_backends();
  for (Op op : {Op::sin, Op::sum}) {
    const Problem problem = make_problem(op, DType::f32, elementwise_shape(1000003), 7);
    std::vector<HostArray> results;
    for (int threads : {1, 2}) {
      BackendSettings settings;
      settings.threads = threads;
      const auto prepared = backends[0]->prepare(problem, settings);
      prepared->run();
      results.push_back(prepared->result());
    }
    EXPECT_EQ(results[0].as<float>(), results[1].as<float>()) << to_string(op);
  }
}

TEST(CpuBackends, ResultIsACopy) {
  auto backends = cpu_backends();
  const Problem problem = make_problem(Op::sqrt, DType::f64, elementwise_shape(10), 1);
  const auto prepared = backends[0]->prepare(problem, BackendSettings{});
  prepared->run();
  HostArray first = prepared->result();
  first.as<double>()[0] = -1;
  EXPECT_NE(prepared->result().at(0), -1);
}

TEST(CpuBackends, TimerIsTheSteadyClock) {
  auto backends = cpu_backends();
  const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(64, 64, 64), 1);
  for (auto& backend : backends) {
    const auto prepared = backend->prepare(problem, BackendSettings{});
    const auto timer = prepared->make_timer();
    EXPECT_EQ(timer->name(), "steady_clock");
    timer->start();
    prepared->run();
    timer->stop();
    EXPECT_GT(timer->elapsed_seconds(), 0.0);
    EXPECT_FALSE(prepared->has_transfers());
  }
}

TEST(CpuBackends, AllCoresByDefault) {
  auto backends = cpu_backends();
  for (auto& backend : backends) EXPECT_EQ(backend->threads_used(BackendSettings{}), omp_get_num_procs());
  BackendSettings negative;
  negative.threads = -1;
  EXPECT_THROW(backends[0]->threads_used(negative), UsageError);
}

TEST(CpuBackends, OpenblasExplainsWhatItCannotRun) {
  auto backends = cpu_backends();
  Backend& openblas = *backends[1];
  for (DType dtype : {DType::f32, DType::f64}) EXPECT_TRUE(openblas.supports(Op::matmul, dtype).supported);
  const Support f16 = openblas.supports(Op::matmul, DType::f16);
  EXPECT_FALSE(f16.supported);
  EXPECT_NE(f16.reason.find("no f16 gemm; use eigen"), std::string::npos) << f16.reason;
  // bf16 where the OpenBLAS loaded exports cblas_sbgemm; otherwise a skip that names it.
  const Support bf16 = openblas.supports(Op::matmul, DType::bf16);
  if (!bf16.supported) {
    EXPECT_NE(bf16.reason.find("cblas_sbgemm"), std::string::npos) << bf16.reason;
  }
  for (DType dtype : all_dtypes()) {
    for (Op op : {Op::sin, Op::sqrt, Op::sum, Op::spmv}) {
      const Support support = openblas.supports(op, dtype);
      EXPECT_FALSE(support.supported) << to_string(op);
      EXPECT_NE(support.reason.find("use eigen"), std::string::npos) << support.reason;
    }
  }
  EXPECT_NE(openblas.supports(Op::sum, DType::f32).reason.find("asum"), std::string::npos);
  const Problem problem = make_problem(Op::sin, DType::f32, elementwise_shape(10), 1);
  EXPECT_THROW(openblas.prepare(problem, BackendSettings{}), std::runtime_error);
}

TEST(CpuBackends, EigenSupportsEverything) {
  auto backends = cpu_backends();
  for (Op op : all_ops())
    for (DType dtype : all_dtypes()) EXPECT_TRUE(backends[0]->supports(op, dtype).supported);
}

}  // namespace
}  // namespace gpb
