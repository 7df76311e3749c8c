// Plain result records: what the runner measured and the context it measured in.
// Reporters only read these; nothing here formats anything.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/cpu_telemetry.hpp"
#include "model/statistics.hpp"
#include "model/energy.hpp"
#include "model/telemetry.hpp"
#include "model/types.hpp"

namespace gpb {

inline constexpr int kReportSchemaVersion = 1;

// The identity of a case: everything that changes what is measured.
struct CaseSpec {
  Op op = Op::sin;
  std::string backend;
  DType dtype = DType::f32;
  Shape shape;
  TimingMode timing = TimingMode::kernel;
  // GPU cases: whether L2 is flushed before each sample (the plan sets the run's mode on the
  // cases of GPU backends); CPU cases have no L2 mode: nothing flushes their caches.
  std::optional<L2Mode> l2;
  bool tf32 = false;
  SpmvKernelChoice spmv_kernel = SpmvKernelChoice::automatic;  // set on the cases that honour it (config/plan.cpp)
  int threads = 0;  // requested (0 = all)
  std::uint64_t seed = 0;
  InputData data = InputData::uniform;  // the inputs' value distribution (--data)

  // The one definition of what tells cases apart beyond op, backend, dtype, shape and
  // timing, as tags, each only where its setting is not the default. The id, compare's
  // matching, the speed-up column and the CPU-versus-GPU summary's groups derive from them.
  // Variant tags change what every backend measures: "tf32", "l2warm", and the input
  // distribution where it is not uniform ("normal", "zeros", "ones").
  std::vector<std::string> variant_tags() const;
  // Backend tags are settings that only the case's backend acts on, a part of how that
  // backend ran: the forced SpMV kernel ("merge_path").
  std::vector<std::string> backend_tags() const;

  // The backend with its tags: "cuda", "cuda/merge_path".
  std::string backend_label() const;

  // "matmul/cublas/f32/4096x4096x4096", then "/e2e" where timed end to end, then "/" and
  // each variant tag, then each backend tag: the NVTX range name and the key compare
  // matches on.
  std::string id() const;
};

// Whether two specs name the same case, each on its own backend (as that backend ran it):
// everything in the id but the backend and its tags agrees.
bool same_case_apart_from_backend(const CaseSpec& a, const CaseSpec& b);

enum class Status { ok, skipped, failed };

std::string to_string(Status status);

// The GPU a record ran on: its ordinal on its host and the identities that survive a
// different enumeration order (UUID, PCI bus id). ordinal -1: not recorded (CPU records,
// and reports written before records named their device).
struct GpuIdentity {
  int ordinal = -1;
  std::string name;
  std::string uuid;        // "GPU-8c2f...", as nvidia-smi prints it
  std::string pci_bus_id;  // "0000:1b:00.0", domain:bus:device.function

