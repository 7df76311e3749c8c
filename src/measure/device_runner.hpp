// One plan on several GPUs of this host (--device all, --device 0,2,3). Each GPU gets a
// worker that drives the ordinary runner with its own backends and device ordinal; the
// runner does not know it is one of many. What a CUDA process holds per host thread (the
// current device) or per device (contexts, streams, handles, the L2 flusher's buffer) is
// created inside each case's prepare, on the worker's thread, so nothing is shared between
// GPUs but the host inputs, which are read-only.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/runner.hpp"
#include "model/result.hpp"

namespace gpb {

enum class DeviceSchedule { concurrent, serial };
std::string to_string(DeviceSchedule schedule);  // "concurrent", "serial"

// Thrown by CaseBarrier to the waiting workers when another member failed.
struct BarrierBroken : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A reusable barrier for a team of threads (C++17 has no std::barrier). The last member
// to arrive (or to leave) runs `on_release` before anyone goes on, so a team can start each
// case together with other processes too (an MPI barrier there). A member that has run out
// of cases (an interrupt stops the workers at slightly different cases) leaves the team; one
// that fails calls abandon(): every wait then throws BarrierBroken instead of waiting forever.
class CaseBarrier {
 public:
  CaseBarrier(std::size_t team, std::function<void()> on_release);
  void arrive_and_wait();
  void leave();
  void abandon();

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  std::size_t team_;
  std::size_t arrived_ = 0;
  std::size_t generation_ = 0;
  bool broken_ = false;
  std::function<void()> on_release_;

  void release(std::unique_lock<std::mutex>& lock);
};

// The inputs of the case the workers are on, built by the first worker that asks and
// shared by all (they are read-only). The workers move from case to case together, so one
// entry suffices; the previous case's inputs live until its last worker lets them go.
class SharedProblems {
 public:
  std::shared_ptr<const Problem> get(const CaseSpec& spec);

 private:
  std::mutex mutex_;
  std::condition_variable built_;
  std::string key_;
  bool ready_ = false;
  std::shared_ptr<const Problem> problem_;
  std::exception_ptr error_;
};

using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>()>;

// Runs the plan's CPU cases once, on this thread with `backends`, and its GPU cases on each
// of `devices`: concurrently (one worker thread per device with backends from
// make_backends, every case started on all devices together) or serially (each device's
// pass over the GPU cases after the previous one's). With one device it is run_plan over
// the whole plan. Records come in plan order, a GPU case's once per device in the order of
// `devices`, with gpu.ordinal set. options.hooks.before_case still runs once per case start
// (concurrent: once for all devices; serial: once per device). A worker's exception stops
// the others and is rethrown here.
std::vector<ResultRecord> run_plan_on_devices(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends,
                                              const BackendFactory& make_backends, const RunnerOptions& options,
                                              const std::vector<int>& devices, DeviceSchedule schedule);

// How many records a whole run of the plan on `devices` gives (each GPU case once per device).
std::size_t planned_records(const Plan& plan, const std::vector<std::unique_ptr<Backend>>& backends,
                            const std::vector<int>& devices);

// Fills each GPU record's name, UUID and PCI bus id from the context's GPU of its ordinal.
void identify_gpus(const Context& context, std::vector<ResultRecord>& results);

}  // namespace gpb
