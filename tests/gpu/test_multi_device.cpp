// Several GPUs, or several workers on one GPU, through the real backends: each worker's
// cases select their own device and create their own streams, handles and L2 flush buffer,
// so concurrent workers measure and verify as a single one does, and every record names
// its GPU. Plain C++ through src/: no CUDA header. Every test skips (not fails) where too
// few CUDA devices are present or the build has no CUDA.
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/context.hpp"
#include "measure/device_runner.hpp"

namespace gpb {
namespace {

// Every GPU backend's cases at small sizes: elementwise, reduction, matmul and SpMV.
Plan gpu_plan() {
  Plan plan;
  const auto add = [&](Op op, const std::string& backend, const Shape& shape) {
    CaseSpec spec;
    spec.op = op;
    spec.backend = backend;
    spec.shape = shape;
    spec.seed = 7;
    plan.cases.push_back(spec);
  };
  for (const char* backend : {"cuda", "cub"}) {
    add(Op::sin, backend, elementwise_shape(1 << 20));
    add(Op::sum, backend, elementwise_shape(1 << 22));
    add(Op::spmv, backend, spmv_shape(1 << 14, 8, SpmvPattern::random));
  }
  add(Op::matmul, "cuda", matmul_shape(256, 256, 256));
  add(Op::matmul, "cublas", matmul_shape(256, 256, 256));
  add(Op::spmv, "cusparse", spmv_shape(1 << 14, 8, SpmvPattern::random));
  return plan;
}

RunnerOptions quick_options() {
  RunnerOptions options;
  options.warmup = 1;
  options.stopping.min_samples = 5;
  options.stopping.min_time_s = 0;
  options.stopping.max_time_s = 0.2;
  return options;
}

void expect_every_case_ran_on(const std::vector<ResultRecord>& results, const Plan& plan, const std::vector<int>& devices) {
  ASSERT_EQ(results.size(), plan.cases.size() * devices.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ResultRecord& record = results[i];
    EXPECT_EQ(record.spec.id(), plan.cases[i / devices.size()].id());
    EXPECT_EQ(record.gpu.ordinal, devices[i % devices.size()]) << record.spec.id();
    EXPECT_EQ(record.status, Status::ok) << record.spec.id() << " on GPU " << record.gpu.ordinal << ": " << record.reason;
    EXPECT_TRUE(record.verification.passed) << record.spec.id() << " on GPU " << record.gpu.ordinal;
    EXPECT_GT(record.stats.median, 0) << record.spec.id();
  }
}

TEST(MultiDevice, EveryGpuRunsEveryCaseConcurrentlyAndSerially) {
  const int count = visible_gpu_count();
  if (count < 2) GTEST_SKIP() << "needs two CUDA devices; this machine shows " << count;
  std::vector<int> devices(static_cast<std::size_t>(count));
  std::iota(devices.begin(), devices.end(), 0);
  const Plan plan = gpu_plan();
  auto backends = make_all_backends();
  for (DeviceSchedule schedule : {DeviceSchedule::concurrent, DeviceSchedule::serial}) {
    SCOPED_TRACE(to_string(schedule));
    auto results = run_plan_on_devices(plan, backends, make_all_backends, quick_options(), devices, schedule);
    expect_every_case_ran_on(results, plan, devices);

    Context context;
    append_gpu_context(context);
    identify_gpus(context, results);
    std::set<std::string> uuids, bus_ids;
    for (const auto& record : results) {
      EXPECT_EQ(record.gpu.uuid.rfind("GPU-", 0), 0u) << record.gpu.uuid;
      EXPECT_FALSE(record.gpu.pci_bus_id.empty());
      EXPECT_FALSE(record.gpu.name.empty());
      uuids.insert(record.gpu.uuid);
      bus_ids.insert(record.gpu.pci_bus_id);
    }
    EXPECT_EQ(uuids.size(), devices.size());
    EXPECT_EQ(bus_ids.size(), devices.size());
  }
}

TEST(MultiDevice, TwoWorkersShareOneGpu) {
  const int count = visible_gpu_count();
  if (count < 1) GTEST_SKIP() << "needs a CUDA device";
  const Plan plan = gpu_plan();
  auto backends = make_all_backends();
  const std::vector<int> devices = {0, 0};
  const auto results = run_plan_on_devices(plan, backends, make_all_backends, quick_options(), devices, DeviceSchedule::concurrent);
  expect_every_case_ran_on(results, plan, devices);
}

}  // namespace
}  // namespace gpb
