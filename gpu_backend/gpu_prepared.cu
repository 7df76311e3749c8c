#include "gpu_backend/gpu_prepared.cuh"

#include <cstring>
#include <limits>
#include <stdexcept>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_graph.cuh"
#include "gpu_backend/event_timer.cuh"
#include "gpu_backend/gpu_telemetry.cuh"
#include "model/op_table.hpp"

namespace gpb::cuda {
namespace {

DeviceLimits select_device_limits(int ordinal) {
  select_device(ordinal);
  return device_limits(ordinal);
}

StagedInput stage_if_present(const void* host, std::size_t bytes, const std::string& what) {
  return bytes == 0 ? StagedInput{} : StagedInput(host, bytes, what);
}

template <class V>
std::size_t vector_bytes(const V& values) {
  return values.size() * sizeof(typename V::value_type);
}

}  // namespace

MatmulDimensions matmul_dimensions(const Shape& shape) {
  const auto fitting = [](std::int64_t value, const char* what) {
    if (value < 0 || value > std::numeric_limits<int>::max())
      throw std::runtime_error(std::string("matmul ") + what + " = " + std::to_string(value) +
                               " does not fit a 32-bit int");
    return static_cast<int>(value);
  };
  return {fitting(shape.m, "m"), fitting(shape.n, "n"), fitting(shape.k, "k")};
}

StagedInput::StagedInput(const void* host, std::size_t bytes, const std::string& what)
    : pinned_(bytes, what + " (pinned staging)"), device_(bytes, what) {
  std::memcpy(pinned_.data(), host, bytes);
}

void StagedInput::upload(cudaStream_t stream) {
  if (device_.size() != 0)
    GPB_CUDA_CHECK(cudaMemcpyAsync(device_.data(), pinned_.data(), device_.bytes(), cudaMemcpyHostToDevice, stream));
}

GpuPrepared::GpuPrepared(const Problem& problem, const BackendSettings& settings)
    : limits_(select_device_limits(settings.device)),
      output_dtype_(op_output_dtype(problem.op, problem.dtype)),
      output_size_(static_cast<std::size_t>(op_output_size(problem.op, problem.shape))),
      l2_flusher_(limits_.l2_bytes, limits_.sm_count) {
  const std::string op = to_string(problem.op);
  x_ = stage_if_present(problem.x.raw(), problem.x.bytes(), op + " input x");
  a_ = stage_if_present(problem.a.raw(), problem.a.bytes(), op + " input A");
  b_ = stage_if_present(problem.b.raw(), problem.b.bytes(), op + " input B");
  csr_values_ = stage_if_present(problem.csr_values.raw(), problem.csr_values.bytes(), op + " matrix values");
  if (problem.csr) {
    row_ptr_ = stage_if_present(problem.csr->row_ptr.data(), vector_bytes(problem.csr->row_ptr), op + " row pointers");
    col_idx_ = stage_if_present(problem.csr->col_idx.data(), vector_bytes(problem.csr->col_idx), op + " column indices");
  }
  const std::size_t output_bytes = checked_bytes(output_size_, dtype_size(output_dtype_), op + " output");
  output_ = DeviceBuffer<unsigned char>(output_bytes, op + " output");
  output_staging_ = PinnedBuffer<unsigned char>(output_bytes, op + " output (pinned staging)");

  upload();
  if (output_bytes != 0) GPB_CUDA_CHECK(cudaMemsetAsync(output_.data(), 0xFF, output_bytes, stream()));
  stream_.synchronize();
}

void GpuPrepared::upload() {
  for (StagedInput* input : {&x_, &a_, &b_, &csr_values_, &row_ptr_, &col_idx_}) input->upload(stream());
}

void GpuPrepared::download() {
  if (output_.size() != 0)
    GPB_CUDA_CHECK(cudaMemcpyAsync(output_staging_.data(), output_.data(), output_.bytes(), cudaMemcpyDeviceToHost,
                                   stream()));
}

void GpuPrepared::flush_cache() { l2_flusher_.flush(stream()); }

std::unique_ptr<TelemetrySource> GpuPrepared::telemetry_source() { return make_nvml_telemetry_source(limits_.ordinal); }

EnergySource GpuPrepared::energy_source() { return make_nvml_energy_source(limits_.ordinal); }

void GpuPrepared::synchronize() { stream_.synchronize(); }

GraphCapture GpuPrepared::capture_graph(std::int64_t launches, bool evictions, bool op) {
  if (evictions) {
    // The flush buffer is allocated on the first flush: never inside a capture.
    l2_flusher_.flush(stream());
    stream_.synchronize();
  }
  return capture_launches(stream(), launches, [&] {
    if (evictions) l2_flusher_.flush(stream());
    if (op) run();
  });
}

std::unique_ptr<SampleTimer> GpuPrepared::make_timer() { return std::make_unique<EventTimer>(stream()); }

HostArray GpuPrepared::result() {
  download();
  stream_.synchronize();
  HostArray output(output_dtype_, output_size_);
  if (output.bytes() != 0) std::memcpy(output.raw(), output_staging_.data(), output.bytes());
  return output;
}

}  // namespace gpb::cuda
