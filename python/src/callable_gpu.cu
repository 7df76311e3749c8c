// A callable's GPU timing: the pieces every GPU case uses (gpu_backend/), on the stream the
// caller's library enqueues on (CuPy's or PyTorch's current stream) instead of a stream of
// the case's own: CUDA events around the calls, the same L2 flusher before each cold
// sample, the device's NVML sensors.
#include <cuda_runtime_api.h>

#include "callable_case.hpp"
#include "gpu_backend/cuda_graph.cuh"
#include "gpu_backend/device.cuh"
#include "gpu_backend/event_timer.cuh"
#include "gpu_backend/gpu_telemetry.cuh"
#include "gpu_backend/l2_flusher.cuh"
#include "kernels/launch_check.cuh"

namespace gpb::python {
namespace {

class StreamTiming final : public GpuTiming {
 public:
  StreamTiming(cudaStream_t stream, const cuda::DeviceLimits& limits)
      : stream_(stream), ordinal_(limits.ordinal), flusher_(limits.l2_bytes, limits.sm_count) {}
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<cuda::EventTimer>(stream_); }
  void flush_cache() override { flusher_.flush(stream_); }
  std::unique_ptr<TelemetrySource> telemetry_source() override { return cuda::make_nvml_telemetry_source(ordinal_); }
  EnergySource energy_source() override { return cuda::make_nvml_energy_source(ordinal_); }
  void synchronize() override { GPB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  GraphCapture capture(std::int64_t launches, bool evictions, bool op, const std::function<void()>& call) override {
    if (stream_ == nullptr || stream_ == cudaStreamLegacy || stream_ == cudaStreamPerThread)
      return {nullptr,
              "the function's stream is the default stream, which cannot be captured into a CUDA graph: pass a "
              "stream of its own (gpubench.benchmark does for CuPy and PyTorch unless stream= is given)"};
    // Outside the capture first: the flush buffer, and what the caller's library allocates on a
    // first call (CuPy's and PyTorch's memory pools keep the blocks a call frees), so that the
    // captured calls find them there: an allocation inside the capture would end it.
    if (evictions) flusher_.flush(stream_);
    if (op) call();
    synchronize();
    return cuda::capture_launches(stream_, launches, [&] {
      if (evictions) flusher_.flush(stream_);
      if (op) call();
    });
  }

 private:
  cudaStream_t stream_;
  int ordinal_;
  cuda::L2Flusher flusher_;
};

}  // namespace

std::unique_ptr<GpuTiming> make_gpu_timing(const CallableTarget& target) {
  const Availability availability = cuda::device_availability();
  if (!availability.available) throw std::runtime_error("cannot time on the GPU: " + availability.reason);
  cuda::select_device(target.ordinal);
  return std::make_unique<StreamTiming>(reinterpret_cast<cudaStream_t>(target.stream), cuda::device_limits(target.ordinal));
}

}  // namespace gpb::python
