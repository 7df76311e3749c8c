// The record format (schema "gpubench-report", docs/report-schema.json). One field list --
// the FieldList specialisations below, one per record type -- is walked by every use of the
// format: the writer, the reader, the JSON Schema and the lookup of single values that flat
// tables (CSV) use. A field is added once, there. Every raw sample is kept; doubles are
// written in the shortest form that reads back exactly, and non-finite values as null, so
// parse(render(x)) reproduces x.
#include "model/record_format.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "base/input_file.hpp"
#include "base/json_input.hpp"
#include "base/secrets.hpp"

namespace gpb {
namespace {

using Json = nlohmann::ordered_json;  // keeps the field list's order in the output
// Read documents need no key order: the plain json (std::map objects) never copies values
// while it is built, where ordered_json's vector of pairs copies whole subtrees as it grows.
using InputJson = nlohmann::json;


// ---- what a field is, beyond its C++ type ----

// How a number is checked and described: a plain number (null when not finite), a
// duration or a ratio (never negative), or raw samples (durations that are never null).
enum class Kind { plain, seconds, ratio, samples };

struct Attr {
  Kind kind = Kind::plain;
  bool conditional = false;  // written only where `written` holds: the schema does not require it
  bool written = true;
  bool identity = false;     // the reader refuses a record without it
  bool since_added = false;  // reports written before the field existed lack it: not required
  unsigned shape_kinds = 0;  // a shape field: the ShapeKinds (bits) whose shapes hold it
  const char* description = nullptr;
  std::string (*keywords)() = nullptr;  // further JSON Schema keywords (JSON text)

