// CPU versus GPU: for each op, dtype and variant, the best CPU and the best GPU backend at
// every size, the GPU's speed-up kernel-only and end to end, and the size from which the
// GPU wins. Computed from result records alone; the reporters render it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// The op's size in elements, comparable across ops: the op table's footprint
// (op_footprint: n for sin, sqrt and sum, m*n for matmul, nonzeros for spmv).
std::int64_t footprint_elements(Op op, const Shape& shape);

// What separates cases of one op and dtype that must not be compared with each other:
// the spmv pattern and the case's variant tags (CaseSpec::variant_tags), joined by '+'
// ("" for a plain case, "random+l2warm").
std::string comparison_variant(const CaseSpec& spec);

// The L2 mode of the GPU records a group pairs with its CPU records. CPU records have no
// L2 mode; a GPU record pairs with them in its L2 mode when its (op, dtype, variant less the
// L2, backend) has one mode in the run. Where a backend has both, its flushed records pair
// and its warm ones form a group of their own ("sin f32 l2warm", with no CPU side).
enum class GpuL2 { none, flush, warm, mixed };  // mixed: flushed for some backends, warm for others
std::string to_string(GpuL2 l2);                // "", "flush", "warm", "flush+warm"

// Records that take part in the comparison: ok, verified and with a positive median.
bool is_comparable(const ResultRecord& record);

struct BestBackend {
  std::string backend;  // CaseSpec::backend_label: "cuda", "cuda/merge_path"
  double median_s = 0;  // its median; in the first-call view, its first call
};

// The best GPU figure at one size for one timing, and how many times faster it is than the
// best CPU figure (CPU median / GPU median: above 1 the GPU wins).
struct GpuComparison {
  std::optional<BestBackend> gpu;
  std::optional<double> speedup;
};

// The lowest energy per op at one size among one device's backends (energy measured).
struct BestEnergy {
  std::string backend;
  double joules_per_op = 0;
  double uncertainty_j = 0;  // +- joules per op
};

struct SpeedupRow {
  std::int64_t size = 0;  // footprint in elements
  std::string shape;      // the op's own shape label
  // CPU backends have no transfers, so one figure serves kernel-only and end-to-end.
  std::optional<BestBackend> cpu;
  GpuComparison kernel;  // GPU op time (an e2e record's "op" phase counts too)
  GpuComparison e2e;     // GPU h2d + op + d2h
  // The first-call view, for a one-shot user who pays the first call (FirstCall::host_s,
  // the first run in the process with the wait for it): the best CPU first call against the
  // best first call of the GPU's kernel-timing records.
  std::optional<BestBackend> cpu_first_call;
  GpuComparison first_call;
  // Energy per op: CPU records and kernel-timed GPU records whose energy was measured; the
  // ratio is CPU joules over GPU joules (above 1 the GPU does the op for less energy).
  std::optional<BestEnergy> cpu_energy, gpu_energy;
  std::optional<double> energy_ratio;
};

enum class CrossoverKind {
  at,              // the GPU wins from `size` on
  never,           // the GPU does not win at the largest size compared
  always,          // the GPU wins at every size compared
  no_gpu,          // no GPU figure for this timing
  no_cpu,          // no CPU figure
  no_common_size,  // CPU and GPU figures, but never at the same size
};
std::string to_string(CrossoverKind kind);

struct Crossover {
  CrossoverKind kind = CrossoverKind::no_gpu;
  // at: the footprint from which the GPU wins; always: the smallest size compared.
  double size = 0;
  // at: found by log-log interpolation of the speed-up between the last size where the
  // GPU loses and the next one, where it wins (false only when both have one footprint).
  bool interpolated = false;
  std::int64_t last_losing_size = 0, first_winning_size = 0;  // at only
};

struct SpeedupGroup {
  Op op = Op::sin;
  DType dtype = DType::f32;
  std::string variant;           // comparison_variant of its cases (of its flushed cases, for GPU
                                 // records with the L2 warm paired with CPU records)
  std::vector<SpeedupRow> rows;  // by size, then shape label
  Crossover kernel_crossover, e2e_crossover;
  Crossover first_call_crossover;  // from which size the GPU's first call beats the CPU's
  // From what size the GPU does the op for fewer joules than the CPU: the same rule over the
  // energy ratio (no_cpu: no CPU record has an energy figure, cpu_energy_reason says why;
  // no_gpu: no GPU record has one, gpu_energy_reason says why).
  Crossover energy_crossover;
  std::string cpu_energy_reason, gpu_energy_reason;
  bool energy_known = false;  // some record of the group carries an energy measurement or a reason
  GpuL2 gpu_l2 = GpuL2::none;  // the L2 mode of the group's GPU records
  // Backends with both L2 modes whose warm records were left to a group of their own
  // (flushed ones preferred), by backend label.
  std::vector<std::string> warm_set_aside;

  std::string name() const;  // "sin f32", "spmv f64 banded", "matmul f32 tf32"
  bool contains(const CaseSpec& spec) const;
  bool has_cpu_gpu_pair() const;  // some size has both a CPU and a GPU figure
  bool has_first_calls() const;   // some row has a first call on either side
};

struct SpeedupSummary {
  std::vector<SpeedupGroup> groups;  // by op, dtype, variant

  bool has_cpu_gpu_pair() const;  // some group has one
};

const GpuComparison& comparison_for(const SpeedupRow& row, TimingMode timing);
const Crossover& crossover_for(const SpeedupGroup& group, TimingMode timing);

SpeedupSummary summarize_speedups(const std::vector<ResultRecord>& results);

}  // namespace gpb