  bool recorded() const { return ordinal >= 0; }
};

struct Verification {
  bool checked = false;
  bool passed = false;
  std::int64_t entries_checked = 0;
  double max_error = 0;   // largest error over the checked entries, in units of each entry's scale
  double tolerance = 0;   // the bound max_error is held to
  std::string method;     // "all 1000 entries" / "4096 sampled entries"; how the error is normalised
};

// The timed phases of a sample, in the order they run: end to end all three, in kernel
// mode the op alone.
enum class PhaseKind { h2d, op, d2h };  // result.cpp names them in this order
std::string to_string(PhaseKind kind);  // "h2d", "op", "d2h"
const std::vector<PhaseKind>& all_phase_kinds();

// Samples of one timed phase (e2e mode: h2d, op, d2h).
struct Phase {
  PhaseKind kind = PhaseKind::op;
  std::vector<double> samples_s;
  Statistics stats;
};

// Where a result sits against the device's ceilings. Memory-bound ops are held against
// bandwidth (GB/s), matmul against the flop rate (GFLOP/s). A ceiling of 0 is unknown, and
// so is a fraction of 0: reports show "-" rather than a made-up percentage.
struct Roofline {
  std::optional<Bound> bound;  // none for a record without measurements
  std::string ceiling_name;         // "measured copy", "FP32 peak", "TF32 peak", ...
  double ceiling = 0;               // GB/s (memory) or GFLOP/s (compute)
  double fraction = 0;              // achieved / ceiling
  double theoretical_ceiling = 0;   // the data-sheet figure: DRAM bandwidth, or the same peak for matmul
  double theoretical_fraction = 0;  // achieved / theoretical_ceiling
  // Compute-bound GPU cases whose telemetry saw the SM clock: the peak scales with the clock,
  // so beside `fraction` (of the peak at peak_sm_clock_mhz, the boost clock the peak was
  // computed at) stands the fraction of the peak at the clock the case held (the SM clock
  // median). Absent where either clock is unknown: never a made-up figure.
  std::optional<double> held_sm_clock_mhz;
  std::optional<double> peak_sm_clock_mhz;
  std::optional<double> fraction_at_held_clock;
  // Memory-bound GPU cases measured with a warm L2 (--l2 warm) whose working set (the op's
  // bytes) fits in the L2: they ran from cache, so they are rated against no DRAM ceiling.
  bool l2_resident = false;
};

// The case's first run in the process, before any warm-up: what a one-shot user waits for.
// It pays what the steady state hides: module loading under the driver's lazy loading, first
// launches, first-touch page faults, cold caches and TLBs.
struct FirstCall {
  double host_s = 0;   // steady clock around the run and the wait for it to finish
  double timer_s = 0;  // the case's own timer (CUDA events, or the steady clock) around the same run
  // Whether it was the first case of its backend in the process, and so also paid the
  // backend's first use (a library's first handle, its first kernels' loading).
  bool first_of_backend = false;
};

// The host's cost of issuing one op (GPU cases): the steady clock around one run() that
// returns without waiting for the work, each on an idle stream (the runner waits for the
// previous one first), as cupyx.profiler.benchmark reports CPU times.
struct HostCost {
  std::vector<double> samples_s;
  Statistics stats;
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
  StopReasons stop_reasons;      // why sampling stopped, in each pass
  // Rounds of re-measurement pooled into the samples after the first measurement, to settle
  // an inconclusive comparison (run --resolve, gpubench ab); 0: measured once.
  int resolve_rounds = 0;
  // In memory only, set where rounds were pooled (analysis/resolve.hpp's pool_round): how
  // many of samples_s, in order, each measurement round took, the first measurement included.
  // Empty: one block. Lets compare stratify its rank test by round where both sides were
  // measured in the same rounds (gpubench ab).
  std::vector<std::size_t> round_sizes;
  double measure_seconds = 0;    // wall time spent taking samples
  std::vector<double> samples_s;       // the reported figure per sample (op, or h2d+op+d2h in e2e)
  std::vector<double> host_samples_s;  // host-observed wall time per sample
  // CPU cases, where the kernel says: per sample (and per launch, as samples_s), how long the
  // op's threads were held up waiting for a CPU (measure/host_interference.hpp's
  // sample_run_queue_wait). Compare judges the samples less these waits where both sides
  // have them: time lost to other work on the machine is not the op's. Empty or one per sample.
  std::vector<double> sample_waits_s;
  Statistics stats;
  Statistics host_stats;
  std::vector<Phase> phases;     // e2e only
  // What the timing of this case means beyond the numbers, e.g. for single cold launches
  // near the timer's resolution; empty when nothing needs saying.
  std::string timing_note;
  std::optional<FirstCall> first_call;         // measured cases (reports before it: none)
  std::optional<HostCost> host_cost;           // cases whose work does not run on this process's threads (GPU)
  std::optional<SoakSummary> soak;             // --soak only
  std::optional<TelemetrySummary> telemetry;   // cases whose device reports telemetry
  std::optional<CpuTelemetry> cpu_telemetry;   // cases whose work runs on this process's threads (CPU backends)
  std::vector<TelemetryReading> telemetry_readings;  // in memory only: lets passes merge
  // Energy per op from the device's energy counter (GPU: NVML, CPU: RAPL), or why there is
  // none; absent for cases that did not measure (skipped, failed) and under --profile.
  std::optional<EnergyMeasurement> energy;

