// The settings table: one entry per run-wide setting -- name, flag, suite key, type,
// default, bounds, help -- that drives the command-line flag (config/run_config.hpp), the
// suite's "settings" key (config/suite.hpp), the merge, validation and the typed write into
// the report context. The bounds are listed for users in docs/bounds.md.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "model/result.hpp"
#include "model/types.hpp"

namespace gpb {

// The settings the whole run shares. The defaults are the table's: start from
// default_run_settings(), not from RunSettings{}.
struct RunSettings {
  std::int64_t warmup = 0;
  std::int64_t min_samples = 0;
  std::int64_t max_samples = 0;
  double max_noise = 0;  // a fraction; --max-noise takes percent
  double min_time_s = 0;
  double max_time_s = 0;
  std::uint64_t seed = 0;
  L2Mode l2 = L2Mode::flush;
  InputData data = InputData::uniform;  // the inputs' value distribution
  std::int64_t threads = 0;  // 0: every usable core
  std::int64_t repetitions = 0;
  // GPUs: an ordinal, a list ("0,2,3") or "all"; empty: GPU 0, or the local rank's under a
  // launcher (fleet/launcher.hpp chooses).
  std::string device;
  bool devices_serial = false;  // with several GPUs: one after the other
  bool require_gpu = false;     // refuse the run unless GPU cases can run
  bool profile = false;
  double throttle_threshold = 0;  // fraction of the maximum SM clock
  bool discard_throttled = false;
  double soak_s = 0;
  bool no_energy = false;  // leave energy per op out (its window lengthens short cases)
};

RunSettings default_run_settings();

// Checks one entry of a suite's "settings" object (where: "suite.json: settings") against
// the table and returns it in its setting's type; UsageError for an unknown key, a value of
// the wrong type ("warmup": 0.7) or one out of bounds.
SettingValue check_suite_setting(const std::string& key, const SettingValue& value, const std::string& where);

using SettingField = std::variant<std::int64_t RunSettings::*, std::uint64_t RunSettings::*, double RunSettings::*,
                                  bool RunSettings::*, L2Mode RunSettings::*, InputData RunSettings::*,
                                  std::string RunSettings::*>;

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// One run-wide setting. Numbers are bounded by [min, max] (min excluded when min_open);
// an integer with max_per_core is also held to that many per usable core.
struct SettingSpec {
  const char* name;       // key in the report context's settings
  const char* flag;       // command-line flag
  const char* suite_key;  // key in a suite's "settings"; nullptr: command line only
  SettingField field;
  SettingValue default_value;
  const char* help;
  double min = -kUnbounded, max = kUnbounded;
  bool min_open = false;
  bool percent = false;            // the flag takes percent; the suite and the report a fraction
  std::int64_t max_per_core = 0;
  bool recorded = true;            // written into the report context's settings
  // Text settings: the value as stored, or UsageError for one the setting does not take.
  std::string (*canonical_text)(const std::string& text) = nullptr;
};

// The settings, in the order --help lists them.
const std::vector<SettingSpec>& setting_table();

template <class T>
bool holds_field(const SettingSpec& spec) {
  return std::holds_alternative<T RunSettings::*>(spec.field);
}

inline bool is_switch(const SettingSpec& spec) { return holds_field<bool>(spec); }

// The value in its setting's type, or UsageError naming `where`. `scale` converts the
// value's unit to the setting's (1/100 for a percent flag); messages use the value's unit.
SettingValue checked(const SettingSpec& spec, const SettingValue& value, const std::string& where, double scale = 1);

// A flag's text as a value of its setting's kind. The whole text must be one decimal number
// that fits a double or a 64-bit integer ("2s", "0x10", "1e999" are refused, not guessed
// at); "nan" and "inf" parse, and checked() refuses them.
SettingValue from_flag_text(const SettingSpec& spec, const std::string& text);

// Stores a checked value into its field, and reads a field back as the report holds it.
void store_setting(RunSettings& settings, const SettingSpec& spec, const SettingValue& value);
SettingValue value_of(const RunSettings& settings, const SettingSpec& spec);

// Rules between settings, after the merge: UsageError when one is broken.
void check_together(const RunSettings& settings);

}  // namespace gpb