  Attr& only_if(bool holds) {
    conditional = true;
    written = holds;
    return *this;
  }
  Attr& about(const char* text) {
    description = text;
    return *this;
  }
  Attr& with(std::string (*schema_keywords)()) {
    keywords = schema_keywords;
    return *this;
  }
};

Attr of_kind(Kind kind) {
  Attr attr;
  attr.kind = kind;
  return attr;
}
Attr seconds() { return of_kind(Kind::seconds); }
Attr samples() { return of_kind(Kind::samples); }
Attr only_if(bool holds) { return Attr().only_if(holds); }
Attr about(const char* text) { return Attr().about(text); }
Attr identity() {
  Attr attr;
  attr.identity = true;
  return attr;
}
Attr since_added(const char* text) {
  Attr attr = about(text);
  attr.since_added = true;
  return attr;
}

// Per-sample run-queue waits: samples, written where measured, absent from older reports.
Attr sample_waits(bool measured) {
  Attr attr = since_added(
      "CPU cases: per sample and launch, how long the op's threads waited for a CPU; compare judges the samples less "
      "these where both sides have them. Absent where the kernel does not say");
  attr.kind = Kind::samples;
  return attr.only_if(measured);
}

unsigned shape_bit(ShapeKind kind) { return 1u << static_cast<unsigned>(kind); }
const ShapeKind kShapeKinds[] = {ShapeKind::elements, ShapeKind::dense_matrix, ShapeKind::sparse_matrix};

// A field of the op's shape: written where the op's shape kind is one of `kinds`.
Attr shape_field(Op op, std::initializer_list<ShapeKind> kinds) {
  Attr attr;
  for (ShapeKind kind : kinds) attr.shape_kinds |= shape_bit(kind);
  attr.conditional = true;
  attr.written = (attr.shape_kinds & shape_bit(shape_kind(op))) != 0;
  return attr;
}

// ---- the field list ----
//
// FieldList<T>::visit(visitor, record) names each field of T in the order the document
// holds them, with the visitor's four calls:
//   field(name, member, attr)   a value of the record
//   derived(name, compute, attr) written and described, computed from other fields, never read
//   group(name, body, attr)     an object holding more fields of the same record
//   slot(name, attr)            a value the document supplies beside the record (speedup)
// The record is const for the writer and the lookup, mutable for the reader.
template <class T>
struct FieldList {};

std::string id_pattern() {
  std::string dtypes;
  for (DType dtype : all_dtypes()) dtypes += (dtypes.empty() ? "" : "|") + to_string(dtype);
  return R"({"pattern": "^[^/]+/[^/]+/()" + dtypes + R"()/.+$"})";
}
std::string non_empty() { return R"({"minLength": 1})"; }
std::string at_least_one() { return R"({"minimum": 1})"; }

template <>
struct FieldList<Statistics> {
  static constexpr const char* kName = "statistics";
  template <class V, class S>
  static void visit(V& v, S& s) {
    v.field("count", s.count);
    v.field("min", s.min, seconds());
    v.field("max", s.max, seconds());
    v.field("mean", s.mean, seconds());
    v.field("median", s.median, seconds());
    v.field("stddev", s.stddev, seconds());
    v.field("rel_stddev", s.rel_stddev, of_kind(Kind::ratio));
    v.field("p5", s.p5, seconds());
    v.field("p95", s.p95, seconds());
    v.field("q1", s.q1, seconds());
    v.field("q3", s.q3, seconds());
    v.field("median_ci_low", s.median_ci_low, seconds().about("95 % distribution-free confidence interval of the median"));
    v.field("median_ci_high", s.median_ci_high, seconds());
  }
};

template <>
struct FieldList<Phase> {
  static constexpr const char* kName = "phase";
  template <class V, class P>
  static void visit(V& v, P& p) {
    v.field("name", p.kind, identity());
    v.field("samples_s", p.samples_s, samples());
    v.field("statistics", p.stats);
  }
};

template <>
struct FieldList<Roofline> {
  static constexpr const char* kName = "roofline";
  template <class V, class R>
  static void visit(V& v, R& r) {
    v.field("bound", r.bound, about("The achieved rate as a fraction of the device's ceilings; 0 = unknown"));
    v.field("ceiling_name", r.ceiling_name);
    v.field("ceiling", r.ceiling);
    v.field("fraction", r.fraction);
    v.field("theoretical_ceiling", r.theoretical_ceiling);
    v.field("theoretical_fraction", r.theoretical_fraction);
    const bool held = r.fraction_at_held_clock.has_value();
    v.field("held_sm_clock_mhz", r.held_sm_clock_mhz,
            only_if(held).about("Compute-bound GPU cases with a known SM clock: the clock the telemetry saw (median)"));
    v.field("peak_sm_clock_mhz", r.peak_sm_clock_mhz, only_if(held).about("The SM clock the peak (ceiling) was computed at"));
    v.field("fraction_at_held_clock", r.fraction_at_held_clock,
            only_if(held).about("achieved / (ceiling x held_sm_clock_mhz / peak_sm_clock_mhz)"));
    v.field("l2_resident", r.l2_resident,
            only_if(r.l2_resident).about("Memory-bound, --l2 warm, and the op's bytes fit in the L2: no DRAM ceiling applies"));
  }
};

template <>
struct FieldList<Verification> {
  static constexpr const char* kName = "verification";
  template <class V, class R>
  static void visit(V& v, R& r) {
    v.field("checked", r.checked);
    v.field("passed", r.passed);
    v.field("entries_checked", r.entries_checked);
    v.field("max_error", r.max_error);
    v.field("tolerance", r.tolerance);
    v.field("method", r.method);
  }
};

template <>
struct FieldList<FirstCall> {
  static constexpr const char* kName = "first_call";
  template <class V, class F>
  static void visit(V& v, F& f) {
    v.field("host_s", f.host_s,
            seconds().about("The case's first run in the process, before any warm-up: steady clock around the run and the "
                            "wait for it"));
    v.field("timer_s", f.timer_s, seconds().about("The case's own timer around the same run"));
    v.field("first_of_backend", f.first_of_backend,
            about("The first case of its backend in the process, on its GPU for a GPU backend: it also paid the "
                  "backend's first use there"));
  }
};

template <>
struct FieldList<HostCost> {
  static constexpr const char* kName = "host_cost";
  template <class V, class H>
  static void visit(V& v, H& h) {
    v.field("samples_s", h.samples_s,
            samples().about("Host time to issue one op, without waiting for it (GPU cases): steady clock around one run() "
                            "on an idle stream, per call"));
    v.field("statistics", h.stats);
  }
};

template <>
struct FieldList<FirstUse> {
  static constexpr const char* kName = "first_use";
  template <class V, class F>
  static void visit(V& v, F& f) {
    v.field("backend", f.backend);
    v.field("what", f.what);
    v.field("seconds", f.seconds, seconds());
  }
};

template <>
struct FieldList<OneTimeCosts> {
  static constexpr const char* kName = "one_time_costs";
  template <class V, class O>
  static void visit(V& v, O& o) {
    v.field("device", o.device, about("The GPU ordinal the context was created on: the run's first"));
    v.field("context_creation_s", o.context_creation_s,
            seconds().about("CUDA primary context creation (cudaSetDevice + cudaFree(0), the process's first calls that "
                            "create it); null where it could not be measured, context_note says why"));
    v.field("context_note", o.context_note);
    v.field("module_loading", o.module_loading, about("lazy or eager, as the driver loads modules; empty when unknown"));
    v.field("module_loading_env", o.module_loading_env, about("CUDA_MODULE_LOADING as set; empty when unset"));
    v.field("first_uses", o.first_uses,
            about("What each backend's first use in the process cost (library handles, temporary storage), once each"));
  }
};

template <>
struct FieldList<SoakSummary> {
  static constexpr const char* kName = "soak";
  template <class V, class S>
  static void visit(V& v, S& s) {
    v.field("requested_s", s.requested_s, seconds().about("--soak: the case ran untimed before measuring"));
    v.field("seconds", s.seconds, seconds());
    v.field("settled", s.settled);
  }
};

template <>
struct FieldList<TelemetrySummary> {
  static constexpr const char* kName = "telemetry";
  template <class V, class T>
  static void visit(V& v, T& t) {
    v.field("readings", t.readings,
            about("What the GPU's sensors read while the case measured (NVML); sensor figures are null where the GPU "
                  "lacks them"));
    v.field("period_s", t.period_s, seconds());
    v.field("sm_clock_min_mhz", t.sm_clock_min_mhz);
    v.field("sm_clock_median_mhz", t.sm_clock_median_mhz);
    v.field("sm_clock_max_mhz", t.sm_clock_max_mhz);
    v.field("sm_clock_limit_mhz", t.sm_clock_limit_mhz);
    v.field("mem_clock_median_mhz", t.mem_clock_median_mhz);
    v.field("power_mean_w", t.power_mean_w,
            about("nvmlDeviceGetPowerUsage, which NVML documents as a one-second average on Ampere and newer: it lags a "
                  "short case and is not the case's power (energy.power_w is)"));
    v.field("power_max_w", t.power_max_w);
    v.field("instant_power_median_w", t.instant_power_median_w,
            since_added("NVML's instantaneous power (NVML_FI_DEV_POWER_INSTANT), median over the readings; null where "
                        "the driver lacks the field"));
    v.field("instant_power_max_w", t.instant_power_max_w, since_added("NVML's instantaneous power, the highest reading"));
    v.field("temperature_max_c", t.temperature_max_c);
    v.field("clock_events", t.clock_events);
    v.field("throttled_share", t.throttled_share);
    v.field("throttle_threshold", t.throttle_threshold);
    v.field("flagged_samples", t.flagged_samples);
    v.field("discarded_samples", t.discarded_samples);
    v.field("discarded_samples_s", t.discarded_samples_s, samples());
    v.field("energy_j", t.energy_j);
    v.field("energy_window_s", t.energy_window_s, seconds());
    v.field("energy_per_op_j", t.energy_per_op_j,
            about("The energy measurement's (energy.energy_per_op_j) where the record has one; else the counter's average "
                  "power over the measuring time times the median"));
    v.field("gflops_per_j", t.gflops_per_j);
    v.field("gb_per_j", t.gb_per_j);
  }
};

template <>
struct FieldList<EnergyMeasurement> {
  static constexpr const char* kName = "energy";
  template <class V, class E>
  static void visit(V& v, E& e) {
    v.field("counter", e.counter,
            about("Energy per op from the device's energy counter read over a window of runs of the op: "
                  "nvml_total_energy for a GPU, rapl and its package zones for the CPU; empty where there is none"));
    v.field("reason", e.reason, about("Why there is no figure (no counter, not readable, a virtual machine); empty when measured"));
    v.field("update_interval_s", e.update_interval_s, seconds().about("The counter's update interval, as detected"));
    v.field("resolution_j", e.resolution_j, about("The counter's unit in joules"));
    v.field("min_window_s", e.min_window_s, seconds().about("The shortest window: 10 update intervals"));
    v.field("windows", e.windows, about("Windows pooled (one per pass)"));
    v.field("window_s", e.window_s, seconds().about("The windows' total length"));
    v.field("energy_j", e.energy_j, about("The counter's increase over the windows"));
    v.field("launches", e.launches, about("Runs of the op inside the windows, extra ones included"));
    v.field("extra_launches", e.extra_launches,
            about("Untimed runs added after the timed samples, on the same stream, to make the window long enough"));
    v.field("extra_s", e.extra_s, seconds().about("The time those runs took"));
    v.field("includes_timed_samples", e.includes_timed_samples,
            about("Whether the timed samples are inside the window; false where L2 flushes ran between them, and the "
                  "window is the untimed runs alone"));
    v.field("window_energy_per_op_j", e.window_energy_per_op_j, about("Joules per op in each window"));
    v.field("power_w", e.power_w, about("energy_j / window_s: the case's power"));
    v.field("energy_per_op_j", e.energy_per_op_j, about("energy_j / launches"));
    v.field("uncertainty_j", e.uncertainty_j,
            about("+- joules per op: (power_w x update_interval_s + 2 x resolution_j) / launches per window, or half "
                  "the spread of the windows' figures where larger, plus launch_rate_uncertainty_j"));
    v.field("launch_rate_uncertainty_j", e.launch_rate_uncertainty_j,
            about("The part of uncertainty_j from the window's mix of launch rates: power_w x |window_s / launches - "
                  "extra_s / extra_launches| where the window holds timed samples and untimed runs, else 0"));
    v.field("gflops_per_j", e.gflops_per_j);
    v.field("gb_per_j", e.gb_per_j);
  }
};

template <>
struct FieldList<CpuTelemetry> {
  static constexpr const char* kName = "cpu_telemetry";
  template <class V, class T>
  static void visit(V& v, T& t) {
    v.field("cores", t.cores,
            about("What the rest of the machine did to a CPU case's threads while it measured (host interference: "
                  "getrusage and /proc/self/task/*/schedstat and sched); figures are null where the kernel does not "
                  "report them. The cores this process may run on"));
    v.field("load_average", t.load_average, about("The highest 1-minute load average read at the start and end of measuring"));
    v.field("threads_obtained", t.threads_obtained, about("Threads of the process that ran at least 5 % of the measuring time"));
    v.field("cpu_s", t.cpu_s, seconds());
    v.field("run_queue_wait_s", t.run_queue_wait_s, seconds().about("Time the threads were runnable but waited for a CPU"));
    v.field("involuntary_switches", t.involuntary_switches);
    v.field("migrations", t.migrations, about("Moves of the threads between CPUs; null where the kernel does not say"));
    v.field("cpu_mhz_min", t.cpu_mhz_min);
    v.field("cpu_mhz_max", t.cpu_mhz_max);
    v.field("oversubscribed_samples", t.oversubscribed_samples,
            about("Timing samples during which a measuring thread was switched out involuntarily"));
  }
};

template <>
struct FieldList<GpuIdentity> {
  static constexpr const char* kName = "gpu_identity";
  template <class V, class G>
  static void visit(V& v, G& g) {
    v.field("ordinal", g.ordinal, identity());
    v.field("name", g.name);
    v.field("uuid", g.uuid);
    v.field("pci_bus_id", g.pci_bus_id);
  }
};

template <>
struct FieldList<ResultRecord> {
  static constexpr const char* kName = "result";
  template <class V, class R>
  static void visit(V& v, R& r) {
    auto& spec = r.spec;
    v.derived("id", [&] { return spec.id(); }, Attr().with(id_pattern));
    v.field("op", spec.op, identity());
    v.field("backend", spec.backend, identity().with(non_empty));
    v.field("device", r.device, identity());
    v.field("dtype", spec.dtype, identity());
    v.group("shape", [&](auto& shape) { shape_fields(shape, spec); }, identity());
    v.group("settings", [&](auto& settings) {
      settings.field("timing", spec.timing);
      settings.field("l2", spec.l2, about("GPU cases: flush (L2 evicted before each sample) or warm; null for CPU cases"));
      settings.field("tf32", spec.tf32);
      settings.field("threads", spec.threads);
      settings.field("threads_used", r.threads_used);
      settings.field("seed", spec.seed);
      settings.field("data", spec.data,
                     since_added("The inputs' value distribution (--data); absent in reports written before it was a "
                                 "setting, which read as uniform"));
      settings.field("warmup", r.warmup);
      settings.field("batch", r.batch, Attr().with(at_least_one));
      settings.field("timer", r.timer);
      settings.field("stop_reason", r.stop_reasons);
      settings.field("resolve_rounds", r.resolve_rounds,
                     since_added("Rounds of re-measurement pooled into the samples (run --resolve, gpubench ab)"));
      settings.field("measure_seconds", r.measure_seconds, seconds());
      settings.field("timing_note", r.timing_note);
      // Only where it was forced, which only cuda spmv cases can be (config/plan.cpp).
      settings.field("spmv_kernel", spec.spmv_kernel, only_if(spec.spmv_kernel != SpmvKernelChoice::automatic));
    });
    v.field("status", r.status, identity());
    v.field("reason", r.reason);
    v.field("input_distribution", r.input_distribution);
    v.field("details", r.details);
    v.field("samples_s", r.samples_s, samples());
    v.field("host_samples_s", r.host_samples_s, samples());
    v.field("sample_waits_s", r.sample_waits_s, sample_waits(!r.sample_waits_s.empty()));
    v.field("statistics", r.stats);
    v.field("host_statistics", r.host_stats);
    v.field("phases", r.phases);
    v.group("throughput", [&](auto& throughput) {
      throughput.field("bytes", r.bytes);
      throughput.field("flops", r.flops);
      throughput.field("gbps", r.gbps);
      throughput.field("gflops", r.gflops);
    });
    v.field("roofline", r.roofline);
    v.field("verification", r.verification);
    v.field("first_call", r.first_call,
            since_added("The case's first run in the process, before any warm-up; null where the case was not measured"));
    v.field("host_cost", r.host_cost,
            since_added("GPU cases: the host time to issue one op; null for CPU cases, whose work runs on the calling "
                        "thread"));
    v.field("soak", r.soak);
    v.field("telemetry", r.telemetry);
    v.field("cpu_telemetry", r.cpu_telemetry, since_added("CPU cases: host interference while measuring; null for GPU cases"));
    v.field("energy", r.energy,
            since_added("Energy per op from the device's energy counter, or why there is none; null where the case did "
                        "not measure"));
    v.slot("speedup", about("With relative_to: this backend's speed-up over that one (null where it did not measure the case)"));
    v.field("gpu", r.gpu, only_if(r.gpu.recorded()).about("GPU records: the device the case ran on"));
    v.field("rank", r.rank, only_if(r.rank >= 0).about("Merged reports: the rank that measured the record"));
    v.field("host", r.host, only_if(!r.host.empty()).about("Merged reports: that rank's host"));
  }

