// Roofline: theoretical peaks from the architecture table, each record held against its
// device kind's ceilings, unknown ceilings giving no fraction, and the host copy measurement.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>

#include "measure/context.hpp"
#include "measure/roofline.hpp"

namespace gpb {
namespace {

GpuInfo hopper() {
  GpuInfo gpu;
  gpu.ordinal = 0;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.compute_capability = "9.0";
  gpu.sm_count = 132;
  gpu.sm_clock_mhz = 1980;
  gpu.theoretical_bandwidth_gbps = 3352.32;
  gpu.copy_gbps = 2800;
  set_theoretical_peaks(gpu);
  return gpu;
}

Context context_with_ceilings() {
  Context context;
  context.cpu_copy_gbps = 100;
  context.gpus = {hopper()};
  return context;
}

// A measured record with the given rates; roofline_of reads nothing else of the measurement
// (and of the shape only whether a matmul is a matrix-vector product: 4096^3 is not).
ResultRecord record(Op op, DType dtype, DeviceKind device, double gbps, double gflops,
                    const Shape& shape = matmul_shape(4096, 4096, 4096)) {
  ResultRecord result;
  result.spec.op = op;
  result.spec.dtype = dtype;
  result.spec.shape = shape;
  result.device = device;
  result.stats.count = 10;
  result.gbps = gbps;
  result.gflops = gflops;
  return result;
}

TEST(Roofline, HopperPeaksFromSmCountAndClock) {
  const GpuInfo gpu = hopper();
  // 132 SMs x 1.98 GHz x 256 flops per clock = 66.9 TFLOP/s.
  EXPECT_NEAR(gpu.peak_fp32_gflops, 66.9e3, 0.05e3);
  EXPECT_DOUBLE_EQ(gpu.peak_fp32_gflops, 132 * 1.98 * 256);
  EXPECT_DOUBLE_EQ(gpu.peak_fp64_gflops, 132 * 1.98 * 256);   // FP64 tensor cores
  EXPECT_DOUBLE_EQ(gpu.peak_tf32_gflops, 132 * 1.98 * 2048);  // dense TF32 tensor cores
  // Dense FP16/BF16 tensor cores: 4096 per SM per clock, the datasheet's 989 TFLOP/s at 1.83 GHz.
  EXPECT_DOUBLE_EQ(gpu.peak_fp16_gflops, 132 * 1.98 * 4096);
  GpuInfo datasheet_clock = gpu;
  datasheet_clock.sm_clock_mhz = 1830;
  set_theoretical_peaks(datasheet_clock);
  EXPECT_NEAR(datasheet_clock.peak_fp16_gflops, 989.4e3, 0.5e3);
}

TEST(Roofline, PeaksPerArchitecture) {
  GpuInfo gpu;
  gpu.sm_count = 100;
  gpu.sm_clock_mhz = 1000;
  gpu.compute_capability = "8.0";
  set_theoretical_peaks(gpu);
  EXPECT_DOUBLE_EQ(gpu.peak_fp32_gflops, 100 * 128);
  EXPECT_DOUBLE_EQ(gpu.peak_fp64_gflops, 100 * 128);
  EXPECT_DOUBLE_EQ(gpu.peak_tf32_gflops, 100 * 1024);
  EXPECT_DOUBLE_EQ(gpu.peak_fp16_gflops, 100 * 2048);
  for (const char* ada_or_ampere : {"8.6", "8.9"}) {
    gpu.compute_capability = ada_or_ampere;
    set_theoretical_peaks(gpu);
    EXPECT_DOUBLE_EQ(gpu.peak_fp32_gflops, 100 * 256) << ada_or_ampere;
    EXPECT_DOUBLE_EQ(gpu.peak_fp64_gflops, 100 * 4) << ada_or_ampere;
    EXPECT_DOUBLE_EQ(gpu.peak_tf32_gflops, 100 * 512) << ada_or_ampere;
    EXPECT_DOUBLE_EQ(gpu.peak_fp16_gflops, 100 * 1024) << ada_or_ampere;
  }
}

TEST(Roofline, UnknownArchitectureHasNoPeaks) {
  GpuInfo gpu = hopper();
  gpu.compute_capability = "7.5";
  set_theoretical_peaks(gpu);
  EXPECT_EQ(gpu.peak_fp32_gflops, 0);
  EXPECT_EQ(gpu.peak_fp64_gflops, 0);
  EXPECT_EQ(gpu.peak_tf32_gflops, 0);
  EXPECT_EQ(gpu.peak_fp16_gflops, 0);
}

TEST(Roofline, GpuMemoryBoundAgainstMeasuredCopyAndTheoreticalBandwidth) {
  std::vector<ResultRecord> results = {record(Op::sin, DType::f32, DeviceKind::gpu, 2520, 315)};
  annotate_roofline(context_with_ceilings(), results, 0);
  const Roofline& roofline = results[0].roofline;
  EXPECT_EQ(roofline.bound, Bound::memory);
  EXPECT_EQ(roofline.ceiling_name, "measured copy");
  EXPECT_DOUBLE_EQ(roofline.ceiling, 2800);
  EXPECT_DOUBLE_EQ(roofline.fraction, 0.9);
  EXPECT_DOUBLE_EQ(roofline.theoretical_ceiling, 3352.32);
  EXPECT_DOUBLE_EQ(roofline.theoretical_fraction, 2520 / 3352.32);
}

TEST(Roofline, EveryMemoryBoundOpIsHeldAgainstBandwidth) {
  for (Op op : {Op::sin, Op::sqrt, Op::sum, Op::spmv}) {
    const Roofline roofline = roofline_of(record(op, DType::f64, DeviceKind::gpu, 1400, 1), context_with_ceilings(), 0);
    EXPECT_EQ(roofline.bound, Bound::memory) << to_string(op);
    EXPECT_DOUBLE_EQ(roofline.fraction, 0.5) << to_string(op);
  }
}

TEST(Roofline, GpuMatmulAgainstThePeakForItsDtype) {
  const Context context = context_with_ceilings();
  const GpuInfo& gpu = context.gpus[0];

  const Roofline fp32 = roofline_of(record(Op::matmul, DType::f32, DeviceKind::gpu, 30, 33454.08), context, 0);
  EXPECT_EQ(fp32.bound, Bound::compute);
  EXPECT_EQ(fp32.ceiling_name, "FP32 peak");
  EXPECT_DOUBLE_EQ(fp32.ceiling, gpu.peak_fp32_gflops);
  EXPECT_DOUBLE_EQ(fp32.fraction, 0.5);
  EXPECT_DOUBLE_EQ(fp32.theoretical_ceiling, fp32.ceiling);
  EXPECT_DOUBLE_EQ(fp32.theoretical_fraction, fp32.fraction);

  const Roofline fp64 = roofline_of(record(Op::matmul, DType::f64, DeviceKind::gpu, 30, 50181.12), context, 0);
  EXPECT_EQ(fp64.ceiling_name, "FP64 peak");
  EXPECT_DOUBLE_EQ(fp64.ceiling, gpu.peak_fp64_gflops);
  EXPECT_DOUBLE_EQ(fp64.fraction, 0.75);

  ResultRecord tf32_record = record(Op::matmul, DType::f32, DeviceKind::gpu, 30, 267632.64);
  tf32_record.spec.tf32 = true;
  const Roofline tf32 = roofline_of(tf32_record, context, 0);
  EXPECT_EQ(tf32.ceiling_name, "TF32 peak");
  EXPECT_DOUBLE_EQ(tf32.ceiling, gpu.peak_tf32_gflops);
  EXPECT_DOUBLE_EQ(tf32.fraction, 0.5);

  for (DType half : {DType::f16, DType::bf16}) {
    const Roofline tensor = roofline_of(record(Op::matmul, half, DeviceKind::gpu, 30, gpu.peak_fp16_gflops / 4), context, 0);
    EXPECT_EQ(tensor.ceiling_name, to_string(half) == "f16" ? "FP16 tensor peak" : "BF16 tensor peak");
    EXPECT_DOUBLE_EQ(tensor.ceiling, gpu.peak_fp16_gflops);
    EXPECT_DOUBLE_EQ(tensor.fraction, 0.25);
  }
}

// Matrix-vector products (m or n at most 16) move each entry of the large operand for two
// flops: memory-bound, held to the copy bandwidth; 17 is a matrix again.
TEST(Roofline, MatrixVectorMatmulAgainstTheCopyBandwidth) {
  const Context context = context_with_ceilings();
  for (const Shape& shape : {matmul_shape(1, 8192, 8192), matmul_shape(8192, 1, 8192), matmul_shape(16, 4096, 64),
                             matmul_shape(4096, 16, 64)}) {
    const Roofline roofline = roofline_of(record(Op::matmul, DType::bf16, DeviceKind::gpu, 2240, 5, shape), context, 0);
    EXPECT_EQ(roofline.bound, Bound::memory) << shape.label(Op::matmul);
    EXPECT_EQ(roofline.ceiling_name, "measured copy");
    EXPECT_DOUBLE_EQ(roofline.ceiling, 2800);
    EXPECT_DOUBLE_EQ(roofline.fraction, 0.8);
  }
  const Roofline matrix =
      roofline_of(record(Op::matmul, DType::bf16, DeviceKind::gpu, 30, 5, matmul_shape(17, 4096, 64)), context, 0);
  EXPECT_EQ(matrix.bound, Bound::compute);
  EXPECT_EQ(matrix.ceiling_name, "BF16 tensor peak");
}

// Where the GPU's ceilings are known the bound is the roofline's own: flops per byte against
// the ridge (the dtype's peak over the measured copy bandwidth), whatever the op's usual bound.
// Without flops and bytes (the records above), or on a CPU, the op's bound stands.
TEST(Roofline, TheBoundOfAGpuRecordIsItsFlopsPerByteAgainstTheRidge) {
  const Context context = context_with_ceilings();
  const GpuInfo& gpu = context.gpus[0];
  const auto measured = [](DType dtype, const Shape& shape, DeviceKind device) {
    ResultRecord result = record(Op::matmul, dtype, device, 100, 100, shape);
    const double size = static_cast<double>(dtype_size(dtype));
    const double m = static_cast<double>(shape.m), n = static_cast<double>(shape.n), k = static_cast<double>(shape.k);
    result.flops = 2 * m * n * k;
    result.bytes = (m * k + k * n + m * n) * size;
    return result;
  };
  // Long k, tiny output: 32 flops a byte in bf16 against a ridge of 1070 TFLOP/s / 2.8 TB/s.
  const Roofline long_k = roofline_of(measured(DType::bf16, matmul_shape(64, 64, 1048576), DeviceKind::gpu), context, 0);
  EXPECT_EQ(long_k.bound, Bound::memory);
  EXPECT_EQ(long_k.ceiling_name, "measured copy");
  EXPECT_EQ(roofline_of(measured(DType::bf16, matmul_shape(4096, 4096, 4096), DeviceKind::gpu), context, 0).bound,
            Bound::compute);
  // 17 rows are no matrix-vector shape, but 17 x 4096 x 64 moves B once for 34 flops an element.
  EXPECT_EQ(roofline_of(measured(DType::bf16, matmul_shape(17, 4096, 64), DeviceKind::gpu), context, 0).bound,
            Bound::memory);
  // On the CPU no ceiling is known: the op's bound.
  EXPECT_EQ(roofline_of(measured(DType::bf16, matmul_shape(64, 64, 1048576), DeviceKind::cpu), context, 0).bound,
            Bound::compute);

  // Random shapes and dtypes (seeded): memory-bound exactly where the bytes at the copy rate
  // take longer than the flops at the dtype's peak.
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> log_side(0, std::log(16384.0));
  const DType dtypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16};
  int memory = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto side = [&] { return static_cast<std::int64_t>(std::llround(std::exp(log_side(rng)))); };
    const Shape shape = matmul_shape(side(), side(), side());
    const DType dtype = dtypes[rng() % 4];
    const ResultRecord result = measured(dtype, shape, DeviceKind::gpu);
    const double peak = dtype == DType::f32   ? gpu.peak_fp32_gflops
                        : dtype == DType::f64 ? gpu.peak_fp64_gflops
                                              : gpu.peak_fp16_gflops;
    const bool slower_bytes = result.bytes / (gpu.copy_gbps * 1e9) > result.flops / (peak * 1e9);
    const Roofline roofline = roofline_of(result, context, 0);
    EXPECT_EQ(roofline.bound, slower_bytes ? Bound::memory : Bound::compute)
        << to_string(dtype) << " " << shape.label(Op::matmul);
    memory += roofline.bound == Bound::memory;
  }
  // Both bounds drawn often: the check is not one-sided.
  EXPECT_GT(memory, 200);
  EXPECT_LT(memory, 1800);
}

