#include "config/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "base/system.hpp"
#include "base/text.hpp"
#include "fleet/launcher.hpp"
#include "model/telemetry.hpp"

namespace gpb {
namespace {

SettingSpec integer(const char* name, const char* flag, const char* suite_key, std::int64_t RunSettings::*field,
                    std::int64_t default_value, double min, double max, const char* help) {
  SettingSpec spec{name, flag, suite_key, field, default_value, help};
  spec.min = min;
  spec.max = max;
  return spec;
}

SettingSpec real(const char* name, const char* flag, const char* suite_key, double RunSettings::*field,
                 double default_value, double min, double max, const char* help) {
  SettingSpec spec{name, flag, suite_key, field, default_value, help};
  spec.min = min;
  spec.max = max;
  return spec;
}

SettingSpec with_percent_flag(SettingSpec spec) {
  spec.percent = true;
  return spec;
}

SettingSpec with_open_min(SettingSpec spec) {
  spec.min_open = true;
  return spec;
}

SettingSpec not_recorded(SettingSpec spec) {
  spec.recorded = false;
  return spec;
}

SettingSpec text(const char* name, const char* flag, const char* suite_key, SettingField field, const char* default_value,
                 std::string (*canonical_text)(const std::string&), const char* help) {
  SettingSpec spec{name, flag, suite_key, field, std::string(default_value), help};
  spec.canonical_text = canonical_text;
  return spec;
}

std::string canonical_l2(const std::string& text) { return to_string(parse_l2_mode(text)); }
std::string canonical_data(const std::string& text) { return to_string(parse_input_data(text)); }

std::string canonical_devices(const std::string& text) {
  parse_device_request(text);
  return text;
}

SettingSpec with_max_per_core(SettingSpec spec, std::int64_t most) {
  spec.max_per_core = most;
  return spec;
}

// Bounds that keep a run finite and its numbers in their types; a sample is kept in memory
// and in the report, so the sample count is bounded like the case count.
constexpr double kMaxIterations = 1e6;
constexpr double kMaxSeconds = 86400;  // per case: a day
constexpr double kMaxThreads = 1024;
constexpr std::int64_t kMaxThreadsPerCore = 8;

// Bounds and values in messages: whole numbers as integers ("1000000", not "1e+06").
std::string number_text(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e15) return std::to_string(static_cast<std::int64_t>(value));
  return to_string(SettingValue(value));
}

// The largest value the setting takes on this machine.
double upper_bound(const SettingSpec& spec) {
  if (spec.max_per_core == 0) return spec.max;
  return std::min(spec.max, static_cast<double>(spec.max_per_core) * usable_cores());
}

bool within(const SettingSpec& spec, double value) {
  return (spec.min_open ? value > spec.min : value >= spec.min) && value <= upper_bound(spec);
}

// "at least 0, at most 16", "above 0": the bounds times `scale` (100 for a percent flag).
std::string range_text(const SettingSpec& spec, double scale) {
  const double min = spec.min * scale;
  const double max = upper_bound(spec) * scale;
  std::string text;
  if (std::isfinite(min)) text = spec.min_open ? "above " + number_text(min) : "at least " + number_text(min);
  if (std::isfinite(max)) text += (text.empty() ? "at most " : ", at most ") + number_text(max);
  return text;
}

[[noreturn]] void out_of_range(const SettingSpec& spec, const std::string& where, const std::string& value, double scale) {
  // A fraction (at most 1) given as a percentage: 90 for 0.9.
  std::string hint;
  const double number = std::strtod(value.c_str(), nullptr);
  if (upper_bound(spec) * scale == 1 && number > 1 && number <= 100)
    hint = "; a fraction: did you mean " + format_short(number / 100) + "?";
  throw UsageError(where + ": " + value + " is out of range (" + range_text(spec, scale) + hint + ")");
}

}  // namespace

