// The part every GPU case shares: the device, its own stream, the device copies of the
// problem's inputs with their pinned staging copies, the output, the L2 flusher, and the
// timer, transfer, synchronize and result plumbing. A backend's case derives from it,
// adds its handles and workspace in its constructor (prepare, untimed) and implements run().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "measure/backend.hpp"
#include "gpu_backend/device.cuh"
#include "gpu_backend/device_buffer.cuh"
#include "gpu_backend/l2_flusher.cuh"
#include "gpu_backend/stream.cuh"

namespace gpb::cuda {

// One host input as the case moves it: a pinned copy (the source of the timed H2D copy,
// filled once, untimed) and the device copy.
class StagedInput {
 public:
  StagedInput() = default;
  StagedInput(const void* host, std::size_t bytes, const std::string& what);
  void upload(cudaStream_t stream);
  const void* device() const { return device_.data(); }

 private:
  PinnedBuffer<unsigned char> pinned_;
  DeviceBuffer<unsigned char> device_;
};

// A matmul's m, n and k as the ints that kernels and BLAS-style interfaces take; throws when
// one does not fit (make_problem refuses such shapes, hand-built problems may not).
struct MatmulDimensions {
  int m = 0;
  int n = 0;
  int k = 0;
};
MatmulDimensions matmul_dimensions(const Shape& shape);

class GpuPrepared : public Prepared {
 public:
  bool has_transfers() const final { return true; }
  void upload() final;
  void download() final;
  void flush_cache() final;
  bool has_cache_flush() const final { return true; }
  std::unique_ptr<TelemetrySource> telemetry_source() final;
  EnergySource energy_source() final;
  void synchronize() final;
  // Captures on the case's stream; every backend's run() only enqueues on it (handles,
  // workspace and temporary storage are made in prepare), so every GPU case can be captured.
  GraphCapture capture_graph(std::int64_t launches, bool evictions, bool op) final;
  std::unique_ptr<SampleTimer> make_timer() final;
  HostArray result() final;

 protected:
  // Selects settings.device, creates the stream, uploads the inputs once and poisons the
  // output with 0xFF bytes (NaN in every dtype), so entries a kernel never writes fail
  // verification instead of passing as leftovers. The output is in the op's output dtype
  // (op_output_dtype: the accumulation type for sum).
  GpuPrepared(const Problem& problem, const BackendSettings& settings);

  cudaStream_t stream() const { return stream_.get(); }
  const DeviceLimits& limits() const { return limits_; }

  template <class T>
  const T* device_x() const { return static_cast<const T*>(x_.device()); }
  template <class T>
  const T* device_a() const { return static_cast<const T*>(a_.device()); }
  template <class T>
  const T* device_b() const { return static_cast<const T*>(b_.device()); }
  template <class T>
  const T* device_csr_values() const { return static_cast<const T*>(csr_values_.device()); }
  const std::int32_t* device_row_ptr() const { return static_cast<const std::int32_t*>(row_ptr_.device()); }
  const std::int32_t* device_col_idx() const { return static_cast<const std::int32_t*>(col_idx_.device()); }
  template <class T>
  T* device_output() { return static_cast<T*>(static_cast<void*>(output_.data())); }

 private:
  DeviceLimits limits_;  // first member: selecting the device precedes every allocation
  Stream stream_;
  DType output_dtype_;
  std::size_t output_size_;
  StagedInput x_, a_, b_, csr_values_, row_ptr_, col_idx_;
  DeviceBuffer<unsigned char> output_;
  PinnedBuffer<unsigned char> output_staging_;
  L2Flusher l2_flusher_;
};

}  // namespace gpb::cuda
