// Plain result records: what the runner measured and the context it measured in.
// Reporters only read these; nothing here formats anything.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "telemetry.hpp"
#include "types.hpp"

namespace gpb {

inline constexpr int kReportSchemaVersion = 1;

struct Statistics {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, median = 0, stddev = 0, rel_stddev = 0;
  double p5 = 0, p95 = 0, q1 = 0, q3 = 0;
  double median_ci_low = 0, median_ci_high = 0;  // 95 % distribution-free CI of the median
};

// The identity of a case: everything that changes what is measured.
struct CaseSpec {
  Op op = Op::sin;
  std::string backend;
  DType dtype = DType::f32;
  Shape shape;
  TimingMode timing = TimingMode::kernel;
  L2Mode l2 = L2Mode::flush;
  bool tf32 = false;
  int threads = 0;  // requested (0 = all)
  std::uint64_t seed = 0;

  // "matmul/cublas/f32/4096x4096x4096" (+ "/e2e", "/tf32", "/l2warm" where they apply):
  // the NVTX range name and the key compare matches on.
  std::string id() const;
};

enum class Status { ok, skipped, failed };
std::string to_string(Status status);

struct Verification {
  bool checked = false;
  bool passed = false;
  std::int64_t entries_checked = 0;
  double max_error = 0;   // largest error over the checked entries, in units of each entry's scale
  double tolerance = 0;   // the bound max_error is held to
  std::string method;     // "all 1000 entries" / "4096 sampled entries"; how the error is normalised
};

// Samples of one timed phase (e2e mode: h2d, op, d2h).
struct Phase {
  std::string name;
  std::vector<double> samples_s;
  Statistics stats;
};

// Where a result sits against the device's ceilings. Memory-bound ops are held against
// bandwidth (GB/s), matmul against the flop rate (GFLOP/s). A ceiling of 0 is unknown, and
// so is a fraction of 0: reports show "-" rather than a made-up percentage.
struct Roofline {
  std::string bound;                // "memory" or "compute"; empty for a record without measurements
  std::string ceiling_name;         // "measured copy", "FP32 peak", "TF32 peak", ...
  double ceiling = 0;               // GB/s (memory) or GFLOP/s (compute)
  double fraction = 0;              // achieved / ceiling
  double theoretical_ceiling = 0;   // the data-sheet figure: DRAM bandwidth, or the same peak for matmul
  double theoretical_fraction = 0;  // achieved / theoretical_ceiling
};

struct ResultRecord {
  CaseSpec spec;
  DeviceKind device = DeviceKind::cpu;
  Status status = Status::ok;
  std::string reason;            // why skipped/failed
  std::string input_distribution;
  std::string details;           // backend's own facts (kernel variant, algorithm)
  int threads_used = 0;

  // Measurement
  std::string timer;             // "steady_clock" / "cuda_event"
  int warmup = 0;
  std::int64_t batch = 1;        // launches per sample; samples are per launch
  std::string stop_reason;       // "converged", "max_time", "max_samples"
  double measure_seconds = 0;    // wall time spent taking samples
  std::vector<double> samples_s;       // the reported figure per sample (op, or h2d+op+d2h in e2e)
  std::vector<double> host_samples_s;  // host-observed wall time per sample
  Statistics stats;
  Statistics host_stats;
  std::vector<Phase> phases;     // e2e only
  // What the timing of this case means beyond the numbers, e.g. for single cold launches
  // near the timer's resolution; empty when nothing needs saying.
  std::string timing_note;
  std::optional<SoakSummary> soak;             // --soak only
  std::optional<TelemetrySummary> telemetry;   // cases whose device reports telemetry
  std::vector<TelemetryReading> telemetry_readings;  // in memory only: lets passes merge

  // Throughput from op_bytes/op_flops over stats.median
  double bytes = 0, flops = 0;
  double gbps = 0, gflops = 0;
  Roofline roofline;             // filled by annotate_roofline from the context's ceilings

  Verification verification;
};

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  std::string compute_capability;
  int sm_count = 0;
  double sm_clock_mhz = 0, mem_clock_mhz = 0;
  double memory_gib = 0;
  int bus_width_bits = 0;
  double theoretical_bandwidth_gbps = 0;
  double l2_mib = 0;
  bool ecc = false;
  std::string driver_version, runtime_version;
  // Roofline ceilings (0 = unknown). copy_gbps is measured: a device-to-device copy, bytes
  // read + written per second / 1e9, counted as the op table counts bytes. The peaks are
  // theoretical, from SM count x SM clock x flops per clock per SM of the architecture.
  double copy_gbps = 0;
  double peak_fp32_gflops = 0, peak_fp64_gflops = 0, peak_tf32_gflops = 0;
  GpuManagement nvml;  // read-only management state from NVML (available = false without it)
};

struct Context {
  int schema_version = kReportSchemaVersion;
  std::string tool_version, git_sha, build_type, compiler;
  std::vector<std::string> argv;
  std::string timestamp;        // ISO 8601 UTC
  std::string hostname, os, cpu_model;
  int cpu_cores = 0;
  int threads = 0;              // worker threads used by CPU backends
  double memory_gib = 0;
  double cpu_copy_gbps = 0;     // measured parallel host copy, counted like GpuInfo::copy_gbps (0 = not measured)
  std::map<std::string, std::string> libraries;  // name -> version
  std::map<std::string, std::string> settings;   // run-wide settings (seed, l2, stopping rule...)
  // Regression thresholds from the suite, as fractions: key "*" is the global one, an op
  // name ("matmul") applies to that op, a case id to that case. compare uses the most specific.
  std::map<std::string, double> thresholds;
  std::vector<GpuInfo> gpus;    // empty without a usable device
  std::vector<std::string> notes;  // e.g. "GPU backends unavailable: no CUDA device"
};

}  // namespace gpb