  // The fields of the op's shape kind; the label is derived from them.
  template <class V, class Spec>
  static void shape_fields(V& v, Spec& spec) {
    auto& shape = spec.shape;
    const Op op = spec.op;
    v.derived("label", [&] { return shape.label(op); });
    v.field("m", shape.m, shape_field(op, {ShapeKind::dense_matrix}));
    v.field("n", shape.n, shape_field(op, {ShapeKind::elements, ShapeKind::dense_matrix}));
    v.field("k", shape.k, shape_field(op, {ShapeKind::dense_matrix}));
    v.field("rows", shape.rows, shape_field(op, {ShapeKind::sparse_matrix}));
    v.field("cols", shape.cols, shape_field(op, {ShapeKind::sparse_matrix}));
    v.field("nnz", shape.nnz, shape_field(op, {ShapeKind::sparse_matrix}));
    v.field("nnz_per_row", shape.nnz_per_row, shape_field(op, {ShapeKind::sparse_matrix}));
    v.field("pattern", shape.pattern, shape_field(op, {ShapeKind::sparse_matrix}));
    Attr matrix_path = shape_field(op, {});
    matrix_path.written = !shape.matrix_path.empty();
    v.field("matrix_path", shape.matrix_path, matrix_path.about("spmv from a Matrix Market file: its path"));
  }
};

template <>
struct FieldList<GpuManagement> {
  static constexpr const char* kName = "nvml";
  template <class V, class M>
  static void visit(V& v, M& m) {
    v.field("available", m.available,
            about("The device's management state as NVML reports it (read only); false, with the reason, without NVML"));
    v.field("reason", m.reason);
    v.field("persistence_mode", m.persistence_mode);
    v.field("applications_clocks_set", m.applications_clocks_set);
    v.field("clock_limit_active", m.clock_limit_active);
    v.derived("clocks_locked", [&] { return clocks_locked(m); });
    v.field("power_limit_w", m.power_limit_w);
    v.field("max_sm_clock_mhz", m.max_sm_clock_mhz);
    v.field("max_mem_clock_mhz", m.max_mem_clock_mhz);
    v.field("ecc_enabled", m.ecc_enabled);
    v.field("mig_enabled", m.mig_enabled);
    v.field("energy_counter", m.energy_counter);
  }
};

template <>
struct FieldList<GpuInfo> {
  static constexpr const char* kName = "gpu";
  template <class V, class G>
  static void visit(V& v, G& g) {
    v.field("ordinal", g.ordinal);
    v.field("name", g.name);
    v.field("compute_capability", g.compute_capability);
    v.field("sm_count", g.sm_count);
    v.field("sm_clock_mhz", g.sm_clock_mhz);
    v.field("mem_clock_mhz", g.mem_clock_mhz);
    v.field("memory_gib", g.memory_gib);
    v.field("bus_width_bits", g.bus_width_bits);
    v.field("theoretical_bandwidth_gbps", g.theoretical_bandwidth_gbps);
    v.field("copy_gbps", g.copy_gbps,
            about("Measured device-to-device copy bandwidth (GB/s, bytes read + written); 0 when not measured"));
    v.field("peak_fp32_gflops", g.peak_fp32_gflops,
            about("Theoretical peaks (GFLOP/s) from SM count, SM clock and architecture; 0 when unknown"));
    v.field("peak_fp64_gflops", g.peak_fp64_gflops);
    v.field("peak_tf32_gflops", g.peak_tf32_gflops);
    v.field("peak_fp16_gflops", g.peak_fp16_gflops,
            since_added("Dense FP16/BF16 tensor-core peak with FP32 accumulation (the ceiling of f16 and bf16 matmul); "
                        "absent in reports written before the 16-bit dtypes"));
    v.field("l2_mib", g.l2_mib);
    v.field("ecc", g.ecc);
    v.field("driver_version", g.driver_version);
    v.field("runtime_version", g.runtime_version);
    v.field("nvml", g.nvml);
    v.field("uuid", g.uuid, only_if(!g.uuid.empty()));
    v.field("pci_bus_id", g.pci_bus_id, only_if(!g.pci_bus_id.empty()));
  }
};

template <>
struct FieldList<RankInfo> {
  static constexpr const char* kName = "rank";
  template <class V, class R>
  static void visit(V& v, R& r) {
    v.field("rank", r.rank, identity());
    v.field("local_rank", r.local_rank);
    v.field("world_size", r.world_size, about("0 when the launcher did not say"));
    v.field("launcher", r.launcher, about("slurm, openmpi, mpich, torchrun or mpi; empty when started directly"));
    v.field("host", r.host);
    v.field("node", r.node, about("The launcher's node index (SLURM_NODEID, GROUP_RANK); empty when it has none"));
    v.field("devices", r.devices, about("GPU ordinals the rank ran its GPU cases on"));
    v.field("device_schedule", r.device_schedule, about("concurrent or serial with several devices, else empty"));
  }
};

template <>
struct FieldList<Context> {
  static constexpr const char* kName = "context";
  template <class V, class C>
  static void visit(V& v, C& c) {
    v.field("tool_version", c.tool_version);
    v.field("git_sha", c.git_sha);
    v.field("build_type", c.build_type);
    v.field("compiler", c.compiler);
    v.field("argv", c.argv);
    v.field("timestamp", c.timestamp);
    v.field("hostname", c.hostname);
    v.field("os", c.os);
    v.field("cpu_model", c.cpu_model);
    v.field("cpu_cores", c.cpu_cores);
    v.field("threads", c.threads);
    v.field("memory_gib", c.memory_gib);
    v.field("cpu_copy_gbps", c.cpu_copy_gbps,
            about("Measured host copy bandwidth (GB/s, bytes read + written); 0 when not measured"));
    v.field("libraries", c.libraries);
    v.field("settings", c.settings);
    v.field("thresholds", c.thresholds);
    v.field("gpus", c.gpus);
    v.field("notes", c.notes);
    v.field("ranks", c.ranks,
            only_if(!c.ranks.empty()).about("The processes of the run: one, or one per rank in a merged report"));
    v.field("one_time_costs", c.one_time_costs,
            since_added("Runs with GPU cases: the one-time costs a fresh process pays; null otherwise"));
  }
};

template <class T, class = void>
struct HasFieldList : std::false_type {};
template <class T>
struct HasFieldList<T, std::void_t<decltype(FieldList<T>::kName)>> : std::true_type {};
template <class T>
constexpr bool kIsRecord = HasFieldList<T>::value;

// ---- enum values: what each enum field accepts, by its to_string names ----

std::vector<Op> values_of(Op) { return recorded_ops(); }
std::vector<DType> values_of(DType) { return all_dtypes(); }
std::vector<DeviceKind> values_of(DeviceKind) { return {DeviceKind::cpu, DeviceKind::gpu}; }
std::vector<Status> values_of(Status) { return {Status::ok, Status::skipped, Status::failed}; }
std::vector<TimingMode> values_of(TimingMode) { return {TimingMode::kernel, TimingMode::e2e, TimingMode::graph}; }
std::vector<L2Mode> values_of(L2Mode) { return {L2Mode::flush, L2Mode::warm}; }
std::vector<InputData> values_of(InputData) { return all_input_data(); }
std::vector<SpmvKernelChoice> values_of(SpmvKernelChoice) {
  return {SpmvKernelChoice::automatic, SpmvKernelChoice::row_split, SpmvKernelChoice::merge_path};
}
std::vector<SpmvPattern> values_of(SpmvPattern) {
  std::vector<SpmvPattern> patterns = generated_patterns();
  patterns.push_back(SpmvPattern::file);
  return patterns;
}
std::vector<PhaseKind> values_of(PhaseKind) { return all_phase_kinds(); }
std::vector<Bound> values_of(Bound) { return {Bound::memory, Bound::compute}; }

template <class E>
Json enum_schema(E) {
  Json names = Json::array();
  for (E value : values_of(E{})) names.push_back(to_string(value));
  return {{"enum", names}};
}
// Ops are the op table's, which registered ops extend: a report names any of them.
Json enum_schema(Op) { return {{"type", "string"}, {"minLength", 1}, {"description", "An op of the op table (gpubench list)"}}; }

// ---- reading: a value inside the document, with the path error messages name ----

class Node {
 public:
  Node(const InputJson& value, std::string path, const std::string& origin)
      : value_(value), path_(std::move(path)), origin_(origin) {}

