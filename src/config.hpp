// Suites: JSON files (configs/*.json) that list groups of cases and the run's settings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan.hpp"
#include "statistics.hpp"

namespace gpb {

// Run-wide settings a suite may set; command-line flags given explicitly win.
struct SuiteSettings {
  std::optional<int> warmup;
  std::optional<std::size_t> min_samples, max_samples;
  std::optional<double> max_noise, min_time_s, max_time_s;
  std::optional<std::uint64_t> seed;
  std::optional<L2Mode> l2;
  std::optional<int> threads;
  std::optional<int> repetitions;
  std::optional<double> throttle_threshold;  // fraction of the maximum SM clock
  std::optional<bool> discard_throttled;
  std::optional<double> soak_s;
};

struct SuiteGroup {
  RunOptions options;               // ops, dtypes, sizes, backends, spmv settings
  std::optional<double> threshold;  // applies to every case of the group
};

struct Suite {
  std::string name;
  std::string description;
  SuiteSettings settings;
  std::map<std::string, double> thresholds;  // "*", op names, case ids
  std::vector<SuiteGroup> groups;
};

// Format:
// {"name": "...", "description": "...",
//  "settings": {"warmup": 3, "min_samples": 10, "max_samples": 1000, "max_noise": 0.01,
//               "min_time": 0.05, "max_time": 1.0, "seed": 42, "l2": "flush", "threads": 0,
//               "repetitions": 1, "throttle_threshold": 0.9, "discard_throttled": false, "soak": 0},
//  "thresholds": {"*": 0.05, "spmv": 0.08},
//  "groups": [{"ops": ["sin"], "dtypes": ["f32","f64"], "sizes": ["1M", 4096], "backends": [...],
//              "timing": ["kernel","e2e"], "shapes": ["1000x333x77"], "rows": ["1M"],
//              "nnz_per_row": 16, "pattern": "random", "matrix": "path.mtx", "tf32": false,
//              "threshold": 0.1}]}
// Unknown keys are errors (a typo must not silently change what runs).
// Throws UsageError naming the origin and the problem.
Suite parse_suite(const std::string& text, const std::string& origin);
Suite load_suite(const std::string& path);

}  // namespace gpb
