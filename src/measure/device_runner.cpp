#include "measure/device_runner.hpp"

#include <algorithm>
#include <map>
#include <thread>

namespace gpb {
namespace {

std::map<std::string, DeviceKind> device_kinds(const std::vector<std::unique_ptr<Backend>>& backends) {
  std::map<std::string, DeviceKind> kinds;
  for (const auto& backend : backends) kinds[backend->name()] = backend->kind();
  return kinds;
}

void record_device(std::vector<ResultRecord>& records, int device) {
  for (auto& record : records)
    if (record.device == DeviceKind::gpu) record.gpu.ordinal = device;
}

// The plan's cases of one device kind, in order, and where each sits in the whole plan.
struct SubPlan {
  Plan plan;
  std::vector<std::size_t> positions;
};

SubPlan cases_of_kind(const Plan& plan, const std::map<std::string, DeviceKind>& kinds, DeviceKind kind) {
  SubPlan sub;
  sub.plan.notes = plan.notes;
  sub.plan.thresholds = plan.thresholds;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    if (kinds.at(plan.cases[i].backend) != kind) continue;
    sub.plan.cases.push_back(plan.cases[i]);
    sub.positions.push_back(i);
  }
  return sub;
}

// One worker thread per device, each case started on all of them together.
std::vector<std::vector<ResultRecord>> run_concurrently(const Plan& plan, const BackendFactory& make_backends,
                                                        const RunnerOptions& options, const std::vector<int>& devices) {
  CaseBarrier barrier(devices.size(), options.hooks.before_case);
  SharedProblems problems;
  std::vector<std::vector<ResultRecord>> records(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    workers.emplace_back([&, i] {
      try {
        RunnerOptions worker = options;
        worker.device = devices[i];
        if (i != 0) worker.observer = nullptr;  // the workers move together: the first one tells the observer
        worker.hooks.before_case = [&barrier] { barrier.arrive_and_wait(); };
        worker.hooks.problem_source = [&problems](const CaseSpec& spec) { return problems.get(spec); };
        auto backends = make_backends();
        records[i] = run_plan(plan, backends, worker);
        barrier.leave();
      } catch (...) {
        errors[i] = std::current_exception();
        barrier.abandon();
      }
    });
  }
  for (auto& worker : workers) worker.join();
  // The failure that stopped the others, not the BarrierBroken it caused in them.
  std::exception_ptr first_broken;
  for (const auto& error : errors) {
    if (!error) continue;
    try {
      std::rethrow_exception(error);
    } catch (const BarrierBroken&) {
      if (!first_broken) first_broken = error;
    } catch (...) {
      throw;
    }
  }
  if (first_broken) std::rethrow_exception(first_broken);
  return records;
}

}  // namespace

std::string to_string(DeviceSchedule schedule) { return schedule == DeviceSchedule::concurrent ? "concurrent" : "serial"; }

CaseBarrier::CaseBarrier(std::size_t team, std::function<void()> on_release) : team_(team), on_release_(std::move(on_release)) {}

void CaseBarrier::arrive_and_wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (broken_) throw BarrierBroken("stopped: the worker of another GPU failed");
  if (++arrived_ == team_) {
    release(lock);
    return;
  }
  const std::size_t generation = generation_;
  released_.wait(lock, [&] { return generation_ != generation || broken_; });
  if (generation_ == generation) throw BarrierBroken("stopped: the worker of another GPU failed");
}

void CaseBarrier::leave() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (broken_ || team_ == 0) return;
  --team_;
  if (arrived_ > 0 && arrived_ == team_) release(lock);
}

void CaseBarrier::release(std::unique_lock<std::mutex>&) {
  try {
    if (on_release_) on_release_();
  } catch (...) {
    broken_ = true;
    released_.notify_all();
    throw;
  }
  arrived_ = 0;
  ++generation_;
  released_.notify_all();
}

void CaseBarrier::abandon() {
  std::lock_guard<std::mutex> lock(mutex_);
  broken_ = true;
  released_.notify_all();
}