// The settings, in the order --help lists them. Bounds are listed for users in docs/bounds.md.
const std::vector<SettingSpec>& setting_table() {
  static const std::vector<SettingSpec> table = {
      integer("warmup", "--warmup", "warmup", &RunSettings::warmup, 3, 0, kMaxIterations, "Untimed warm-up iterations"),
      integer("min_samples", "--min-samples", "min_samples", &RunSettings::min_samples, 10, 1, kMaxIterations,
              "Minimum samples per case"),
      integer("max_samples", "--max-samples", "max_samples", &RunSettings::max_samples, 100000, 1, kMaxIterations,
              "Maximum samples per case"),
      with_open_min(with_percent_flag(real("max_noise", "--max-noise", "max_noise", &RunSettings::max_noise, 0.005, 0, 1,
                                           "Stop once the median's 95% CI half-width is under this percentage"))),
      real("min_time_s", "--min-time", "min_time", &RunSettings::min_time_s, 0.05, 0, kMaxSeconds,
           "Measure each case at least this many seconds"),
      real("max_time_s", "--max-time", "max_time", &RunSettings::max_time_s, 2.0, 0, kMaxSeconds,
           "Measure each case at most this many seconds"),
      SettingSpec{"seed", "--seed", "seed", &RunSettings::seed, std::int64_t{42}, "Seed for the inputs (0 to 2^64 - 1)"},
      text("l2", "--l2", "l2", &RunSettings::l2, "flush", canonical_l2, "flush (cold cache before each sample) or warm"),
      // Each record holds it (and its case id, unless uniform): the context need not.
      not_recorded(text("data", "--data", "data", &RunSettings::data, "uniform", canonical_data,
                        "Input values: uniform (each op's range), normal (its mean and spread), zeros or ones; named in "
                        "the case id unless uniform")),
      with_max_per_core(not_recorded(integer("threads", "--threads", "threads", &RunSettings::threads, 0, 0, kMaxThreads,
                                             "CPU threads (0: all usable cores)")),
                        kMaxThreadsPerCore),
      integer("repetitions", "--repetitions", "repetitions", &RunSettings::repetitions, 1, 1, 1000,
              "Passes over the whole plan, each with an equal share of the sampling budget"),
      not_recorded(text("device", "--device", nullptr, &RunSettings::device, "", canonical_devices,
                        "GPUs: an ordinal (0 to 1023), a list (0,2,3) or all (default 0; under srun, mpirun or torchrun "
                        "the local rank's)")),
      not_recorded(SettingSpec{"devices_serial", "--devices-serial", nullptr, &RunSettings::devices_serial, false,
                               "With several GPUs: one after the other, not all at once"}),
      not_recorded(SettingSpec{"require_gpu", "--require-gpu", "require_gpu", &RunSettings::require_gpu, false,
                               "Refuse to run (exit 2) unless the GPU backends the run names are available and "
                               "some case runs on a GPU: a GPU gate never turns into a CPU one"}),
      SettingSpec{"profile", "--profile", nullptr, &RunSettings::profile, false,
                  "Profiler session: few warm-ups and samples, capture range around measuring"},
      with_open_min(real("throttle_threshold", "--throttle-threshold", "throttle_threshold",
                         &RunSettings::throttle_threshold, kDefaultThrottleThreshold, 0, 1,
                         "Flag GPU samples taken while the SM clock was below this fraction of its maximum")),
      SettingSpec{"discard_throttled", "--discard-throttled", "discard_throttled", &RunSettings::discard_throttled, false,
                  "Leave flagged GPU samples out of the statistics"},
      real("soak_s", "--soak", "soak", &RunSettings::soak_s, 0, 0, 3600,
           "Run each case untimed up to this many seconds, until clocks and power settle, before measuring"),
      SettingSpec{"no_energy", "--no-energy", "no_energy", &RunSettings::no_energy, false,
                  "Leave energy per op out: its window of 10 counter updates (about 1 s on NVIDIA GPUs) "
                  "lengthens each shorter case"},
  };
  return table;
}

SettingValue checked(const SettingSpec& spec, const SettingValue& value, const std::string& where, double scale) {
  const std::string shown = to_string(value);
  const auto* as_signed = std::get_if<std::int64_t>(&value);
  const auto* as_unsigned = std::get_if<std::uint64_t>(&value);
  if (holds_field<std::int64_t>(spec)) {
    if (!as_signed && !as_unsigned) throw UsageError(where + ": expected an integer, got " + shown);
    if (as_unsigned || !within(spec, static_cast<double>(*as_signed))) out_of_range(spec, where, shown, 1);
    return *as_signed;
  }
  if (holds_field<std::uint64_t>(spec)) {
    if (as_unsigned) return *as_unsigned;
    if (!as_signed || *as_signed < 0)
      throw UsageError(where + ": expected an integer from 0 to 18446744073709551615, got " + shown);
    return *as_signed;
  }
  if (holds_field<double>(spec)) {
    double number = 0;
    if (const auto* as_real = std::get_if<double>(&value))
      number = *as_real;
    else if (as_signed)
      number = static_cast<double>(*as_signed);
    else if (as_unsigned)
      number = static_cast<double>(*as_unsigned);
    else
      throw UsageError(where + ": expected a number, got " + shown);
    if (!std::isfinite(number)) throw UsageError(where + ": expected a finite number, got " + shown);
    if (!within(spec, number * scale)) out_of_range(spec, where, shown, 1 / scale);
    return number * scale;
  }
  if (holds_field<bool>(spec)) {
    if (!std::holds_alternative<bool>(value)) throw UsageError(where + ": expected true or false, got " + shown);
    return value;
  }
  const auto* text = std::get_if<std::string>(&value);
  if (!text) throw UsageError(where + ": expected a string, got " + shown);
  try {
    return spec.canonical_text(*text);
  } catch (const UsageError& error) {
    throw UsageError(where + ": " + error.what());
  }
}

