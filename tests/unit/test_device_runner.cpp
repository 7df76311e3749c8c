// One plan on several GPUs, against stand-in backends that record where and when each case
// was prepared: every device runs every GPU case, concurrently (all devices inside a case
// at once, cases in lockstep) or serially; CPU cases run once; a failure stops the workers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "measure/device_runner.hpp"
#include "model/problem.hpp"

namespace gpb {
namespace {

// What the stand-in backends saw, shared by every worker.
struct Journal {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::pair<std::string, int>> prepared;  // (case id, device; -1 for the CPU backend)
  std::map<std::string, int> inside;                  // workers inside each case's prepare
  std::map<std::string, std::thread::id> cpu_threads;
  bool await_all_devices = false;  // prepare waits until every device is inside the same case
  std::size_t devices = 0;
  bool all_met = true;

  void enter(const std::string& id, int device) {
    std::unique_lock<std::mutex> lock(mutex);
    prepared.emplace_back(id, device);
    if (device < 0) {
      cpu_threads[id] = std::this_thread::get_id();
      return;
    }
    ++inside[id];
    changed.notify_all();
    if (await_all_devices &&
        !changed.wait_for(lock, std::chrono::seconds(20), [&] { return static_cast<std::size_t>(inside[id]) == devices; }))
      all_met = false;
  }
};

class FixedTimer final : public SampleTimer {
 public:
  void start() override {}
  void stop() override {}
  double elapsed_seconds() override { return 1e-3; }
  std::string name() const override { return "fixed"; }
};

class SqrtPrepared final : public Prepared {
 public:
  explicit SqrtPrepared(const Problem& problem) : problem_(problem) {}
  void run() override {}
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<FixedTimer>(); }
  HostArray result() override {
    std::vector<float> out(problem_.x.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(std::sqrt(problem_.x.at(i)));
    return HostArray(std::move(out));
  }

 private:
  const Problem& problem_;
};

class JournalBackend final : public Backend {
 public:
  JournalBackend(Journal& journal, DeviceKind kind, std::string suffix = "")
      : journal_(journal), kind_(kind), suffix_(std::move(suffix)) {}
  std::string name() const override { return (kind_ == DeviceKind::gpu ? "fakegpu" : "fakecpu") + suffix_; }
  std::string description() const override { return "test double"; }
  DeviceKind kind() const override { return kind_; }
  Availability availability() const override { return {}; }
  Support supports(Op, DType) const override { return {}; }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    CaseSpec spec;
    spec.op = problem.op;
    spec.backend = name();
    spec.shape = problem.shape;
    journal_.enter(spec.id(), kind_ == DeviceKind::gpu ? settings.device : -1);
    return std::make_unique<SqrtPrepared>(problem);
  }

 private:
  Journal& journal_;
  DeviceKind kind_;
  std::string suffix_;
};

struct DeviceRunnerTest : ::testing::Test {
  Journal journal;
  std::vector<std::unique_ptr<Backend>> backends;
  BackendFactory factory;
  RunnerOptions options;
  Plan plan;