std::shared_ptr<const Problem> SharedProblems::get(const CaseSpec& spec) {
  const std::string key = inputs_key(spec);
  std::unique_lock<std::mutex> lock(mutex_);
  if (key != key_) {
    key_ = key;
    ready_ = false;
    problem_.reset();
    error_ = nullptr;
    lock.unlock();  // build without holding the others up on the lock; they wait on built_
    std::shared_ptr<const Problem> problem;
    std::exception_ptr error;
    try {
      problem = std::make_shared<const Problem>(make_problem(spec.op, spec.dtype, spec.shape, spec.seed, spec.data));
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    problem_ = problem;
    error_ = error;
    ready_ = true;
    built_.notify_all();
    if (error) std::rethrow_exception(error);
    return problem;
  }
  built_.wait(lock, [&] { return ready_; });
  if (error_) std::rethrow_exception(error_);
  return problem_;
}

std::vector<ResultRecord> run_plan_on_devices(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends,
                                              const BackendFactory& make_backends, const RunnerOptions& options,
                                              const std::vector<int>& devices, DeviceSchedule schedule) {
  if (devices.size() == 1) {
    RunnerOptions single = options;
    single.device = devices.front();
    auto records = run_plan(plan, backends, single);
    record_device(records, devices.front());
    return records;
  }
  const auto kinds = device_kinds(backends);
  const SubPlan cpu = cases_of_kind(plan, kinds, DeviceKind::cpu);
  const SubPlan gpu = cases_of_kind(plan, kinds, DeviceKind::gpu);

  // CPU cases first, on their own: GPU workers' host threads would share the cores with them.
  std::vector<ResultRecord> cpu_records;
  if (!cpu.plan.cases.empty()) cpu_records = run_plan(cpu.plan, backends, options);

  std::vector<std::vector<ResultRecord>> gpu_records(devices.size());
  if (!gpu.plan.cases.empty()) {
    if (schedule == DeviceSchedule::concurrent) {
      gpu_records = run_concurrently(gpu.plan, make_backends, options, devices);
    } else {
      for (std::size_t i = 0; i < devices.size(); ++i) {
        RunnerOptions one = options;
        one.device = devices[i];
        gpu_records[i] = run_plan(gpu.plan, backends, one);
      }
    }
    for (std::size_t i = 0; i < devices.size(); ++i) record_device(gpu_records[i], devices[i]);
  }

  // Back into plan order: each GPU case once per device.
  std::vector<std::vector<ResultRecord>> by_position(plan.cases.size());
  for (std::size_t i = 0; i < cpu_records.size(); ++i) by_position[cpu.positions[i]].push_back(std::move(cpu_records[i]));
  for (auto& records : gpu_records)
    for (std::size_t i = 0; i < records.size(); ++i) by_position[gpu.positions[i]].push_back(std::move(records[i]));
  std::vector<ResultRecord> results;
  for (auto& records : by_position)
    for (auto& record : records) results.push_back(std::move(record));
  return results;
}

std::size_t planned_records(const Plan& plan, const std::vector<std::unique_ptr<Backend>>& backends,
                            const std::vector<int>& devices) {
  const auto kinds = device_kinds(backends);
  std::size_t records = 0;
  for (const auto& spec : plan.cases) records += kinds.at(spec.backend) == DeviceKind::gpu ? devices.size() : 1;
  return records;
}

void identify_gpus(const Context& context, std::vector<ResultRecord>& results) {
  for (auto& record : results) {
    if (!record.gpu.recorded()) continue;
    const auto gpu = std::find_if(context.gpus.begin(), context.gpus.end(),
                                  [&](const GpuInfo& info) { return info.ordinal == record.gpu.ordinal; });
    if (gpu == context.gpus.end()) continue;  // no such device: its cases failed and say why
    record.gpu.name = gpu->name;
    record.gpu.uuid = gpu->uuid;
    record.gpu.pci_bus_id = gpu->pci_bus_id;
  }
}

}  // namespace gpb
