// The GPU's roofline ceilings: its theoretical flop peaks, and the bandwidth of a
// device-to-device copy measured once per run, before any case and outside every timed one.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/context.hpp"
#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/device.cuh"
#include "gpu_backend/device_buffer.cuh"
#include "gpu_backend/event_timer.cuh"
#include "gpu_backend/stream.cuh"
#include "measure/roofline.hpp"
#include "model/statistics.hpp"

namespace gpb {
namespace {

// 1 GiB per buffer: far beyond any L2, so the copy streams through DRAM. Eleven copies
// take a few milliseconds on a data-centre GPU.
constexpr std::size_t kCopyElements = std::size_t{1} << 28;
constexpr int kCopySamples = 11;

}  // namespace

void measure_gpu_ceilings(Context& context, int device) {
  for (auto& gpu : context.gpus) set_theoretical_peaks(gpu);
  const auto gpu = std::find_if(context.gpus.begin(), context.gpus.end(), [&](const GpuInfo& info) { return info.ordinal == device; });
  if (gpu == context.gpus.end()) return;  // no such device: its cases fail and say why

  cuda::select_device(device);
  cuda::DeviceBuffer<float> source, destination;
  try {
    source = cuda::DeviceBuffer<float>(kCopyElements, "the copy-bandwidth source");
    destination = cuda::DeviceBuffer<float>(kCopyElements, "the copy-bandwidth destination");
  } catch (const std::runtime_error& error) {
    // A small or busy GPU still runs its cases; their memory-bound rows just show no percentage.
    context.notes.push_back(std::string("GPU copy bandwidth not measured: ") + error.what());
    return;
  }

  // A non-blocking stream of our own, so no other work on the legacy stream lands in a sample.
  const cuda::Stream stream;
  const auto copy = [&] {
    GPB_CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), source.bytes(), cudaMemcpyDeviceToDevice, stream.get()));
  };
  // Defined contents, then one untimed copy: the copy path's first-use costs stay out of the samples.
  GPB_CUDA_CHECK(cudaMemsetAsync(source.data(), 0, source.bytes(), stream.get()));
  copy();
  stream.synchronize();

  cuda::EventTimer timer(stream.get());
  std::vector<double> samples;
  for (int i = 0; i < kCopySamples; ++i) {
    timer.start();
    copy();
    timer.stop();
    samples.push_back(timer.elapsed_seconds());
  }
  // Bytes read + written, as the op table counts an op's traffic.
  gpu->copy_gbps = 2.0 * static_cast<double>(source.bytes()) / compute_statistics(samples).median / 1e9;
}

}  // namespace gpb
