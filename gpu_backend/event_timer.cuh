// SampleTimer for GPU cases: a start/stop CUDA event pair recorded on the case's stream,
// so a sample covers exactly the device work enqueued between start() and stop().
#pragma once

#include <string>

#include "measure/backend.hpp"
#include "gpu_backend/stream.cuh"

namespace gpb::cuda {

class EventTimer final : public SampleTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {}
  void start() override { start_.record(stream_); }
  void stop() override { stop_.record(stream_); }
  double elapsed_seconds() override;
  std::string name() const override { return "cuda_event"; }
  // cudaEventElapsedTime's documented resolution: "around 0.5 microseconds".
  double resolution_s() const override { return 0.5e-6; }

 private:
  cudaStream_t stream_;
  Event start_;
  Event stop_;
};

}  // namespace gpb::cuda
