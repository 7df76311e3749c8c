// The GPU roofline ceilings: measure_gpu_ceilings fills the theoretical peaks and a measured
// device-to-device copy bandwidth. Plain C++ through src/measure/context.hpp: no CUDA header here.
// Every test skips (not fails) without a CUDA device or in a build without CUDA.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "measure/context.hpp"

namespace gpb {
namespace {

// The GPU context of this machine, or the reason there is none to measure.
std::optional<std::string> no_gpu(Context& context) {
#if GPUBENCH_HAVE_CUDA
  append_gpu_context(context);
  if (!context.gpus.empty()) return std::nullopt;
  std::string reason = "no CUDA device";
  for (const auto& note : context.notes) reason += "; " + note;
  return reason;
#else
  static_cast<void>(context);
  return std::string("built without CUDA: the GPU ceilings are not compiled in");
#endif
}

#define SKIP_WITHOUT_GPU(context)                                              \
  do {                                                                         \
    if (const auto gpb_reason = no_gpu(context)) GTEST_SKIP() << *gpb_reason;  \
  } while (false)

TEST(GpuCeilings, MeasuresCopyBandwidthAndFillsPeaks) {
  Context context;
  SKIP_WITHOUT_GPU(context);
  measure_gpu_ceilings(context, 0);
  const GpuInfo& gpu = context.gpus[0];
  if (gpu.copy_gbps == 0) {  // too little free device memory for the two 1 GiB buffers
    ASSERT_FALSE(context.notes.empty()) << "no copy bandwidth and no note saying why";
    ASSERT_EQ(context.notes.back().rfind("GPU copy bandwidth not measured: ", 0), 0u) << context.notes.back();
    GTEST_SKIP() << context.notes.back();
  }
  // A device-to-device copy reaches a good part of DRAM bandwidth and never more than all of it.
  EXPECT_GT(gpu.copy_gbps, 0.2 * gpu.theoretical_bandwidth_gbps) << gpu.name;
  EXPECT_LT(gpu.copy_gbps, 1.05 * gpu.theoretical_bandwidth_gbps) << gpu.name;
  const bool known_architecture = gpu.compute_capability == "8.0" || gpu.compute_capability == "8.6" ||
                                  gpu.compute_capability == "8.9" || gpu.compute_capability == "9.0" ||
                                  gpu.compute_capability == "10.0";
  if (known_architecture) {
    EXPECT_GT(gpu.peak_fp32_gflops, 0) << gpu.compute_capability;
    EXPECT_GT(gpu.peak_fp64_gflops, 0) << gpu.compute_capability;
    EXPECT_GT(gpu.peak_tf32_gflops, gpu.peak_fp32_gflops) << gpu.compute_capability;
  }
}

TEST(GpuCeilings, UnknownOrdinalMeasuresNothing) {
  Context context;
  SKIP_WITHOUT_GPU(context);
  const auto notes = context.notes.size();
  measure_gpu_ceilings(context, 4096);
  for (const auto& gpu : context.gpus) EXPECT_EQ(gpu.copy_gbps, 0) << gpu.ordinal;
  EXPECT_EQ(context.notes.size(), notes);
}

}  // namespace
}  // namespace gpb