  const InputJson& value() const { return value_; }

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError(origin_ + ": " + (path_.empty() ? "" : path_ + ": ") + problem);
  }

  void expect(bool holds, const char* expected) const {
    if (!holds) fail(std::string("expected ") + expected + ", got " + value_.type_name());
  }

  std::optional<Node> member(const char* key) const {
    expect(value_.is_object(), "an object");
    const auto found = value_.find(key);
    if (found == value_.end()) return std::nullopt;
    return Node(*found, path_.empty() ? key : path_ + "." + key, origin_);
  }

  Node required(const char* key) const {
    auto found = member(key);
    if (!found) fail(std::string("missing field \"") + key + "\"");
    return *found;
  }

  Node element(std::size_t index) const { return Node(value_[index], path_ + "[" + std::to_string(index) + "]", origin_); }

 private:
  const InputJson& value_;
  std::string path_;
  const std::string& origin_;
};

// Enums are matched against their to_string names, so reading accepts exactly what writing produces.
template <class E>
E enum_named(const Node& node, const std::string& text, const std::vector<E>& values) {
  std::string accepted;
  for (E value : values) {
    if (to_string(value) == text) return value;
    accepted += (accepted.empty() ? "" : ", ") + to_string(value);
  }
  node.fail("unknown value '" + text + "' (expected one of: " + accepted + ")");
}

void read_text(const Node& node, std::string& out) {
  node.expect(node.value().is_string(), "a string");
  out = node.value().get<std::string>();
}

// A number, null (a value that was not finite) reading as NaN; durations and ratios are
// never negative (a negative time would give compare a negative ratio).
void read_real(const Node& node, double& out, Kind kind) {
  node.expect(node.value().is_number() || node.value().is_null(), "a number");
  out = node.value().is_null() ? std::numeric_limits<double>::quiet_NaN() : node.value().get<double>();
  if (kind == Kind::plain || !(out < 0)) return;
  node.fail(std::string(kind == Kind::ratio ? "expected a non-negative number" : "expected a duration in seconds") + ", got " +
            node.value().dump());
}

// Reports written before settings were typed hold every setting as a string, numbers as
// std::to_string wrote them ("2.000000"). The settings that are numbers or flags now are
// read as such, so that an old baseline compares with a new run without a warning for
// every setting. A text that does not parse stays text.
void read_legacy_settings(std::map<std::string, SettingValue>& settings) {
  static const std::set<std::string> integers = {"seed", "warmup", "min_samples", "max_samples", "repetitions"};
  static const std::set<std::string> reals = {"max_noise", "min_time_s", "max_time_s", "min_sample_s"};
  for (auto& [key, value] : settings) {
    const std::string* text = std::get_if<std::string>(&value);
    if (!text) continue;
    const char* first = text->data();
    const char* last = first + text->size();
    if (integers.count(key) != 0) {
      std::uint64_t number = 0;
      const auto parsed = std::from_chars(first, last, number);
      if (parsed.ec == std::errc() && parsed.ptr == last) value = integer_setting(number);
    } else if (reals.count(key) != 0) {
      double number = 0;
      const auto parsed = std::from_chars(first, last, number);
      if (parsed.ec == std::errc() && parsed.ptr == last) value = number;
    } else if (key == "profile" && (*text == "true" || *text == "false")) {
      value = *text == "true";
    }
  }
}

// ---- the walks of the field list ----

template <class T, class = void>
struct Value;  // how a C++ type of the field list is written, read, described and flattened

// Writing: each field the record holds, in the list's order.
class Writer {
 public:
  using Slots = std::function<Json(const char* name)>;
  explicit Writer(Json& out, const Slots* slots = nullptr) : out_(out), slots_(slots) {}