SettingValue from_flag_text(const SettingSpec& spec, const std::string& text) {
  const char* first = text.data();
  const char* last = first + text.size();
  const auto whole = [&](const std::from_chars_result& result) { return result.ec == std::errc() && result.ptr == last; };
  if (holds_field<std::int64_t>(spec) || holds_field<std::uint64_t>(spec)) {
    std::int64_t number = 0;
    const auto result = std::from_chars(first, last, number);
    if (whole(result)) return number;
    std::uint64_t large = 0;
    if (whole(std::from_chars(first, last, large))) return large;
    if (result.ec == std::errc::result_out_of_range && result.ptr == last) {
      if (holds_field<std::uint64_t>(spec))
        throw UsageError(std::string(spec.flag) + ": expected an integer from 0 to 18446744073709551615, got " + text);
      out_of_range(spec, spec.flag, text, 1);
    }
    // 1e3 or 100.0: a whole number written another way.
    char* end = nullptr;
    const double written = std::strtod(text.c_str(), &end);
    const bool whole_number = end == text.c_str() + text.size() && !text.empty() && std::isfinite(written) &&
                              written == std::floor(written) && written >= 0 && written < 1e15;
    throw UsageError(std::string(spec.flag) + ": expected an integer, got '" + text + "'" +
                     (whole_number ? " (did you mean " + std::to_string(static_cast<long long>(written)) + "?)" : ""));
  }
  if (holds_field<double>(spec)) {
    double number = 0;
    if (!whole(std::from_chars(first, last, number)))
      throw UsageError(std::string(spec.flag) + ": expected a number, got '" + text + "'");
    return number;
  }
  return text;
}

void store_setting(RunSettings& settings, const SettingSpec& spec, const SettingValue& value) {
  std::visit(
      [&](auto field) {
        using T = std::remove_reference_t<decltype(settings.*field)>;
        if constexpr (std::is_same_v<T, L2Mode>)
          settings.*field = parse_l2_mode(std::get<std::string>(value));
        else if constexpr (std::is_same_v<T, InputData>)
          settings.*field = parse_input_data(std::get<std::string>(value));
        else if constexpr (std::is_same_v<T, std::uint64_t>)
          settings.*field = std::holds_alternative<std::uint64_t>(value)
                                ? std::get<std::uint64_t>(value)
                                : static_cast<std::uint64_t>(std::get<std::int64_t>(value));
        else
          settings.*field = std::get<T>(value);
      },
      spec.field);
}

SettingValue value_of(const RunSettings& settings, const SettingSpec& spec) {
  return std::visit(
      [&](auto field) -> SettingValue {
        using T = std::remove_cv_t<std::remove_reference_t<decltype(settings.*field)>>;
        if constexpr (std::is_same_v<T, L2Mode> || std::is_same_v<T, InputData>)
          return to_string(settings.*field);
        else if constexpr (std::is_same_v<T, std::uint64_t>)
          return integer_setting(settings.*field);
        else
          return settings.*field;
      },
      spec.field);
}

// Rules between settings, after the merge.
void check_together(const RunSettings& settings) {
  if (settings.min_samples > settings.max_samples)
    throw UsageError("--min-samples (" + std::to_string(settings.min_samples) + ") must not exceed --max-samples (" +
                     std::to_string(settings.max_samples) + ")");
  if (settings.min_time_s > settings.max_time_s)
    throw UsageError("--min-time (" + number_text(settings.min_time_s) + " s) must not exceed --max-time (" +
                     number_text(settings.max_time_s) + " s)");
}

RunSettings default_run_settings() {
  RunSettings settings;
  for (const auto& spec : setting_table()) store_setting(settings, spec, spec.default_value);
  return settings;
}

SettingValue check_suite_setting(const std::string& key, const SettingValue& value, const std::string& where) {
  std::vector<std::string> keys;
  for (const auto& spec : setting_table()) {
    if (spec.suite_key && key == spec.suite_key) return checked(spec, value, where + "." + key);
    if (spec.suite_key) keys.push_back(spec.suite_key);
  }
  throw UsageError(where + ": " + unknown_word_message("key", key, keys));
}

}  // namespace gpb