TEST(Roofline, CpuMemoryBoundAgainstMeasuredCpuCopy) {
  const Roofline roofline = roofline_of(record(Op::sum, DType::f32, DeviceKind::cpu, 80, 20), context_with_ceilings(), 0);
  EXPECT_EQ(roofline.bound, Bound::memory);
  EXPECT_EQ(roofline.ceiling_name, "measured copy");
  EXPECT_DOUBLE_EQ(roofline.ceiling, 100);
  EXPECT_DOUBLE_EQ(roofline.fraction, 0.8);
  EXPECT_EQ(roofline.theoretical_ceiling, 0);  // no data-sheet bandwidth for a host
  EXPECT_EQ(roofline.theoretical_fraction, 0);
}

TEST(Roofline, CpuMatmulIsComputeBoundWithoutACeiling) {
  const Roofline roofline = roofline_of(record(Op::matmul, DType::f64, DeviceKind::cpu, 1, 900), context_with_ceilings(), 0);
  EXPECT_EQ(roofline.bound, Bound::compute);
  EXPECT_EQ(roofline.ceiling, 0);
  EXPECT_EQ(roofline.fraction, 0);
}

TEST(Roofline, UnknownCeilingsGiveNoFraction) {
  Context context = context_with_ceilings();
  context.cpu_copy_gbps = 0;  // not measured
  context.gpus[0].copy_gbps = 0;
  context.gpus[0].compute_capability = "7.5";
  set_theoretical_peaks(context.gpus[0]);

  const Roofline cpu = roofline_of(record(Op::sin, DType::f32, DeviceKind::cpu, 50, 5), context, 0);
  EXPECT_EQ(cpu.bound, Bound::memory);
  EXPECT_EQ(cpu.fraction, 0);

  const Roofline gpu = roofline_of(record(Op::sin, DType::f32, DeviceKind::gpu, 1676.16, 5), context, 0);
  EXPECT_EQ(gpu.fraction, 0);
  EXPECT_DOUBLE_EQ(gpu.theoretical_fraction, 0.5);  // the theoretical bandwidth is still known

  EXPECT_EQ(roofline_of(record(Op::matmul, DType::f32, DeviceKind::gpu, 1, 9000), context, 0).fraction, 0);
  // A device the context does not describe.
  EXPECT_EQ(roofline_of(record(Op::sin, DType::f32, DeviceKind::gpu, 1000, 5), context_with_ceilings(), 3).fraction, 0);
}