  template <class T>
  void field(const char* name, const T& value, const Attr& attr = {}) {
    if (attr.written) out_[name] = Value<T>::write(value, attr.kind);
  }
  template <class Compute>
  void derived(const char* name, Compute compute, const Attr& attr = {}) {
    if (attr.written) out_[name] = Value<decltype(compute())>::write(compute(), attr.kind);
  }
  template <class Body>
  void group(const char* name, Body body, const Attr& = {}) {
    Json object = Json::object();
    Writer inner(object);
    body(inner);
    out_[name] = std::move(object);
  }
  void slot(const char* name, const Attr& = {}) {
    if (slots_ != nullptr) out_[name] = (*slots_)(name);
  }

 private:
  Json& out_;
  const Slots* slots_;
};

// Reading: fields other than a case's identity may be absent and keep their defaults;
// derived fields and slots are not read back.
class Reader {
 public:
  explicit Reader(const Node& node) : node_(node) {}

  template <class T>
  void field(const char* name, T& value, const Attr& attr = {}) {
    if (attr.identity)
      Value<T>::read(node_.required(name), value, attr.kind);
    else if (const auto member = node_.member(name))
      Value<T>::read(*member, value, attr.kind);
  }
  template <class Compute>
  void derived(const char*, Compute, const Attr& = {}) {}
  template <class Body>
  void group(const char* name, Body body, const Attr& attr = {}) {
    const auto member = attr.identity ? std::optional<Node>(node_.required(name)) : node_.member(name);
    if (!member) return;
    member->expect(member->value().is_object(), "an object");
    Reader inner(*member);
    body(inner);
  }
  void slot(const char*, const Attr& = {}) {}

 private:
  const Node& node_;
};

struct Definitions;

// Describing: each field's JSON Schema. A field written always is required, one written
// only where it applies is not, and the fields of one shape kind are required together.
class Describer {
 public:
  explicit Describer(Definitions& definitions) : definitions_(definitions) {}

  template <class T>
  void field(const char* name, const T&, const Attr& attr = {}) {
    add(name, Value<T>::schema(attr.kind, definitions_), attr);
  }
  template <class Compute>
  void derived(const char* name, Compute, const Attr& attr = {}) {
    add(name, Value<std::decay_t<std::invoke_result_t<Compute>>>::schema(attr.kind, definitions_), attr);
  }
  template <class Body>
  void group(const char* name, Body body, const Attr& attr = {}) {
    Describer inner(definitions_);
    body(inner);
    add(name, inner.object(), attr);
  }
  void slot(const char* name, const Attr& attr = {}) {
    Attr optional = attr;
    optional.conditional = true;
    add(name, {{"type", Json::array({"number", "null"})}}, optional);
  }

  Json object() const {
    Json schema = {{"type", "object"}, {"required", required_}, {"properties", properties_}};
    Json variants = Json::array();
    for (ShapeKind kind : kShapeKinds) {
      Json fields = Json::array();
      for (const auto& [name, kinds] : shape_fields_)
        if ((kinds & shape_bit(kind)) != 0) fields.push_back(name);
      variants.push_back({{"required", fields}});
    }
    if (!shape_fields_.empty()) schema["anyOf"] = variants;  // a shape holds the fields of its kind
    return schema;
  }