  // Throughput from op_bytes/op_flops over stats.median
  double bytes = 0, flops = 0;
  double gbps = 0, gflops = 0;
  Roofline roofline;             // filled by annotate_roofline from the context's ceilings

  Verification verification;

  GpuIdentity gpu;               // GPU records: the device the case ran on
  // Set when reports of several processes are joined (gpubench merge, an MPI run): the
  // rank that measured the record and its host. rank -1: a single process's report.
  int rank = -1;
  std::string host;
};

// The figures a record derives from its samples, computed in this one place: the statistics
// of the samples, of the host-observed samples and of each phase, the throughput at the
// median and, with telemetry, the energy per op. A measured case is finalised once, and the
// merge of its passes (or a baseline pooled from the store) finalises it again over all
// its samples.
void finalize_record(ResultRecord& record);

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
  double peak_fp16_gflops = 0;  // dense FP16/BF16 tensor cores, FP32 accumulation
  std::string uuid, pci_bus_id;  // as in GpuIdentity
  GpuManagement nvml;  // read-only management state from NVML (available = false without it)
};

// One process of a run: where it ran, how it was launched and which GPUs it used. A run's
// report holds one; a merged report one per rank.
struct RankInfo {
  int rank = 0;
  int local_rank = 0;
  int world_size = 1;    // 0: the launcher did not say
  std::string launcher;  // "slurm", "openmpi", "mpich", "torchrun"; empty when started directly
  std::string host;
  std::string node;      // the launcher's node index (SLURM_NODEID, torchrun's GROUP_RANK); may be empty
  std::vector<int> devices;      // GPU ordinals its GPU cases ran on
  std::string device_schedule;   // "concurrent" or "serial" with several devices, else empty
};

// A run-wide setting as the report holds it, so that numbers stay numbers. Integers are
// held as std::int64_t whenever they fit; std::uint64_t only above that (a seed may be up
// to 2^64 - 1). integer_setting builds that form, and equal values then compare equal.
using SettingValue = std::variant<bool, std::int64_t, std::uint64_t, double, std::string>;
SettingValue integer_setting(std::uint64_t value);
// "true", "42", "0.005", "flush": integers in decimal, reals in the shortest form that reads
// back exactly.
std::string to_string(const SettingValue& value);

// What a backend's first use in the process cost, once: a library handle's creation, a
// temporary-storage query and allocation.
struct FirstUse {
  std::string backend;  // "cublas"
  std::string what;     // "handle creation (cublasCreate)"
  double seconds = 0;
};

// The run's one-time costs on the GPU (docs/report-format.md says what each figure holds).
struct OneTimeCosts {
  int device = 0;  // the ordinal the context was created on: the run's first GPU
  // CUDA primary context creation: the steady clock around the first runtime calls that
  // create it (cudaSetDevice + cudaFree(0)); nullopt where it could not be measured.
  std::optional<double> context_creation_s;
  std::string context_note;    // how it was timed, or why it was not
  std::string module_loading;  // "lazy" or "eager", as the driver loads modules; "" unknown
  std::string module_loading_env;  // CUDA_MODULE_LOADING as set; "" unset (the driver's default)
  std::vector<FirstUse> first_uses;  // in the order they happened
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
  std::map<std::string, SettingValue> settings;  // run-wide settings (seed, l2, stopping rule...)
  // Regression thresholds from the suite, as fractions: key "*" is the global one, an op
  // name ("matmul") applies to that op, a case id to that case. compare uses the most specific.
  std::map<std::string, double> thresholds;
  std::vector<GpuInfo> gpus;    // empty without a usable device
  std::vector<std::string> notes;  // e.g. "GPU backends unavailable: no CUDA device"
  std::vector<RankInfo> ranks;     // empty in reports written before ranks were recorded
  // The run was stopped by SIGINT/SIGTERM: the results are the cases finished before it.
  bool interrupted = false;
  std::optional<OneTimeCosts> one_time_costs;  // runs with GPU cases
};

}  // namespace gpb