TEST(Roofline, UnmeasuredAndEndToEndRecordsHaveNoCeiling) {
  ResultRecord skipped = record(Op::sin, DType::f32, DeviceKind::gpu, 0, 0);
  skipped.stats.count = 0;
  skipped.status = Status::skipped;
  const Roofline none = roofline_of(skipped, context_with_ceilings(), 0);
  EXPECT_EQ(none.bound, std::nullopt);
  EXPECT_EQ(none.fraction, 0);

  // e2e rates include the host transfers, which no device ceiling bounds.
  ResultRecord e2e = record(Op::sin, DType::f32, DeviceKind::gpu, 20, 2);
  e2e.spec.timing = TimingMode::e2e;
  const Roofline transfers = roofline_of(e2e, context_with_ceilings(), 0);
  EXPECT_EQ(transfers.bound, Bound::memory);
  EXPECT_EQ(transfers.ceiling, 0);
  EXPECT_EQ(transfers.fraction, 0);
  EXPECT_EQ(transfers.theoretical_fraction, 0);
}

// The peak scales with the SM clock: a matmul that held 1485 MHz of the 1980 MHz the peak
// was computed at is rated against three quarters of the peak as well.
TEST(Roofline, ComputeBoundFractionAtTheClockHeld) {
  ResultRecord matmul = record(Op::matmul, DType::f32, DeviceKind::gpu, 1, 33454.08);  // half the FP32 peak
  matmul.telemetry = TelemetrySummary{};
  matmul.telemetry->sm_clock_median_mhz = 1485;
  const Roofline roofline = roofline_of(matmul, context_with_ceilings(), 0);
  EXPECT_DOUBLE_EQ(roofline.fraction, 0.5);  // of the boost-clock peak, as before
  ASSERT_TRUE(roofline.fraction_at_held_clock.has_value());
  EXPECT_DOUBLE_EQ(*roofline.fraction_at_held_clock, 0.5 * 1980 / 1485);
  EXPECT_EQ(roofline.held_sm_clock_mhz, 1485);
  EXPECT_EQ(roofline.peak_sm_clock_mhz, 1980);
  EXPECT_FALSE(roofline.l2_resident);
}