 private:
  void add(const char* name, Json schema, const Attr& attr) {
    if (attr.description) schema["description"] = attr.description;
    if (attr.keywords) schema.update(Json::parse(attr.keywords()));
    properties_[name] = std::move(schema);
    if (attr.shape_kinds != 0)
      shape_fields_.emplace_back(name, attr.shape_kinds);
    else if (!attr.conditional && !attr.since_added)
      required_.push_back(name);
  }

  Definitions& definitions_;
  Json properties_ = Json::object();
  Json required_ = Json::array();
  std::vector<std::pair<std::string, unsigned>> shape_fields_;
};

// The schema's definitions: one per record type, described once and referred to by name.
struct Definitions {
  Json entries = Json::object();

  template <class T>
  Json reference() {
    const std::string name = FieldList<T>::kName;
    if (!entries.contains(name)) {
      entries[name] = nullptr;  // its place, before the definitions its fields refer to
      Describer describer(*this);
      const T example{};
      FieldList<T>::visit(describer, example);
      entries[name] = describer.object();
    }
    return {{"$ref", "#/definitions/" + name}};
  }
};

// Finding one value by its path ("statistics.median"): the walk stops at the field the
// path names. Below a list of records, a segment picks the element of that name
// ("phases.h2d.statistics.median").
class Finder {
 public:
  Finder(const std::vector<std::string>& path, std::size_t depth, bool where_omitted, std::optional<RecordValue>& found)
      : path_(path), depth_(depth), where_omitted_(where_omitted), found_(found) {}

  template <class T>
  void field(const char* name, const T& value, const Attr& attr = {}) {
    if (!matches(name)) return;
    if (!attr.written && !where_omitted_)
      found_ = RecordValue();
    else if (depth_ + 1 == path_.size())
      found_ = single(value);
    else
      descend(value);
  }
  template <class Compute>
  void derived(const char* name, Compute compute, const Attr& attr = {}) {
    if (!matches(name)) return;
    if (depth_ + 1 != path_.size()) fail("is a value, not an object");
    found_ = attr.written || where_omitted_ ? single(compute()) : RecordValue();
  }
  template <class Body>
  void group(const char* name, Body body, const Attr& = {}) {
    if (!matches(name)) return;
    if (depth_ + 1 == path_.size()) fail("is an object, not a value");
    Finder inner(path_, depth_ + 1, where_omitted_, found_);
    body(inner);
  }
  void slot(const char*, const Attr& = {}) {}

 private:
  bool matches(const char* name) const { return !found_ && path_[depth_] == name; }

  template <class T, class = void>
  struct IsSingle : std::false_type {};
  template <class T>
  struct IsSingle<T, std::void_t<decltype(Value<T>::flat(std::declval<const T&>()))>> : std::true_type {};

  template <class T>
  RecordValue single(const T& value) const {
    if constexpr (IsSingle<T>::value)
      return Value<T>::flat(value);
    else
      fail("is not a single value");
  }

  [[noreturn]] void fail(const std::string& problem) const {
    std::string path;
    for (const auto& segment : path_) path += (path.empty() ? "" : ".") + segment;
    throw std::logic_error("record field '" + path + "' " + problem);
  }

  template <class T>
  void descend(const T& value) {
    if constexpr (kIsRecord<T>) {
      Finder inner(path_, depth_ + 1, where_omitted_, found_);
      FieldList<T>::visit(inner, value);
    } else if constexpr (IsOptional<T>::value) {
      if (value)
        descend(*value);
      else
        found_ = RecordValue();
    } else if constexpr (IsList<T>::value) {
      if (depth_ + 2 > path_.size()) fail("is a list, not a value");
      for (const auto& element : value) {
        std::optional<RecordValue> name;
        const std::vector<std::string> name_path{"name"};
        Finder named(name_path, 0, true, name);
        FieldList<typename T::value_type>::visit(named, element);
        if (name && *name == RecordValue(path_[depth_ + 1])) {
          Finder inner(path_, depth_ + 2, where_omitted_, found_);
          FieldList<typename T::value_type>::visit(inner, element);
          return;
        }
      }
      found_ = RecordValue();
    } else {
      fail("is a value, not an object");
    }
  }

  template <class T>
  struct IsOptional : std::false_type {};
  template <class T>
  struct IsOptional<std::optional<T>> : std::bool_constant<kIsRecord<T>> {};
  template <class T>
  struct IsList : std::false_type {};
  template <class T>
  struct IsList<std::vector<T>> : std::bool_constant<kIsRecord<T>> {};

  const std::vector<std::string>& path_;
  std::size_t depth_;
  bool where_omitted_;
  std::optional<RecordValue>& found_;
};

// ---- values ----

Json real(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// A record of the field list: an object of its fields, described once among the definitions.
template <class T>
struct Value<T, std::enable_if_t<kIsRecord<T>>> {
  static Json write(const T& value, Kind) {
    Json object = Json::object();
    Writer writer(object);
    FieldList<T>::visit(writer, value);
    return object;
  }
  static void read(const Node& node, T& out, Kind) {
    node.expect(node.value().is_object(), "an object");
    Reader reader(node);
    FieldList<T>::visit(reader, out);
  }
  static Json schema(Kind, Definitions& definitions) { return definitions.reference<T>(); }
};

template <class T>
struct Value<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static Json write(T value, Kind) { return value; }
  static void read(const Node& node, T& out, Kind) {
    const InputJson& value = node.value();
    node.expect(value.is_number_integer(), "an integer");
    const auto out_of_range = [&] { node.fail(value.dump() + " is out of range"); };
    if (value.is_number_unsigned()) {
      const auto number = value.get<std::uint64_t>();
      if (number > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) out_of_range();
      out = static_cast<T>(number);
    } else {
      const auto number = value.get<std::int64_t>();
      if constexpr (std::is_signed_v<T>) {
        if (number < std::numeric_limits<T>::min() || number > std::numeric_limits<T>::max()) out_of_range();
      } else {
        if (number < 0) out_of_range();
      }
      out = static_cast<T>(number);
    }
  }
  static Json schema(Kind, Definitions&) { return {{"type", "integer"}, {"minimum", 0}}; }
  static RecordValue flat(T value) {
    if constexpr (std::is_signed_v<T>)
      return static_cast<std::int64_t>(value);
    else
      return static_cast<std::uint64_t>(value);
  }
};

template <>
struct Value<double> {
  static Json write(double value, Kind) { return real(value); }
  static void read(const Node& node, double& out, Kind kind) { read_real(node, out, kind); }
  static Json schema(Kind kind, Definitions&) {
    Json schema = {{"type", Json::array({"number", "null"})}};
    if (kind != Kind::plain) schema["minimum"] = 0;
    if (kind == Kind::seconds) schema["description"] = "Seconds";
    return schema;
  }
  static RecordValue flat(double value) { return value; }
};

template <>
struct Value<bool> {
  static Json write(bool value, Kind) { return value; }
  static void read(const Node& node, bool& out, Kind) {
    node.expect(node.value().is_boolean(), "true or false");
    out = node.value().get<bool>();
  }
  static Json schema(Kind, Definitions&) { return {{"type", "boolean"}}; }
  static RecordValue flat(bool value) { return value; }
};

template <>
struct Value<std::string> {
  static Json write(const std::string& value, Kind) { return value; }
  static void read(const Node& node, std::string& out, Kind) { read_text(node, out); }
  static Json schema(Kind, Definitions&) { return {{"type", "string"}}; }
  static RecordValue flat(const std::string& value) { return value; }
};

template <class E>
struct Value<E, std::enable_if_t<std::is_enum_v<E>>> {
  static Json write(E value, Kind) { return to_string(value); }
  static void read(const Node& node, E& out, Kind) {
    std::string text;
    read_text(node, text);
    out = enum_named(node, text, values_of(E{}));
  }
  static Json schema(Kind, Definitions&) { return enum_schema(E{}); }
  static RecordValue flat(E value) { return to_string(value); }
};

// "converged+max_time"; "" for a case that took no samples.
template <>
struct Value<StopReasons> {
  static Json write(const StopReasons& value, Kind) { return to_string(value); }
  static void read(const Node& node, StopReasons& out, Kind) {
    std::string text;
    read_text(node, text);
    out = StopReasons();
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('+', start), text.size());
      out.add(enum_named(node, text.substr(start, end - start), all_stop_reasons()));
      start = end + 1;
    }
  }
  // Any of the reasons in their order, joined by '+', or none.
  static Json schema(Kind, Definitions&) {
    const auto& reasons = all_stop_reasons();
    std::string alternatives;
    for (std::size_t first = 0; first < reasons.size(); ++first) {
      alternatives += (first == 0 ? "" : "|") + to_string(reasons[first]);
      for (std::size_t next = first + 1; next < reasons.size(); ++next) alternatives += "(\\+" + to_string(reasons[next]) + ")?";
    }
    return {{"type", "string"}, {"pattern", "^(" + alternatives + ")?$"}};
  }
  static RecordValue flat(const StopReasons& value) { return to_string(value); }
};

