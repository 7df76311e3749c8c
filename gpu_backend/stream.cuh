// Move-only owners of a CUDA stream and a CUDA event.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "gpu_backend/cuda_check.cuh"

namespace gpb::cuda {

// A non-blocking stream: work on it never waits for the legacy default stream, so other
// libraries' implicit default-stream work cannot leak into a case's timings.
class Stream {
 public:
  Stream() { GPB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) GPB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const { GPB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { GPB_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) GPB_CUDA_CHECK_NOTHROW(cudaEventDestroy(event_));
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { GPB_CUDA_CHECK(cudaEventRecord(event_, stream)); }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpb::cuda
