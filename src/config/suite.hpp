// Suites: JSON files (configs/*.json) that list groups of cases and the run's settings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/run_options.hpp"
#include "model/result.hpp"

namespace gpb {

struct SuiteGroup {
  RunOptions options;               // ops, dtypes, sizes, backends, spmv settings
  std::optional<double> threshold;  // applies to every case of the group
};

struct Suite {
  std::string name;
  std::string description;
  // Run-wide settings by suite key, each checked against the run settings table
  // (config/settings.hpp) and held in its type; command-line flags given explicitly win.
  std::map<std::string, SettingValue> settings;
  std::map<std::string, double> thresholds;  // "*", op names, case ids (fractions, as compare takes them)
  std::vector<SuiteGroup> groups;
};

// Format:
// {"name": "...", "description": "...",
//  "settings": {"warmup": 3, "min_samples": 10, "max_samples": 1000, "max_noise": 0.01,
//               "min_time": 0.05, "max_time": 1.0, "seed": 42, "l2": "flush", "threads": 0,
//               "repetitions": 1},
//  "thresholds": {"*": 0.05, "spmv": 0.08},
//  "groups": [{"class": "square", "ops": ["sin"], "dtypes": ["f32","f64"], "sizes": ["1M", 4096], "backends": [...],
//              "timing": ["kernel","e2e"], "shapes": ["1000x333x77"], "rows": ["1M"],
//              "nnz_per_row": 16, "pattern": ["random", "skew"], "matrix": "path.mtx", "spmv_kernel": "auto", "tf32": false,
//              "threshold": 0.1}]}
// Unknown keys are errors (a typo must not silently change what runs); so are numbers that
// do not fit their setting ("warmup": 0.7, "threads": 4294967297) and thresholds outside
// compare's range. "matrix" takes one value (a string or a list of one); "pattern" a string
// or a list, like "dtypes". "class" names the group (a string) for error messages and scripts.
// Throws UsageError naming the origin and the problem.
Suite parse_suite(const std::string& text, const std::string& origin);
Suite load_suite(const std::string& path);

}  // namespace gpb