  void SetUp() override {
    factory = [this] {
      std::vector<std::unique_ptr<Backend>> made;
      made.push_back(std::make_unique<JournalBackend>(journal, DeviceKind::cpu));
      made.push_back(std::make_unique<JournalBackend>(journal, DeviceKind::gpu));
      return made;
    };
    backends = factory();
    options.warmup = 1;
    options.stopping.min_samples = 3;
    options.stopping.min_time_s = 0;
    options.stopping.max_time_s = 1;
    for (std::int64_t n : {100, 200, 300})
      for (const char* backend : {"fakecpu", "fakegpu"}) {
        CaseSpec spec;
        spec.op = Op::sqrt;
        spec.backend = backend;
        spec.shape = elementwise_shape(n);
        plan.cases.push_back(spec);
      }
  }
};

TEST_F(DeviceRunnerTest, ConcurrentWorkersRunEachCaseOnEveryDeviceTogether) {
  const std::vector<int> devices = {0, 2, 3};
  journal.await_all_devices = true;
  journal.devices = devices.size();
  int case_starts = 0;
  options.hooks.before_case = [&] { ++case_starts; };
  const auto results = run_plan_on_devices(plan, backends, factory, options, devices, DeviceSchedule::concurrent);

  EXPECT_TRUE(journal.all_met) << "a device worker waited in vain for the others inside a case";
  // Plan order; each GPU case once per device, in the order of `devices`.
  ASSERT_EQ(results.size(), 3u + 3u * devices.size());
  std::size_t index = 0;
  for (std::int64_t n : {100, 200, 300}) {
    EXPECT_EQ(results[index].spec.backend, "fakecpu");
    EXPECT_EQ(results[index].spec.shape.n, n);
    EXPECT_FALSE(results[index].gpu.recorded());
    ++index;
    for (int device : devices) {
      EXPECT_EQ(results[index].spec.backend, "fakegpu");
      EXPECT_EQ(results[index].spec.shape.n, n);
      EXPECT_EQ(results[index].gpu.ordinal, device);
      EXPECT_EQ(results[index].status, Status::ok) << results[index].reason;
      ++index;
    }
  }
  // The workers move in lockstep: every device finishes a case before any starts the next.
  std::vector<std::string> gpu_order;
  for (const auto& [id, device] : journal.prepared)
    if (device >= 0) gpu_order.push_back(id);
  for (std::size_t i = 0; i < gpu_order.size(); ++i) EXPECT_EQ(gpu_order[i], gpu_order[i / devices.size() * devices.size()]);
  // CPU cases ran once each, on the calling thread; the outer hook ran once per case start.
  EXPECT_EQ(journal.cpu_threads.size(), 3u);
  for (const auto& [id, thread] : journal.cpu_threads) EXPECT_EQ(thread, std::this_thread::get_id()) << id;
  EXPECT_EQ(case_starts, 3 + 3);
}

TEST_F(DeviceRunnerTest, SerialRunsOneDeviceAfterTheOther) {
  const std::vector<int> devices = {1, 0};
  int case_starts = 0;
  options.hooks.before_case = [&] { ++case_starts; };
  const auto results = run_plan_on_devices(plan, backends, factory, options, devices, DeviceSchedule::serial);
  ASSERT_EQ(results.size(), 9u);
  EXPECT_EQ(results[1].gpu.ordinal, 1);
  EXPECT_EQ(results[2].gpu.ordinal, 0);
  std::vector<int> gpu_devices;
  for (const auto& [id, device] : journal.prepared)
    if (device >= 0) gpu_devices.push_back(device);
  EXPECT_EQ(gpu_devices, (std::vector<int>{1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(case_starts, 3 + 3 * 2);
}

TEST_F(DeviceRunnerTest, OneDeviceIsThePlainRunner) {
  const auto results = run_plan_on_devices(plan, backends, factory, options, {2}, DeviceSchedule::concurrent);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_FALSE(results[0].gpu.recorded());
  EXPECT_EQ(results[1].gpu.ordinal, 2);
  // The plan's own order: CPU and GPU cases interleaved as planned.
  std::vector<int> devices;
  for (const auto& [id, device] : journal.prepared) devices.push_back(device);
  EXPECT_EQ(devices, (std::vector<int>{-1, 2, -1, 2, -1, 2}));
}

TEST_F(DeviceRunnerTest, AFailingWorkerStopsTheOthersAndItsErrorSurfaces) {
  std::atomic<int> starts{0};
  options.hooks.before_case = [&] {
    if (++starts == 5) throw std::runtime_error("MPI_Barrier failed: connection lost");
  };
  try {
    run_plan_on_devices(plan, backends, factory, options, {0, 1, 2, 3}, DeviceSchedule::concurrent);
    FAIL() << "expected the hook's error";
  } catch (const BarrierBroken&) {
    FAIL() << "the error that stopped the workers should surface, not the barrier's";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "MPI_Barrier failed: connection lost");
  }
}

// Each GPU has its own context, modules and handles: the first case of a backend on each
// device pays that backend's first use there, and is marked so; a CPU backend's only once.
void expect_first_of_backend_per_device(DeviceSchedule schedule, const std::string& suffix) {
  Journal journal;
  const BackendFactory factory = [&] {
    std::vector<std::unique_ptr<Backend>> made;
    // Names no other test uses: the process has run no case of them yet.
    made.push_back(std::make_unique<JournalBackend>(journal, DeviceKind::cpu, suffix));
    made.push_back(std::make_unique<JournalBackend>(journal, DeviceKind::gpu, suffix));
    return made;
  };
  auto backends = factory();
  RunnerOptions options;
  options.warmup = 1;
  options.stopping.min_samples = 3;
  options.stopping.min_time_s = 0;
  options.stopping.max_time_s = 1;
  Plan plan;
  for (std::int64_t n : {100, 200, 300})
    for (const std::string backend : {"fakecpu", "fakegpu"}) {
      CaseSpec spec;
      spec.op = Op::sqrt;
      spec.backend = backend + suffix;
      spec.shape = elementwise_shape(n);
      plan.cases.push_back(spec);
    }
  const std::vector<int> devices = {0, 1, 3};
  const auto results = run_plan_on_devices(plan, backends, factory, options, devices, schedule);
  ASSERT_EQ(results.size(), 3u + 3u * devices.size());
  std::map<int, int> firsts_per_device;
  int cpu_firsts = 0;
  for (const ResultRecord& record : results) {
    ASSERT_EQ(record.status, Status::ok) << record.reason;
    ASSERT_TRUE(record.first_call) << record.spec.id();
    const bool first = record.first_call->first_of_backend;
    if (record.device == DeviceKind::cpu) {
      cpu_firsts += first;
      EXPECT_EQ(first, record.spec.shape.n == 100) << record.spec.id();
    } else {
      firsts_per_device[record.gpu.ordinal] += first;
      EXPECT_EQ(first, record.spec.shape.n == 100) << record.spec.id() << " on GPU " << record.gpu.ordinal;
    }
  }
  EXPECT_EQ(cpu_firsts, 1);
  EXPECT_EQ(firsts_per_device, (std::map<int, int>{{0, 1}, {1, 1}, {3, 1}}));
}

TEST(FirstUsePerDevice, ConcurrentWorkersMarkTheFirstCaseOfABackendOnEachDevice) {
  expect_first_of_backend_per_device(DeviceSchedule::concurrent, "-first-concurrent");
}

TEST(FirstUsePerDevice, SerialDevicesMarkTheFirstCaseOfABackendOnEachDevice) {
  expect_first_of_backend_per_device(DeviceSchedule::serial, "-first-serial");
}

TEST(CaseBarrierTest, AbandonReleasesWaitersWithBarrierBroken) {
  CaseBarrier barrier(2, nullptr);
  std::atomic<bool> broken{false};
  std::thread waiter([&] {
    try {
      barrier.arrive_and_wait();
    } catch (const BarrierBroken&) {
      broken = true;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  barrier.abandon();
  waiter.join();
  EXPECT_TRUE(broken);
  EXPECT_THROW(barrier.arrive_and_wait(), BarrierBroken);
}

TEST(CaseBarrierTest, AMemberThatRunsOutOfCasesReleasesTheOthers) {
  // An interrupt stops the workers at slightly different cases: one that stopped leaves,
  // and the ones already waiting for it go on, whenever it leaves.
  int releases = 0;
  CaseBarrier barrier(3, [&] { ++releases; });
  std::thread first([&] { barrier.arrive_and_wait(); });
  std::thread second([&] { barrier.arrive_and_wait(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  barrier.leave();
  first.join();
  second.join();
  EXPECT_EQ(releases, 1);
  std::thread third([&] { barrier.arrive_and_wait(); });  // a team of two now
  barrier.arrive_and_wait();
  third.join();
  EXPECT_EQ(releases, 2);
}

TEST(SharedProblemsTest, WorkersShareOneProblemPerCase) {
  SharedProblems problems;
  CaseSpec spec;
  spec.op = Op::sqrt;
  spec.shape = elementwise_shape(1000);
  std::shared_ptr<const Problem> seen[4];
  std::vector<std::thread> workers;
  for (auto& slot : seen) workers.emplace_back([&] { slot = problems.get(spec); });
  for (auto& worker : workers) worker.join();
  for (const auto& problem : seen) EXPECT_EQ(problem.get(), seen[0].get());
  spec.shape = elementwise_shape(2000);
  const auto next = problems.get(spec);
  EXPECT_NE(next.get(), seen[0].get());
  EXPECT_EQ(next->x.size(), 2000u);
}

}  // namespace
}  // namespace gpb
