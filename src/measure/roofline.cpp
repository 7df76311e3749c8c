#include "measure/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/op_table.hpp"

namespace gpb {
namespace {

// Flops per clock per SM (an FMA counts 2), dense, as the CUDA programming guide's
// throughput table and the architecture whitepapers give them. fp16 is the dense FP16 and
// BF16 tensor-core rate with FP32 accumulation (the two are equal on every row), from the
// datasheets' dense figures (their headline figures assume 2:4 sparsity, twice these):
// A100 SXM 312 TFLOPS at 108 SMs x 1410 MHz = 2048 per SM per clock (NVIDIA A100 Tensor
// Core GPU datasheet); H100 SXM 989.4 TFLOPS at 132 SMs x 1830 MHz = 4096 (NVIDIA H100
// Tensor Core GPU datasheet: 1,979 TFLOPS with sparsity); H200 SXM the same GH100 SMs and
// figure (NVIDIA H200 datasheet).
struct FlopsPerClock {
  const char* compute_capability;
  double fp32, fp64, tf32, fp16;
};

constexpr FlopsPerClock kFlopsPerClock[] = {
    // A100: 64 FP32 cores; FP64 on the tensor cores (DMMA), which cuBLAS DGEMM uses.
    {"8.0", 128, 128, 1024, 2048},
    // GA10x/AD10x: 128 FP32 cores, FP64 at 1/64 rate; TF32 and FP16 are the professional
    // parts' rates (GeForce runs them at half with FP32 accumulation), so they stay upper bounds.
    {"8.6", 256, 4, 512, 1024},
    {"8.9", 256, 4, 512, 1024},
    // H100/H200: 128 FP32 cores; 256 FP64 flops per clock from Hopper's FP64 tensor cores
    // (the FP64 CUDA cores give half that), which cuBLAS DGEMM uses.
    {"9.0", 256, 256, 2048, 4096},
    // B200: taken as Hopper's until per-SM figures are confirmed.
    {"10.0", 256, 256, 2048, 4096},
};

// Which of GpuInfo's theoretical peaks a compute-bound case of each dtype is held to.
struct ComputePeak {
  DType dtype;
  const char* name;
  double GpuInfo::*gflops;
};

constexpr ComputePeak kComputePeaks[] = {
    {DType::f32, "FP32 peak", &GpuInfo::peak_fp32_gflops},
    {DType::f64, "FP64 peak", &GpuInfo::peak_fp64_gflops},
    {DType::f16, "FP16 tensor peak", &GpuInfo::peak_fp16_gflops},
    {DType::bf16, "BF16 tensor peak", &GpuInfo::peak_fp16_gflops},
};
// Cases that ran with --tf32 (tf32_eligible dtypes only).
constexpr ComputePeak kTf32Peak = {DType::f32, "TF32 peak", &GpuInfo::peak_tf32_gflops};

const ComputePeak* find_peak(DType dtype) {
  const auto found = std::find_if(std::begin(kComputePeaks), std::end(kComputePeaks),
                                  [dtype](const ComputePeak& peak) { return peak.dtype == dtype; });
  return found == std::end(kComputePeaks) ? nullptr : found;
}

constexpr const char* kL2Resident = "L2-resident";

double ratio(double achieved, double ceiling) { return ceiling > 0 ? achieved / ceiling : 0; }

const GpuInfo* find_gpu(const Context& context, int device) {
  const auto found = std::find_if(context.gpus.begin(), context.gpus.end(), [&](const GpuInfo& gpu) { return gpu.ordinal == device; });
  return found == context.gpus.end() ? nullptr : &*found;
}

// Memory-bound where the record's bytes at the GPU's measured copy bandwidth take longer than
// its flops at its dtype's peak; the op's bound on a CPU, or where flops, bytes or a ceiling
// are unknown.
Bound bound_of(const ResultRecord& record, const GpuInfo* gpu, const ComputePeak* peak) {
  const double peak_gflops = gpu && peak ? gpu->*peak->gflops : 0;
  if (record.flops > 0 && record.bytes > 0 && peak_gflops > 0 && gpu->copy_gbps > 0)
    return record.flops / record.bytes < peak_gflops / gpu->copy_gbps ? Bound::memory : Bound::compute;
  return op_bound(record.spec.op, record.spec.shape);
}

}  // namespace

void set_theoretical_peaks(GpuInfo& gpu) {
  const auto found = std::find_if(std::begin(kFlopsPerClock), std::end(kFlopsPerClock),
                                  [&](const FlopsPerClock& entry) { return gpu.compute_capability == entry.compute_capability; });
  // SM clock cycles per second, in units of 1e9, so that x flops per clock gives GFLOP/s.
  const double sm_gigacycles = gpu.sm_count * gpu.sm_clock_mhz / 1e3;
  const bool known = found != std::end(kFlopsPerClock);
  gpu.peak_fp32_gflops = known ? sm_gigacycles * found->fp32 : 0;
  gpu.peak_fp64_gflops = known ? sm_gigacycles * found->fp64 : 0;
  gpu.peak_tf32_gflops = known ? sm_gigacycles * found->tf32 : 0;
  gpu.peak_fp16_gflops = known ? sm_gigacycles * found->fp16 : 0;
}

Roofline roofline_of(const ResultRecord& record, const Context& context, int device) {
  Roofline roofline;
  if (record.stats.count == 0) return roofline;
  const bool gpu_record = record.device == DeviceKind::gpu;
  // A record that names its GPU is held to that GPU's ceilings (runs over several GPUs).
  const GpuInfo* gpu = gpu_record ? find_gpu(context, record.gpu.recorded() ? record.gpu.ordinal : device) : nullptr;
  const DType dtype = record.spec.dtype;
  const ComputePeak* peak = record.spec.tf32 && dtype_info(dtype).tf32_eligible ? &kTf32Peak : find_peak(dtype);
  const Bound bound = bound_of(record, gpu, peak);
  const bool memory_bound = bound == Bound::memory;
  roofline.bound = bound;
  if (record.spec.timing == TimingMode::e2e) return roofline;
  if (gpu_record && !gpu) return roofline;

  if (memory_bound && gpu && record.spec.l2 == L2Mode::warm && gpu->l2_mib > 0 &&
      record.bytes <= gpu->l2_mib * 1024 * 1024) {
    roofline.l2_resident = true;
    roofline.ceiling_name = kL2Resident;
    return roofline;
  }
  if (memory_bound) {
    roofline.ceiling_name = "measured copy";
    roofline.ceiling = gpu ? gpu->copy_gbps : context.cpu_copy_gbps;
    roofline.theoretical_ceiling = gpu ? gpu->theoretical_bandwidth_gbps : 0;
    roofline.fraction = ratio(record.gbps, roofline.ceiling);
    roofline.theoretical_fraction = ratio(record.gbps, roofline.theoretical_ceiling);
    return roofline;
  }
  if (!gpu) return roofline;  // no theoretical peak is known for a host CPU
  if (!peak) return roofline;
  roofline.ceiling_name = peak->name;
  roofline.ceiling = gpu->*peak->gflops;
  roofline.theoretical_ceiling = roofline.ceiling;
  roofline.fraction = roofline.theoretical_fraction = ratio(record.gflops, roofline.ceiling);
  // The peak at the clock the case held: the peak scales with the SM clock.
  const double held = record.telemetry ? record.telemetry->sm_clock_median_mhz : 0;
  if (roofline.ceiling > 0 && gpu->sm_clock_mhz > 0 && std::isfinite(held) && held > 0) {
    roofline.held_sm_clock_mhz = held;
    roofline.peak_sm_clock_mhz = gpu->sm_clock_mhz;
    roofline.fraction_at_held_clock = ratio(record.gflops, roofline.ceiling * held / gpu->sm_clock_mhz);
  }
  return roofline;
}

void annotate_roofline(const Context& context, std::vector<ResultRecord>& results, int device) {
  for (auto& record : results) record.roofline = roofline_of(record, context, device);
}

}  // namespace gpb