// No clock reading (no telemetry, or NVML without the SM clock), or no peak: no figure at
// the held clock, rather than one made up from the boost clock.
TEST(Roofline, UnknownHeldClockGivesNoFigure) {
  ResultRecord without_telemetry = record(Op::matmul, DType::f32, DeviceKind::gpu, 1, 33454.08);
  const Roofline none = roofline_of(without_telemetry, context_with_ceilings(), 0);
  EXPECT_DOUBLE_EQ(none.fraction, 0.5);
  EXPECT_FALSE(none.fraction_at_held_clock.has_value());
  EXPECT_FALSE(none.held_sm_clock_mhz.has_value());

  ResultRecord no_clock = without_telemetry;
  no_clock.telemetry = TelemetrySummary{};  // sm_clock_median_mhz not reported
  EXPECT_FALSE(roofline_of(no_clock, context_with_ceilings(), 0).fraction_at_held_clock.has_value());

  Context unknown_peak = context_with_ceilings();
  unknown_peak.gpus[0].compute_capability = "7.5";
  set_theoretical_peaks(unknown_peak.gpus[0]);
  ResultRecord clocked = without_telemetry;
  clocked.telemetry = TelemetrySummary{};
  clocked.telemetry->sm_clock_median_mhz = 1500;
  EXPECT_FALSE(roofline_of(clocked, unknown_peak, 0).fraction_at_held_clock.has_value());

  // Memory-bound cases are rated against bandwidth, which the SM clock does not set.
  ResultRecord sin = record(Op::sin, DType::f32, DeviceKind::gpu, 2520, 315);
  sin.telemetry = clocked.telemetry;
  EXPECT_FALSE(roofline_of(sin, context_with_ceilings(), 0).fraction_at_held_clock.has_value());
}