// The bound of a record with measurements; "" for one without.
template <>
struct Value<std::optional<Bound>> {
  static Json write(const std::optional<Bound>& value, Kind) { return value ? to_string(*value) : ""; }
  static void read(const Node& node, std::optional<Bound>& out, Kind) {
    std::string text;
    read_text(node, text);
    out.reset();
    if (!text.empty()) out = enum_named(node, text, values_of(Bound{}));
  }
  static Json schema(Kind, Definitions&) {
    Json schema = enum_schema(Bound{});
    schema["enum"].push_back("");
    return schema;
  }
  static RecordValue flat(const std::optional<Bound>& value) { return value ? to_string(*value) : ""; }
};

// Settings keep their type: numbers as numbers, flags as booleans.
template <>
struct Value<SettingValue> {
  static Json write(const SettingValue& value, Kind) {
    return std::visit(
        [](const auto& held) -> Json {
          if constexpr (std::is_same_v<std::decay_t<decltype(held)>, double>)
            return real(held);
          else
            return Json(held);
        },
        value);
  }
  static void read(const Node& node, SettingValue& out, Kind) {
    const InputJson& value = node.value();
    if (value.is_boolean()) {
      out = value.get<bool>();
    } else if (value.is_number_unsigned()) {
      out = integer_setting(value.get<std::uint64_t>());
    } else if (value.is_number_integer()) {
      out = value.get<std::int64_t>();
    } else if (value.is_string()) {
      out = value.get<std::string>();
    } else {
      double number = 0;
      read_real(node, number, Kind::plain);  // a real, or null for a value that was not finite
      out = number;
    }
  }
  static Json schema(Kind, Definitions&) { return {{"type", Json::array({"string", "number", "boolean", "null"})}}; }
  static RecordValue flat(const SettingValue& value) {
    return std::visit([](const auto& held) -> RecordValue { return held; }, value);
  }
};

template <class T>
struct Value<std::optional<T>, std::enable_if_t<!std::is_same_v<T, Bound>>> {
  static Json write(const std::optional<T>& value, Kind kind) { return value ? Value<T>::write(*value, kind) : Json(nullptr); }
  // null reads as absent.
  static void read(const Node& node, std::optional<T>& out, Kind kind) {
    if (node.value().is_null()) {
      out.reset();
      return;
    }
    out.emplace();
    Value<T>::read(node, *out, kind);
  }
  static Json schema(Kind kind, Definitions& definitions) {
    Json schema = Value<T>::schema(kind, definitions);
    if (schema.contains("enum")) {
      schema["enum"].push_back(nullptr);
      return schema;
    }
    if (!schema.contains("type")) return {{"anyOf", Json::array({{{"type", "null"}}, schema})}};
    Json types = schema["type"].is_array() ? schema["type"] : Json::array({schema["type"]});
    // A double already admits null (a non-finite value is written as null).
    if (std::find(types.begin(), types.end(), Json("null")) == types.end()) types.push_back("null");
    schema["type"] = types;
    return schema;
  }
  template <class U = T, class = decltype(Value<U>::flat(std::declval<const U&>()))>
  static RecordValue flat(const std::optional<U>& value) {
    return value ? Value<U>::flat(*value) : RecordValue();
  }
};

template <class T>
struct Value<std::vector<T>> {
  static Json write(const std::vector<T>& values, Kind kind) {
    Json array = Json::array();
    for (const T& value : values) array.push_back(Value<T>::write(value, kind));
    return array;
  }
  static void read(const Node& node, std::vector<T>& out, Kind kind) {
    node.expect(node.value().is_array(), "an array");
    out.assign(node.value().size(), T{});
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Node item = node.element(i);
      // Every raw sample is a measured time: null here would be a sample without a measurement.
      if (kind == Kind::samples) item.expect(item.value().is_number(), "a sample time in seconds");
      Value<T>::read(item, out[i], kind == Kind::samples ? Kind::seconds : kind);
    }
  }
  static Json schema(Kind kind, Definitions& definitions) {
    if (kind == Kind::samples)
      return {{"type", "array"},
              {"items", {{"type", "number"}, {"minimum", 0}, {"description", "Seconds; readers refuse null and negative samples"}}}};
    return {{"type", "array"}, {"items", Value<T>::schema(kind, definitions)}};
  }
  template <class U = T, std::enable_if_t<std::is_same_v<U, std::string>, int> = 0>
  static RecordValue flat(const std::vector<U>& values) {
    return values;
  }
};

template <class T>
struct Value<std::map<std::string, T>> {
  static Json write(const std::map<std::string, T>& values, Kind kind) {
    Json object = Json::object();
    for (const auto& [key, value] : values) object[key] = Value<T>::write(value, kind);
    return object;
  }
  static void read(const Node& node, std::map<std::string, T>& out, Kind kind) {
    node.expect(node.value().is_object(), "an object");
    out.clear();
    for (const auto& item : node.value().items()) Value<T>::read(node.required(item.key().c_str()), out[item.key()], kind);
    if constexpr (std::is_same_v<T, SettingValue>) read_legacy_settings(out);
  }
  static Json schema(Kind kind, Definitions& definitions) {
    return {{"type", "object"}, {"additionalProperties", Value<T>::schema(kind, definitions)}};
  }
};

