// Energy per op from a device's energy counter (NVML's total-energy counter for a GPU, RAPL
// through powercap for the CPU), as records and the pure rules over them: how long a window
// the counter's update interval asks for, how many untimed repeats make a short measurement
// long enough, the uncertainty a window of that length leaves, wrap-around of RAPL
// counters. Measured by measure/energy_meter.hpp beside the timed samples; reporters only
// read these records.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/telemetry.hpp"

namespace gpb {

// A cumulative energy counter: implemented over NVML by gpu_backend/, over powercap by
// measure/rapl.hpp, by fakes in tests.
class EnergyCounter {
 public:
  virtual ~EnergyCounter() = default;
  // What the report names it by: "nvml_total_energy", "rapl package-0".
  virtual std::string name() const = 0;
  // One physical counter's identity (the GPU's PCI bus id, the powercap zones): its update
  // interval is detected once per process under this key.
  virtual std::string key() const { return name(); }
  // Joules since some fixed origin, never decreasing (wrap-around undone); nullopt when a
  // read fails.
  virtual std::optional<double> read_j() = 0;
  // The counter's unit in joules (1 mJ for NVML, 1 uJ for RAPL).
  virtual double resolution_j() const = 0;
};

// A case's counter, or why it has none ("no powercap ...", "NVML: ...").
struct EnergySource {
  std::unique_ptr<EnergyCounter> counter;
  std::string reason;
};

// One case's energy: the counter read over a window that held `launches` runs of the op,
// long enough for the counter's update interval. Figures are NaN (null in JSON) where there
// is no measurement, and `reason` says why.
struct EnergyMeasurement {
  std::string counter;                       // EnergyCounter::name
  std::string reason;                        // "" when measured; else why energy_per_op_j is null
  double update_interval_s = kNotReported;   // the counter's update interval, as detected
  double resolution_j = kNotReported;        // the counter's unit
  double min_window_s = 0;                   // kEnergyWindowIntervals update intervals
  std::size_t windows = 0;                   // windows pooled (one per pass)
  double window_s = 0;                       // their total length (host steady clock)
  double energy_j = kNotReported;            // the counter's increase over them
  std::int64_t launches = 0;                 // runs of the op inside them
  // Untimed repeats run after the timed samples, on the same stream, to make a window long
  // enough; their number and time are part of launches and window_s.
  std::int64_t extra_launches = 0;
  double extra_s = 0;
  // Whether the timed samples are inside the window; false where something ran between
  // them that is not the op (L2 flushes before cold samples): the window is then the
  // untimed repeats alone.
  bool includes_timed_samples = true;
  std::vector<double> window_energy_per_op_j;  // per window, for the spread between windows
  // Derived (finish_energy): the case's power is the energy over the window, never NVML's
  // one-second average.
  double power_w = kNotReported;
  double energy_per_op_j = kNotReported;
  // +- joules per op: the counter's part (read staleness and unit, or the windows' spread)
  // plus launch_rate_uncertainty_j.
  double uncertainty_j = kNotReported;
  // The part of uncertainty_j from the window's mix of launch rates: power_w x |window_s /
  // launches - extra_s / extra_launches| where the window holds both timed samples and untimed
  // repeats, else 0. A host-bound op's timed samples (a synchronisation per sample) run at a
  // lower rate than its back-to-back repeats, the board idles in between, and how many of each
  // a window holds differs between processes (batch, sample count).
  double launch_rate_uncertainty_j = kNotReported;
  double gflops_per_j = kNotReported, gb_per_j = kNotReported;

  bool measured() const { return reason.empty() && energy_per_op_j > 0; }
};

// A window holds at least this many update intervals: a read at each end can be stale by up
// to one interval, so the energy over the window is uncertain by the power times one
// interval, at most 1/kEnergyWindowIntervals of it.
inline constexpr double kEnergyWindowIntervals = 10;
// The most untimed repeats one case runs to lengthen its window.
inline constexpr std::int64_t kMaxEnergyLaunches = std::int64_t{1} << 24;

double min_energy_window_s(double update_interval_s);

// How many runs of an op taking per_launch_s each lengthen a window of window_s to
// min_window_s: 0 when it is long enough already, else at least 1 and at most
// kMaxEnergyLaunches.
std::int64_t extra_launches_for(double window_s, double per_launch_s, double min_window_s);

// The increase of a RAPL counter (microjoules) from `before` to `after`, where the counter
// wraps to 0 after max_range_uj (powercap's max_energy_range_uj): at most one wrap is
// assumed between two reads (minutes apart at the most a package draws).
std::uint64_t rapl_increase_uj(std::uint64_t before, std::uint64_t after, std::uint64_t max_range_uj);

// The derived figures from the window: power, energy per op, its uncertainty and the
// efficiency. The uncertainty is the counter's part, per window (power x update interval + 2 x
// resolution) / launches, summed over windows, or half the spread of the windows' energies per
// op where that is larger, plus launch_rate_uncertainty (below). No figure (and a reason) where
// the counter did not move.
void finish_energy(EnergyMeasurement& energy, double flops, double bytes);

// The launch-rate part of the uncertainty (EnergyMeasurement::launch_rate_uncertainty_j): the
// window's energy per op against the energy per op at the untimed repeats' rate, at the
// window's power. 0 where the window is one kind of launch (no repeats, or no timed samples).
double launch_rate_uncertainty(const EnergyMeasurement& energy);

// Two passes of one case: windows, energies and launches added (the measurement stays absent
// unless both have one), then finish_energy again.
EnergyMeasurement merge_energy(const EnergyMeasurement& first, const EnergyMeasurement& second, double flops, double bytes);

}  // namespace gpb