// A memory-bound case with a warm L2 whose bytes fit in the L2 ran from cache: marked
// L2-resident, with no DRAM ceiling or fraction. Flushed, or larger than the L2, it is rated
// against DRAM as before.
TEST(Roofline, WarmL2WorkingSetThatFitsIsL2Resident) {
  Context context = context_with_ceilings();
  context.gpus[0].l2_mib = 50;
  const double l2_bytes = 50.0 * 1024 * 1024;

  ResultRecord fits = record(Op::sin, DType::f32, DeviceKind::gpu, 9000, 1);
  fits.spec.l2 = L2Mode::warm;
  fits.bytes = l2_bytes;  // exactly the L2
  const Roofline resident = roofline_of(fits, context, 0);
  EXPECT_TRUE(resident.l2_resident);
  EXPECT_EQ(resident.bound, Bound::memory);
  EXPECT_EQ(resident.ceiling_name, "L2-resident");
  EXPECT_EQ(resident.ceiling, 0);
  EXPECT_EQ(resident.fraction, 0);
  EXPECT_EQ(resident.theoretical_fraction, 0);

  ResultRecord larger = fits;
  larger.bytes = l2_bytes + 1;
  const Roofline dram = roofline_of(larger, context, 0);
  EXPECT_FALSE(dram.l2_resident);
  EXPECT_EQ(dram.ceiling_name, "measured copy");

  ResultRecord flushed = fits;
  flushed.spec.l2 = L2Mode::flush;
  EXPECT_FALSE(roofline_of(flushed, context, 0).l2_resident);

  // Compute-bound cases and CPU cases are never marked; nor a GPU whose L2 size is unknown.
  ResultRecord matmul = record(Op::matmul, DType::f32, DeviceKind::gpu, 1, 1000);
  matmul.spec.l2 = L2Mode::warm;
  matmul.bytes = 1024;
  EXPECT_FALSE(roofline_of(matmul, context, 0).l2_resident);
  ResultRecord cpu = record(Op::sin, DType::f32, DeviceKind::cpu, 10, 1);
  cpu.spec.l2 = L2Mode::warm;
  cpu.bytes = 1024;
  EXPECT_FALSE(roofline_of(cpu, context, 0).l2_resident);
  EXPECT_FALSE(roofline_of(fits, context_with_ceilings(), 0).l2_resident);  // l2_mib unknown (0)
}

// Graph figures are the op's own time: rated as kernel figures are.
TEST(Roofline, GraphRecordsAreRatedAsKernelRecords) {
  ResultRecord graph = record(Op::sin, DType::f32, DeviceKind::gpu, 2520, 315);
  graph.spec.timing = TimingMode::graph;
  EXPECT_DOUBLE_EQ(roofline_of(graph, context_with_ceilings(), 0).fraction, 0.9);
}

TEST(CpuCeilings, CopyBandwidthIsPlausibleAndQuick) {
  const auto start = std::chrono::steady_clock::now();
  const double gbps = measure_cpu_copy_gbps(2);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Any host from a laptop to a many-channel server copies between 0.5 and 5000 GB/s.
  EXPECT_GT(gbps, 0.5);
  EXPECT_LT(gbps, 5000);
  // A bound on the work done, not a speed: well under a second on an idle host, 9 s on a
  // 2-core host with every core busy.
  EXPECT_LT(seconds, 60.0);
}

}  // namespace
}  // namespace gpb