// What a file that is not a JSON report is, when it is another thing gpubench writes or reads
// (a CSV, Markdown or console report, an HTML page, a results database, a compressed file): the
// refusal says so and what reads it. "" for anything else.
std::string other_file_kind(const std::string& text, const std::string& origin) {
  const auto starts = [&text](const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; };
  const std::string json_report = "; this command reads a JSON report (gpubench run --out NAME.json writes one)";
  if (starts(std::string("SQLite format 3\0", 16)))
    return "a results database (SQLite), not a report: gpubench history list --db " + origin +
           " shows its runs, and gpubench compare db:" + origin + " CURRENT.json compares against them";
  if (starts("\x1f\x8b")) return "compressed (gzip): decompress it first (gunzip)";
  if (starts("id,op,backend,")) return "a CSV report" + json_report;
  if (starts("**gpubench ")) return "a Markdown report" + json_report;
  if (starts("gpubench ")) return "a console report (text)" + json_report;
  if (starts("<!DOCTYPE html") || starts("<html")) return "an HTML page" + json_report;
  return "";
}

}  // namespace

std::string render_records_json(const Context& context, const std::vector<ResultRecord>& results,
                                const RecordAdditions& additions) {
  Json report = {{"schema", kReportSchemaName}, {"schema_version", kReportSchemaVersion}};
  if (context.interrupted) report["interrupted"] = true;
  if (additions.relative_to) report["relative_to"] = *additions.relative_to;
  report["context"] = Value<Context>::write(context, Kind::plain);
  Json records = Json::array();
  for (std::size_t i = 0; i < results.size(); ++i) {
    // The speed-up column, where the document has one, fills each record's slot.
    const Writer::Slots speedup = [&](const char*) {
      const std::optional<double>& value = additions.speedups.at(i);
      return value ? real(*value) : Json(nullptr);
    };
    Json record = Json::object();
    Writer writer(record, additions.relative_to ? &speedup : nullptr);
    FieldList<ResultRecord>::visit(writer, results[i]);
    records.push_back(std::move(record));
  }
  report["results"] = std::move(records);
  // Derived from the results, so parse_json_report does not read them back.
  for (const auto& [name, json_text] : additions.sections) report[name] = Json::parse(json_text);
  // Invalid UTF-8 (say, from a system error message) becomes U+FFFD instead of an exception.
  return report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

LoadedReport parse_json_report(const std::string& text, const std::string& origin) {
  if (const std::string kind = other_file_kind(text, origin); !kind.empty()) throw UsageError(origin + ": " + kind);
  const InputJson document = parse_json_input(text, origin);
  const Node root(document, "", origin);
  if (document.is_object() && !document.contains("schema") && document.contains("groups"))
    root.fail("a suite, not a report: gpubench run --config " + origin + " runs it");
  if (!document.is_object() || !document.contains("schema"))
    root.fail(std::string("not a gpubench report (no \"schema\": \"") + kReportSchemaName + "\" field)");
  std::string schema;
  read_text(root.required("schema"), schema);
  if (schema == kHistorySchemaName)
    root.fail("a history export (gpubench history export), not a report: each run in it holds its report under "
              "\"report\"; gpubench compare db:PATH CURRENT.json compares against the database itself");
  if (schema != kReportSchemaName) root.fail("not a gpubench report (schema is '" + schema + "', expected '" + kReportSchemaName + "')");
  int version = 0;
  Value<int>::read(root.required("schema_version"), version, Kind::plain);
  if (version != kReportSchemaVersion)
    root.fail("schema version " + std::to_string(version) + " is not supported (this gpubench reads version " +
              std::to_string(kReportSchemaVersion) + ")");

  LoadedReport report;
  Value<Context>::read(root.required("context"), report.context, Kind::plain);
  // A report written before gpubench kept passwords out of it passes none on.
  for (std::string& argument : report.context.argv) argument = redact_secrets(argument);
  report.context.schema_version = version;
  if (const auto interrupted = root.member("interrupted")) Value<bool>::read(*interrupted, report.context.interrupted, Kind::plain);
  const Node results = root.required("results");
  Value<std::vector<ResultRecord>>::read(results, report.results, Kind::plain);
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const ResultRecord& record = report.results[i];
    if (!record.sample_waits_s.empty() && record.sample_waits_s.size() != record.samples_s.size())
      results.element(i).fail("\"sample_waits_s\" holds " + std::to_string(record.sample_waits_s.size()) +
                              " waits for " + std::to_string(record.samples_s.size()) +
                              " samples: it needs one per sample, or none");
  }
  return report;
}

LoadedReport read_json_report(const std::string& path) {
  return parse_json_report(read_input_file(path, kMaxReportBytes, "report"), path);
}

std::string render_records_schema(const std::vector<SectionSchema>& sections) {
  Definitions definitions;
  Json properties = {
      {"schema", {{"const", kReportSchemaName}}},
      {"schema_version", {{"const", kReportSchemaVersion}}},
      {"interrupted",
       {{"const", true},
        {"description", "SIGINT or SIGTERM stopped the run: the results are the cases finished before it (only when so)"}}},
      {"relative_to", {{"type", "string"}, {"description", "The backend each record's speedup is measured against (only when set)"}}},
      {"context", Value<Context>::schema(Kind::plain, definitions)},
      {"results", Value<std::vector<ResultRecord>>::schema(Kind::plain, definitions)}};
  for (const auto& section : sections) {
    definitions.entries[section.name] = Json::parse(section.schema_json);
    properties[section.name] = {{"$ref", "#/definitions/" + section.name}};
  }
  const Json document = {
      {"$schema", "http://json-schema.org/draft-07/schema#"},
      {"$id", "https://github.com/gpubench/gpubench/docs/report-schema.json"},
      {"title", "gpubench report"},
      {"description",
       "What `gpubench run --out r.json` writes and `gpubench compare` reads (schema version " +
           std::to_string(kReportSchemaVersion) +
           "), generated from the record format's field list (src/model/record_format.cpp); docs/report-format.md explains "
           "each field. Times are in seconds, throughput in 1e9 bytes or flops per second. null stands for a value that is "
           "not a finite number."},
      {"type", "object"},
      {"required", {"schema", "schema_version", "context", "results"}},
      {"properties", properties},
      {"definitions", definitions.entries}};
  return document.dump(2) + "\n";
}

RecordValue record_value(const ResultRecord& record, const std::string& path, bool where_omitted) {
  std::vector<std::string> segments;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    segments.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::optional<RecordValue> found;
  Finder finder(segments, 0, where_omitted, found);
  FieldList<ResultRecord>::visit(finder, record);
  if (!found) throw std::logic_error("the record format has no field '" + path + "'");
  return *found;
}

}  // namespace gpb
