// Renderings of the CPU-versus-GPU speed-up summary (analysis/summary.hpp): its table and
// crossover phrases, shared by the Markdown and HTML reports and `gpubench report`, and its JSON.
#pragma once

#include <string>

#include "analysis/summary.hpp"
#include "report/report_model.hpp"

namespace gpb {

// Element counts with the binary prefixes --size reads: "16M", "96.3K", "1000".
std::string format_elements(double elements);

// "236x", "0.352x"
std::string format_speedup(double speedup);

// One phrase per crossover: "≈96.3K elements (interpolated between 64K and 256K)",
// "never: the GPU is not faster at the largest size compared, 256M", "no GPU result".
std::string describe_crossover(const SpeedupGroup& group, TimingMode timing);
// The same for the first-call view (SpeedupRow::first_call).
std::string describe_first_call_crossover(const SpeedupGroup& group);

// The energy crossover: "≈96.3K elements (interpolated between 64K and 256K)", "never: the
// GPU uses more joules per op at the largest size compared, 256M", "unknown: no CPU energy
// (no RAPL energy counter: ...)".
std::string describe_energy_crossover(const SpeedupGroup& group);
// Where some backend of the group had GPU records of both L2 modes: that its flushed ones were
// paired with the CPU and where its warm ones are ("cuda ran with the L2 flushed and warm: the
// flushed records are compared here, the warm ones in sin f32 l2warm"); empty otherwise.
std::string describe_l2_choice(const SpeedupGroup& group);

// Size, shape, best CPU, best GPU and speed-up per row; the e2e columns only when some
// row has an end-to-end GPU figure; the energy columns (lowest CPU and GPU joules per op and
// their ratio) only when some row has an energy figure.
report_model::Table speedup_table(const SpeedupGroup& group);

// Groups without any CPU-versus-GPU pair, each with the reason:
// "matmul f32 tf32 (no CPU result)". Empty when every group has a pair.
std::vector<std::string> unpaired_groups(const SpeedupSummary& summary);

// Plain text for the terminal and Markdown for reports; both list each group that has a
// pair (its crossovers, then its table) and name the others on one line.
std::string render_speedups_console(const SpeedupSummary& summary);
std::string render_speedups_markdown(const SpeedupSummary& summary);

// The JSON report's "summary" value, as JSON text (so that no header carries
// nlohmann_json): {"groups": [{op, dtype, variant, rows, crossover: {kernel, e2e}}]}.
std::string render_speedups_json(const SpeedupSummary& summary);

}  // namespace gpb
